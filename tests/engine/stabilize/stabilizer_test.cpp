// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Invariants of the stabilizers on the reference mechanisms: what each promises about drift, and
// energy conservation of the conservative mechanisms.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>

#include "tests/support/run_helpers.hpp"

namespace rtmb {
namespace {

using testing::run_fixed;
using testing::RunSummary;
using testing::settings_for;

TEST(ProjectionStabilizer, ReachesItsToleranceOnEveryStep) {
  Settings s = settings_for(Method::kRk4, StabilizerKind::kProject, 2e-3);
  s.projection_tolerance = 1e-13;
  const RunSummary r = run_fixed("chain", s, 2.0, MechanismOptions{8, true});
  EXPECT_EQ(r.flags, 0u);
  EXPECT_LE(r.max_position_drift, 1e-13);
  EXPECT_LE(r.max_velocity_drift, 1e-12);  // exact linear velocity projection
}

TEST(ProjectionStabilizer, FlagsNotConvergedWhenTheIterationLimitIsTooSmall) {
  // Euler with a large step leaves O(h^2) drift; one simplified-Newton correction cannot reach
  // 1e-15, so the step must say so rather than pretend
  Settings s = settings_for(Method::kEuler, StabilizerKind::kProject, 2e-2);
  s.projection_tolerance = 1e-15;
  s.projection_max_iterations = 1;
  const RunSummary r = run_fixed("double_pendulum", s, 0.2);
  EXPECT_TRUE(has_flag(r.flags, StepFlag::kStabilizerNotConverged));
  EXPECT_FALSE(has_flag(r.flags, StepFlag::kNonFinite));
}

TEST(Stabilizers, NoneDriftsWhilePStabStaysAtRoundOffOnTheClosedChain) {
  const MechanismOptions loop{10, true};
  const RunSummary none =
      run_fixed("chain", settings_for(Method::kRk4, StabilizerKind::kNone, 1e-3), 5.0, loop);
  const RunSummary pstab =
      run_fixed("chain", settings_for(Method::kRk4, StabilizerKind::kPStab, 1e-3), 5.0, loop);
  EXPECT_GT(none.max_position_drift, 1e-9);
  EXPECT_LE(pstab.max_position_drift, 1e-13);
  EXPECT_LE(pstab.max_velocity_drift, 1e-10);
  EXPECT_GT(none.max_position_drift, 1e3 * pstab.max_position_drift);
}

TEST(Stabilizers, SFullAndPStabAgreeWithEachOtherToIntegrationAccuracy) {
  // different correction directions (Euclidean vs M metric) but both O(h^(2(p+1))) drift: the
  // trajectories differ only at the level of the integration error
  const RunSummary a =
      run_fixed("slider_crank", settings_for(Method::kRk4, StabilizerKind::kSFull, 1e-3), 2.0);
  const RunSummary b =
      run_fixed("slider_crank", settings_for(Method::kRk4, StabilizerKind::kPStab, 1e-3), 2.0);
  EXPECT_LT((a.final_state.q - b.final_state.q).lpNorm<Eigen::Infinity>(), 1e-8);
  EXPECT_LE(a.max_position_drift, 1e-12);
}

struct EnergyCase {
  const char* mechanism;
  MechanismOptions options;
  double dt;
  double t_end;
  double max_relative_drift;
};

class EnergyConservation : public ::testing::TestWithParam<EnergyCase> {};

TEST_P(EnergyConservation, Rk4WithPStabKeepsEnergyOfConservativeMechanisms) {
  const EnergyCase c = GetParam();
  const RunSummary r = run_fixed(
      c.mechanism, settings_for(Method::kRk4, StabilizerKind::kPStab, c.dt), c.t_end, c.options);
  ASSERT_EQ(r.flags, 0u);
  const double scale = std::max(1.0, std::abs(r.energy_start));
  EXPECT_LE(r.max_energy_deviation / scale, c.max_relative_drift)
      << c.mechanism << ": E0 = " << r.energy_start;
}

void PrintTo(const EnergyCase& c, std::ostream* os) {
  *os << c.mechanism << " dt " << c.dt;
}

INSTANTIATE_TEST_SUITE_P(ReferenceMechanisms,
                         EnergyConservation,
                         ::testing::Values(EnergyCase{"pendulum", {}, 1e-3, 10.0, 1e-9},
                                           EnergyCase{"double_pendulum", {}, 1e-3, 10.0, 1e-8},
                                           EnergyCase{"slider_crank", {}, 1e-3, 10.0, 1e-9},
                                           EnergyCase{"robot_parabola", {}, 1e-3, 10.0, 1e-6},
                                           EnergyCase{"chain", {6, true}, 1e-3, 5.0, 1e-8},
                                           EnergyCase{"andrews", {}, 1e-5, 0.03, 1e-8}));

TEST(Stabilizers, HeunWithoutStabilizationLeavesTheManifoldOfTheDoublePendulum) {
  // contrast on the singular-mass double pendulum: index reduction alone drifts, PStab keeps the
  // drift at O(h^6) (~1e-12 at h = 1e-2)
  const auto s_none = settings_for(Method::kHeun, StabilizerKind::kNone, 1e-2);
  const auto s_pstab = settings_for(Method::kHeun, StabilizerKind::kPStab, 1e-2);
  const RunSummary none = run_fixed("double_pendulum", s_none, 10.0);
  const RunSummary pstab = run_fixed("double_pendulum", s_pstab, 10.0);
  EXPECT_GT(none.max_position_drift, 1e-4);
  EXPECT_LT(pstab.max_position_drift, 1e-10);
  EXPECT_GT(none.max_position_drift, 1e5 * pstab.max_position_drift);
}

}  // namespace
}  // namespace rtmb
