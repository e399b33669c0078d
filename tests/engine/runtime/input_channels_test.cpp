// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// InputChannelBank with explicit tick and sender times (no clock): each late/lost policy (hold,
// extrapolate with its horizon, decay), safe state after exactly K misses and recovery, clamping,
// the force/torque watchdog (issue 3, acceptance point 3: zero within threshold + 10 ms, monotone,
// position not ramped, clean restart), rejected samples, config validation and the
// SimulationRunner hook adapter.
#include "rtmb/runtime/input_channels.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "rtmb/models/mechanisms.hpp"
#include "tests/support/runner_rig.hpp"

namespace rtmb {
namespace {

constexpr std::int64_t kPeriodNs = 1'000'000;  // 1 kHz ticks
constexpr std::int64_t kMs = 1'000'000;
// the sender's clock has its own origin; only differences of sender times may matter
constexpr std::int64_t kSenderOrigin = 987'654'321'000;

constexpr std::int64_t tick_ns(std::int64_t k) {
  return k * kPeriodNs;
}

InputChannelConfig channel(InputKind kind, MissPolicy policy) {
  InputChannelConfig c;
  c.kind = kind;
  c.policy = policy;
  return c;
}

// Advances the bank to now_ns and returns channel 0's value.
double value_after(InputChannelBank& bank, std::int64_t now_ns) {
  bank.advance(now_ns);
  return bank.value(0);
}

InputChannelBank make_bank(const std::vector<InputChannelConfig>& channels,
                           const InputBankConfig& config = {}) {
  return InputChannelBank(channels, config);
}

// --- policies --------------------------------------------------------------------------------

TEST(InputChannelPolicy, HoldKeepsTheLastValue) {
  auto bank = make_bank({channel(InputKind::kPosition, MissPolicy::kHold)});
  EXPECT_EQ(bank.value(0), 0.0);  // initial_value before anything

  bank.receive(0, 1.5, kSenderOrigin);
  EXPECT_EQ(value_after(bank, tick_ns(0)), 1.5);
  EXPECT_EQ(bank.mode(0), InputChannelMode::kFresh);

  for (int k = 1; k <= 50; ++k) {
    ASSERT_EQ(value_after(bank, tick_ns(k)), 1.5) << "tick " << k;
    ASSERT_EQ(bank.mode(0), InputChannelMode::kPolicy);
  }
  const InputChannelCounters n = bank.channel_counters(0);
  EXPECT_EQ(n.samples, 1);
  EXPECT_EQ(n.fresh_ticks, 1);
  EXPECT_EQ(n.missed_ticks, 50);
  EXPECT_EQ(n.consecutive_misses, 50);
  EXPECT_EQ(n.safe_state_entries, 0);
  EXPECT_EQ(n.watchdog_ramps, 0);
}

TEST(InputChannelPolicy, ExtrapolationContinuesALinearRampExactlyUpToTheHorizon) {
  InputChannelConfig c = channel(InputKind::kCommand, MissPolicy::kExtrapolate);
  c.extrapolate_horizon_ns = 5 * kMs;
  auto bank = make_bank({c});

  // v = 0.25 per ms, one sample per tick, for 10 ticks
  constexpr double kSlopePerTick = 0.25;
  for (int k = 0; k < 10; ++k) {
    bank.receive(0, kSlopePerTick * k, kSenderOrigin + k * kMs);
    ASSERT_EQ(value_after(bank, tick_ns(k)), kSlopePerTick * k);
  }
  // then the stream stops: the line continues for 5 ms of tick time, then holds
  for (int k = 10; k <= 30; ++k) {
    bank.advance(tick_ns(k));
    const int steps = std::min(k - 9, 5);
    ASSERT_DOUBLE_EQ(bank.value(0), kSlopePerTick * (9 + steps)) << "tick " << k;
    ASSERT_EQ(bank.mode(0), InputChannelMode::kPolicy);
  }
}

TEST(InputChannelPolicy, ExtrapolationSlopeComesFromSenderTimestamps) {
  // two samples 2 ms apart on the sender's clock, consumed by the same tick: the slope is
  // 1.0 / 2 ms, whatever the ticks that delivered them
  auto bank = make_bank({channel(InputKind::kCommand, MissPolicy::kExtrapolate)});
  bank.receive(0, 3.0, kSenderOrigin);
  bank.receive(0, 4.0, kSenderOrigin + 2 * kMs);
  EXPECT_EQ(value_after(bank, tick_ns(0)), 4.0);
  EXPECT_DOUBLE_EQ(value_after(bank, tick_ns(1)), 4.5);
  EXPECT_DOUBLE_EQ(value_after(bank, tick_ns(2)), 5.0);
}

TEST(InputChannelPolicy, ExtrapolationWithOneSampleHolds) {
  auto bank = make_bank({channel(InputKind::kCommand, MissPolicy::kExtrapolate)});
  bank.receive(0, -2.0, kSenderOrigin);
  bank.advance(tick_ns(0));
  EXPECT_EQ(value_after(bank, tick_ns(1)), -2.0);
}

TEST(InputChannelPolicy, ExtrapolationNeverProducesANonFiniteValue) {
  // finite samples whose difference overflows: the channel holds instead of emitting Inf
  auto bank = make_bank({channel(InputKind::kCommand, MissPolicy::kExtrapolate)});
  const double big = std::numeric_limits<double>::max();
  bank.receive(0, -big, kSenderOrigin);
  bank.receive(0, big, kSenderOrigin + 1);
  bank.advance(0);
  EXPECT_EQ(value_after(bank, tick_ns(1)), big);

  // sender times at the ends of the int64 range: no overflow in the span
  bank.receive(0, 1.0, std::numeric_limits<std::int64_t>::min());
  bank.receive(0, 2.0, std::numeric_limits<std::int64_t>::max());
  bank.advance(tick_ns(2));
  EXPECT_NEAR(value_after(bank, tick_ns(3)), 2.0, 1e-9);
}

TEST(InputChannelPolicy, DecayFollowsExpMinusTOverTau) {
  InputChannelConfig c = channel(InputKind::kCommand, MissPolicy::kDecay);
  c.decay_tau_ns = 7 * kMs;
  auto bank = make_bank({c});
  bank.receive(0, -3.0, kSenderOrigin);
  EXPECT_EQ(value_after(bank, tick_ns(4)), -3.0);
  for (int k = 5; k <= 100; ++k) {
    bank.advance(tick_ns(k));
    const double t_over_tau = static_cast<double>((k - 4) * kMs) / (7.0 * kMs);
    ASSERT_NEAR(bank.value(0), -3.0 * std::exp(-t_over_tau), 1e-12) << "tick " << k;
  }
}

TEST(InputChannelPolicy, SafeStateAfterExactlyKConsecutiveMissesUntilAFreshSample) {
  InputChannelConfig c = channel(InputKind::kPosition, MissPolicy::kHold);
  c.safe_after_misses = 4;
  c.safe_value = -1.0;
  auto bank = make_bank({c});

  bank.receive(0, 3.0, kSenderOrigin);
  bank.advance(tick_ns(0));
  for (int k = 1; k <= 3; ++k) {
    ASSERT_EQ(value_after(bank, tick_ns(k)), 3.0) << "tick " << k;
    ASSERT_EQ(bank.mode(0), InputChannelMode::kPolicy);
  }
  bank.advance(tick_ns(4));  // the 4th consecutive miss
  EXPECT_EQ(bank.value(0), -1.0);
  EXPECT_EQ(bank.mode(0), InputChannelMode::kSafe);
  for (int k = 5; k <= 20; ++k) {
    ASSERT_EQ(value_after(bank, tick_ns(k)), -1.0);
  }
  EXPECT_EQ(bank.channel_counters(0).safe_state_entries, 1);

  // recovery: a fresh sample ends safe state at once, and the count starts again
  bank.receive(0, 2.0, kSenderOrigin + 21 * kMs);
  EXPECT_EQ(value_after(bank, tick_ns(21)), 2.0);
  EXPECT_EQ(bank.mode(0), InputChannelMode::kFresh);
  EXPECT_EQ(bank.channel_counters(0).consecutive_misses, 0);
  for (int k = 22; k <= 24; ++k) {
    ASSERT_EQ(value_after(bank, tick_ns(k)), 2.0);
  }
  EXPECT_EQ(value_after(bank, tick_ns(25)), -1.0);
  EXPECT_EQ(bank.channel_counters(0).safe_state_entries, 2);
}

TEST(InputChannelPolicy, SafeAfterZeroMissesIsDisabled) {
  auto bank = make_bank({channel(InputKind::kCommand, MissPolicy::kHold)});
  bank.receive(0, 1.0, kSenderOrigin);
  for (int k = 0; k < 1000; ++k) bank.advance(tick_ns(k));
  EXPECT_EQ(bank.value(0), 1.0);
  EXPECT_EQ(bank.channel_counters(0).safe_state_entries, 0);
}

TEST(InputChannelPolicy, ValuesAreClampedToTheLimits) {
  InputChannelConfig c = channel(InputKind::kCommand, MissPolicy::kExtrapolate);
  c.min_value = -1.0;
  c.max_value = 2.0;
  c.extrapolate_horizon_ns = 100 * kMs;
  auto bank = make_bank({c});

  bank.receive(0, 5.0, kSenderOrigin);
  EXPECT_EQ(value_after(bank, tick_ns(0)), 2.0);
  bank.receive(0, -7.0, kSenderOrigin + kMs);
  EXPECT_EQ(value_after(bank, tick_ns(1)), -1.0);

  // extrapolation inside the limits, then into the upper one
  bank.receive(0, 0.0, kSenderOrigin + 2 * kMs);
  bank.receive(0, 0.5, kSenderOrigin + 3 * kMs);
  EXPECT_EQ(value_after(bank, tick_ns(2)), 0.5);
  EXPECT_DOUBLE_EQ(value_after(bank, tick_ns(3)), 1.0);
  for (int k = 4; k < 20; ++k) bank.advance(tick_ns(k));
  EXPECT_EQ(bank.value(0), 2.0);
}

// --- watchdog (acceptance point 3) -----------------------------------------------------------

// One bank with a held force and a held torque (the policy that would keep pushing for ever), a
// decaying force, an extrapolating force (rising when the stream stops: the policy that would
// push harder) and a held position, all streamed at 1 kHz until tick 99 and then silent. Forces
// and torque must reach exactly zero by last fresh tick + 3 ms (threshold) + 10 ms (ramp); the
// held and decaying ones never grow in magnitude after the stop, the extrapolating one never
// after its ramp started; the position must not move.
TEST(InputChannelWatchdog, StaleForceAndTorqueRampToExactlyZeroWithinThresholdPlusTenMs) {
  const std::vector<InputChannelConfig> configs = {
      channel(InputKind::kForce, MissPolicy::kHold),
      channel(InputKind::kTorque, MissPolicy::kHold),
      channel(InputKind::kForce, MissPolicy::kDecay),
      channel(InputKind::kForce, MissPolicy::kExtrapolate),
      channel(InputKind::kPosition, MissPolicy::kHold),
  };
  constexpr int kWatched = 4;
  InputBankConfig bc;
  bc.period_ns = kPeriodNs;
  bc.watchdog_ramp_ns = 10 * kMs;
  auto bank = make_bank(configs, bc);
  ASSERT_EQ(bank.stale_after_ns(), 3 * kMs);

  constexpr int kLastFresh = 99;
  for (int k = 0; k <= kLastFresh; ++k) {
    const std::int64_t sent = kSenderOrigin + k * kMs;
    bank.receive(0, 8.0, sent);
    bank.receive(1, -6.0, sent);
    bank.receive(2, 4.0, sent);
    bank.receive(3, 0.05 * k, sent);
    bank.receive(4, 0.75, sent);
    bank.advance(tick_ns(k));
  }
  EXPECT_FALSE(bank.stale());

  const std::int64_t stop = tick_ns(kLastFresh);
  const std::int64_t ramp_start = stop + bank.stale_after_ns();
  const std::int64_t deadline = ramp_start + 10 * kMs;
  std::array<double, kWatched> previous{};
  for (int ch = 0; ch < kWatched; ++ch) previous[static_cast<std::size_t>(ch)] = bank.value(ch);
  for (int k = kLastFresh + 1; k <= 300; ++k) {
    const std::int64_t t = tick_ns(k);
    bank.advance(t);
    for (int ch = 0; ch < kWatched; ++ch) {
      const double v = bank.value(ch);
      double& before = previous[static_cast<std::size_t>(ch)];
      if (ch != 3 || t > ramp_start) {
        ASSERT_LE(std::abs(v), std::abs(before)) << "channel " << ch << " grew at tick " << k;
      }
      if (t >= ramp_start) {
        ASSERT_EQ(bank.mode(ch), InputChannelMode::kWatchdog);
      }
      if (t >= deadline) {
        ASSERT_EQ(v, 0.0) << "channel " << ch << " at tick " << k;
      } else {
        ASSERT_NE(v, 0.0) << "channel " << ch << " at tick " << k;
      }
      before = v;
    }
    ASSERT_EQ(bank.value(4), 0.75) << "position ramped at tick " << k;
    ASSERT_EQ(bank.mode(4), InputChannelMode::kPolicy);
    ASSERT_EQ(bank.stale(), t - stop >= bank.stale_after_ns());
  }

  // the held force ramps linearly: full at the start, half-way after 5 ms, non-zero just before
  // the deadline
  auto replay = make_bank(configs, bc);
  replay.receive(0, 8.0, kSenderOrigin);
  replay.advance(0);
  replay.advance(3 * kMs);  // stale from here: the ramp starts at the held value
  EXPECT_EQ(replay.value(0), 8.0);
  EXPECT_EQ(replay.mode(0), InputChannelMode::kWatchdog);
  replay.advance(8 * kMs);
  EXPECT_DOUBLE_EQ(replay.value(0), 4.0);
  replay.advance(12 * kMs);
  EXPECT_DOUBLE_EQ(replay.value(0), 0.8);
  replay.advance(13 * kMs);
  EXPECT_EQ(replay.value(0), 0.0);

  for (int ch = 0; ch < kWatched; ++ch) EXPECT_EQ(bank.channel_counters(ch).watchdog_ramps, 1);
  EXPECT_EQ(bank.channel_counters(4).watchdog_ramps, 0);
}

TEST(InputChannelWatchdog, AForceIsRampedWhenItsOwnSamplesStopWhileOthersStream) {
  auto bank = make_bank({channel(InputKind::kForce, MissPolicy::kHold),
                         channel(InputKind::kCommand, MissPolicy::kHold)});
  for (int k = 0; k <= 30; ++k) {
    if (k <= 10) bank.receive(0, 2.0, kSenderOrigin + k * kMs);
    bank.receive(1, 1.0 * k, kSenderOrigin + k * kMs);
    bank.advance(tick_ns(k));
    ASSERT_FALSE(bank.stale());
  }
  EXPECT_EQ(bank.value(0), 0.0);
  EXPECT_EQ(bank.channel_counters(0).watchdog_ramps, 1);
  EXPECT_EQ(bank.value(1), 30.0);
}

TEST(InputChannelWatchdog, ConfiguredThresholdAndRampAreHonoured) {
  InputBankConfig bc;
  bc.stale_after_ns = 5 * kMs;
  bc.watchdog_ramp_ns = 20 * kMs;
  auto bank = make_bank({channel(InputKind::kForce, MissPolicy::kHold)}, bc);
  bank.receive(0, -2.0, kSenderOrigin);
  bank.advance(0);
  for (int k = 1; k <= 4; ++k) {
    ASSERT_EQ(value_after(bank, tick_ns(k)), -2.0);
    ASSERT_EQ(bank.mode(0), InputChannelMode::kPolicy);
  }
  EXPECT_DOUBLE_EQ(value_after(bank, tick_ns(15)), -1.0);
  EXPECT_LT(value_after(bank, tick_ns(24)), 0.0);
  EXPECT_EQ(value_after(bank, tick_ns(25)), 0.0);
}

TEST(InputChannelWatchdog, RampRestartsCleanlyWhenSamplesResume) {
  auto bank = make_bank({channel(InputKind::kForce, MissPolicy::kHold)});
  auto stream = [&bank](int from, int to, double v) {
    for (int k = from; k <= to; ++k) {
      bank.receive(0, v, kSenderOrigin + k * kMs);
      bank.advance(tick_ns(k));
    }
  };

  // stream, stop until zero, resume
  stream(0, 9, 5.0);
  for (int k = 10; k <= 40; ++k) bank.advance(tick_ns(k));
  EXPECT_EQ(bank.value(0), 0.0);
  stream(41, 50, 6.0);
  EXPECT_EQ(bank.value(0), 6.0);
  EXPECT_EQ(bank.mode(0), InputChannelMode::kFresh);
  EXPECT_FALSE(bank.stale());

  // the second ramp starts from the new value, over the full 10 ms, from the new last sample
  for (int k = 51; k <= 53; ++k) bank.advance(tick_ns(k));
  EXPECT_EQ(bank.value(0), 6.0);
  EXPECT_DOUBLE_EQ(value_after(bank, tick_ns(58)), 3.0);
  EXPECT_EQ(value_after(bank, tick_ns(63)), 0.0);
  EXPECT_EQ(bank.channel_counters(0).watchdog_ramps, 2);

  // a sample in the middle of a ramp ends it at once, and the next ramp starts over
  stream(64, 70, 1.0);
  for (int k = 71; k <= 75; ++k) bank.advance(tick_ns(k));  // ramping since tick 73
  EXPECT_EQ(bank.mode(0), InputChannelMode::kWatchdog);
  stream(76, 76, 2.0);
  EXPECT_EQ(bank.value(0), 2.0);
  for (int k = 77; k <= 79; ++k) bank.advance(tick_ns(k));
  EXPECT_EQ(bank.value(0), 2.0);
  EXPECT_EQ(bank.channel_counters(0).watchdog_ramps, 4);
}

TEST(InputChannelWatchdog, WatchdogWinsOverSafeStateForForces) {
  InputChannelConfig c = channel(InputKind::kForce, MissPolicy::kHold);
  c.safe_after_misses = 1;
  c.safe_value = 1.0;
  auto bank = make_bank({c});
  bank.receive(0, 3.0, kSenderOrigin);
  bank.advance(0);
  EXPECT_EQ(value_after(bank, tick_ns(1)), 1.0);  // safe state, not yet stale
  EXPECT_EQ(bank.mode(0), InputChannelMode::kSafe);
  bank.advance(tick_ns(3));  // stale: ramps from the safe value
  EXPECT_EQ(bank.value(0), 1.0);
  EXPECT_EQ(bank.mode(0), InputChannelMode::kWatchdog);
  EXPECT_EQ(value_after(bank, tick_ns(13)), 0.0);
  EXPECT_EQ(value_after(bank, tick_ns(100)), 0.0);
}

TEST(InputChannelWatchdog, ForceThatNeverHearsFromItsSenderIsWatchedFromTheFirstTick) {
  InputChannelConfig c = channel(InputKind::kForce, MissPolicy::kHold);
  c.initial_value = 0.5;
  auto bank = make_bank({c});
  EXPECT_EQ(value_after(bank, tick_ns(100)), 0.5);
  EXPECT_FALSE(bank.stale());
  EXPECT_EQ(value_after(bank, tick_ns(113)), 0.0);
  EXPECT_TRUE(bank.stale());
}

TEST(InputChannelWatchdog, ZeroRampStepsToZeroWhenStale) {
  InputBankConfig bc;
  bc.watchdog_ramp_ns = 0;
  auto bank = make_bank({channel(InputKind::kTorque, MissPolicy::kHold)}, bc);
  bank.receive(0, 1.0, kSenderOrigin);
  bank.advance(0);
  EXPECT_EQ(value_after(bank, tick_ns(2)), 1.0);
  EXPECT_EQ(value_after(bank, tick_ns(3)), 0.0);
}

// --- rejected samples ------------------------------------------------------------------------

TEST(InputChannelSamples, NonFiniteValuesAreIgnoredAndCounted) {
  auto bank = make_bank({channel(InputKind::kCommand, MissPolicy::kHold),
                         channel(InputKind::kForce, MissPolicy::kHold)});
  bank.receive(0, 1.25, kSenderOrigin);
  bank.advance(0);
  bank.receive(0, std::numeric_limits<double>::quiet_NaN(), kSenderOrigin + kMs);
  bank.receive(0, std::numeric_limits<double>::infinity(), kSenderOrigin + kMs);
  bank.receive(1, -std::numeric_limits<double>::infinity(), kSenderOrigin + kMs);
  EXPECT_EQ(value_after(bank, tick_ns(1)), 1.25);
  EXPECT_EQ(bank.value(1), 0.0);
  EXPECT_EQ(bank.mode(0), InputChannelMode::kPolicy);  // a rejected sample is not fresh
  EXPECT_EQ(bank.channel_counters(0).non_finite, 2);
  EXPECT_EQ(bank.channel_counters(1).non_finite, 1);
  EXPECT_EQ(bank.channel_counters(0).samples, 1);
  EXPECT_EQ(bank.counters().non_finite, 3);
  EXPECT_EQ(bank.counters().samples, 1);
}

TEST(InputChannelSamples, OutOfRangeChannelsAreIgnoredAndCounted) {
  auto bank = make_bank({channel(InputKind::kCommand, MissPolicy::kHold),
                         channel(InputKind::kCommand, MissPolicy::kHold)});
  bank.receive(2, 1.0, kSenderOrigin);
  bank.receive(kMaxInputChannels, 1.0, kSenderOrigin);
  bank.receive(0x10000u, 1.0, kSenderOrigin);  // would alias channel 0 if cut to 16 bits
  InputChannelBank::hook(&bank, QueuedInput{0xFFFFFFFFu, 0, 1.0, 1, kSenderOrigin});
  bank.advance(0);
  EXPECT_EQ(bank.counters().unknown_channel, 4);
  EXPECT_EQ(bank.counters().samples, 0);
  EXPECT_EQ(bank.value(0), 0.0);
  EXPECT_EQ(bank.value(1), 0.0);
  EXPECT_EQ(bank.value(-1), 0.0);
  EXPECT_EQ(bank.value(2), 0.0);
  EXPECT_EQ(bank.channel_counters(2).samples, 0);
}

TEST(InputChannelSamples, OlderSenderTimesAreAcceptedCountedAndRestartTheSlope) {
  auto bank = make_bank({channel(InputKind::kCommand, MissPolicy::kExtrapolate)});
  bank.receive(0, 1.0, kSenderOrigin + 9 * kMs);
  bank.receive(0, 2.0, kSenderOrigin + 10 * kMs);
  bank.advance(0);
  EXPECT_DOUBLE_EQ(value_after(bank, tick_ns(1)), 3.0);  // slope 1 per ms

  // another sender (or a restarted clock) behind the first: its value counts, its time gives
  // no slope against the old clock, so the channel holds until a second sample
  bank.receive(0, 7.0, kSenderOrigin);
  EXPECT_EQ(value_after(bank, tick_ns(2)), 7.0);
  EXPECT_EQ(bank.channel_counters(0).time_regressions, 1);
  EXPECT_EQ(bank.counters().time_regressions, 1);
  EXPECT_EQ(value_after(bank, tick_ns(3)), 7.0);
  bank.receive(0, 7.5, kSenderOrigin + kMs);
  bank.advance(tick_ns(4));
  EXPECT_DOUBLE_EQ(value_after(bank, tick_ns(5)), 8.0);

  // same sender time: replaces the value, not counted, and gives no slope
  bank.receive(0, 2.0, kSenderOrigin + kMs);
  bank.advance(tick_ns(6));
  EXPECT_EQ(value_after(bank, tick_ns(7)), 2.0);
  EXPECT_EQ(bank.counters().time_regressions, 1);
}

TEST(InputChannelSamples, ArrivalTimeIsKeptForDiagnosticsOnly) {
  auto bank = make_bank({channel(InputKind::kCommand, MissPolicy::kDecay)});
  EXPECT_EQ(bank.last_arrival_ns(0), kUnknownArrivalNs);
  bank.receive(0, 1.0, kSenderOrigin, 42);
  EXPECT_EQ(bank.last_arrival_ns(0), 42);
  EXPECT_EQ(bank.last_arrival_ns(1), kUnknownArrivalNs);
  // the decay counts from the consuming tick, whatever the arrival time said
  EXPECT_EQ(value_after(bank, tick_ns(10)), 1.0);
}

TEST(InputChannelSamples, ResetRestoresTheInitialState) {
  InputChannelConfig c = channel(InputKind::kForce, MissPolicy::kHold);
  c.initial_value = 0.25;
  auto bank = make_bank({c});
  bank.receive(0, 3.0, kSenderOrigin);
  bank.receive(5, 3.0, kSenderOrigin);
  for (int k = 0; k < 30; ++k) bank.advance(tick_ns(k));
  ASSERT_TRUE(bank.stale());
  bank.reset();
  EXPECT_EQ(bank.value(0), 0.25);
  EXPECT_FALSE(bank.stale());
  EXPECT_EQ(bank.counters().ticks, 0);
  EXPECT_EQ(bank.counters().unknown_channel, 0);
  EXPECT_EQ(bank.channel_counters(0).samples, 0);
  // time may start over after a reset: the first tick is the new origin
  EXPECT_EQ(value_after(bank, 0), 0.25);
  EXPECT_EQ(bank.mode(0), InputChannelMode::kPolicy);
}

// --- setup and integration -------------------------------------------------------------------

TEST(InputChannelSetup, InvalidConfigsAreRejected) {
  auto rejects = [](InputChannelConfig c, InputBankConfig bc = {}) {
    const std::vector<InputChannelConfig> v = {c};
    EXPECT_THROW(InputChannelBank(v, bc), std::invalid_argument);
  };
  InputChannelConfig c;
  c.min_value = 1.0;
  c.max_value = 0.0;
  rejects(c);
  c = channel(InputKind::kForce, MissPolicy::kHold);
  c.min_value = 1.0;
  c.max_value = 2.0;
  c.initial_value = 1.5;
  c.safe_value = 1.5;
  rejects(c);  // zero is outside a force's limits
  c = {};
  c.initial_value = std::numeric_limits<double>::quiet_NaN();
  rejects(c);
  c = {};
  c.max_value = 1.0;
  c.safe_value = 2.0;
  rejects(c);
  c = {};
  c.decay_tau_ns = 0;
  rejects(c);
  c = {};
  c.extrapolate_horizon_ns = -1;
  rejects(c);
  c = {};
  c.safe_after_misses = -1;
  rejects(c);
  InputBankConfig bc;
  bc.period_ns = 0;
  rejects({}, bc);
  bc = {};
  bc.stale_after_ns = -1;
  rejects({}, bc);
  bc = {};
  bc.watchdog_ramp_ns = -1;
  rejects({}, bc);

  const std::vector<InputChannelConfig> too_many(kMaxInputChannels + 1);
  EXPECT_THROW(InputChannelBank{too_many}, std::invalid_argument);
  const std::vector<InputChannelConfig> full(kMaxInputChannels);
  EXPECT_EQ(InputChannelBank{full}.channel_count(), kMaxInputChannels);
}

TEST(InputChannelSetup, ACopyReplaysBitForBit) {
  // trivially copyable state and tick time only: a snapshot of the bank continues identically
  InputChannelConfig c = channel(InputKind::kForce, MissPolicy::kExtrapolate);
  auto a = make_bank({c, channel(InputKind::kCommand, MissPolicy::kDecay)});
  for (int k = 0; k < 20; ++k) {
    if (k % 3 != 0) a.receive(0, std::sin(0.1 * k), kSenderOrigin + k * kMs);
    if (k % 5 == 0) a.receive(1, 1.0 + k, kSenderOrigin + k * kMs);
    a.advance(tick_ns(k));
  }
  InputChannelBank b = a;
  for (int k = 20; k < 60; ++k) {
    a.advance(tick_ns(k));
    b.advance(tick_ns(k));
    ASSERT_EQ(a.value(0), b.value(0));
    ASSERT_EQ(a.value(1), b.value(1));
  }
}

TEST(InputChannelSetup, HookFeedsTheBankThroughSimulationRunner) {
  const Model model(make_mechanism("pendulum"), Settings{});
  Workspace ws(model);
  State state = initial_state(model);
  auto inputs = std::make_unique<InputRing>();
  auto snapshots = std::make_unique<SnapshotSlot>();
  SimulationRunner runner(model, state, ws, *inputs, *snapshots);
  auto bank = make_bank({channel(InputKind::kTorque, MissPolicy::kHold),
                         channel(InputKind::kPosition, MissPolicy::kHold)});
  runner.set_input_hook(&InputChannelBank::hook, &bank);

  ASSERT_TRUE(inputs->try_push(QueuedInput{1, 0, 0.5, 1, kSenderOrigin}));
  ASSERT_TRUE(inputs->try_push(QueuedInput{0, 0, -1.5, 2, kSenderOrigin + kMs}));
  ASSERT_TRUE(inputs->try_push(QueuedInput{7, 0, 9.0, 3, kSenderOrigin + kMs}));
  Tick tick;
  ASSERT_TRUE(runner.on_tick(tick));
  EXPECT_EQ(value_after(bank, tick.index * runner.period_ns()), -1.5);
  EXPECT_EQ(bank.value(1), 0.5);
  EXPECT_EQ(bank.counters().samples, 2);
  EXPECT_EQ(bank.counters().unknown_channel, 1);
}

TEST(InputChannelSetup, RunnerAdvancesTheBankAndTheWatchdogRampsAStoppedForce) {
  // the runner drives the bank on its own: one sample, then silence; the force must reach exactly
  // zero by the staleness threshold (3 periods) + the 10 ms ramp, never growing on the way
  const Model model(make_mechanism("pendulum"), Settings{});  // dt = 1 ms
  Workspace ws(model);
  State state = initial_state(model);
  auto inputs = std::make_unique<InputRing>();
  auto snapshots = std::make_unique<SnapshotSlot>();
  SimulationRunner runner(model, state, ws, *inputs, *snapshots);
  ASSERT_EQ(runner.period_ns(), kMs);
  InputBankConfig config;
  config.period_ns = runner.period_ns();
  auto bank = make_bank({channel(InputKind::kForce, MissPolicy::kHold)}, config);
  runner.set_input_bank(&bank);

  ASSERT_TRUE(inputs->try_push(QueuedInput{0, 0, 2.0, 1, kSenderOrigin}));
  double previous = 2.0;
  for (std::int64_t k = 0; k < 30; ++k) {
    Tick tick;
    tick.index = k;
    ASSERT_TRUE(runner.on_tick(tick));
    const double v = bank.value(0);
    if (k == 0) {
      EXPECT_EQ(v, 2.0);
    }
    EXPECT_LE(std::abs(v), std::abs(previous)) << "tick " << k;
    if (k >= 3 + 10) {
      EXPECT_EQ(v, 0.0) << "tick " << k;
    }
    previous = v;
  }
  EXPECT_EQ(bank.counters().samples, 1);
}

TEST(InputChannelSetup, BankValuesAreTheGeneralizedForceOfTheStep) {
  // channel i acts as the generalized force on coordinate i: a tick with a sample must equal a
  // plain step with applied_force set by hand, and a stopped stream must leave no force behind
  testing::RunnerRig rig("pendulum");
  const Model& model = rig.model;
  Workspace& ws = rig.ws;
  const State& state = rig.state;
  SimulationRunner& runner = rig.runner;
  InputBankConfig config;
  config.period_ns = runner.period_ns();
  auto bank = make_bank({channel(InputKind::kForce, MissPolicy::kHold),
                         channel(InputKind::kForce, MissPolicy::kHold)},
                        config);
  runner.set_input_bank(&bank);

  Workspace ws_ref(model);
  State ref = initial_state(model);
  applied_force(ws_ref) << 3.0, -1.0;
  (void)step(model, ref, ws_ref);

  ASSERT_TRUE(rig.inputs->try_push(QueuedInput{0, 0, 3.0, 1, kSenderOrigin}));
  ASSERT_TRUE(rig.inputs->try_push(QueuedInput{1, 0, -1.0, 1, kSenderOrigin}));
  Tick tick;
  ASSERT_TRUE(runner.on_tick(tick));
  EXPECT_EQ(applied_force(ws)[0], 3.0);
  EXPECT_EQ(applied_force(ws)[1], -1.0);
  EXPECT_EQ(state.q, ref.q);  // bitwise: the same step with the same force
  EXPECT_EQ(state.v, ref.v);

  for (std::int64_t k = 1; k < 20; ++k) {  // silence: the watchdog ramps both to zero
    tick.index = k;
    ASSERT_TRUE(runner.on_tick(tick));
  }
  EXPECT_EQ(applied_force(ws).norm(), 0.0);

  applied_force(ws) << 1.0, 1.0;
  runner.reset_inputs();
  EXPECT_EQ(applied_force(ws).norm(), 0.0);
  EXPECT_EQ(bank.counters().samples, 0);
}

}  // namespace
}  // namespace rtmb
