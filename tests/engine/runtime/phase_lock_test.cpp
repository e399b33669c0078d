// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// PhaseLock on scripted timelines. A device clock sends one input per device period from an
// arbitrary initial phase, with jitter, a rate offset and lost inputs as each test says; the
// test plays the loop: tick k is released at D(k), consumes the inputs that arrived by then,
// and D(k+1) = D(k) + P + adjustment. Everything is integer nanoseconds and seeded, so a run is
// exactly reproducible; the assertions are the issue 14 criteria: the input -> tick wait
// settles within 1 s to margin ± 20 µs from any phase, every adjustment respects the slew
// bound, and without inputs the schedule is the wall grid.
#include "rtmb/runtime/phase_lock.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace rtmb {
namespace {

constexpr std::int64_t kLockPeriod = 1'000'000;     // 1 ms (1 kHz)
constexpr std::int64_t kLockStart = 7'000'000'000;  // deadlines are absolute
constexpr std::int64_t kUs = 1'000;
constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kBand = 20 * kUs;  // issue 14: margin ± 20 µs

// The device: input j nominally arrives at kLockStart + phase + j * P * (1 + ppm 1e-6), plus a
// uniform jitter in [-jitter, +jitter]; every lose_every-th input is lost (0: none).
struct Device {
  std::int64_t phase_ns = 0;
  double rate_ppm = 0.0;
  std::int64_t jitter_ns = 0;
  int lose_every = 0;
  std::uint32_t seed = 1;
  std::int64_t from_ns = 0;             // no input before kLockStart + from_ns
  std::int64_t until_ns = 4 * kSecond;  // nor after kLockStart + until_ns
};

std::vector<std::int64_t> arrivals_of(const Device& d) {
  std::mt19937 random(d.seed);
  std::vector<std::int64_t> out;
  const double period = static_cast<double>(kLockPeriod) * (1.0 + d.rate_ppm * 1e-6);
  for (std::int64_t j = 0;; ++j) {
    const auto nominal = d.phase_ns + static_cast<std::int64_t>(std::llround(period * j));
    if (nominal > d.until_ns) break;
    const auto span = static_cast<std::uint32_t>(2 * d.jitter_ns + 1);
    const std::int64_t jitter = static_cast<std::int64_t>(random() % span) - d.jitter_ns;
    if (nominal < d.from_ns || (d.lose_every > 0 && j % d.lose_every == d.lose_every - 1)) {
      continue;
    }
    out.push_back(kLockStart + nominal + jitter);
  }
  std::sort(out.begin(), out.end());  // a large jitter may reorder two inputs
  return out;
}

struct Wait {
  std::int64_t release_ns;  // the tick that consumed the input
  std::int64_t wait_ns;     // release - arrival
};

struct Trace {
  std::vector<std::int64_t> releases;     // tick k's release time
  std::vector<std::int64_t> adjustments;  // returned after tick k
  std::vector<Wait> waits;                // one per input, in order
  PhaseLockCounters counters;
};

// Plays the loop for `duration` after kLockStart; each tick wakes wake_latency after its deadline.
Trace run(const PhaseLockConfig& config,
          const std::vector<std::int64_t>& arrivals,
          std::int64_t duration,
          std::int64_t wake_latency = 0) {
  PhaseLock lock(config);
  Trace t;
  std::size_t next = 0;
  for (std::int64_t deadline = kLockStart; deadline < kLockStart + duration;) {
    const std::int64_t release = deadline + wake_latency;
    for (; next < arrivals.size() && arrivals[next] <= release; ++next) {
      lock.record_input(arrivals[next], release);
      t.waits.push_back({release, release - arrivals[next]});
    }
    const std::int64_t adjustment = lock.next_adjustment(release);
    t.releases.push_back(release);
    t.adjustments.push_back(adjustment);
    deadline += config.period_ns + adjustment;
  }
  t.counters = lock.counters();
  return t;
}

// Largest |wait - margin| of the inputs consumed at or after `from` (relative to kLockStart).
std::int64_t worst_wait_error(const Trace& t, std::int64_t margin, std::int64_t from) {
  std::int64_t worst = 0;
  for (const Wait& w : t.waits) {
    if (w.release_ns >= kLockStart + from) worst = std::max(worst, std::abs(w.wait_ns - margin));
  }
  return worst;
}

std::int64_t inputs_after(const Trace& t, std::int64_t from) {
  return std::count_if(t.waits.begin(), t.waits.end(),
                       [&](const Wait& w) { return w.release_ns >= kLockStart + from; });
}

std::int64_t worst_adjustment(const Trace& t) {
  std::int64_t worst = 0;
  for (const std::int64_t a : t.adjustments) worst = std::max(worst, std::abs(a));
  return worst;
}

// Initial phases: a sweep of the period plus the seams (just before and after the target, half
// a period away from it in both directions, just before and after a tick).
std::vector<std::int64_t> phases(std::int64_t margin) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < 40; ++i) out.push_back(i * kLockPeriod / 40);
  const std::int64_t target = kLockPeriod - margin;  // arrives `margin` before tick 1
  for (const std::int64_t p :
       {target - 1, target + 1, target - kLockPeriod / 2 - 1, target - kLockPeriod / 2,
        target - kLockPeriod / 2 + 1, std::int64_t{1}, kLockPeriod - 1, kLockPeriod - 5 * kUs}) {
    out.push_back((p % kLockPeriod + kLockPeriod) % kLockPeriod);
  }
  return out;
}

TEST(PhaseLockConfig, RejectsEachBadFieldByName) {
  const auto rejects = [](void (*edit)(PhaseLockConfig&), const std::string& field) {
    PhaseLockConfig c;
    edit(c);
    try {
      PhaseLock lock(c);
      ADD_FAILURE() << field << ": accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  rejects([](PhaseLockConfig& c) { c.period_ns = 0; }, "period_ns");
  rejects([](PhaseLockConfig& c) { c.input_margin_ns = -1; }, "input_margin_ns");
  rejects([](PhaseLockConfig& c) { c.input_margin_ns = c.period_ns / 2 + 1; }, "input_margin_ns");
  rejects([](PhaseLockConfig& c) { c.max_slew_ns = 0; }, "max_slew_ns");
  rejects([](PhaseLockConfig& c) { c.max_slew_ns = c.period_ns / 4 + 1; }, "max_slew_ns");
  rejects([](PhaseLockConfig& c) { c.gain = 0.0; }, "gain");
  rejects([](PhaseLockConfig& c) { c.gain = 1.5; }, "gain");
  rejects([](PhaseLockConfig& c) { c.window = 0; }, "window");
  rejects([](PhaseLockConfig& c) { c.window = kMaxPhaseLockWindow + 1; }, "window");
  rejects([](PhaseLockConfig& c) { c.min_samples = 0; }, "min_samples");
  rejects([](PhaseLockConfig& c) { c.min_samples = c.window + 1; }, "min_samples");
  rejects([](PhaseLockConfig& c) { c.stale_after_ns = 0; }, "stale_after_ns");
  EXPECT_NO_THROW(static_cast<void>(PhaseLock(PhaseLockConfig{})));
}

// The defaults: margin 30 µs, slew 5 µs per tick. No input: every adjustment is 0 and tick k is
// released at exactly kLockStart + k P, the wall grid.
TEST(PhaseLockSchedule, WithoutInputsTheScheduleIsTheWallGrid) {
  const Trace t = run(PhaseLockConfig{}, {}, kSecond);
  ASSERT_EQ(t.releases.size(), 1000u);
  for (std::size_t k = 0; k < t.releases.size(); ++k) {
    ASSERT_EQ(t.releases[k], kLockStart + static_cast<std::int64_t>(k) * kLockPeriod) << k;
    ASSERT_EQ(t.adjustments[k], 0) << k;
  }
  EXPECT_EQ(t.counters.locked_ticks, 0);
  EXPECT_EQ(t.counters.phase_ns, 0);
}

// The acceptance criterion of issue 14: from every initial phase (a sweep and the seams), with
// ±10 µs of arrival jitter and every 13th input lost, every input consumed after 1 s waited
// margin ± 20 µs, for 3 s; and no adjustment ever exceeded the slew bound.
TEST(PhaseLockSettling, SettlesWithinOneSecondFromAnyPhase) {
  const PhaseLockConfig config;
  for (const std::int64_t phase : phases(config.input_margin_ns)) {
    Device d;
    d.phase_ns = phase;
    d.jitter_ns = 10 * kUs;
    d.lose_every = 13;
    d.seed = static_cast<std::uint32_t>(phase + 1);
    const Trace t = run(config, arrivals_of(d), 3 * kSecond);
    EXPECT_LE(worst_wait_error(t, config.input_margin_ns, kSecond), kBand) << "phase " << phase;
    EXPECT_GT(inputs_after(t, kSecond), 1800) << "phase " << phase;  // the inputs were there
    EXPECT_LE(worst_adjustment(t), config.max_slew_ns) << "phase " << phase;
  }
}

// Before the lock, the wait is whatever the phase makes it: the test above could not pass by
// accident if the inputs already arrived at the margin. Half a period away, the first inputs
// wait about P/2 + margin.
TEST(PhaseLockSettling, StartsFarFromTheMarginHalfAPeriodAway) {
  const PhaseLockConfig config;
  Device d;
  d.phase_ns = kLockPeriod / 2 - config.input_margin_ns;
  const Trace t = run(config, arrivals_of(d), 3 * kSecond);
  ASSERT_FALSE(t.waits.empty());
  EXPECT_NEAR(static_cast<double>(t.waits.front().wait_ns),
              static_cast<double>(kLockPeriod / 2 + config.input_margin_ns), 1.0);
  EXPECT_LE(worst_wait_error(t, config.input_margin_ns, kSecond), kBand);
  // the phase moved by P/2 in max_slew steps: at least (P/2 - 2 band) / max_slew ticks clamped
  EXPECT_GE(t.counters.slew_limited_ticks, (kLockPeriod / 2 - 2 * kBand) / config.max_slew_ns);
}

// A device clock 100 ppm slow or fast drifts 0.1 µs per tick, 1 ms (a whole period) over 10 s:
// the lock follows it and the wait stays in the band from 1 s to 10 s.
TEST(PhaseLockSettling, FollowsADeviceClockOffByAHundredPpm) {
  const PhaseLockConfig config;
  for (const double ppm : {-100.0, 100.0}) {
    for (const std::int64_t phase : {std::int64_t{0}, kLockPeriod / 3, kLockPeriod - 5 * kUs}) {
      Device d;
      d.phase_ns = phase;
      d.rate_ppm = ppm;
      d.jitter_ns = 10 * kUs;
      d.lose_every = 7;
      d.until_ns = 11 * kSecond;
      const Trace t = run(config, arrivals_of(d), 10 * kSecond);
      EXPECT_LE(worst_wait_error(t, config.input_margin_ns, kSecond), kBand)
          << ppm << " ppm, phase " << phase;
      EXPECT_LE(worst_adjustment(t), config.max_slew_ns);
      // over 10 s the ticks slid by about the device's drift (10 s * 100 ppm = 1 ms), in its
      // direction: a slow device (ppm > 0) makes the ticks later
      const double drift = 10.0 * 1e9 * ppm * 1e-6;
      EXPECT_GT(static_cast<double>(t.counters.phase_ns) * ppm, 0.0);
      EXPECT_NEAR(static_cast<double>(t.counters.phase_ns), drift, kLockPeriod / 2.0 + kBand);
    }
  }
}

// A wake-up latency (here 40 µs after every deadline) is part of the wait an input sees: the
// lock measures from the release, so it moves the deadlines earlier to compensate.
TEST(PhaseLockSettling, CompensatesAConstantWakeLatency) {
  const PhaseLockConfig config;
  Device d;
  d.phase_ns = kLockPeriod / 4;
  d.jitter_ns = 5 * kUs;
  const Trace t = run(config, arrivals_of(d), 2 * kSecond, 40 * kUs);
  EXPECT_LE(worst_wait_error(t, config.input_margin_ns, kSecond), kBand);
}

// A tight slew bound (1 µs per tick) is respected at every tick, and it is what limits the
// speed: starting 300 µs from the target, at least 280 ticks are clamped.
TEST(PhaseLockSlew, EveryAdjustmentRespectsTheBound) {
  PhaseLockConfig config;
  config.max_slew_ns = 1 * kUs;
  Device d;
  d.phase_ns = kLockPeriod - config.input_margin_ns - 300 * kUs;  // waits 330 µs at first
  const Trace t = run(config, arrivals_of(d), 2 * kSecond);
  EXPECT_LE(worst_adjustment(t), 1 * kUs);
  EXPECT_GE(t.counters.slew_limited_ticks, 280);
  EXPECT_LE(worst_wait_error(t, config.input_margin_ns, kSecond), kBand);
  // and the wait never changed by more than the bound from one input to the next
  for (std::size_t i = 1; i < t.waits.size(); ++i) {
    ASSERT_LE(std::abs(t.waits[i].wait_ns - t.waits[i - 1].wait_ns), 1 * kUs) << i;
  }
}

// The wrap: inputs that arrive 5 µs after each tick have waited P - 5 µs when they are
// consumed. That is "5 µs late", not "965 µs too early": the lock delays the ticks by 35 µs
// (every adjustment >= 0), rather than advancing them by most of a period. Inputs 300 µs
// before a tick make it advance the ticks by 270 µs.
TEST(PhaseLockWrap, AnInputJustAfterATickDelaysTheTicks) {
  const PhaseLockConfig config;
  Device late;
  late.phase_ns = 5 * kUs;  // tick 0 is at kLockStart
  const Trace t = run(config, arrivals_of(late), kSecond);
  EXPECT_NEAR(static_cast<double>(t.counters.phase_ns), 35.0 * kUs, 1.0 * kUs);
  EXPECT_GE(*std::min_element(t.adjustments.begin(), t.adjustments.end()), 0);

  Device early;
  early.phase_ns = kLockPeriod - 300 * kUs;
  const Trace u = run(config, arrivals_of(early), kSecond);
  EXPECT_NEAR(static_cast<double>(u.counters.phase_ns), -270.0 * kUs, 1.0 * kUs);
  EXPECT_LE(*std::max_element(u.adjustments.begin(), u.adjustments.end()), 0);
}

// Robustness: once locked (no jitter), a single input 200 µs early (a network hiccup) moves
// the phase by nothing measurable; the median ignores it, where a proportional step on the raw
// sample would move the ticks by max_slew at once.
TEST(PhaseLockRobustness, OneOutlierDoesNotMoveThePhase) {
  const PhaseLockConfig config;
  Device d;
  d.phase_ns = kLockPeriod / 3;
  std::vector<std::int64_t> arrivals = arrivals_of(d);
  const std::size_t outlier = 1500;  // 1.5 s in, long after the lock settled
  arrivals[outlier] -= 200 * kUs;
  const Trace t = run(config, arrivals, 2 * kSecond);
  const auto tick_of = [&](std::int64_t release) {
    return static_cast<std::size_t>(
        std::lower_bound(t.releases.begin(), t.releases.end(), release) - t.releases.begin());
  };
  const std::size_t k = tick_of(t.waits[outlier].release_ns);
  std::int64_t moved = 0;
  for (std::size_t i = k; i < k + 20; ++i) moved += t.adjustments[i];
  EXPECT_LE(std::abs(moved), 1 * kUs);
  EXPECT_LE(worst_wait_error(t, config.input_margin_ns, kSecond), kBand + 200 * kUs);
  // every other input still waited the margin
  for (std::size_t i = 1000; i < t.waits.size(); ++i) {
    if (i != outlier) {
      ASSERT_LE(std::abs(t.waits[i].wait_ns - config.input_margin_ns), 2 * kUs) << i;
    }
  }
}

// When the input stream stops, the window empties after stale_after (50 ms): from then on
// every adjustment is 0 (wall mode at the shifted phase). When it returns at another phase,
// the lock settles again within 1 s.
TEST(PhaseLockStale, NoCorrectionWithoutRecentInputsThenRelocks) {
  const PhaseLockConfig config;
  Device first;
  first.phase_ns = kLockPeriod / 2;
  first.until_ns = kSecond;
  Device second;
  second.phase_ns = kLockPeriod / 5;
  second.from_ns = 2 * kSecond;
  second.until_ns = 4 * kSecond;
  second.jitter_ns = 10 * kUs;
  std::vector<std::int64_t> arrivals = arrivals_of(first);
  const std::vector<std::int64_t> more = arrivals_of(second);
  arrivals.insert(arrivals.end(), more.begin(), more.end());
  const Trace t = run(config, arrivals, 4 * kSecond);

  for (std::size_t k = 0; k < t.releases.size(); ++k) {
    const std::int64_t at = t.releases[k] - kLockStart;
    if (at > kSecond + config.stale_after_ns + kLockPeriod && at < 2 * kSecond) {
      ASSERT_EQ(t.adjustments[k], 0) << "tick " << k;
    }
  }
  EXPECT_EQ(t.counters.stale_resets, 1);
  EXPECT_LE(worst_wait_error(t, config.input_margin_ns, 3 * kSecond), kBand);
}

}  // namespace
}  // namespace rtmb
