// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// One fixed step for every reference mechanism x method x stabilizer, from a warm state.
// Also BM_StepLatency/andrews_rk4_pstab: each step timed on its own into a preallocated buffer,
// reporting p50/p99/max (a deadline loop cares about the tail, not the mean).
//
//   make bench                                  # everything, short runs
//   ./build/bin/rtmb_bench --benchmark_filter='andrews_rk4_pstab' --benchmark_repetitions=9
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"
#include "tests/support/reference_mechanisms.hpp"

namespace {

using namespace rtmb;

struct Scenario {
  Scenario(const std::string& mechanism,
           const MechanismOptions& options,
           Method method,
           StabilizerKind stabilizer)
      : model(make_mechanism(mechanism, options), make_settings(mechanism, method, stabilizer)),
        ws(model),
        state(initial_state(model)) {
    // warm up to a typical state away from the special initial configuration
    for (int i = 0; i < 200; ++i) (void)step(model, state, ws);
    start = state;
  }

  static Settings make_settings(const std::string& mechanism,
                                Method method,
                                StabilizerKind stabilizer) {
    Settings s;
    s.method = method;
    s.stabilizer = stabilizer;
    s.dt = find_mechanism(mechanism)->default_dt;
    if (stabilizer == StabilizerKind::kBaumgarte) {
      s.gamma1 = 20.0;
      s.gamma2 = 100.0;
    }
    return s;
  }

  Model model;
  Workspace ws;
  State state;
  State start;
};

constexpr int kBatch = 50;

void bm_step(benchmark::State& bs,
             const std::string& mechanism,
             MechanismOptions options,
             Method method,
             StabilizerKind stabilizer) {
  Scenario sc(mechanism, options, method, stabilizer);
  while (bs.KeepRunningBatch(kBatch)) {
    sc.state = sc.start;  // same-size assignment: no allocation
    for (int i = 0; i < kBatch; ++i) benchmark::DoNotOptimize(step(sc.model, sc.state, sc.ws));
  }
  bs.SetItemsProcessed(bs.iterations());
}

// Implicit index-3 methods (engine/implicit): no stabilizer; reports Newton iterations per step.
void bm_step_implicit(benchmark::State& bs, const std::string& mechanism, Method method) {
  Scenario sc(mechanism, {}, method, StabilizerKind::kNone);
  long steps = 0;
  long newton = 0;
  while (bs.KeepRunningBatch(kBatch)) {
    sc.state = sc.start;  // same-size assignment: no allocation
    for (int i = 0; i < kBatch; ++i) {
      const StepStatus st = step(sc.model, sc.state, sc.ws);
      newton += st.newton_iterations;
      ++steps;
    }
  }
  bs.SetItemsProcessed(bs.iterations());
  bs.counters["newton_per_step"] =
      steps > 0 ? static_cast<double>(newton) / static_cast<double>(steps) : 0.0;
}

void bm_step_latency(benchmark::State& bs) {
  Scenario sc("andrews", {}, Method::kRk4, StabilizerKind::kPStab);
  std::vector<double> ns;
  ns.reserve(1 << 20);
  using Clock = std::chrono::steady_clock;
  for (auto _ : bs) {
    if (ns.size() == ns.capacity()) ns.clear();
    if (sc.state.t > 0.03) sc.state = sc.start;
    const auto t0 = Clock::now();
    benchmark::DoNotOptimize(step(sc.model, sc.state, sc.ws));
    const auto t1 = Clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
  }
  std::sort(ns.begin(), ns.end());
  auto pct = [&](double p) {
    return ns.empty() ? 0.0 : ns[static_cast<std::size_t>(p * static_cast<double>(ns.size() - 1))];
  };
  bs.counters["p50_ns"] = pct(0.50);
  bs.counters["p99_ns"] = pct(0.99);
  bs.counters["p999_ns"] = pct(0.999);
  bs.counters["max_ns"] = ns.empty() ? 0.0 : ns.back();
}

void register_all() {
  const std::vector<testing::MechanismCase> mechs = testing::reference_mechanisms(10);
  for (const testing::MechanismCase& m : mechs) {
    for (Method method : testing::kRungeKuttaMethods) {
      for (StabilizerKind stab : testing::kReferenceStabilizers) {
        const std::string name = std::string("BM_Step/") + m.label + "_" +
                                 std::string(to_string(method)) + "_" +
                                 std::string(to_string(stab));
        benchmark::RegisterBenchmark(name.c_str(), bm_step, std::string(m.name), m.options, method,
                                     stab);
      }
    }
  }
  for (const testing::MechanismCase& m : mechs) {
    for (Method method : {Method::kMidpoint, Method::kNewmark, Method::kHht, Method::kWbz,
                          Method::kGenAlpha, Method::kGgl}) {
      const std::string name =
          std::string("BM_Step/") + m.label + "_" + std::string(to_string(method)) + "_none";
      benchmark::RegisterBenchmark(name.c_str(), bm_step_implicit, std::string(m.name), method);
    }
  }
  benchmark::RegisterBenchmark("BM_StepLatency/andrews_rk4_pstab", bm_step_latency);
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
