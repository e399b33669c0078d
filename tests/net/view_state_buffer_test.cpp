// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The live view's full-position hand-off (net/view_state_buffer.hpp): the newest value wins,
// nothing beyond the capacity is written, and a value is never torn while the writer runs.
#include "net/view_state_buffer.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace rtmb {
namespace {

TEST(ViewStateBuffer, TheReaderGetsTheNewestValueOnce) {
  ViewStateBuffer buffer(4);
  ViewStateRecord r;
  EXPECT_FALSE(buffer.take(r));  // nothing published yet
  const std::vector<double> a{1.0, 2.0, 3.0, 4.0};
  const std::vector<double> b{5.0, 6.0, 7.0, 8.0};
  buffer.publish(0.5, 10, 1, DragState{}, a.data(), a.size());
  DragState drag;
  drag.active = true;
  drag.force = {1.0, -2.0, 0.0};
  drag.point = {0.5, 0.25, 0.0};
  drag.release_t = 0.7;
  buffer.publish(0.75, 11, 2, drag, b.data(), b.size());  // replaces a before the reader came
  ASSERT_TRUE(buffer.take(r));
  EXPECT_EQ(r.t, 0.75);
  EXPECT_EQ(r.step, 11u);
  EXPECT_EQ(r.epoch, 2u);
  ASSERT_EQ(r.n_q, 4u);
  EXPECT_EQ(std::vector<double>(r.q, r.q + 4), b);
  // the mouse spring of the same publish as t: a frame draws both from one tick
  EXPECT_TRUE(r.drag.active);
  EXPECT_EQ(r.drag.force, drag.force);
  EXPECT_EQ(r.drag.point, drag.point);
  EXPECT_EQ(r.drag.release_t, 0.7);
  ViewStateRecord again;
  EXPECT_FALSE(buffer.take(again));  // no newer value
}

// A model with more coordinates than the buffer was sized for (a `load`): its first capacity()
// coordinates, and its true count, so that the reader knows the rest is missing.
TEST(ViewStateBuffer, KeepsAtMostItsCapacityAndTheTrueCount) {
  ViewStateBuffer buffer(3);
  const std::vector<double> q{1.0, 2.0, 3.0, 4.0, 5.0};
  buffer.publish(0.0, 0, 0, DragState{}, q.data(), q.size());
  ViewStateRecord r;
  ASSERT_TRUE(buffer.take(r));
  EXPECT_EQ(r.n_q, 5u);
  EXPECT_EQ(std::vector<double>(r.q, r.q + 3), (std::vector<double>{1.0, 2.0, 3.0}));
}

// The writer publishes q[i] = k + i for k = 1, 2, ...; every value the reader takes must be one
// publish whole (q[i] - q[0] == i for all i, t == q[0] and the drag's force and release time
// k) and newer than the last one it took.
TEST(ViewStateBuffer, ValuesAreNeverTornWhileTheWriterRuns) {
  constexpr std::size_t n = 3000;  // the 1000-body chain's coordinates
  constexpr int publishes = 20000;
  ViewStateBuffer buffer(n);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    std::vector<double> q(n);
    DragState drag;
    for (int k = 1; k <= publishes; ++k) {
      for (std::size_t i = 0; i < n; ++i) q[i] = k + static_cast<double>(i);
      drag.force = {static_cast<double>(k), 0.0, 0.0};
      drag.release_t = k;
      buffer.publish(k, static_cast<std::uint64_t>(k), 0, drag, q.data(), n);
    }
    done = true;
  });
  int taken = 0;
  int torn = 0;
  double last = 0.0;
  bool increasing = true;
  ViewStateRecord r;
  for (;;) {
    const bool finished = done.load();
    while (buffer.take(r)) {
      ++taken;
      for (std::size_t i = 0; i < n; i += 97) torn += r.q[i] - r.q[0] != static_cast<double>(i);
      torn += r.q[n - 1] - r.q[0] != static_cast<double>(n - 1);
      torn += r.t != r.q[0];
      torn += r.drag.force[0] != r.t || r.drag.release_t != r.t;
      increasing = increasing && r.t > last;
      last = r.t;
    }
    if (finished) break;
  }
  writer.join();
  EXPECT_GT(taken, 0);
  EXPECT_EQ(torn, 0);
  EXPECT_TRUE(increasing);
  EXPECT_EQ(last, publishes);  // the last value is always delivered
}

}  // namespace
}  // namespace rtmb
