// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Post-stabilization of the energy invariant (engine/stabilize/energy_stabilization.hpp,
// Settings::stabilize_energy; issue 16): the correction rescales v so that E(q, v) = E0 to
// round-off, leaves q alone and keeps the (homogeneous) velocity rows A v = 0; it changes nothing
// at rest; the settings are refused where the energy is no invariant.
#include "engine/stabilize/energy_stabilization.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "rtmb/model.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/state.hpp"
#include "rtmb/status.hpp"
#include "rtmb/step.hpp"
#include "tests/support/model_lookup.hpp"

namespace rtmb {
namespace {

TEST(EnergyStabilization, RescalesTheSpeedOntoTheInitialEnergy) {
  const std::shared_ptr<const System> disc = make_mechanism("rolling_disc");
  EnergyStabilization energy(*disc, {});
  State s(disc->n_q(), disc->n_v());
  disc->initial_state(s);
  EXPECT_DOUBLE_EQ(energy.reference(), disc->energy(0.0, s.q, s.v, {}));
  // a later pose, its velocity on the rolling rows but with too much kinetic energy
  s.q(3) += 0.2;  // tilt
  s.v *= 1.7;
  Mat A(disc->n_lambda(), disc->n_v());
  disc->jacobian(0.0, s.q, A);
  const Vec q_before = s.q;
  const Vec v_before = s.v;
  StepStatus status;
  ASSERT_TRUE(energy.apply(0.0, s.q, s.v, status));
  EXPECT_EQ(status.flags, 0u);
  EXPECT_NEAR(disc->energy(0.0, s.q, s.v, {}), energy.reference(),
              1e-14 * std::abs(energy.reference()));
  EXPECT_EQ(s.q, q_before);
  // a multiple of the old velocity: A v scales with it
  const double scale = s.v.dot(v_before) / v_before.squaredNorm();
  EXPECT_LE((s.v - scale * v_before).lpNorm<Eigen::Infinity>(), 1e-15);
  EXPECT_LE((A * s.v).lpNorm<Eigen::Infinity>(),
            scale * (A * v_before).lpNorm<Eigen::Infinity>() + 1e-15);
}

// Where E(q, s v) = E0 has no root the correction fails: the state is left as it was and the
// step's status says so (kStabilizerNotConverged: the stabilizer did not reach its invariant).
TEST(EnergyStabilization, AFailedCorrectionLeavesTheStateAndFlagsTheStep) {
  const std::shared_ptr<const System> disc = make_mechanism("rolling_disc");
  EnergyStabilization energy(*disc, {});
  State s(disc->n_q(), disc->n_v());
  disc->initial_state(s);
  s.q(3) += 0.2;  // tilted: V < E0
  // at rest the invariant's gradient along v is zero (H D = 2 T = 0): no direction to move along
  s.v.setZero();
  StepStatus status;
  EXPECT_FALSE(energy.apply(0.0, s.q, s.v, status));
  EXPECT_TRUE(has_flag(status.flags, StepFlag::kStabilizerNotConverged));
  EXPECT_EQ(s.v.lpNorm<Eigen::Infinity>(), 0.0);
  // a non-finite velocity: no finite scale, v untouched (the step's own check restores it)
  s.v.setConstant(0.1);
  s.v(2) = std::numeric_limits<double>::quiet_NaN();
  const Vec v_nan = s.v;
  status = StepStatus{};
  EXPECT_FALSE(energy.apply(0.0, s.q, s.v, status));
  EXPECT_TRUE(has_flag(status.flags, StepFlag::kStabilizerNotConverged));
  EXPECT_TRUE(s.v.head<2>() == v_nan.head<2>() && std::isnan(s.v(2)));
}

// The same failure inside a step: a pendulum released from rest (E0 = V(q0)) restarted higher up
// on its circle has V > E0 after the step, so no speed scale reaches E0; the step is flagged.
TEST(EnergyStabilization, AStepWhoseEnergyCannotBeRestoredIsFlagged) {
  Settings settings = testing::rk4_pstab(1e-3);
  settings.stabilize_energy = true;
  const Model model(make_mechanism("pendulum"), settings);
  Workspace ws(model);
  State s = initial_state(model);
  ASSERT_EQ(s.v.lpNorm<Eigen::Infinity>(), 0.0) << "released from rest";
  const double length = s.q.head<2>().norm();
  const double angle = std::atan2(s.q(0), -s.q(1)) + 0.3;  // higher: V > E0
  s.q.head<2>() << length * std::sin(angle), -length * std::cos(angle);
  const StepStatus st = step(model, s, ws);
  EXPECT_TRUE(has_flag(st.flags, StepFlag::kStabilizerNotConverged)) << st.flags;
  EXPECT_GT(st.energy,
            model.system().energy(0.0, initial_state(model).q, initial_state(model).v, {}));
  // and a step from the start is not flagged
  State s0 = initial_state(model);
  Workspace ws0(model);
  EXPECT_EQ(step(model, s0, ws0).flags, 0u);
}

// At rest at the reference energy the invariant holds: nothing to correct, nothing flagged.
TEST(EnergyStabilization, AtRestOnTheReferenceEnergyNothingIsFlagged) {
  const std::shared_ptr<const System> pendulum = make_mechanism("pendulum");  // starts at rest
  EnergyStabilization energy(*pendulum, {});
  State s(pendulum->n_q(), pendulum->n_v());
  pendulum->initial_state(s);
  ASSERT_EQ(s.v.lpNorm<Eigen::Infinity>(), 0.0);
  StepStatus status;
  EXPECT_TRUE(energy.apply(0.0, s.q, s.v, status));
  EXPECT_EQ(status.flags, 0u);
  EXPECT_EQ(s.v.lpNorm<Eigen::Infinity>(), 0.0);
}

TEST(EnergyStabilization, SettingsAreRefusedWhereTheEnergyIsNoInvariant) {
  Settings settings = testing::rk4_pstab(1e-3);
  settings.stabilize_energy = true;
  EXPECT_NO_THROW(Model(make_mechanism("rolling_disc"), settings));
  settings.stabilizer = StabilizerKind::kProject;  // a pass of pstab or sboth only
  EXPECT_THROW(Model(make_mechanism("rolling_disc"), settings), std::invalid_argument);
  settings.stabilizer = StabilizerKind::kSBoth;
  EXPECT_NO_THROW(Model(make_mechanism("rolling_disc"), settings));
  // a crank driven at 2 pi rad/s: the driver does work (g_t != 0)
  const std::shared_ptr<const System> driven =
      make_system(load_model_file(testing::config_path("slider_crank_driven.yaml")));
  EXPECT_THROW(Model(driven, settings), std::invalid_argument);
}

}  // namespace
}  // namespace rtmb
