// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// InputChannelBank on the simulation thread never allocates: 100 000 ticks of receive/advance
// over channels of every kind and policy, with a traffic pattern that walks every path (fresh
// samples, single losses, gaps long enough for safe state and the watchdog ramp, non-finite
// values, unknown channels, sender-time regressions, the SimulationRunner hook adapter).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "rtmb/runtime/input_channels.hpp"
#include "tests/support/alloc_counter.hpp"

namespace rtmb {
namespace {

using testing::AllocationCounts;
using testing::AllocationScope;

constexpr std::int64_t kTicks = 100'000;
constexpr std::int64_t kPeriodNs = 1'000'000;

TEST(InputChannelAllocations, HundredThousandTicksOfReceiveAndAdvanceAllocateNothing) {
  // setup: the only place anything may allocate
  std::vector<InputChannelConfig> configs;
  for (InputKind kind :
       {InputKind::kForce, InputKind::kTorque, InputKind::kPosition, InputKind::kCommand}) {
    for (MissPolicy policy : {MissPolicy::kHold, MissPolicy::kExtrapolate, MissPolicy::kDecay}) {
      InputChannelConfig c;
      c.kind = kind;
      c.policy = policy;
      c.safe_after_misses = 5;
      c.min_value = -10.0;
      c.max_value = 10.0;
      configs.push_back(c);
    }
  }
  InputBankConfig bc;
  bc.period_ns = kPeriodNs;
  InputChannelBank bank(configs, bc);
  const auto n = static_cast<std::uint32_t>(bank.channel_count());
  const double nan = std::numeric_limits<double>::quiet_NaN();

  double checksum = 0.0;
  AllocationCounts counts;
  {
    AllocationScope scope;
    for (std::int64_t k = 0; k < kTicks; ++k) {
      const std::int64_t t = k * kPeriodNs;
      // traffic: a 40-tick gap every 1000 ticks (safe state, watchdog), single losses otherwise
      const bool gap = k % 1000 >= 960;
      for (std::uint32_t ch = 0; ch < n; ++ch) {
        if (gap || (k + ch) % 7 == 0) continue;
        bank.receive(ch, 5.0 * std::sin(1e-3 * static_cast<double>(k + ch)), t, t);
      }
      if (k % 97 == 0) bank.receive(0, nan, t, t);
      if (k % 89 == 0) bank.receive(n + 3, 1.0, t, t);
      if (k % 83 == 0 && k > 0) bank.receive(1, 1.0, t - 5 * kPeriodNs, t);
      if (k % 101 == 0) InputChannelBank::hook(&bank, QueuedInput{2, 0, 0.5, 1, t});
      bank.advance(t);
      for (std::uint32_t ch = 0; ch < n; ++ch) checksum += bank.value(static_cast<int>(ch));
    }
    counts = scope.counts();
  }
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 0u);

  // the traffic did walk the interesting paths
  EXPECT_TRUE(std::isfinite(checksum));
  EXPECT_EQ(bank.counters().ticks, kTicks);
  EXPECT_GT(bank.counters().non_finite, 0);
  EXPECT_GT(bank.counters().unknown_channel, 0);
  EXPECT_GT(bank.counters().time_regressions, 0);
  EXPECT_GT(bank.channel_counters(0).watchdog_ramps, 0);
  EXPECT_GT(bank.channel_counters(6).safe_state_entries, 0);
}

}  // namespace
}  // namespace rtmb
