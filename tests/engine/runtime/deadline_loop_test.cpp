// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// DeadlineLoop and its overrun policies. Each policy runs on a FakeClock with a scripted step
// whose compute time is injected, so the exact ticks executed, skipped, caught up, degraded or
// halting are known in advance and asserted (the traces are worked out next to each test). Only
// the last suite uses the real clock, and it asserts counts, never timing.
//
// Notation in the traces: P = period, times are in periods after the start, slot k is released
// at D(k) = k.
#include "rtmb/runtime/deadline_loop.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace rtmb {
namespace {

constexpr std::int64_t kLoopPeriod = 1'000'000;  // 1 ms
constexpr std::int64_t kLoopStart =
    5'000'000'000;  // the fake clock's start: deadlines are absolute
constexpr std::int64_t periods(double n) {
  return static_cast<std::int64_t>(n * kLoopPeriod);
}

struct HaltRecord {
  int calls = 0;
  LoopCounters counters;
};

void record_halt(void* context, const LoopCounters& counters) noexcept {
  auto* record = static_cast<HaltRecord*>(context);
  ++record->calls;
  record->counters = counters;
}

struct RunResult {
  StopReason reason = StopReason::kNone;
  LoopCounters counters;
  std::unique_ptr<LoopHistograms> histograms = std::make_unique<LoopHistograms>();
  std::vector<Tick> ticks;  // what the step was told, in call order
  std::int64_t end_ns = 0;  // fake time when run() returned
  HaltRecord halt;

  std::vector<std::int64_t> indices() const {
    std::vector<std::int64_t> out;
    for (const Tick& t : ticks) out.push_back(t.index);
    return out;
  }
  std::vector<int> levels() const {
    std::vector<int> out;
    for (const Tick& t : ticks) out.push_back(t.degrade_level);
    return out;
  }
};

// Runs the loop on a FakeClock; the step takes compute(tick) ns of fake time.
template <class Compute>
RunResult run_scripted(LoopConfig config, Compute compute, std::int64_t wake_latency_ns = 0) {
  RunResult r;
  r.ticks.reserve(1000);
  config.safe_state = record_halt;
  config.safe_state_context = &r.halt;
  FakeClock clock(kLoopStart);
  clock.set_wake_latency(wake_latency_ns);
  auto step = [&](const Tick& tick) noexcept {
    r.ticks.push_back(tick);
    clock.advance(compute(tick));
    return true;
  };
  DeadlineLoop loop(config, step, clock);
  r.reason = loop.run();
  r.counters = loop.counters();
  *r.histograms = loop.histograms();
  r.end_ns = clock.now();
  return r;
}

LoopConfig config_for(OverrunPolicy policy, std::int64_t max_ticks) {
  LoopConfig c;
  c.period_ns = kLoopPeriod;
  c.policy = policy;
  c.max_ticks = max_ticks;
  return c;
}

// Expects the counters named in `want` ("ticks=20 overruns=1", in any order) to have those
// values; compared as one text, so a failure shows every difference at once.
void expect_counters(const LoopCounters& c, const std::string& want) {
  const std::pair<const char*, std::int64_t> values[] = {
      {"ticks", c.ticks},
      {"missed_ticks", c.missed_ticks},
      {"catch_up_ticks", c.catch_up_ticks},
      {"overruns", c.overruns},
      {"consecutive_overruns", c.consecutive_overruns},
      {"max_consecutive_overruns", c.max_consecutive_overruns},
      {"degraded_ticks", c.degraded_ticks},
      {"next_index", c.next_index},
      {"degrade_level", c.degrade_level},
      {"max_degrade_level_reached", c.max_degrade_level_reached},
  };
  std::istringstream items(want);
  std::string got;
  for (std::string item; items >> item;) {
    const std::string name = item.substr(0, item.find('='));
    std::string value = "?";
    for (const auto& [n, v] : values) {
      if (name == n) value = std::to_string(v);
    }
    got += (got.empty() ? "" : " ") + name + "=" + value;
  }
  EXPECT_EQ(got, want);
}

void expect_every_slot_accounted(const RunResult& r) {
  EXPECT_EQ(r.counters.ticks + r.counters.missed_ticks, r.counters.next_index);
  EXPECT_EQ(static_cast<std::int64_t>(r.ticks.size()), r.counters.ticks);
  for (std::size_t i = 0; i < r.ticks.size(); ++i) {
    EXPECT_EQ(r.ticks[i].deadline_ns, kLoopStart + r.ticks[i].index * kLoopPeriod);  // on the grid
    EXPECT_EQ(r.ticks[i].sequence, static_cast<std::int64_t>(i));
  }
}

// kSkip. Step 3 takes 2.5 P: slot 3 ends at 5.5 > D(4), so slots 4 and 5 are skipped and slot 6
// runs on time at 6 (phase kept). Step 7 (slot 9) takes exactly 1 P and ends at D(10): not an
// overrun. Everything else takes 0.2 P.
TEST(DeadlineLoopPolicy, SkipDropsMissedTicksAndKeepsPhase) {
  const RunResult r = run_scripted(config_for(OverrunPolicy::kSkip, 20), [](const Tick& t) {
    if (t.sequence == 3) return periods(2.5);
    if (t.sequence == 7) return periods(1.0);
    return periods(0.2);
  });

  EXPECT_EQ(r.reason, StopReason::kMaxTicks);
  const std::vector<std::int64_t> expected = {0,  1,  2,  3,  6,  7,  8,  9,  10, 11,
                                              12, 13, 14, 15, 16, 17, 18, 19, 20, 21};
  EXPECT_EQ(r.indices(), expected);
  expect_counters(r.counters,
                  "ticks=20 missed_ticks=2 overruns=1 max_consecutive_overruns=1 "
                  "consecutive_overruns=0 catch_up_ticks=0 next_index=22");
  EXPECT_EQ(r.halt.calls, 0);
  for (const Tick& t : r.ticks) EXPECT_FALSE(t.catch_up);
  expect_every_slot_accounted(r);

  // histograms: every step woke exactly on its deadline on the fake clock
  EXPECT_EQ(r.histograms->lateness.count(), 20u);
  EXPECT_EQ(r.histograms->lateness.max(), 0);
  EXPECT_EQ(r.histograms->compute.count(), 20u);
  EXPECT_EQ(r.histograms->compute.min(), periods(0.2));
  EXPECT_EQ(r.histograms->compute.max(), periods(2.5));
  EXPECT_EQ(r.histograms->slack.count(), 20u);
  EXPECT_EQ(r.histograms->slack.min(), -periods(1.5));  // D(4) - 5.5
  EXPECT_EQ(r.histograms->slack.below_zero(), 1u);
  EXPECT_EQ(r.end_ns, kLoopStart + periods(21.2));
}

struct CatchUpCase {
  int max_catch_up;
  std::vector<std::int64_t> indices;
  std::int64_t catch_up_ticks;
  std::int64_t missed_ticks;
  std::int64_t overruns;
};

// kCatchUp. Step 2 takes 3.5 P (ends at 5.5), every other step 0.25 P.
//  * budget 2: slots 3 (ends 5.75) and 4 (ends 6.0) run back to back, both overrun; the budget
//    is spent, so slot 5 (released at 5 < 6.0) is skipped and slot 6 runs on time at 6.0.
//  * budget 10: slots 3, 4, 5, 6 run back to back (6 starts at 6.25 > D(6)) and slot 6 ends at
//    6.5 <= D(7): caught up, nothing skipped; slots 2..5 overran.
//  * budget 0: behaves as kSkip: slots 3, 4, 5 skipped.
TEST(DeadlineLoopPolicy, CatchUpRunsMissedTicksUpToTheBudgetThenSkips) {
  const CatchUpCase cases[] = {
      {2, {0, 1, 2, 3, 4, 6, 7, 8, 9, 10}, 2, 1, 3},
      {10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 4, 0, 4},
      {0, {0, 1, 2, 6, 7, 8, 9, 10, 11, 12}, 0, 3, 1},
  };
  for (const CatchUpCase& c : cases) {
    SCOPED_TRACE(c.max_catch_up);
    LoopConfig config = config_for(OverrunPolicy::kCatchUp, 10);
    config.max_catch_up = c.max_catch_up;
    const RunResult r = run_scripted(
        config, [](const Tick& t) { return t.sequence == 2 ? periods(3.5) : periods(0.25); });

    EXPECT_EQ(r.reason, StopReason::kMaxTicks);
    EXPECT_EQ(r.indices(), c.indices);
    // max_consecutive_overruns = overruns: one episode
    expect_counters(r.counters, std::string("ticks=10 catch_up_ticks=") +
                                    std::to_string(c.catch_up_ticks) +
                                    " missed_ticks=" + std::to_string(c.missed_ticks) +
                                    " overruns=" + std::to_string(c.overruns) +
                                    " max_consecutive_overruns=" + std::to_string(c.overruns));
    int flagged = 0;
    for (const Tick& t : r.ticks) flagged += t.catch_up ? 1 : 0;
    EXPECT_EQ(flagged, c.catch_up_ticks);
    // catch-up steps do not sleep, so they are not wake-ups
    EXPECT_EQ(static_cast<std::int64_t>(r.histograms->lateness.count()), 10 - c.catch_up_ticks);
    EXPECT_EQ(r.histograms->compute.count(), 10u);
    expect_every_slot_accounted(r);
  }
}

// kDegrade with max level 2, lowered after 3 good ticks. Compute time by level: 0 -> 2.5 P,
// 1 -> 1.5 P, 2 -> 0.5 P (the step gets cheaper as it degrades).
//   seq 0 slot 0  level 0  ends 2.5   overrun -> level 1, skip 1, 2
//   seq 1 slot 3  level 1  ends 4.5   overrun -> level 2, skip 4
//   seq 2..4 slots 5, 6, 7 level 2    good x3 -> level 1
//   seq 5 slot 8  level 1  ends 9.5   overrun -> level 2, skip 9
//   seq 6..8 slots 10, 11, 12 level 2 good x3 -> level 1
//   seq 9 slot 13 level 1  ends 14.5  overrun -> level 2, skip 14; max_ticks reached
TEST(DeadlineLoopPolicy, DegradeRaisesLevelOnOverrunAndLowersAfterGoodTicks) {
  LoopConfig config = config_for(OverrunPolicy::kDegrade, 10);
  config.max_degrade_level = 2;
  config.degrade_recover_ticks = 3;
  const RunResult r = run_scripted(config, [](const Tick& t) {
    constexpr double kByLevel[] = {2.5, 1.5, 0.5};
    return periods(kByLevel[t.degrade_level]);
  });

  EXPECT_EQ(r.reason, StopReason::kMaxTicks);
  EXPECT_EQ(r.levels(), (std::vector<int>{0, 1, 2, 2, 2, 1, 2, 2, 2, 1}));
  EXPECT_EQ(r.indices(), (std::vector<std::int64_t>{0, 3, 5, 6, 7, 8, 10, 11, 12, 13}));
  expect_counters(r.counters,
                  "overruns=4 max_consecutive_overruns=2 missed_ticks=5 degraded_ticks=9 "
                  "degrade_level=2 max_degrade_level_reached=2 catch_up_ticks=0");
  expect_every_slot_accounted(r);
}

// kDegrade with a step that overruns at every level: the level stops at max_degrade_level.
TEST(DeadlineLoopPolicy, DegradeLevelSaturatesAtTheMaximum) {
  LoopConfig config = config_for(OverrunPolicy::kDegrade, 6);
  config.max_degrade_level = 2;
  config.degrade_recover_ticks = 1;
  const RunResult r = run_scripted(config, [](const Tick&) { return periods(1.5); });

  EXPECT_EQ(r.levels(), (std::vector<int>{0, 1, 2, 2, 2, 2}));
  // missed_ticks: each step ends at D + 1.5, one slot skipped
  expect_counters(r.counters, "overruns=6 consecutive_overruns=6 missed_ticks=6 degrade_level=2");
  expect_every_slot_accounted(r);
}

// Under any other policy the level stays 0.
TEST(DeadlineLoopPolicy, OnlyDegradeChangesTheLevel) {
  const RunResult r =
      run_scripted(config_for(OverrunPolicy::kSkip, 5), [](const Tick&) { return periods(1.5); });
  EXPECT_EQ(r.levels(), (std::vector<int>{0, 0, 0, 0, 0}));
  EXPECT_EQ(r.counters.degraded_ticks, 0);
}

// kHalt after 3 consecutive overruns. Steps 2, 3, 5, 6, 7 take 1.5 P, the others 0.5 P.
//   seq 2 slot 2 ends 3.5 overrun (1), skip 3;  seq 3 slot 4 ends 5.5 overrun (2), skip 5
//   seq 4 slot 6 good: the run of overruns restarts
//   seq 5 slot 7 (1), skip 8;  seq 6 slot 9 (2), skip 10;  seq 7 slot 11 (3), skip 12 -> halt
TEST(DeadlineLoopPolicy, HaltStopsAfterConsecutiveOverrunsAndCallsSafeStateOnce) {
  LoopConfig config = config_for(OverrunPolicy::kHalt, 100);
  config.halt_after_overruns = 3;
  const RunResult r = run_scripted(config, [](const Tick& t) {
    switch (t.sequence) {
      case 2:
      case 3:
      case 5:
      case 6:
      case 7:
        return periods(1.5);
      default:
        return periods(0.5);
    }
  });

  EXPECT_EQ(r.reason, StopReason::kHalted);
  EXPECT_EQ(r.indices(), (std::vector<std::int64_t>{0, 1, 2, 4, 6, 7, 9, 11}));
  // ticks: no step after the halting one
  expect_counters(
      r.counters,
      "ticks=8 overruns=5 consecutive_overruns=3 max_consecutive_overruns=3 missed_ticks=5");
  expect_every_slot_accounted(r);
  ASSERT_EQ(r.halt.calls, 1);
  EXPECT_EQ(r.halt.counters.ticks, 8);
  EXPECT_EQ(r.halt.counters.consecutive_overruns, 3);
}

TEST(DeadlineLoopPolicy, HaltNeedsConsecutiveOverruns) {
  // alternating slow and fast steps never reach 2 in a row
  LoopConfig config = config_for(OverrunPolicy::kHalt, 40);
  config.halt_after_overruns = 2;
  const RunResult r = run_scripted(
      config, [](const Tick& t) { return t.sequence % 2 == 0 ? periods(1.5) : periods(0.5); });
  EXPECT_EQ(r.reason, StopReason::kMaxTicks);
  EXPECT_EQ(r.counters.overruns, 20);
  EXPECT_EQ(r.counters.max_consecutive_overruns, 1);
  EXPECT_EQ(r.halt.calls, 0);
}

TEST(DeadlineLoop, WakeLatencyGoesToTheLatenessHistogram) {
  const RunResult r = run_scripted(
      config_for(OverrunPolicy::kSkip, 10), [](const Tick&) { return periods(0.5); }, 30'000);
  EXPECT_EQ(r.histograms->lateness.count(), 10u);
  EXPECT_EQ(r.histograms->lateness.min(), 30'000);
  EXPECT_EQ(r.histograms->lateness.max(), 30'000);
  EXPECT_EQ(r.histograms->slack.max(), periods(0.5) - 30'000);
  EXPECT_EQ(r.counters.overruns, 0);
}

TEST(DeadlineLoop, StepReturningFalseStopsAfterThatStep) {
  FakeClock clock;
  int calls = 0;
  auto step = [&](const Tick& t) noexcept {
    ++calls;
    clock.advance(periods(0.1));
    return t.sequence < 4;
  };
  DeadlineLoop loop(config_for(OverrunPolicy::kSkip, 0), step, clock);
  EXPECT_EQ(loop.run(), StopReason::kStepRequestedStop);
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(loop.counters().ticks, 5);
  EXPECT_EQ(loop.stop_reason(), StopReason::kStepRequestedStop);
}

TEST(DeadlineLoop, StopRequestEndsTheRunBeforeTheNextStep) {
  FakeClock clock;
  void* loop_address = nullptr;
  void (*stop)(void*) noexcept = nullptr;
  auto step = [&](const Tick& t) noexcept {
    clock.advance(periods(0.1));
    if (t.sequence == 6) stop(loop_address);  // as a signal handler or another thread would
    return true;
  };
  using Loop = DeadlineLoop<decltype(step), FakeClock>;
  Loop loop(config_for(OverrunPolicy::kSkip, 0), step, clock);
  loop_address = &loop;
  stop = [](void* l) noexcept { static_cast<Loop*>(l)->request_stop(); };

  EXPECT_EQ(loop.run(), StopReason::kStopRequested);
  EXPECT_EQ(loop.counters().ticks, 7);

  // sticky: a second run does nothing until the request is cleared
  EXPECT_EQ(loop.run(), StopReason::kStopRequested);
  EXPECT_EQ(loop.counters().ticks, 0);
  loop.clear_stop_request();
  EXPECT_EQ(loop.run(), StopReason::kStopRequested);  // stops again at sequence 6
  EXPECT_EQ(loop.counters().ticks, 7);
}

TEST(DeadlineLoop, TelemetryIsPublishedPeriodicallyAndAtTheEnd) {
  auto telemetry = std::make_unique<LatestValue<LoopTelemetry>>();
  LoopConfig config = config_for(OverrunPolicy::kSkip, 10);
  config.telemetry = telemetry.get();
  config.telemetry_every_ticks = 4;
  const RunResult r = run_scripted(
      config, [](const Tick& t) { return t.sequence == 5 ? periods(1.5) : periods(0.1); });

  EXPECT_EQ(telemetry->published(), 3u);  // after ticks 4 and 8, and at the end
  LoopTelemetry t;
  ASSERT_TRUE(telemetry->try_read(t));
  EXPECT_EQ(t.stop_reason, StopReason::kMaxTicks);
  expect_counters(t.counters, "ticks=10 overruns=1 missed_ticks=1");
  EXPECT_EQ(t.compute.count, 10u);
  EXPECT_EQ(t.compute.max, periods(1.5));
  EXPECT_EQ(t.slack.min, -periods(0.5));
  EXPECT_EQ(t.lateness.count, 10u);
  EXPECT_EQ(r.counters.ticks, 10);
}

TEST(DeadlineLoop, InvalidConfigIsRejectedAtSetup) {
  const auto rejects = [](auto mutate) {
    LoopConfig c;
    mutate(c);
    EXPECT_THROW(LoopScheduler{c}, std::invalid_argument);
  };
  rejects([](LoopConfig& c) { c.period_ns = 0; });
  rejects([](LoopConfig& c) { c.max_ticks = -1; });
  rejects([](LoopConfig& c) { c.max_catch_up = -1; });
  rejects([](LoopConfig& c) { c.max_degrade_level = 0; });
  rejects([](LoopConfig& c) { c.degrade_recover_ticks = 0; });
  rejects([](LoopConfig& c) { c.halt_after_overruns = 0; });
  rejects([](LoopConfig& c) { c.telemetry_every_ticks = 0; });
  EXPECT_NO_THROW(LoopScheduler{LoopConfig{}});
  EXPECT_STREQ(to_string(OverrunPolicy::kCatchUp), "catch_up");
  EXPECT_STREQ(to_string(StopReason::kHalted), "halted");
}

// The real clock, briefly: counts only, no timing.
TEST(DeadlineLoopRealClock, RunsTwoHundredTicksAtOneKilohertz) {
  MonotonicClock clock;
  std::int64_t calls = 0;
  auto step = [&](const Tick&) noexcept {
    ++calls;
    return true;
  };
  auto loop = std::make_unique<DeadlineLoop<decltype(step)>>(config_for(OverrunPolicy::kSkip, 200),
                                                             step, clock);
  EXPECT_EQ(loop->run(), StopReason::kMaxTicks);

  const LoopCounters& c = loop->counters();
  EXPECT_EQ(calls, 200);
  EXPECT_EQ(c.ticks, 200);
  EXPECT_EQ(c.ticks + c.missed_ticks, c.next_index);  // a loaded machine may skip some
  EXPECT_EQ(c.catch_up_ticks, 0);
  EXPECT_EQ(loop->histograms().lateness.count(), 200u);
  EXPECT_EQ(loop->histograms().compute.count(), 200u);
  EXPECT_EQ(loop->histograms().slack.count(), 200u);
  EXPECT_GE(loop->histograms().lateness.min(), 0);  // clock_nanosleep never returns early
}

TEST(DeadlineLoopRealClock, StopRequestFromAnotherThread) {
  MonotonicClock clock;
  std::atomic<std::int64_t> calls{0};
  auto step = [&](const Tick&) noexcept {
    calls.fetch_add(1, std::memory_order_relaxed);
    return true;
  };
  auto loop = std::make_unique<DeadlineLoop<decltype(step)>>(config_for(OverrunPolicy::kSkip, 0),
                                                             step, clock);
  std::thread stopper([&] {
    while (calls.load(std::memory_order_relaxed) < 5) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    loop->request_stop();
  });
  EXPECT_EQ(loop->run(), StopReason::kStopRequested);
  stopper.join();
  EXPECT_GE(loop->counters().ticks, 5);
  EXPECT_EQ(loop->counters().ticks, calls.load());
}

}  // namespace
}  // namespace rtmb
