// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// One RK4 + PStab step of the spatial example models (configs/arm6.yaml, the reduced
// configs/spatial_four_bar.yaml), from a warm state restored before each batch, and the
// evaluation kernels of arm6 (mass matrix, Jacobian, curvature) on their own.
//
//   ./build/bin/rtmb_bench --benchmark_filter='Spatial'
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"

namespace {

using namespace rtmb;

std::shared_ptr<const System> load(const std::string& file) {
  return make_system(load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/" + file));
}

constexpr int kBatch = 50;

void bm_spatial_step(benchmark::State& bs, const std::string& file) {
  Settings settings;
  settings.method = Method::kRk4;
  settings.stabilizer = StabilizerKind::kPStab;
  settings.dt = 1e-3;
  const Model model(load(file), settings);
  Workspace ws(model);
  State s = initial_state(model);
  for (int i = 0; i < 200; ++i) (void)step(model, s, ws);  // warm, away from t = 0
  const State start = s;
  while (bs.KeepRunningBatch(kBatch)) {
    s = start;
    for (int i = 0; i < kBatch; ++i) benchmark::DoNotOptimize(step(model, s, ws));
  }
  bs.SetItemsProcessed(bs.iterations());
}

void bm_spatial_kernels(benchmark::State& bs) {
  const std::shared_ptr<const System> sys = load("arm6.yaml");
  State s;
  sys->initial_state(s);
  s.v.setConstant(0.1);
  Mat M(sys->n_v(), sys->n_v());
  Mat G(sys->n_lambda(), sys->n_v());
  Vec L(sys->n_lambda());
  Vec f(sys->n_v());
  for (auto _ : bs) {
    sys->mass(0.0, s.q, M);
    sys->jacobian(0.0, s.q, G);
    sys->curvature(0.0, s.q, s.v, L);
    sys->forces(0.0, s.q, s.v, {}, f);
    benchmark::DoNotOptimize(M.data());
    benchmark::DoNotOptimize(G.data());
    benchmark::DoNotOptimize(L.data());
    benchmark::DoNotOptimize(f.data());
  }
}

BENCHMARK_CAPTURE(bm_spatial_step, SpatialArm6_rk4_pstab, std::string("arm6.yaml"));
BENCHMARK_CAPTURE(bm_spatial_step,
                  SpatialFourBarReduced_rk4_pstab,
                  std::string("spatial_four_bar.yaml"));
BENCHMARK(bm_spatial_kernels)->Name("SpatialArm6_mass_jacobian_curvature_forces");

}  // namespace
