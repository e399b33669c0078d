// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Direct correction (b), (c), (d) of Zhang et al. 2023 on the paper's four-bar (Example 1,
// parallelogram reading; seed 004_24ffa321444869ee.txt), RK4 with
// dt = 1e-3 as in the paper, over 20 s (the span of an independent re-computation).
#include "engine/stabilize/direct_correction.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "engine/mechanisms/mechanisms_impl.hpp"
#include "tests/support/run_helpers.hpp"

namespace rtmb {
namespace {

using testing::settings_for;

// What a run measured: steps taken, flags, and the maxima of drift and |E - E0| over the steps
// (final_state and counters stay unused here).
using CorrectionRun = testing::RunSummary;

void print(const char* label, const CorrectionRun& r) {
  std::printf("%-14s E0 %.6f  max|dE|/|E0| %.2e  max||g|| %.2e  max||Gv|| %.2e  flags %u\n", label,
              r.energy_start, r.max_energy_deviation / std::abs(r.energy_start),
              r.max_position_drift, r.max_velocity_drift, r.flags);
}

// Runs to t_end through every flagged step (change points flag kCorrectionSingular or
// kSingularKkt there; the run must carry on), stopping only at a non-finite state.
CorrectionRun run(std::shared_ptr<const System> system, const Settings& settings, double t_end) {
  const Model model(std::move(system), settings);
  Workspace ws(model);
  State s = initial_state(model);
  CorrectionRun r;
  StepStatus st;
  measure(model, s, ws, st);
  r.energy_start = st.energy;
  const long n = std::lround(t_end / settings.dt);
  for (long i = 0; i < n; ++i) {
    st = step(model, s, ws);
    r.flags |= st.flags;
    ++r.steps;
    if (has_flag(st.flags, StepFlag::kNonFinite)) break;
    r.max_position_drift = std::max(r.max_position_drift, st.position_drift);
    r.max_velocity_drift = std::max(r.max_velocity_drift, st.velocity_drift);
    r.max_energy_deviation = std::max(r.max_energy_deviation, std::abs(st.energy - r.energy_start));
  }
  return r;
}

std::shared_ptr<const System> four_bar() {
  return std::make_shared<detail::FourBar>();
}

// RK4 at the paper's dt = 1e-3 under direct correction `kind`, in the Euclidean or mass metric.
Settings rk4_with(StabilizerKind kind, bool mass_weighted = false) {
  Settings s = settings_for(Method::kRk4, kind, 1e-3);
  s.correction_mass_weighted = mass_weighted;
  return s;
}

// A 20 s run at dt = 1e-3 that reached its end with both constraint levels within the bounds.
void expect_held_for_20_s(const CorrectionRun& r,
                          double position_bound,
                          double velocity_bound,
                          const std::string& what) {
  EXPECT_FALSE(has_flag(r.flags, StepFlag::kNonFinite)) << what;
  EXPECT_EQ(r.steps, 20000) << what;
  EXPECT_LE(r.max_position_drift, position_bound) << what;
  EXPECT_LE(r.max_velocity_drift, velocity_bound) << what;
}

TEST(DirectCorrection, FourBarSimultaneousWithEnergyHoldsEnergyAndConstraints) {
  // acceptance 3: (d) keeps |E - E0| / |E0| <= 1e-12 over 20 s; (c) and (d) position and
  // velocity drift <= 1e-12 (the paper's Figs. 5, 7 bands are 1e-13..1e-16)
  for (bool mass_weighted : {false, true}) {
    const CorrectionRun d = run(four_bar(), rk4_with(StabilizerKind::kDcD, mass_weighted), 20.0);
    print(mass_weighted ? "dc-d (M)" : "dc-d", d);
    const double energy_rel = d.max_energy_deviation / std::abs(d.energy_start);
    EXPECT_LE(energy_rel, 1e-12) << "mass " << mass_weighted;
    expect_held_for_20_s(d, 1e-12, 1e-12, "mass " + std::to_string(mass_weighted));
    RecordProperty(mass_weighted ? "dcd_m_energy_rel" : "dcd_energy_rel",
                   std::to_string(energy_rel));
  }
}

TEST(DirectCorrection, FourBarSimultaneousKeepsConstraintsAtRoundOff) {
  for (bool mass_weighted : {false, true}) {
    const CorrectionRun c = run(four_bar(), rk4_with(StabilizerKind::kDcC, mass_weighted), 20.0);
    print(mass_weighted ? "dc-c (M)" : "dc-c", c);
    expect_held_for_20_s(c, 1e-12, 1e-12, "mass " + std::to_string(mass_weighted));
  }
}

TEST(DirectCorrection, NoCorrectionDivergesWhileUncorrectedRunDrifts) {
  // claim C1/C2: (a) drifts off (reference §10: blows up after the 2.15 s change point), every
  // correction stays bounded: no non-finite state, constraints near round-off, energy bounded
  const CorrectionRun none = run(four_bar(), rk4_with(StabilizerKind::kNone), 20.0);
  print("none", none);
  EXPECT_TRUE(has_flag(none.flags, StepFlag::kNonFinite) || none.max_position_drift > 1e-6)
      << none.max_position_drift;
  for (StabilizerKind k : {StabilizerKind::kDcB, StabilizerKind::kDcC, StabilizerKind::kDcD,
                           StabilizerKind::kOrthProj, StabilizerKind::kOrthProjM}) {
    const CorrectionRun r = run(four_bar(), rk4_with(k), 20.0);
    print(to_string(k).data(), r);
    expect_held_for_20_s(r, 1e-12, 1e-11, std::string(to_string(k)));
    // energy bounded: at most 1 % of E0 (an O(1) excursion would mean a branch jump)
    EXPECT_LE(r.max_energy_deviation / std::abs(r.energy_start), 1e-2) << to_string(k);
  }
}

TEST(DirectCorrection, EnergyRowBeatsSequentialOnTheGrashofVariant) {
  // reference §10, non-singular drag-link (ground 0.8 m): (d) ~1e-13 J, (b) and (c) ~1e-8 J
  const auto grashof = std::make_shared<detail::FourBar>(0.8);
  const CorrectionRun b = run(grashof, rk4_with(StabilizerKind::kDcB), 20.0);
  const CorrectionRun d = run(grashof, rk4_with(StabilizerKind::kDcD), 20.0);
  print("grashof dc-b", b);
  print("grashof dc-d", d);
  EXPECT_EQ(b.flags, 0u);
  EXPECT_EQ(d.flags, 0u);
  EXPECT_LE(d.max_energy_deviation, 1e-12);
  EXPECT_GT(b.max_energy_deviation, 100.0 * d.max_energy_deviation);
}

TEST(DirectCorrection, SingularEnergyRowFallsBackToSequentialWithAFlag) {
  // pendulum at rest at the bottom: E_v = M v = 0 and E_q = (0, m g) is parallel to
  // G = (0, -2 l), so the (d) rows are dependent; the step must flag and still correct by (b)
  const auto pendulum = make_mechanism("pendulum");
  DirectCorrection dc(*pendulum, DirectCorrectionVariant::kSimultaneousEnergy,
                      CorrectionMetric::kEuclidean, 1e-13, 20);
  Vec q(2), v(2), g(1);
  q << 0.0, -1.001;
  v << 0.0, 0.0;
  StepStatus st;
  dc.apply(0.0, q, v, st);
  EXPECT_TRUE(has_flag(st.flags, StepFlag::kCorrectionSingular));
  pendulum->constraints(0.0, q, g);
  EXPECT_LE(std::abs(g(0)), 1e-13);
  EXPECT_NEAR(q(1), -1.0, 1e-13);
}

TEST(DirectCorrection, WorksOnCartesianSystemsWithSingularMass) {
  // not only planar revolute chains: Hoitink's double pendulum (redundant coordinates, singular
  // M, so the mass-weighted solves go through the pivoted KKT) with every variant and metric
  for (StabilizerKind k : {StabilizerKind::kDcB, StabilizerKind::kDcC, StabilizerKind::kDcD}) {
    for (bool mass_weighted : {false, true}) {
      const CorrectionRun r =
          run(make_mechanism("double_pendulum"), rk4_with(k, mass_weighted), 5.0);
      EXPECT_EQ(r.flags, 0u) << to_string(k) << " mass " << mass_weighted;
      EXPECT_LE(r.max_position_drift, 1e-12) << to_string(k);
      EXPECT_LE(r.max_velocity_drift, 1e-11) << to_string(k);
      if (k == StabilizerKind::kDcD) {
        EXPECT_LE(r.max_energy_deviation / std::abs(r.energy_start), 1e-12)
            << "mass " << mass_weighted;
      }
    }
  }
}

}  // namespace
}  // namespace rtmb
