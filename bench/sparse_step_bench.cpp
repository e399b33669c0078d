// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Scaling of one whole step() with the body count (issue 4): RK4 + PStab on a planar N-link
// chain with its tip pinned (the model of `rtmb gen chain --n N --loop`), sparse KKT solver for
// N = 3 .. 1000, dense for N <= 100 side by side (the crossover that Settings::solver `auto`
// uses, kSparseCrossoverNv), monitor on (the default) and off. Any System factory can be
// registered (register_scaling), so spatial chains can be added without touching the loop; the
// particle beam of `rtmb gen beam` (issue 17) is one more family.
//
// Counters: bodies = N, ns_per_body = (time per step) / N, and items_per_second = bodies per
// second. The exponent of time vs N comes from scripts/fit_scaling.py on the JSON output:
//
//   make bench-scaling
//
// runs ./build/bin/rtmb_bench --benchmark_filter='BM_ChainStep' --benchmark_repetitions=5
// --benchmark_report_aggregates_only=true --benchmark_out=build/scaling.json
// --benchmark_out_format=json, then python3 scripts/fit_scaling.py build/scaling.json.
#include <benchmark/benchmark.h>

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>

#include "rtmb/models/chain_models.hpp"
#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/support/joint_space_chain_spec.hpp"
#include "tests/support/planar_chain_spec.hpp"

namespace {

using namespace rtmb;

using SystemFactory = std::function<std::shared_ptr<const System>(int n)>;

void bm_chain_step(
    benchmark::State& bs, const SystemFactory& factory, int n, KktSolver solver, bool monitor) {
  Settings settings;
  settings.method = Method::kRk4;
  settings.stabilizer = StabilizerKind::kPStab;
  settings.dt = 1e-3;
  settings.solver = solver;
  settings.monitor = monitor;
  const Model model(factory(n), settings);
  if (model.solver() != solver) {
    bs.SkipWithError("solver not available for this system");
    return;
  }
  Workspace ws(model);
  State s = initial_state(model);
  for (int i = 0; i < 20; ++i) (void)step(model, s, ws);  // warm: away from the start pose
  const State start = s;
  long k = 0;
  for (auto _ : bs) {
    // restart every 1000 steps (1 s of motion) so that all runs time the same motion
    if (++k % 1000 == 0) s = start;  // same-size assignment: no allocation
    benchmark::DoNotOptimize(step(model, s, ws));
  }
  bs.SetItemsProcessed(bs.iterations() * n);
  bs.counters["bodies"] = n;
  bs.counters["ns_per_body"] = benchmark::Counter(
      static_cast<double>(n) * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

/// Registers BM_ChainStep/<label>/<solver>/<monitor|nomonitor>/<N> for a System family, with
/// `fast` (sparse for body models, tree for joint-space trees) and dense side by side.
void register_scaling(const std::string& label,
                      const SystemFactory& factory,
                      std::initializer_list<int> sizes,
                      KktSolver fast = KktSolver::kSparse) {
  for (int n : sizes) {
    for (KktSolver solver : {fast, KktSolver::kDense}) {
      if (solver == KktSolver::kDense && n > 100) continue;  // O(n^3): seconds per step
      for (bool monitor : {true, false}) {
        const std::string name = "BM_ChainStep/" + label + "/" + std::string(to_string(solver)) +
                                 "/" + (monitor ? "monitor" : "nomonitor") + "/" +
                                 std::to_string(n);
        benchmark::RegisterBenchmark(name.c_str(), bm_chain_step, factory, n, solver, monitor)
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
}

const int kRegistered = [] {
  register_scaling(
      "planar_loop",
      [](int n) -> std::shared_ptr<const System> {
        return std::make_shared<PlanarMultibody>(rtmb::testing::planar_chain_spec(n, true));
      },
      {3, 5, 10, 20, 30, 100, 300, 1000});
  // issue 19, acceptance 4: a spatial chain in joint space with its tip pinned (N revolute
  // coordinates, 3 loop rows), tree KKT (articulated M^-1, engine/kkt/tree_kkt.hpp) against dense
  // (CRBA's M in the full K); also the tree solver's crossover, kTreeCrossoverNv
  register_scaling(
      "joint_space_loop",
      [](int n) -> std::shared_ptr<const System> {
        return std::make_shared<JointSpaceTree>(rtmb::testing::joint_space_chain_spec(n, true));
      },
      {5, 10, 15, 20, 25, 50, 100}, KktSolver::kTree);
  // the smallest models, for the crossover: open chains of 1 and 2 links (n_v = 3, 6)
  register_scaling(
      "planar_open",
      [](int n) -> std::shared_ptr<const System> {
        return std::make_shared<PlanarMultibody>(rtmb::testing::planar_chain_spec(n, false));
      },
      {1, 2});
  // spatial chains (issue 4: "spatial chains reported too"): rods on spherical joints with the
  // tip pinned, the model of `rtmb gen chain --n N --spatial --loop` (7 coordinates and one
  // quaternion normalization row per body). Building the model, its redundancy check included,
  // is O(N) since issue 16 (bench/model_load_bench.cpp times it).
  register_scaling(
      "spatial_loop",
      [](int n) -> std::shared_ptr<const System> {
        return make_system(parse_model_file(chain_model_yaml(n, true, true), "spatial chain"));
      },
      {10, 30, 100, 300, 1000});
  // issue 17, acceptance 5: the simply supported particle beam of `rtmb gen beam --n N` (N
  // elements: N + 1 particles, N trusses, N - 1 bending elements, 4 pin rows); "bodies" counts
  // elements here. scripts/fit_scaling.py checks its exponent (sparse, monitor on) <= 1.15.
  register_scaling("particle_beam",
                   [](int n) -> std::shared_ptr<const System> {
                     return make_system(parse_model_file(beam_model_yaml(n), "particle beam"));
                   },
                   {25, 50, 100, 200});
  return 0;
}();

}  // namespace
