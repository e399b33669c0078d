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

#include "engine/mechanisms/mechanisms_impl.hpp"
#include "tests/support/run_helpers.hpp"

namespace rtmb {
namespace {

using testing::settings_for;

struct CorrectionRun {
  double e0 = 0.0;
  double max_position_drift = 0.0;
  double max_velocity_drift = 0.0;
  double max_energy_deviation = 0.0;
  double max_abs_q = 0.0;
  std::uint32_t flags = 0;
  long steps = 0;
};

// Runs to t_end through every flagged step (change points flag kCorrectionSingular or
// kSingularKkt there; the run must carry on), stopping only at a non-finite state.
void print(const char* label, const CorrectionRun& r) {
  std::printf("%-14s E0 %.6f  max|dE|/|E0| %.2e  max||g|| %.2e  max||Gv|| %.2e  flags %u\n", label,
              r.e0, r.max_energy_deviation / std::abs(r.e0), r.max_position_drift,
              r.max_velocity_drift, r.flags);
}

CorrectionRun run(std::shared_ptr<const System> system, const Settings& settings, double t_end) {
  const Model model(std::move(system), settings);
  Workspace ws(model);
  State s = initial_state(model);
  CorrectionRun r;
  StepStatus st;
  measure(model, s, ws, st);
  r.e0 = st.energy;
  const long n = std::lround(t_end / settings.dt);
  for (long i = 0; i < n; ++i) {
    st = step(model, s, ws);
    r.flags |= st.flags;
    ++r.steps;
    if (has_flag(st.flags, StepFlag::kNonFinite)) break;
    r.max_position_drift = std::max(r.max_position_drift, st.position_drift);
    r.max_velocity_drift = std::max(r.max_velocity_drift, st.velocity_drift);
    r.max_energy_deviation = std::max(r.max_energy_deviation, std::abs(st.energy - r.e0));
    r.max_abs_q = std::max(r.max_abs_q, s.q.lpNorm<Eigen::Infinity>());
  }
  return r;
}

std::shared_ptr<const System> four_bar() {
  return std::make_shared<detail::FourBar>();
}

TEST(DirectCorrection, FourBarSimultaneousWithEnergyHoldsEnergyAndConstraints) {
  // acceptance 3: (d) keeps |E - E0| / |E0| <= 1e-12 over 20 s; (c) and (d) position and
  // velocity drift <= 1e-12 (the paper's Figs. 5, 7 bands are 1e-13..1e-16)
  for (bool mass_weighted : {false, true}) {
    Settings s = settings_for(Method::kRk4, StabilizerKind::kDcD, 1e-3);
    s.correction_mass_weighted = mass_weighted;
    const CorrectionRun d = run(four_bar(), s, 20.0);
    print(mass_weighted ? "dc-d (M)" : "dc-d", d);
    EXPECT_FALSE(has_flag(d.flags, StepFlag::kNonFinite));
    EXPECT_EQ(d.steps, 20000);
    EXPECT_LE(d.max_energy_deviation / std::abs(d.e0), 1e-12) << "mass " << mass_weighted;
    EXPECT_LE(d.max_position_drift, 1e-12) << "mass " << mass_weighted;
    EXPECT_LE(d.max_velocity_drift, 1e-12) << "mass " << mass_weighted;
    RecordProperty(mass_weighted ? "dcd_m_energy_rel" : "dcd_energy_rel",
                   std::to_string(d.max_energy_deviation / std::abs(d.e0)));
  }
}

TEST(DirectCorrection, FourBarSimultaneousKeepsConstraintsAtRoundOff) {
  for (bool mass_weighted : {false, true}) {
    Settings s = settings_for(Method::kRk4, StabilizerKind::kDcC, 1e-3);
    s.correction_mass_weighted = mass_weighted;
    const CorrectionRun c = run(four_bar(), s, 20.0);
    print(mass_weighted ? "dc-c (M)" : "dc-c", c);
    EXPECT_FALSE(has_flag(c.flags, StepFlag::kNonFinite));
    EXPECT_EQ(c.steps, 20000);
    EXPECT_LE(c.max_position_drift, 1e-12) << "mass " << mass_weighted;
    EXPECT_LE(c.max_velocity_drift, 1e-12) << "mass " << mass_weighted;
  }
}

TEST(DirectCorrection, NoCorrectionDivergesWhileUncorrectedRunDrifts) {
  // claim C1/C2: (a) drifts off (reference §10: blows up after the 2.15 s change point), every
  // correction stays bounded: no non-finite state, constraints near round-off, energy bounded
  const CorrectionRun none =
      run(four_bar(), settings_for(Method::kRk4, StabilizerKind::kNone, 1e-3), 20.0);
  print("none", none);
  EXPECT_TRUE(has_flag(none.flags, StepFlag::kNonFinite) || none.max_position_drift > 1e-6)
      << none.max_position_drift;
  for (StabilizerKind k : {StabilizerKind::kDcB, StabilizerKind::kDcC, StabilizerKind::kDcD,
                           StabilizerKind::kOrthProj, StabilizerKind::kOrthProjM}) {
    const CorrectionRun r = run(four_bar(), settings_for(Method::kRk4, k, 1e-3), 20.0);
    print(to_string(k).data(), r);
    EXPECT_FALSE(has_flag(r.flags, StepFlag::kNonFinite)) << to_string(k);
    EXPECT_EQ(r.steps, 20000) << to_string(k);
    EXPECT_LE(r.max_position_drift, 1e-12) << to_string(k);
    EXPECT_LE(r.max_velocity_drift, 1e-11) << to_string(k);
    // energy bounded: at most 1 % of E0 (an O(1) excursion would mean a branch jump)
    EXPECT_LE(r.max_energy_deviation / std::abs(r.e0), 1e-2) << to_string(k);
  }
}

TEST(DirectCorrection, EnergyRowBeatsSequentialOnTheGrashofVariant) {
  // reference §10, non-singular drag-link (ground 0.8 m): (d) ~1e-13 J, (b) and (c) ~1e-8 J
  const auto grashof = std::make_shared<detail::FourBar>(0.8);
  const CorrectionRun b =
      run(grashof, settings_for(Method::kRk4, StabilizerKind::kDcB, 1e-3), 20.0);
  const CorrectionRun d =
      run(grashof, settings_for(Method::kRk4, StabilizerKind::kDcD, 1e-3), 20.0);
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
      Settings s = settings_for(Method::kRk4, k, 1e-3);
      s.correction_mass_weighted = mass_weighted;
      const CorrectionRun r = run(make_mechanism("double_pendulum"), s, 5.0);
      EXPECT_EQ(r.flags, 0u) << to_string(k) << " mass " << mass_weighted;
      EXPECT_LE(r.max_position_drift, 1e-12) << to_string(k);
      EXPECT_LE(r.max_velocity_drift, 1e-11) << to_string(k);
      if (k == StabilizerKind::kDcD) {
        EXPECT_LE(r.max_energy_deviation / std::abs(r.e0), 1e-12) << "mass " << mass_weighted;
      }
    }
  }
}

}  // namespace
}  // namespace rtmb
