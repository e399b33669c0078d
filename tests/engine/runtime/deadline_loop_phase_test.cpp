// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The deadline loop's phase shifts (LoopScheduler::shift_phase) and the whole loop with a
// PhaseLock (clock mode phase-lock, issue 14) on a FakeClock. The shift tests work the expected
// deadlines out from the period and the shifts asked for; the phase-lock test plays a device
// whose inputs arrive at a rate off by ±100 ppm, from an arbitrary initial phase, with jitter,
// and asserts the criterion: within 1 s of simulated time the input -> tick wait is the
// margin ± 20 µs, and no period ever changes by more than the slew bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <vector>

#include "rtmb/runtime/deadline_loop.hpp"
#include "rtmb/runtime/monotonic_clock.hpp"
#include "rtmb/runtime/phase_lock.hpp"

namespace rtmb {
namespace {

constexpr std::int64_t kPeriod = 1'000'000;     // 1 ms
constexpr std::int64_t kStart = 5'000'000'000;  // deadlines are absolute
constexpr std::int64_t kUs = 1'000;
constexpr std::int64_t kSecond = 1'000'000'000;

void expect_invariant(const LoopCounters& c) {
  EXPECT_EQ(c.ticks + c.missed_ticks, c.next_index);
}

TEST(RuntimeLoopPhaseShift, MovesTheNextDeadlinesByTheShift) {
  LoopConfig config;
  config.period_ns = kPeriod;
  LoopScheduler s(config);
  s.begin(kStart);
  EXPECT_EQ(s.deadline_ns(), kStart);

  // tick 0 runs 100 µs; +100 µs moves tick 1 and every later tick
  s.record_wake(kStart);
  ASSERT_EQ(s.finish_step(kStart, kStart + 100 * kUs), LoopEvent::kContinue);
  EXPECT_EQ(s.shift_phase(100 * kUs), 100 * kUs);
  EXPECT_EQ(s.deadline_ns(), kStart + kPeriod + 100 * kUs);
  EXPECT_EQ(s.tick().index, 1);

  // tick 1, then -200 µs: tick 2 at 2 P - 100 µs
  const std::int64_t d1 = s.deadline_ns();
  s.record_wake(d1);
  ASSERT_EQ(s.finish_step(d1, d1 + 100 * kUs), LoopEvent::kContinue);
  EXPECT_EQ(s.shift_phase(-200 * kUs), -200 * kUs);
  EXPECT_EQ(s.deadline_ns(), kStart + 2 * kPeriod - 100 * kUs);
  EXPECT_EQ(s.phase_offset_ns(), -100 * kUs);
  expect_invariant(s.counters());
  EXPECT_EQ(s.counters().ticks, 2);
  EXPECT_EQ(s.counters().missed_ticks, 0);
}

TEST(RuntimeLoopPhaseShift, IsBoundedToAQuarterPeriod) {
  LoopConfig config;
  config.period_ns = kPeriod;
  LoopScheduler s(config);
  s.begin(kStart);
  s.record_wake(kStart);
  ASSERT_EQ(s.finish_step(kStart, kStart + 10 * kUs), LoopEvent::kContinue);
  EXPECT_EQ(s.shift_phase(3 * kPeriod), kPeriod / 4);
  EXPECT_EQ(s.deadline_ns(), kStart + kPeriod + kPeriod / 4);
  EXPECT_EQ(s.shift_phase(-3 * kPeriod), -kPeriod / 4);
  EXPECT_EQ(s.deadline_ns(), kStart + kPeriod);
}

TEST(RuntimeLoopPhaseShift, NeverMovesADeadlineBeforeTheLastStepsEnd) {
  LoopConfig config;
  config.period_ns = kPeriod;
  LoopScheduler s(config);
  s.begin(kStart);
  s.record_wake(kStart);
  // the step ends 900 µs after its release: tick 1 can come at most 100 µs earlier
  ASSERT_EQ(s.finish_step(kStart, kStart + 900 * kUs), LoopEvent::kContinue);
  EXPECT_EQ(s.shift_phase(-200 * kUs), -100 * kUs);
  EXPECT_EQ(s.deadline_ns(), kStart + 900 * kUs);
  EXPECT_TRUE(s.next_is_on_time());
  EXPECT_EQ(s.counters().missed_ticks, 0);
}

TEST(RuntimeLoopPhaseShift, DoesNotPushADueTickFurtherIntoThePast) {
  LoopConfig config;
  config.period_ns = kPeriod;
  config.policy = OverrunPolicy::kCatchUp;
  LoopScheduler s(config);
  s.begin(kStart);
  s.record_wake(kStart);
  // an overrun: tick 1 (D = 1 P) is due when the step ends at 1.5 P and runs as a catch-up
  ASSERT_EQ(s.finish_step(kStart, kStart + 1500 * kUs), LoopEvent::kContinue);
  ASSERT_FALSE(s.next_is_on_time());
  EXPECT_EQ(s.shift_phase(-100 * kUs), 0);
  EXPECT_EQ(s.deadline_ns(), kStart + kPeriod);
  // a later shift is allowed: tick 1 is still due, tick 2 moves with it
  EXPECT_EQ(s.shift_phase(200 * kUs), 200 * kUs);
  EXPECT_EQ(s.deadline_ns(), kStart + kPeriod + 200 * kUs);
  expect_invariant(s.counters());
}

// Many shifts both ways on a loop driven as DeadlineLoop drives it: steps take under half a
// period, so with |shift| <= P/4 no tick overruns, and every tick runs exactly once.
TEST(RuntimeLoopPhaseShift, ManyShiftsBothWaysLoseAndDoubleNoTick) {
  LoopConfig config;
  config.period_ns = kPeriod;
  LoopScheduler s(config);
  std::mt19937 random(14);
  std::uniform_int_distribution<std::int64_t> shift(-kPeriod / 3, kPeriod / 3);
  std::uniform_int_distribution<std::int64_t> compute(0, kPeriod / 2 - 1);
  s.begin(kStart);
  std::int64_t now = kStart;
  std::int64_t expected_deadline = kStart;
  std::int64_t offset = 0;
  constexpr int kTicks = 20'000;
  for (int k = 0; k < kTicks; ++k) {
    ASSERT_TRUE(s.next_is_on_time());
    ASSERT_EQ(s.deadline_ns(), expected_deadline);
    ASSERT_EQ(s.tick().index, k);  // no tick skipped, none run twice
    now = std::max(now, s.deadline_ns());
    s.record_wake(now);
    const std::int64_t start = now;
    now += compute(random);
    ASSERT_EQ(s.finish_step(start, now), LoopEvent::kContinue);

    // what the shift must be: the one asked for, within ±P/4 and not before the step's end
    const std::int64_t wanted = shift(random);
    const std::int64_t next = kStart + (k + 1) * kPeriod + offset;
    const std::int64_t earliest = std::max(-kPeriod / 4, now - next);
    const std::int64_t expected = std::clamp(wanted, earliest, kPeriod / 4);
    ASSERT_EQ(s.shift_phase(wanted), expected);
    offset += expected;
    expected_deadline = next + expected;
    ASSERT_GE(expected_deadline, now);
    expect_invariant(s.counters());
  }
  EXPECT_EQ(s.counters().ticks, kTicks);
  EXPECT_EQ(s.counters().missed_ticks, 0);
  EXPECT_EQ(s.counters().overruns, 0);
  EXPECT_EQ(s.counters().catch_up_ticks, 0);
  EXPECT_EQ(s.phase_offset_ns(), offset);
}

TEST(RuntimeLoopPhaseShift, ALockWithAnotherPeriodIsRefused) {
  PhaseLockConfig pc;
  pc.period_ns = 2 * kPeriod;
  PhaseLock lock(pc);
  LoopConfig config;
  config.period_ns = kPeriod;
  config.phase_lock = &lock;
  EXPECT_THROW(LoopScheduler{config}, std::invalid_argument);
}

// The device of the phase-lock test: input j arrives at kStart + phase + j P (1 + ppm 1e-6) plus
// a uniform jitter in [-jitter, jitter].
std::vector<std::int64_t> device_arrivals(
    std::int64_t phase, double ppm, std::int64_t jitter, std::int64_t until, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<std::int64_t> noise(-jitter, jitter);
  std::vector<std::int64_t> out;
  const double period = static_cast<double>(kPeriod) * (1.0 + ppm * 1e-6);
  for (std::int64_t j = 0;; ++j) {
    const auto t = phase + static_cast<std::int64_t>(std::llround(period * static_cast<double>(j)));
    if (t > until) break;
    out.push_back(kStart + t + noise(random));
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct LockedRun {
  std::vector<std::int64_t> releases;      // each tick's Tick::release_ns
  std::vector<std::int64_t> deadlines;     // each tick's D(k)
  std::vector<std::int64_t> wait_release;  // release of each tick that drained inputs
  std::vector<std::int64_t> waits;         // its wait: release - arrival of the freshest input
  std::int64_t consumed = 0;               // inputs drained
  LoopCounters counters;
  PhaseLockCounters lock;
};

// DeadlineLoop + PhaseLock on a FakeClock; the step plays the runner: it drains the inputs that
// arrived by its release, reports each to the lock, and takes 50 µs.
LockedRun run_locked(const PhaseLockConfig& pc,
                     const std::vector<std::int64_t>& arrivals,
                     std::int64_t ticks,
                     std::int64_t wake_latency) {
  LockedRun r;
  r.releases.reserve(static_cast<std::size_t>(ticks));
  r.deadlines.reserve(static_cast<std::size_t>(ticks));
  PhaseLock lock(pc);
  FakeClock clock(kStart);
  clock.set_wake_latency(wake_latency);
  std::size_t next = 0;
  auto step = [&](const Tick& tick) noexcept {
    r.releases.push_back(tick.release_ns);
    r.deadlines.push_back(tick.deadline_ns);
    std::int64_t freshest = -1;
    while (next < arrivals.size() && arrivals[next] <= tick.release_ns) {
      lock.record_input(arrivals[next], tick.release_ns);
      freshest = arrivals[next];
      ++next;
      ++r.consumed;
    }
    if (freshest >= 0) {
      r.wait_release.push_back(tick.release_ns);
      r.waits.push_back(tick.release_ns - freshest);
    }
    clock.advance(50 * kUs);
    return true;
  };
  LoopConfig config;
  config.period_ns = pc.period_ns;
  config.max_ticks = ticks;
  config.phase_lock = &lock;
  DeadlineLoop loop(config, step, clock);
  EXPECT_EQ(loop.run(), StopReason::kMaxTicks);
  r.counters = loop.counters();
  r.lock = lock.counters();
  return r;
}

TEST(RuntimeLoopPhaseLock, SettlesTheInputWaitToTheMarginWithinOneSecondFromAnyPhase) {
  PhaseLockConfig pc;  // 1 kHz, margin 30 µs, slew 5 µs per tick: the server's settings
  constexpr std::int64_t kTicks = 3000;  // 3 s
  constexpr std::int64_t kWakeLatency = 7 * kUs;
  constexpr std::int64_t kBand = 20 * kUs;
  std::uint32_t seed = 1;
  for (const double ppm : {-100.0, 100.0}) {
    for (const std::int64_t phase :
         {std::int64_t{0}, 130 * kUs, 499 * kUs, 501 * kUs, 770 * kUs, 999 * kUs}) {
      SCOPED_TRACE(::testing::Message()
                   << "device rate offset " << ppm << " ppm, phase " << phase << " ns");
      const auto arrivals = device_arrivals(phase, ppm, 5 * kUs, 3 * kSecond, ++seed);
      const LockedRun r = run_locked(pc, arrivals, kTicks, kWakeLatency);

      // every grid tick ran once; every input that arrived was drained once
      EXPECT_EQ(r.counters.ticks, kTicks);
      EXPECT_EQ(r.counters.missed_ticks, 0);
      EXPECT_EQ(r.counters.ticks + r.counters.missed_ticks, r.counters.next_index);
      std::int64_t arrived = 0;
      for (const std::int64_t a : arrivals) arrived += a <= r.releases.back() ? 1 : 0;
      EXPECT_EQ(r.consumed, arrived);

      // the slew bound: no period differs from P by more than max_slew
      for (std::size_t k = 1; k < r.deadlines.size(); ++k) {
        const std::int64_t change = r.deadlines[k] - r.deadlines[k - 1] - kPeriod;
        ASSERT_LE(std::abs(change), pc.max_slew_ns) << "tick " << k;
        ASSERT_EQ(r.releases[k], r.deadlines[k] + kWakeLatency) << "tick " << k;
      }

      // settled within 1 s: from then on every input waits margin ± 20 µs, one per tick
      std::int64_t settled = 0;
      for (std::size_t i = 0; i < r.waits.size(); ++i) {
        if (r.wait_release[i] < kStart + kSecond) continue;
        ++settled;
        ASSERT_NEAR(static_cast<double>(r.waits[i]), static_cast<double>(pc.input_margin_ns),
                    static_cast<double>(kBand))
            << "input drained at " << r.wait_release[i] - kStart << " ns";
      }
      EXPECT_GT(settled, 1900);  // about 2000 inputs in the last 2 s: none missed its tick
      EXPECT_GT(r.lock.locked_ticks, kTicks - 10);
    }
  }
}

TEST(RuntimeLoopPhaseLock, WithoutInputsTheLoopRunsTheWallGrid) {
  PhaseLockConfig pc;
  const LockedRun r = run_locked(pc, {}, 500, 0);
  ASSERT_EQ(r.deadlines.size(), 500u);
  for (std::size_t k = 0; k < r.deadlines.size(); ++k) {
    ASSERT_EQ(r.deadlines[k], kStart + static_cast<std::int64_t>(k) * kPeriod);
  }
  EXPECT_EQ(r.lock.locked_ticks, 0);
}

}  // namespace
}  // namespace rtmb
