// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Costs of the real-time runtime's building blocks, and the real loop's wake-up lateness:
//   BM_HistogramRecord           one LogHistogram::record
//   BM_SpscRingPushPop           one QueuedInput through the ring (single thread: no contention)
//   BM_LatestValuePublishRead    one StateSnapshot published and read (single thread)
//   BM_LoopTickOverhead          DeadlineLoop bookkeeping per tick (FakeClock, empty step)
//   BM_SimulationTick/pendulum   SimulationRunner::on_tick: drain, RK4+PStab step, publish
//   BM_RealLoopLateness/1kHz     500 ticks on CLOCK_MONOTONIC; reports lateness p50/p99/max
// Registered statically; main() is in step_bench.cpp.
//
//   ./build/bin/rtmb_bench --benchmark_filter='Loop|Histogram|Spsc|Latest|Simulation'
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/runtime.hpp"
#include "tests/support/runner_rig.hpp"

namespace {

using namespace rtmb;

void BM_HistogramRecord(benchmark::State& bs) {
  auto h = std::make_unique<LogHistogram>();
  std::uint64_t x = 88172645463325252ull;  // xorshift: varied buckets, no RNG cost to speak of
  for (auto _ : bs) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    h->record(static_cast<std::int64_t>(x >> 40));
  }
  benchmark::DoNotOptimize(h->count());
}
BENCHMARK(BM_HistogramRecord);

void BM_SpscRingPushPop(benchmark::State& bs) {
  auto ring = std::make_unique<InputRing>();
  QueuedInput in;
  QueuedInput out;
  for (auto _ : bs) {
    ++in.seq;
    benchmark::DoNotOptimize(ring->try_push(in));
    benchmark::DoNotOptimize(ring->try_pop(out));
  }
  benchmark::DoNotOptimize(out.seq);
}
BENCHMARK(BM_SpscRingPushPop);

void BM_LatestValuePublishRead(benchmark::State& bs) {
  auto slot = std::make_unique<SnapshotSlot>();
  auto snapshot = std::make_unique<StateSnapshot>();
  auto out = std::make_unique<StateSnapshot>();
  for (auto _ : bs) {
    ++snapshot->step;
    slot->publish(*snapshot);
    benchmark::DoNotOptimize(slot->try_read(*out));
  }
  benchmark::DoNotOptimize(out->step);
}
BENCHMARK(BM_LatestValuePublishRead);

void BM_LoopTickOverhead(benchmark::State& bs) {
  constexpr std::int64_t kBatch = 1000;
  FakeClock clock;
  auto step = [&clock](const Tick&) noexcept {
    clock.advance(100);
    return true;
  };
  LoopConfig config;
  config.max_ticks = kBatch;
  auto loop = std::make_unique<DeadlineLoop<decltype(step), FakeClock>>(config, step, clock);
  while (bs.KeepRunningBatch(kBatch)) benchmark::DoNotOptimize(loop->run());
  bs.SetItemsProcessed(bs.iterations());
}
BENCHMARK(BM_LoopTickOverhead);

void BM_SimulationTick(benchmark::State& bs) {
  testing::RunnerRig rig("pendulum");
  Tick tick;
  for (auto _ : bs) {
    benchmark::DoNotOptimize(rig.runner.on_tick(tick));
    ++tick.index;
  }
  bs.SetItemsProcessed(bs.iterations());
}
BENCHMARK(BM_SimulationTick)->Name("BM_SimulationTick/pendulum");

// Not a throughput number: the wake-up lateness of this machine's scheduler at 1 kHz, without
// real-time priority unless the process already has it. Compare only runs on the same machine.
void BM_RealLoopLateness(benchmark::State& bs) {
  MonotonicClock clock;
  auto step = [](const Tick&) noexcept { return true; };
  LoopConfig config;
  config.period_ns = 1'000'000;
  config.max_ticks = 500;
  auto loop = std::make_unique<DeadlineLoop<decltype(step)>>(config, step, clock);
  for (auto _ : bs) benchmark::DoNotOptimize(loop->run());
  const HistogramSummary s = loop->histograms().lateness.summarize();
  bs.counters["lateness_p50_ns"] = static_cast<double>(s.p50);
  bs.counters["lateness_p99_ns"] = static_cast<double>(s.p99);
  bs.counters["lateness_max_ns"] = static_cast<double>(s.max);
  bs.counters["missed_ticks"] = static_cast<double>(loop->counters().missed_ticks);
}
BENCHMARK(BM_RealLoopLateness)
    ->Name("BM_RealLoopLateness/1kHz")
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
