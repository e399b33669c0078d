// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Deformable slider-crank (engine/mechanisms/deformable_slider_crank.hpp; Chin 1995 §3.12, Table
// 5.1): Chin's 10 coordinates, Table 5.1's rod mass, the constraint derivatives G, d(G v)/dq and
// L against finite differences of g, d(M a)/dq against differences of M(q) a, a consistent initial
// state, the rod's rigid motion reproducing the rigid slider-crank's kinematics (theta, the
// slider's x), and, without the crank torque, T + U + V conserved along an accurate run (which
// checks M, the quadratic-velocity terms, gravity and K_ff together: an error in any of them does
// work).
#include "engine/mechanisms/deformable_slider_crank.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>

#include "rtmb/adaptive_dopri5.hpp"
#include "rtmb/state.hpp"
#include "rtmb/step.hpp"
#include "tests/engine/multibody/multibody_test_support.hpp"

namespace rtmb::detail {
namespace {

TEST(DeformableSliderCrank, HasChinsTenCoordinatesAndTable51Data) {
  const DeformableSliderCrank sys(DeformableSliderCrankSpec{});
  EXPECT_EQ(sys.n_q(), 10);  // (R1, R2, theta, 6 elastic, phi), §3.12
  EXPECT_EQ(sys.n_lambda(), 3);
  EXPECT_EQ(sys.crank_index(), 9);
  // rho a l with a = pi D^2 / 4 (Table 5.1)
  const double mass = 0.0007331 * std::numbers::pi * 0.25 * 0.25 / 4.0 * 12.0;
  EXPECT_NEAR(sys.rod().mass() / mass, 1.0, 1e-14);
}

TEST(DeformableSliderCrank, ConstraintDerivativesMatchFiniteDifferences) {
  const DeformableSliderCrank sys(DeformableSliderCrankSpec{});
  multibody_test::check_constraint_derivatives(sys, 21u, 0.6);
  DeformableSliderCrankSpec three;
  three.elements = 3;
  multibody_test::check_constraint_derivatives(DeformableSliderCrank(three), 4u, 0.6);
}

TEST(DeformableSliderCrank, InertiaJacobianMatchesFiniteDifferences) {
  multibody_test::check_inertia_jacobian(DeformableSliderCrank(DeformableSliderCrankSpec{}), 22u,
                                         0.6);
}

TEST(DeformableSliderCrank, InitialStateIsConsistent) {
  const DeformableSliderCrank sys(DeformableSliderCrankSpec{});
  State s;
  sys.initial_state(s);
  Vec g(3);
  sys.constraints(0.0, s.q, g);
  Mat G(3, sys.n_v());
  sys.jacobian(0.0, s.q, G);
  EXPECT_LE(g.lpNorm<Eigen::Infinity>(), 1e-15);
  EXPECT_LE((G * s.v).lpNorm<Eigen::Infinity>(), 1e-12);
  EXPECT_EQ(s.v(sys.crank_index()), 180.0);
}

TEST(DeformableSliderCrank, UndeformedRodFollowsTheRigidSliderCrank) {
  // with q_f = 0 the constraints are the rigid slider-crank's: r sin(phi) + l sin(theta) = 0
  // and the slider at x = r cos(phi) + l cos(theta)
  const DeformableSliderCrank sys(DeformableSliderCrankSpec{});
  const double r = 6.0;
  const double l = 12.0;
  for (const double phi : {0.3, 1.9, 4.0}) {
    const double theta = std::asin(-r * std::sin(phi) / l);
    Vec q = Vec::Zero(10);
    q << r * std::cos(phi), r * std::sin(phi), theta, 0, 0, 0, 0, 0, 0, phi;
    Vec g(3);
    sys.constraints(0.0, q, g);
    EXPECT_LE(g.lpNorm<Eigen::Infinity>(), 1e-14) << phi;
    const Eigen::Vector2d b = sys.rod().point_position(q.head(9), sys.rod().station(l));
    EXPECT_NEAR(b.x(), r * std::cos(phi) + l * std::cos(theta), 1e-13);
  }
}

TEST(DeformableSliderCrank, ConservesEnergyWithoutTheTorque) {
  // a light crank (J = 0.01) so that the rod's energy is a fair share of the total; DOPRI5 at
  // rtol 1e-10 with PStab over 5 ms (about 3 periods of the rod's first bending mode)
  DeformableSliderCrankSpec spec;
  spec.driven = false;
  spec.crank_inertia = 0.01;
  spec.crank_speed = 120.0;
  auto sys = std::make_shared<const DeformableSliderCrank>(spec);
  Settings settings;
  settings.method = Method::kDopri5;
  settings.stabilizer = StabilizerKind::kPStab;
  const Model model(sys, settings);
  AdaptiveOptions options;
  options.rtol = 1e-10;
  AdaptiveDopri5 dopri(model, options);
  State s = initial_state(model);
  const double e0 = sys->energy(0.0, s.q, s.v, {});
  double worst = 0.0;
  double max_deflection = 0.0;
  StepStatus st;
  while (dopri.step(s, 0.005, st)) {
    worst = std::max(worst, std::abs(st.energy - e0));
    max_deflection = std::max(max_deflection, std::abs(sys->midspan_deflection(s.q)));
  }
  std::printf("E0 %.6e, max |E - E0| %.2e, max |v(l/2)| %.3e in\n", e0, worst, max_deflection);
  EXPECT_EQ(st.flags, 0u);
  EXPECT_GT(max_deflection, 1e-3) << "the rod bends (in)";
  EXPECT_LE(worst, 1e-10 * e0);  // measured 1.7e-13
}

}  // namespace
}  // namespace rtmb::detail
