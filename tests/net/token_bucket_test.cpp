// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The input rate limit's token bucket (net/token_bucket.hpp): a burst, a refill at the rate, and
// no loss when an arrival time steps back (a batch whose clock offset was read across a
// preemption; the CI run of 2026-11-29 under load accepted 7 of a 10-input burst).

#include "net/token_bucket.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace rtmb {
namespace {

constexpr std::int64_t kMs = 1'000'000;  // [ns]

TEST(TokenBucket, ABurstPassesThenTheRateRefills) {
  TokenBucket b;
  int taken = 0;
  for (int i = 0; i < 20; ++i) taken += b.take(100.0, 10.0, 5 * kMs) ? 1 : 0;
  EXPECT_EQ(taken, 10);                                  // the burst, all at one instant
  EXPECT_FALSE(b.take(100.0, 10.0, 5 * kMs + 9 * kMs));  // 0.9 tokens at 100/s after 9 ms
  EXPECT_TRUE(b.take(100.0, 10.0, 5 * kMs + 10 * kMs));  // 1.0 after 10 ms
}

TEST(TokenBucket, AnArrivalTimeThatStepsBackTakesNoTokenAway) {
  TokenBucket b;
  ASSERT_TRUE(b.take(100.0, 10.0, 100 * kMs));  // 9 left
  // 30 ms earlier: at 100/s the old rule subtracted 3 tokens and passed only 6 more
  int taken = 0;
  for (int i = 0; i < 20; ++i) taken += b.take(100.0, 10.0, 70 * kMs) ? 1 : 0;
  EXPECT_EQ(taken, 9);
  // and the clock does not restart from the earlier time: 10 ms after the latest (100 ms) is
  // one token, not the four that 40 ms after 70 ms would give
  int later = 0;
  for (int i = 0; i < 5; ++i) later += b.take(100.0, 10.0, 110 * kMs) ? 1 : 0;
  EXPECT_EQ(later, 1);
}

}  // namespace
}  // namespace rtmb
