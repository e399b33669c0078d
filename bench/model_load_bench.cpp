// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Setup time of a large spatial model (issue 16, acceptance point 6: a 1000-body spatial chain
// with a loop closure loads in <= 1 s): the file of `rtmb gen chain --n N --spatial --loop`,
// generated once outside the timing, then what `rtmb run` does before its first step: parse the
// YAML, build the bodies and joints, check the pose (assembly), the redundancy check of G
// (constraint_rank, the sparse rank-revealing QR), the System, the Model and one Workspace with
// its sparse KKT factorization. Median of 5 repetitions:
//
//   ./build/bin/rtmb_bench --benchmark_filter='LoadSpatialChainLoop'
//
// (5 repetitions, aggregates only: the median is the `_median` line)
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "rtmb/models/chain_models.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"

namespace {

using namespace rtmb;

void bm_load_spatial_chain_loop(benchmark::State& bs) {
  const int n = static_cast<int>(bs.range(0));
  const std::string text = chain_model_yaml(n, true, true);
  for (auto _ : bs) {
    const ModelFile f = parse_model_file(text, "chain_loop_spatial.yaml");
    const Model model(make_system(f), f.settings);
    Workspace ws(model);
    State s = initial_state(model);
    benchmark::DoNotOptimize(s.q.data());
  }
  bs.counters["bodies"] = n;
}

BENCHMARK(bm_load_spatial_chain_loop)
    ->Name("BM_LoadSpatialChainLoop")
    ->Arg(100)
    ->Arg(300)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

}  // namespace
