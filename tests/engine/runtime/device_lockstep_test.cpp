// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// DeviceLockstep on scripted timelines, with exact tick counts. The test plays the driver of
// the real loop: it waits on the "socket" (a sorted list of master input times) until
// wait_deadline_ns(); an input that arrived by then is handled at its arrival (on a tie with the
// deadline, the input first: the driver drains the socket before acting on a timeout), else
// the wait times out at the deadline.
//
// Notation in the traces: P = 1 ms, S = stale_after = 3 P (the default), times in periods after
// the start; "w" is a wall tick, "i" an input tick, "a" an absorbed input.
#include "rtmb/runtime/device_lockstep.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace rtmb {
namespace {

constexpr std::int64_t kLockstepPeriod = 1'000'000;     // 1 ms
constexpr std::int64_t kLockstepStart = 3'000'000'000;  // times are absolute
std::int64_t at(double periods) {
  return kLockstepStart + std::llround(periods * static_cast<double>(kLockstepPeriod));
}

// Master inputs at first, first + 1, ..., first + (n - 1) periods.
std::vector<std::int64_t> master(double first, int n) {
  std::vector<std::int64_t> out;
  for (int j = 0; j < n; ++j) out.push_back(at(first + j));
  return out;
}

std::vector<std::int64_t> operator+(std::vector<std::int64_t> a,
                                    const std::vector<std::int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct Timeline {
  std::vector<LockstepTick> ticks;
  LockstepCounters counters;
  std::string events;  // "w i a ...": every tick and absorbed input, in order
};

// Drives the lockstep from kLockstepStart until `end` periods; the driver wakes wake_late periods
// after each timeout deadline.
Timeline drive(const std::vector<std::int64_t>& inputs,
               double end,
               DeviceLockstepConfig config = {},
               double wake_late = 0.0) {
  config.period_ns = kLockstepPeriod;
  DeviceLockstep lock(config);
  lock.begin(kLockstepStart);
  Timeline r;
  std::ostringstream events;
  std::size_t next = 0;
  for (;;) {
    const std::int64_t deadline = lock.wait_deadline_ns();
    if (next < inputs.size() && inputs[next] <= deadline) {
      const std::int64_t now = inputs[next++];
      if (now >= at(end)) break;
      const bool ticks = lock.on_input(now);
      if (ticks) r.ticks.push_back(lock.last_tick());
      events << (ticks ? "i " : "a ");
      continue;
    }
    const std::int64_t now = deadline + static_cast<std::int64_t>(wake_late * kLockstepPeriod);
    if (now >= at(end)) break;
    if (lock.on_timeout(now)) {
      r.ticks.push_back(lock.last_tick());
      events << "w ";
    }
  }
  r.counters = lock.counters();
  r.events = events.str();
  return r;
}

// Invariants of every run: the two sources add up, sequences count from 0, release times never
// go back, and no two ticks of different sources come closer than P/2 (a doubled tick at a
// transition would); between two ticks at most S passes (time never freezes longer).
void expect_invariants(const Timeline& r, std::int64_t stale_after = 3 * kLockstepPeriod) {
  const LockstepCounters& c = r.counters;
  EXPECT_EQ(c.ticks, c.input_ticks + c.wall_ticks);
  EXPECT_EQ(c.inputs, c.input_ticks + c.absorbed_inputs);
  ASSERT_EQ(static_cast<std::int64_t>(r.ticks.size()), c.ticks);
  for (std::size_t i = 0; i < r.ticks.size(); ++i) {
    EXPECT_EQ(r.ticks[i].sequence, static_cast<std::int64_t>(i));
    if (i == 0) continue;
    const std::int64_t gap = r.ticks[i].release_ns - r.ticks[i - 1].release_ns;
    EXPECT_GE(gap, 0) << i;
    EXPECT_LE(gap, stale_after) << i;
    if (r.ticks[i].source != r.ticks[i - 1].source) {
      EXPECT_GE(gap, kLockstepPeriod / 2) << i;
    }
  }
}

std::string repeat(const std::string& event, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += event + " ";
  return out;
}

TEST(DeviceLockstepConfig, RejectsEachBadFieldByName) {
  const auto rejects = [](DeviceLockstepConfig c, const std::string& field) {
    try {
      DeviceLockstep lock(c);
      ADD_FAILURE() << field << ": accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  rejects({.period_ns = 0, .stale_after_ns = 0}, "period_ns");
  rejects({.period_ns = kLockstepPeriod, .stale_after_ns = 2 * kLockstepPeriod - 1},
          "stale_after_ns");
  rejects({.period_ns = kLockstepPeriod, .stale_after_ns = -1}, "stale_after_ns");
  EXPECT_EQ(DeviceLockstep({.period_ns = kLockstepPeriod, .stale_after_ns = 0}).stale_after_ns(),
            kDefaultLockstepStalePeriods * kLockstepPeriod);
  EXPECT_EQ(DeviceLockstep({.period_ns = kLockstepPeriod, .stale_after_ns = 2 * kLockstepPeriod})
                .stale_after_ns(),
            2 * kLockstepPeriod);
}

// No master: wall ticks at 0, 1, ..., 9: exactly DeadlineLoop's grid.
TEST(DeviceLockstepTimeline, WithoutAMasterTheTicksAreTheWallGrid) {
  const Timeline r = drive({}, 10);
  EXPECT_EQ(r.events, repeat("w", 10));
  for (std::size_t k = 0; k < r.ticks.size(); ++k) {
    EXPECT_EQ(r.ticks[k].release_ns, at(static_cast<double>(k)));
    EXPECT_EQ(r.ticks[k].source, TickSource::kWall);
  }
  expect_invariants(r);
  EXPECT_EQ(r.counters.locks, 0);
}

// Master at the rate from 0.6: w at 0, then each input takes the next slot early and runs one
// tick at its arrival: 1 wall + 100 input ticks, never a fallback.
TEST(DeviceLockstepTimeline, MasterAtTheRateRunsOneTickPerInput) {
  const Timeline r = drive(master(0.6, 100), 100);
  EXPECT_EQ(r.events, "w " + repeat("i", 100));
  for (std::size_t k = 1; k < r.ticks.size(); ++k) {
    EXPECT_EQ(r.ticks[k].release_ns, at(0.6 + static_cast<double>(k - 1)));  // at once
  }
  EXPECT_EQ(r.counters.locks, 1);
  EXPECT_EQ(r.counters.fallbacks, 0);
  expect_invariants(r);
}

// A master that sends from the very start (input at 0, the first slot): one tick, not a wall
// tick and an input tick.
TEST(DeviceLockstepTimeline, AnInputOnTheFirstSlotTakesIt) {
  const Timeline r = drive(master(0, 10), 10);
  EXPECT_EQ(r.events, repeat("i", 10));
  expect_invariants(r);
}

// The master stops after 19.6 and resumes at 40.2: i x20 (0.6 .. 19.6); silent until the
// watchdog at 22.6 = 19.6 + S, where wall ticks take over: w at 22.6 .. 39.6 (18); the input at
// 40.2 is 0.6 P after the last wall tick, so it takes the slot 40.6 early: i x20 (40.2 ..
// 59.2); watchdog at 62.2: w at 62.2 .. 69.2 (8). 67 ticks.
TEST(DeviceLockstepTimeline, MasterStopsAndResumes) {
  const Timeline r = drive(master(0.6, 20) + master(40.2, 20), 70);
  EXPECT_EQ(r.events, "w " + repeat("i", 20) + repeat("w", 18) + repeat("i", 20) + repeat("w", 8));
  EXPECT_EQ(r.ticks[21].release_ns, at(22.6));  // exactly stale_after after the last input
  EXPECT_EQ(r.ticks[21].source, TickSource::kWall);
  EXPECT_EQ(r.ticks[38].release_ns, at(39.6));
  EXPECT_EQ(r.ticks[39].release_ns, at(40.2));
  EXPECT_EQ(r.counters.fallbacks, 2);
  EXPECT_EQ(r.counters.locks, 2);
  EXPECT_EQ(r.counters.absorbed_inputs, 0);
  EXPECT_EQ(r.counters.missed_slots, 0);
  expect_invariants(r);
}

// Resuming just after a wall tick: the master returns at 39.8, 0.2 P after the wall tick at
// 39.6. That input belongs to the slot the wall tick just ran: absorbed, no second tick in the
// period; the next input (40.8) runs the next tick. w, i x20, w x18, a, i x19, then the
// watchdog at 58.8 + 3 = 61.8: w at 61.8 .. 69.8 (9). 67 ticks for 40 inputs.
TEST(DeviceLockstepTimeline, ResumingJustAfterAWallTickIsNotADoubledTick) {
  const Timeline r = drive(master(0.6, 20) + master(39.8, 20), 70);
  EXPECT_EQ(r.events,
            "w " + repeat("i", 20) + repeat("w", 18) + "a " + repeat("i", 19) + repeat("w", 9));
  EXPECT_EQ(r.counters.ticks, 67);
  EXPECT_EQ(r.counters.inputs, 40);
  EXPECT_EQ(r.counters.absorbed_inputs, 1);
  expect_invariants(r);
}

// An input exactly at the watchdog deadline: the driver handles it first, it re-arms the
// watchdog, and the timeout then finds nothing due. Inputs 0.6 .. 9.6, then 12.6 (= 9.6 + S)
// onwards: still locked, no wall tick besides slot 0.
TEST(DeviceLockstepTimeline, AnInputOnTheWatchdogDeadlineWinsTheTie) {
  const Timeline r = drive(master(0.6, 10) + master(12.6, 10), 22);
  EXPECT_EQ(r.events, "w " + repeat("i", 20));
  EXPECT_EQ(r.counters.fallbacks, 0);

  DeviceLockstep lock({.period_ns = kLockstepPeriod, .stale_after_ns = 0});
  lock.begin(kLockstepStart);
  ASSERT_TRUE(lock.on_input(at(0.6)));
  ASSERT_TRUE(lock.on_input(at(3.6)));     // the watchdog was due at 3.6 too
  EXPECT_FALSE(lock.on_timeout(at(3.6)));  // and does not tick again
  EXPECT_EQ(lock.counters().ticks, 2);
  EXPECT_EQ(lock.mode(), LockstepMode::kLocked);
}

// Bursts and late inputs while locked. Input 5 (nominally 5.6) is delayed to 6.55 and arrives
// just before input 6 (6.6): two ticks in that period, one per input, as lockstep means. Inputs
// 12 and 13 (12.6, 13.6) are delayed to 14.3 and 14.4, before the watchdog at 11.6 + S = 14.6:
// three ticks at 14.3, 14.4, 14.6, no fallback. Every input runs exactly one tick.
TEST(DeviceLockstepTimeline, BurstsAndLateInputsRunOneTickEach) {
  std::vector<std::int64_t> inputs = master(0.6, 30);
  inputs[5] = at(6.55);
  inputs[12] = at(14.3);
  inputs[13] = at(14.4);
  const Timeline r = drive(inputs, 30);
  EXPECT_EQ(r.events, "w " + repeat("i", 30));
  EXPECT_EQ(r.counters.input_ticks, 30);
  EXPECT_EQ(r.counters.fallbacks, 0);
  EXPECT_EQ(r.ticks[6].release_ns, at(6.55));
  EXPECT_EQ(r.ticks[7].release_ns, at(6.6));
  EXPECT_EQ(r.ticks[13].release_ns, at(14.3));
  EXPECT_EQ(r.ticks[14].release_ns, at(14.4));
  expect_invariants(r);
}

// A silence just longer than S (input 10 at 10.6 lost and 11.6 late to 13.65): the watchdog at
// 9.6 + 3 = 12.6 falls back (w at 12.6, 13.6), then 13.65 is 0.05 P after a wall tick:
// absorbed; 14.6 on: input ticks. Each period gets one tick.
TEST(DeviceLockstepTimeline, LateInputAfterTheWatchdogIsAbsorbed) {
  std::vector<std::int64_t> inputs = master(0.6, 10) + master(13.65, 1) + master(14.6, 6);
  const Timeline r = drive(inputs, 20);
  EXPECT_EQ(r.events, "w " + repeat("i", 10) + "w w a " + repeat("i", 6));
  EXPECT_EQ(r.counters.fallbacks, 1);
  EXPECT_EQ(r.counters.locks, 2);
  expect_invariants(r);
}

// A driver that wakes 2.5 P late for a wall slot (an overrun in kFree): the slots that passed
// are skipped and counted, the grid's phase is kept (like LoopScheduler's kSkip).
TEST(DeviceLockstepTimeline, ALateWakeSkipsWallSlotsAndKeepsThePhase) {
  DeviceLockstep lock({.period_ns = kLockstepPeriod, .stale_after_ns = 0});
  lock.begin(kLockstepStart);
  ASSERT_TRUE(lock.on_timeout(at(0)));
  EXPECT_FALSE(lock.on_timeout(at(0.5)));  // early wake
  ASSERT_TRUE(lock.on_timeout(at(3.5)));   // slots 1, 2, 3 passed: 3 runs, 1 and 2 missed
  EXPECT_EQ(lock.last_tick().release_ns, at(3));
  EXPECT_EQ(lock.counters().missed_slots, 2);
  EXPECT_EQ(lock.wait_deadline_ns(), at(4));
  // an input at 6.2 (slots 4, 5 and 6 passed) takes slot 6; 4 and 5 are missed
  ASSERT_TRUE(lock.on_input(at(6.2)));
  EXPECT_EQ(lock.counters().missed_slots, 4);
  EXPECT_EQ(lock.counters().ticks, 3);
  EXPECT_EQ(lock.wait_deadline_ns(), at(9.2));
}

// begin() starts a new run: counters, mode and the grid.
TEST(DeviceLockstepTimeline, BeginResets) {
  DeviceLockstep lock({.period_ns = kLockstepPeriod, .stale_after_ns = 0});
  lock.begin(kLockstepStart);
  ASSERT_TRUE(lock.on_input(at(0.2)));
  lock.begin(at(100));
  EXPECT_EQ(lock.mode(), LockstepMode::kFree);
  EXPECT_EQ(lock.counters().ticks, 0);
  EXPECT_EQ(lock.wait_deadline_ns(), at(100));
  EXPECT_STREQ(to_string(LockstepMode::kLocked), "locked");
}

}  // namespace
}  // namespace rtmb
