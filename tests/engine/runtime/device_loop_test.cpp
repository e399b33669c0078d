// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// DeviceLoop on a fake clock and a fake socket: the master_inputs's inputs are a scripted list of
// arrival times; waiting jumps the fake time to the next arrival (if it comes by the deadline)
// or to the deadline; a step takes the time the test gives it. The expected ticks are worked
// out by hand from DeviceLockstep's rules (include/rtmb/runtime/device_lockstep.hpp), written
// in the comments as times in periods P = 1 ms after the start, S = stale_after = 3 P.
#include "rtmb/runtime/device_loop.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace rtmb {
namespace {

constexpr std::int64_t kDevicePeriod = 1'000'000;
constexpr std::int64_t kDeviceStart = 5'000'000'000;
std::int64_t period_at(double periods) {
  return kDeviceStart + std::llround(periods * static_cast<double>(kDevicePeriod));
}

// The fake socket and clock. Arrivals are sorted; take_inputs() returns those that arrived by
// now. The run ends (the step asks to stop) at end_ns.
struct FakeWaiter {
  std::vector<std::int64_t> arrivals;
  std::size_t next = 0;
  std::int64_t now_ns = kDeviceStart;
  int waits = 0;

  std::int64_t now() noexcept { return now_ns; }
  bool wait_input_until(std::int64_t deadline_ns) noexcept {
    ++waits;
    if (next < arrivals.size() && arrivals[next] <= deadline_ns) {
      now_ns = std::max(now_ns, arrivals[next]);
      return true;
    }
    now_ns = std::max(now_ns, deadline_ns);
    return false;
  }
  int take_inputs() noexcept {
    int n = 0;
    while (next < arrivals.size() && arrivals[next] <= now_ns) {
      ++next;
      ++n;
    }
    return n;
  }
};

struct Recorded {
  std::int64_t release_ns;
  std::int64_t deadline_ns;
  std::int64_t sequence;
  int input_messages;
};

struct RecordingStep {
  std::vector<Recorded>* ticks;
  FakeWaiter* waiter;
  std::int64_t compute_ns;
  std::int64_t end_ns;
  bool operator()(const Tick& t) const noexcept {
    ticks->push_back({t.release_ns, t.deadline_ns, t.sequence, t.input_messages});
    waiter->now_ns += compute_ns;
    return waiter->now_ns < end_ns;
  }
};

std::vector<std::int64_t> master_inputs(double first, int n) {
  std::vector<std::int64_t> out;
  for (int j = 0; j < n; ++j) out.push_back(period_at(first + j));
  return out;
}

struct LoopRun {
  std::vector<Recorded> ticks;
  LoopCounters counters;
  LockstepCounters lockstep;
  StopReason reason;
};

LoopRun run_loop(std::vector<std::int64_t> arrivals, double end, std::int64_t compute_ns = 0) {
  FakeWaiter waiter;
  waiter.arrivals = std::move(arrivals);
  LoopRun r;
  r.ticks.reserve(1000);
  LoopConfig config;
  config.period_ns = kDevicePeriod;
  DeviceLoop loop(config, 3 * kDevicePeriod,
                  RecordingStep{&r.ticks, &waiter, compute_ns, period_at(end)}, waiter);
  r.reason = loop.run();
  r.counters = loop.counters();
  r.lockstep = loop.lockstep().counters();
  return r;
}

std::vector<std::int64_t> releases(const LoopRun& r) {
  std::vector<std::int64_t> out;
  for (const Recorded& t : r.ticks) out.push_back(t.release_ns);
  return out;
}

std::vector<std::int64_t> concat(std::initializer_list<std::vector<std::int64_t>> parts) {
  std::vector<std::int64_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// Master at 0.3, 1.3, ..., 9.3 P; silent; again at 20.6, 21.6, ..., 29.6 P; silent; stop at 35.
// Ticks: w 0 (begin); 0.3 absorbed (within P/2 after the wall tick at 0); i 1.3 .. 9.3 (9);
// the master_inputs is silent from 9.3: w at 9.3 + S = 12.3, then 13.3 .. 20.3 (9 wall ticks);
// 20.6 is 0.3 after the wall tick at 20.3: absorbed; i 21.6 .. 29.6 (9); w 32.6, 33.6, 34.6
// (the last one ends the run). 31 ticks, one per period, none lost or doubled.
TEST(DeviceLoop, MasterStopsAndReturnsWithoutLostOrDoubledTicks) {
  const LoopRun r = run_loop(concat({master_inputs(0.3, 10), master_inputs(20.6, 10)}), 34.6);
  const std::vector<std::int64_t> expected = concat({{period_at(0)},
                                                     master_inputs(1.3, 9),
                                                     master_inputs(12.3, 9),
                                                     master_inputs(21.6, 9),
                                                     master_inputs(32.6, 3)});
  EXPECT_EQ(releases(r), expected);
  EXPECT_EQ(r.reason, StopReason::kStepRequestedStop);
  EXPECT_EQ(r.counters.ticks, 31);
  EXPECT_EQ(r.lockstep.input_ticks, 18);
  EXPECT_EQ(r.lockstep.wall_ticks, 13);
  EXPECT_EQ(r.lockstep.absorbed_inputs, 2);
  EXPECT_EQ(r.lockstep.fallbacks, 2);
  EXPECT_EQ(r.lockstep.locks, 2);
  EXPECT_EQ(r.counters.missed_ticks, 0);
  EXPECT_EQ(r.counters.overruns, 0);
  // the wall ticks take over exactly stale_after after the master_inputs's last tick
  EXPECT_EQ(expected[10] - expected[9], 3 * kDevicePeriod);
  for (std::size_t i = 0; i < r.ticks.size(); ++i) {
    EXPECT_EQ(r.ticks[i].sequence, static_cast<std::int64_t>(i));
  }
}

// The master_inputs comes back 0.6 P after a wall tick: it takes the next slot early (21.3 becomes
// 20.9) and the wall tick of that slot never runs. w 0; 0.3 absorbed; i 1.3 .. 4.3 (4);
// w 7.3 .. 20.3 (14); i 20.9 .. 24.9 (5); stop at 24.9. 24 ticks.
TEST(DeviceLoop, MasterReturningLateInAPeriodTakesTheNextSlot) {
  const LoopRun r = run_loop(concat({master_inputs(0.3, 5), master_inputs(20.9, 5)}), 24.9);
  EXPECT_EQ(
      releases(r),
      concat(
          {{period_at(0)}, master_inputs(1.3, 4), master_inputs(7.3, 14), master_inputs(20.9, 5)}));
  EXPECT_EQ(r.counters.ticks, 24);
  EXPECT_EQ(r.lockstep.absorbed_inputs, 1);
}

// Without a master_inputs the loop is the wall grid: ticks at 0, 1, ..., 9 P.
TEST(DeviceLoop, WithoutMasterTicksOnTheWallGrid) {
  const LoopRun r = run_loop({}, 9);
  EXPECT_EQ(releases(r), master_inputs(0, 10));
  for (const Recorded& t : r.ticks) EXPECT_EQ(t.deadline_ns, t.release_ns);
  EXPECT_EQ(r.lockstep.input_ticks, 0);
}

// Two inputs in one wake (a burst) run two ticks: the master_inputs's count of inputs is the clock.
TEST(DeviceLoop, BurstRunsOneTickPerInput) {
  const LoopRun r = run_loop({period_at(0.7), period_at(1.7), period_at(1.7), period_at(2.7)}, 2.7);
  // w 0; 0.7 takes slot 1 early; 1.7 twice; 2.7
  EXPECT_EQ(releases(r), (std::vector<std::int64_t>{period_at(0), period_at(0.7), period_at(1.7),
                                                    period_at(1.7), period_at(2.7)}));
}

std::vector<int> messages(const LoopRun& r) {
  std::vector<int> out;
  for (const Recorded& t : r.ticks) out.push_back(t.input_messages);
  return out;
}

// Each input tick applies its own input message (Tick::input_messages = 1), a burst's two
// inputs one each; an absorbed input's message goes with the next input tick (2); wall ticks
// apply whatever waits (0). The run of MasterStopsAndReturnsWithoutLostOrDoubledTicks: w 0;
// 0.3 absorbed; i 1.3 (2) .. 9.3; w 12.3 .. 20.3; 20.6 absorbed; i 21.6 (2) .. 29.6; w 32.6 ..
TEST(DeviceLoop, EachInputTickAppliesItsOwnMessage) {
  const LoopRun burst =
      run_loop({period_at(0.7), period_at(1.7), period_at(1.7), period_at(2.7)}, 2.7);
  EXPECT_EQ(messages(burst), (std::vector<int>{0, 1, 1, 1, 1}));

  const LoopRun r = run_loop(concat({master_inputs(0.3, 10), master_inputs(20.6, 10)}), 34.6);
  std::vector<int> expected{0, 2};
  expected.insert(expected.end(), 8, 1);
  expected.insert(expected.end(), 9, 0);
  expected.push_back(2);
  expected.insert(expected.end(), 8, 1);
  expected.insert(expected.end(), 3, 0);
  EXPECT_EQ(messages(r), expected);
}

// A step longer than a period is an overrun (slack < 0), and in kFree the slots it covered
// are skipped and counted; the latest slot that passed runs at once, late (DeviceLockstep's
// rule). Steps of 2.5 P without a master_inputs: slot 0 runs at 0 and ends at 2.5; slot 2 at 2.5
// (1 missed), ends at 5; slot 5 at 5 (3, 4 missed), ends at 7.5; slot 7 at 7.5 (6 missed),
// ends at 10, past the end at 9. Slack = slot + P - end: -1.5, -2, -1.5, -2 P.
TEST(DeviceLoop, SlowStepsAreOverrunsAndSkipWallSlots) {
  const LoopRun r = run_loop({}, 9, 2 * kDevicePeriod + kDevicePeriod / 2);
  EXPECT_EQ(releases(r), (std::vector<std::int64_t>{period_at(0), period_at(2.5), period_at(5),
                                                    period_at(7.5)}));
  std::vector<std::int64_t> deadlines;
  for (const Recorded& t : r.ticks) deadlines.push_back(t.deadline_ns);
  EXPECT_EQ(deadlines,
            (std::vector<std::int64_t>{period_at(0), period_at(2), period_at(5), period_at(7)}));
  EXPECT_EQ(r.counters.overruns, 4);
  EXPECT_EQ(r.counters.max_consecutive_overruns, 4);
  EXPECT_EQ(r.counters.missed_ticks, 4);
  EXPECT_EQ(r.counters.next_index, 8);
}

TEST(DeviceLoop, MaxTicksAndStopRequest) {
  FakeWaiter waiter;
  std::vector<Recorded> ticks;
  LoopConfig config;
  config.period_ns = kDevicePeriod;
  config.max_ticks = 3;
  DeviceLoop loop(config, 0, RecordingStep{&ticks, &waiter, 0, period_at(100)}, waiter);
  EXPECT_EQ(loop.run(), StopReason::kMaxTicks);
  EXPECT_EQ(ticks.size(), 3u);
  loop.request_stop();
  EXPECT_EQ(loop.run(), StopReason::kStopRequested);
  EXPECT_EQ(loop.counters().ticks, 0);
}

TEST(DeviceLoop, RejectsBadConfig) {
  FakeWaiter waiter;
  std::vector<Recorded> ticks;
  LoopConfig config;
  config.period_ns = 0;
  EXPECT_THROW(DeviceLoop(config, 0, RecordingStep{&ticks, &waiter, 0, 0}, waiter),
               std::invalid_argument);
  config.period_ns = kDevicePeriod;
  config.telemetry_every_ticks = 0;
  EXPECT_THROW(DeviceLoop(config, 0, RecordingStep{&ticks, &waiter, 0, 0}, waiter),
               std::invalid_argument);
}

}  // namespace
}  // namespace rtmb
