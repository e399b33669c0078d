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
#include <memory>
#include <stdexcept>

#include "rtmb/model.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/state.hpp"
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
  ASSERT_TRUE(energy.apply(0.0, s.q, s.v));
  EXPECT_NEAR(disc->energy(0.0, s.q, s.v, {}), energy.reference(),
              1e-14 * std::abs(energy.reference()));
  EXPECT_EQ(s.q, q_before);
  // a multiple of the old velocity: A v scales with it
  const double scale = s.v.dot(v_before) / v_before.squaredNorm();
  EXPECT_LE((s.v - scale * v_before).lpNorm<Eigen::Infinity>(), 1e-15);
  EXPECT_LE((A * s.v).lpNorm<Eigen::Infinity>(),
            scale * (A * v_before).lpNorm<Eigen::Infinity>() + 1e-15);
  // at rest there is no direction to move along: nothing changes
  s.v.setZero();
  EXPECT_FALSE(energy.apply(0.0, s.q, s.v));
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
