// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// LatestValue (triple buffer): newest-value semantics on one thread; then a writer and a reader
// thread, checking that no value read is torn and that sequence numbers never go backwards.
#include "rtmb/runtime/latest_value.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>

#include "rtmb/runtime/spsc_ring.hpp"

namespace rtmb {
namespace {

constexpr std::uint64_t kStressValues = 1'000'000;

// Every field equals seq; a torn copy would mix two values. 256 bytes, several cache lines.
struct Wide {
  std::uint64_t seq = 0;
  std::array<std::uint64_t, 31> fields{};
};

Wide make_wide(std::uint64_t seq) {
  Wide w;
  w.seq = seq;
  w.fields.fill(seq);
  return w;
}

bool consistent(const Wide& w) {
  for (std::uint64_t f : w.fields) {
    if (f != w.seq) return false;
  }
  return true;
}

TEST(LatestValue, ReaderGetsOnlyNewValuesAndTheNewestOfThem) {
  LatestValue<int> slot;
  int out = -1;
  EXPECT_FALSE(slot.try_read(out));  // nothing published yet
  EXPECT_EQ(out, -1);

  slot.publish(1);
  ASSERT_TRUE(slot.try_read(out));
  EXPECT_EQ(out, 1);
  EXPECT_FALSE(slot.try_read(out));  // already read
  EXPECT_EQ(out, 1);

  slot.publish(2);
  slot.publish(3);
  slot.publish(4);
  ASSERT_TRUE(slot.try_read(out));
  EXPECT_EQ(out, 4);  // 2 and 3 were overwritten, as intended
  EXPECT_FALSE(slot.try_read(out));
  EXPECT_EQ(slot.published(), 4u);
}

TEST(LatestValue, InPlaceWriteThenCommitPublishes) {
  LatestValue<Wide> slot;
  for (std::uint64_t seq = 1; seq <= 5; ++seq) {
    Wide& w = slot.back();
    w = make_wide(seq);
    slot.commit();
    Wide out;
    ASSERT_TRUE(slot.try_read(out));
    EXPECT_EQ(out.seq, seq);
    EXPECT_TRUE(consistent(out));
  }
}

TEST(LatestValue, TwoThreadsNeverTornNeverBackwards) {
  auto slot = std::make_unique<LatestValue<Wide>>();
  std::thread writer([&] {
    for (std::uint64_t seq = 1; seq <= kStressValues; ++seq) slot->publish(make_wide(seq));
  });

  std::uint64_t last = 0;
  std::uint64_t reads = 0;
  bool torn = false;
  bool backwards = false;
  Wide out;
  while (last < kStressValues) {
    while (!slot->try_read(out)) std::this_thread::yield();
    ++reads;
    torn = torn || !consistent(out);
    backwards = backwards || out.seq <= last;  // each successful read is strictly newer
    last = out.seq;
  }
  writer.join();

  EXPECT_FALSE(torn);
  EXPECT_FALSE(backwards);
  EXPECT_EQ(last, kStressValues);  // the final value is always delivered
  EXPECT_GT(reads, 0u);
  EXPECT_EQ(slot->published(), kStressValues);
  EXPECT_FALSE(slot->try_read(out));
}

// Compile-time contract, checked by building this file (not a run-time test): every operation
// the simulation thread calls is noexcept.
static_assert(noexcept(std::declval<LatestValue<Wide>&>().publish(std::declval<const Wide&>())));
static_assert(noexcept(std::declval<LatestValue<Wide>&>().try_read(std::declval<Wide&>())));
static_assert(noexcept(std::declval<LatestValue<Wide>&>().commit()));

}  // namespace
}  // namespace rtmb
