// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The simulation thread's contract: after setup, the deadline loop with the SimulationRunner
// never allocates. 100 000 ticks of real engine steps (pendulum, RK4 + PStab) on a FakeClock,
// with an occasional injected slow tick (so the overrun path runs too) and loop telemetry
// published every 1000 ticks, while one thread streams input samples into the ring at a bounded
// rate and another reads snapshots. Only the simulation thread's heap calls are counted
// (tests/support/alloc_counter.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/runtime.hpp"
#include "tests/support/alloc_counter.hpp"

namespace rtmb {
namespace {

using testing::AllocationCounts;
using testing::AllocationScope;

constexpr std::int64_t kTicks = 100'000;
constexpr std::int64_t kWarmUpTicks = 100;
constexpr std::int64_t kComputeNs = 200'000;        // injected compute time of a normal tick
constexpr std::int64_t kSlowComputeNs = 2'500'000;  // every kSlowEvery-th tick overruns
constexpr std::int64_t kSlowEvery = 1000;

// What the input hook does with a sample: something observable, nothing that allocates.
struct InputSink {
  double sum = 0.0;
  std::uint64_t last_seq = 0;
  bool ordered = true;
};

void sink_input(void* context, const QueuedInput& sample) noexcept {
  auto* sink = static_cast<InputSink*>(context);
  sink->ordered = sink->ordered && sample.seq > sink->last_seq;
  sink->last_seq = sample.seq;
  sink->sum += sample.value;
}

TEST(RuntimeAllocations, HundredThousandLoopTicksWithStreamingInputsAllocateNothing) {
  // setup: everything allocated here, on the simulation thread
  Settings settings;
  settings.dt = find_mechanism("pendulum")->default_dt;
  const Model model(make_mechanism("pendulum"), settings);
  Workspace ws(model);
  State state = initial_state(model);
  auto inputs = std::make_unique<InputRing>();
  auto snapshots = std::make_unique<SnapshotSlot>();
  auto telemetry = std::make_unique<LatestValue<LoopTelemetry>>();
  SimulationRunner runner(model, state, ws, *inputs, *snapshots);
  InputSink sink;
  runner.set_input_hook(sink_input, &sink);

  FakeClock clock;
  auto step = [&runner, &clock](const Tick& tick) noexcept {
    const bool keep_going = runner.on_tick(tick);
    const bool slow = tick.sequence % kSlowEvery == kSlowEvery - 1;
    clock.advance(slow ? kSlowComputeNs : kComputeNs);
    return keep_going;
  };
  LoopConfig config;
  config.period_ns = runner.period_ns();
  config.max_ticks = kWarmUpTicks;
  config.telemetry = telemetry.get();
  config.telemetry_every_ticks = 1000;
  auto loop = std::make_unique<DeadlineLoop<decltype(step), FakeClock>>(config, step, clock);
  ASSERT_EQ(loop->run(), StopReason::kMaxTicks);  // warm-up, outside the count

  // the network side: a producer at most ~10 kHz, a snapshot reader at most ~5 kHz
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> attempted{0};
  std::thread producer([&] {
    std::uint64_t seq = 0;
    while (!done.load(std::memory_order_acquire)) {
      QueuedInput s;
      s.seq = ++seq;
      s.value = 1.0;
      s.sender_time_ns = static_cast<std::int64_t>(seq) * 100'000;
      (void)inputs->try_push(s);
      attempted.store(seq, std::memory_order_release);
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  });
  std::int64_t snapshot_reads = 0;
  bool snapshots_forward = true;
  std::thread reader([&] {
    std::int64_t last_step = 0;
    StateSnapshot s;
    while (!done.load(std::memory_order_acquire)) {
      if (snapshots->try_read(s)) {
        ++snapshot_reads;
        snapshots_forward = snapshots_forward && s.step > last_step;
        last_step = s.step;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  while (attempted.load(std::memory_order_acquire) == 0) std::this_thread::yield();

  // the counted run
  LoopConfig counted = config;
  counted.max_ticks = kTicks;
  auto counted_loop =
      std::make_unique<DeadlineLoop<decltype(step), FakeClock>>(counted, step, clock);
  AllocationCounts counts;
  StopReason reason = StopReason::kNone;
  {
    AllocationScope scope;
    reason = counted_loop->run();
    counts = scope.counts();
  }
  done.store(true, std::memory_order_release);
  producer.join();
  reader.join();

  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 0u);

  // the run did what it should
  EXPECT_EQ(reason, StopReason::kMaxTicks);
  const LoopCounters& c = counted_loop->counters();
  EXPECT_EQ(c.ticks, kTicks);
  EXPECT_EQ(c.overruns, kTicks / kSlowEvery);
  EXPECT_EQ(c.missed_ticks, 2 * (kTicks / kSlowEvery));  // 2.5 periods skip two ticks
  EXPECT_EQ(counted_loop->histograms().compute.count(), static_cast<std::uint64_t>(kTicks));
  EXPECT_EQ(runner.counters().steps, kWarmUpTicks + kTicks);
  EXPECT_EQ(runner.counters().flags_seen, 0u);
  EXPECT_GT(runner.counters().inputs_applied, 0);
  EXPECT_TRUE(sink.ordered);
  EXPECT_EQ(static_cast<std::uint64_t>(runner.counters().inputs_applied) + inputs->size_approx(),
            inputs->pushed());
  EXPECT_EQ(inputs->pushed() + inputs->dropped(), attempted.load());
  EXPECT_TRUE(snapshots_forward);
  LoopTelemetry t;
  ASSERT_TRUE(telemetry->try_read(t));
  EXPECT_EQ(t.counters.ticks, kTicks);
  RecordProperty("inputs_applied", std::to_string(runner.counters().inputs_applied));
  RecordProperty("snapshot_reads", std::to_string(snapshot_reads));
}

TEST(RuntimeAllocations, CounterSeesSetupAllocationsOfTheRuntime) {
  // negative control: building the runtime's objects does allocate, and the counter sees it
  // (the objects outlive the scope, so the compiler cannot elide the allocations)
  AllocationCounts counts;
  std::unique_ptr<InputRing> inputs;
  std::unique_ptr<SnapshotSlot> snapshots;
  {
    AllocationScope scope;
    inputs = std::make_unique<InputRing>();
    snapshots = std::make_unique<SnapshotSlot>();
    counts = scope.counts();
  }
  EXPECT_GE(counts.allocations, 2u);
  EXPECT_TRUE(inputs->try_push(QueuedInput{}));
  snapshots->publish(StateSnapshot{});
  EXPECT_EQ(snapshots->published(), 1u);
}

}  // namespace
}  // namespace rtmb
