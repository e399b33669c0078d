// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Chin 1995 Figs. 5.8/5.9 over the thesis's whole interval (reference
// post-stabilization-chin1995.md §3.12): the deformable slider-crank
// (engine/mechanisms/deformable_slider_crank.hpp) at phi'(0) = 180 rad/s on [0, 4] s, RKSTAB
// (DOPRI5, atol 1e-4, rtol 1e-3) with PStab and with Baumgarte B(30,100). Too long for the test
// suite (about 3 s of CPU per run; tests/scenarios/chin_deformable_slider_crank_test.cpp checks
// [0, 0.4]); here one run each, the drift in the counters: max ||g||inf over the run and over
// each second, the energy T + U + V at the end of each second, and the accepted steps.
//
// What it shows (measured): at this tolerance DOPRI5 does not resolve the rod's undamped axial
// and rotation modes (up to about 3e5 rad/s, steps of about 1.4e-5 s at the edge of stability):
// from about t = 0.6 s the energy grows where the crank's damping torque should drain it, and
// by t = 4 the run has blown up (PStab drift 2.7e-15 in the first second, 1.3e-9 in the second,
// 3.5e-6 in the fourth; B(30,100) 3.9 in the first, 1.3e4 in the fourth). At rtol 1e-6 the
// energy decays as it should and PStab's drift stays at 1.8e-15 (not run here: 25 s of CPU).
//
//   ./build/bin/rtmb_bench --benchmark_filter='ChinDeformableSliderCrank'
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>

#include "engine/mechanisms/deformable_slider_crank.hpp"
#include "rtmb/adaptive_dopri5.hpp"
#include "rtmb/step.hpp"

namespace {

using namespace rtmb;

constexpr double kEnd = 4.0;  // Chin's interval [s]

void bm_chin_deformable_slider_crank(benchmark::State& bs, StabilizerKind stabilizer) {
  for (auto _ : bs) {
    detail::DeformableSliderCrankSpec spec;
    spec.crank_speed = 180.0;
    Settings settings;
    settings.method = Method::kDopri5;
    settings.stabilizer = stabilizer;
    if (stabilizer == StabilizerKind::kBaumgarte) {
      settings.gamma1 = 30.0;
      settings.gamma2 = 100.0;
    }
    const Model model(std::make_shared<const detail::DeformableSliderCrank>(spec), settings);
    AdaptiveOptions options;
    options.rtol = 1e-3;
    options.atol = 1e-4;
    AdaptiveDopri5 dopri(model, options);
    State s = initial_state(model);
    std::array<double, 4> per_second{};
    std::array<double, 4> energy{};
    double worst = 0.0;
    long steps = 0;
    bool ok = true;
    StepStatus st;
    while (dopri.step(s, kEnd, st)) {
      ++steps;
      worst = std::max(worst, st.position_drift);
      const auto second = static_cast<std::size_t>(std::min(3.0, s.t));
      per_second[second] = std::max(per_second[second], st.position_drift);
      energy[second] = st.energy;
    }
    ok = st.flags == 0u;
    bs.counters["max_drift"] = worst;
    for (std::size_t k = 0; k < per_second.size(); ++k) {
      bs.counters["drift_s" + std::to_string(k + 1)] = per_second[k];
      bs.counters["energy_s" + std::to_string(k + 1)] = energy[k];
    }
    bs.counters["steps"] = static_cast<double>(steps);
    bs.counters["ok"] = ok ? 1.0 : 0.0;
  }
}

BENCHMARK_CAPTURE(bm_chin_deformable_slider_crank,
                  ChinDeformableSliderCrank_pstab,
                  StabilizerKind::kPStab)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(bm_chin_deformable_slider_crank,
                  ChinDeformableSliderCrank_baumgarte_30_100,
                  StabilizerKind::kBaumgarte)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace
