// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The loop clocks: FakeClock's jump-to-deadline semantics, and MonotonicClock's guarantee that
// sleep_until never returns before the deadline (an ordering property, not a timing one).
#include "rtmb/runtime/monotonic_clock.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace rtmb {
namespace {

TEST(RuntimeClock, FakeClockJumpsToDeadlinesAndAdvancesOnRequest) {
  FakeClock clock(100);
  EXPECT_EQ(clock.now(), 100);
  clock.sleep_until(250);
  EXPECT_EQ(clock.now(), 250);
  clock.sleep_until(200);  // already passed: no jump back
  EXPECT_EQ(clock.now(), 250);
  clock.advance(50);
  EXPECT_EQ(clock.now(), 300);
  clock.advance(-10);  // ignored
  EXPECT_EQ(clock.now(), 300);
  clock.set_wake_latency(7);
  clock.sleep_until(400);
  EXPECT_EQ(clock.now(), 407);
  EXPECT_EQ(clock.sleeps(), 3u);
}

TEST(RuntimeClock, MonotonicClockNeverGoesBackwards) {
  MonotonicClock clock;
  std::int64_t previous = clock.now();
  EXPECT_GT(previous, 0);
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t t = clock.now();
    ASSERT_GE(t, previous);
    previous = t;
  }
}

TEST(RuntimeClock, MonotonicSleepUntilReturnsAtOrAfterTheDeadline) {
  for (std::int64_t spin_ns : {std::int64_t{0}, std::int64_t{50'000}}) {
    MonotonicClock clock(spin_ns);
    EXPECT_EQ(clock.spin_ns(), spin_ns);
    for (int i = 0; i < 5; ++i) {
      const std::int64_t deadline = clock.now() + 300'000;
      clock.sleep_until(deadline);
      EXPECT_GE(clock.now(), deadline);
    }
    // a deadline in the past returns at once (no sleep to wait for)
    const std::int64_t past = clock.now() - 1'000'000;
    clock.sleep_until(past);
    EXPECT_GE(clock.now(), past);
  }
  EXPECT_EQ(MonotonicClock(-5).spin_ns(), 0);
}

}  // namespace
}  // namespace rtmb
