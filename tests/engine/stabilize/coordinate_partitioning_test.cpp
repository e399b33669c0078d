// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Coordinate partitioning (Wehage & Haug; Pöll & Hafner's local coordinates, class (vi)): the
// independent coordinates are left as integrated, the dependent ones put back on the manifold,
// and the partition switches when the pendulum swings from x-dependent to y-dependent.
#include "engine/stabilize/coordinate_partitioning.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "engine/mechanisms/mechanisms_impl.hpp"
#include "engine/step/workspace_impl.hpp"
#include "tests/support/run_helpers.hpp"

namespace rtmb {
namespace {

using testing::settings_for;

TEST(CoordinatePartitioning, KeepsIndependentCoordinatesAndSolvesDependentOnes) {
  // pendulum at 60 deg: G = (2x, 2y) = (1.73, -1), so x is the dependent coordinate
  detail::Pendulum pendulum;
  CoordinatePartitioning cp(pendulum, {1e-14, 20});
  State s(2, 2);
  pendulum.initial_state(s);
  Vec q = s.q + Vec::Constant(2, 1e-4);
  Vec v(2);
  v << 0.3, -0.1;
  const Vec q_in = q;
  const Vec v_in = v;
  StepStatus st;
  cp.apply(0.0, q, v, st);
  ASSERT_TRUE(cp.dependent(0));
  ASSERT_FALSE(cp.dependent(1));
  EXPECT_EQ(q(1), q_in(1));  // independent: untouched, bit for bit
  EXPECT_EQ(v(1), v_in(1));
  EXPECT_NEAR(q(0) * q(0) + q(1) * q(1), 1.0, 1e-14);  // on the circle
  EXPECT_NEAR(q(0) * v(0) + q(1) * v(1), 0.0, 1e-14);  // tangent velocity
  EXPECT_EQ(st.flags, 0u);
}

TEST(CoordinatePartitioning, RepartitionsAsThePendulumSwingsAndStaysOnTheManifold) {
  const Model model(make_mechanism("pendulum"),
                    settings_for(Method::kRk4, StabilizerKind::kPartition, 1e-3));
  Workspace ws(model);
  State s = initial_state(model);
  StepStatus st;
  measure(model, s, ws, st);
  const double e0 = st.energy;
  double max_drift = 0.0;
  double max_vdrift = 0.0;
  double max_de = 0.0;
  std::uint32_t flags = 0;
  for (int i = 0; i < 10000; ++i) {
    st = step(model, s, ws);
    flags |= st.flags;
    max_drift = std::max(max_drift, st.position_drift);
    max_vdrift = std::max(max_vdrift, st.velocity_drift);
    max_de = std::max(max_de, std::abs(st.energy - e0));
  }
  const auto* cp = dynamic_cast<const CoordinatePartitioning*>(ws.impl().stabilizer.get());
  ASSERT_NE(cp, nullptr);
  std::printf("pendulum partition: %ld switches, max ||g|| %.1e, ||Gv|| %.1e, dE/E0 %.1e\n",
              cp->repartitions(), max_drift, max_vdrift, max_de / std::abs(e0));
  EXPECT_EQ(flags, 0u);
  EXPECT_LE(max_drift, 1e-12);
  EXPECT_LE(max_vdrift, 1e-12);
  // x dependent at 60 deg, y once |x| is small near the bottom: at least one switch
  EXPECT_GE(cp->repartitions(), 1);
  // RK4 at 1e-3 on the independent coordinate: energy error at integration-error level
  EXPECT_LE(max_de / std::abs(e0), 1e-8);
}

TEST(CoordinatePartitioning, ClosedChainAndFourBar) {
  // many constraints at once (8-link loop: 10 rows) and relative coordinates (Grashof four-bar)
  const testing::RunSummary chain =
      testing::run_fixed("chain", settings_for(Method::kRk4, StabilizerKind::kPartition, 1e-3), 3.0,
                         MechanismOptions{8, true});
  EXPECT_EQ(chain.flags, 0u);
  EXPECT_LE(chain.max_position_drift, 1e-12);
  EXPECT_LE(chain.max_velocity_drift, 1e-12);

  const Model model(std::make_shared<detail::FourBar>(0.8),
                    settings_for(Method::kMampc4, StabilizerKind::kPartition, 1e-3));
  Workspace ws(model);
  State s = initial_state(model);
  std::uint32_t flags = 0;
  double drift = 0.0;
  for (int i = 0; i < 5000; ++i) {
    const StepStatus st = step(model, s, ws);
    flags |= st.flags;
    drift = std::max({drift, st.position_drift, st.velocity_drift});
  }
  EXPECT_EQ(flags, 0u);
  EXPECT_LE(drift, 1e-12);
}

}  // namespace
}  // namespace rtmb
