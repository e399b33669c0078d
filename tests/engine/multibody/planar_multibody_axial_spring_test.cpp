// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The translational spring-damper along a prismatic joint (PlanarForceType::kAxialSpring, model
// files: `prismatic_spring_damper`): its spring force is minus the gradient of its potential
// k (s - s0)^2 / 2 and its damping force the Rayleigh force -c s' grad s, with the displacement
// s computed here from first principles; a slider on a slanted guide oscillates as the closed
// form of the (damped) harmonic oscillator and, undamped, conserves energy.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/engine/multibody/multibody_test_support.hpp"
#include "tests/support/model_lookup.hpp"
#include "tests/support/planar_test_models.hpp"

namespace rtmb {
namespace {

PlanarModelSpec rig(double k, double c) {
  PlanarModelSpec s;
  s.bodies = {testing::test_body("a", 1.5, 0.2), testing::test_body("b", 0.7, 0.2)};
  s.joints = {
      testing::test_joint("guide", PlanarJointType::kPrismatic, 0, 1, {0.3, -0.2}, {-0.4, 0.15})};
  PlanarForceSpec f;
  f.type = PlanarForceType::kAxialSpring;
  f.joint = 0;
  f.stiffness = k;
  f.damping = c;
  f.rest = 0.25;
  s.forces = {f};
  return s;
}

// s = A(th_a) axis . (p_b - p_a), from the poses
double displacement(const Vec& q) {
  const Eigen::Rotation2Dd ra(q(2));
  const Eigen::Rotation2Dd rb(q(5));
  const Eigen::Vector2d pa = q.segment<2>(0) + ra * Eigen::Vector2d(0.3, -0.2);
  const Eigen::Vector2d pb = q.segment<2>(3) + rb * Eigen::Vector2d(-0.4, 0.15);
  return (ra * Eigen::Vector2d(0.6, 0.8)).dot(pb - pa);
}

TEST(AxialSpring, ForcesAreThePotentialGradientAndTheRayleighForce) {
  const PlanarMultibody spring(rig(30.0, 0.0));
  const PlanarMultibody damper(rig(0.0, 2.5));
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  double worst = 0.0;
  for (int trial = 0; trial < 5; ++trial) {
    Vec q(6);
    Vec v(6);
    multibody_test::draw_state(rng, u, q, v);
    const Vec zero = Vec::Zero(6);
    // the potential is k (s - s0)^2 / 2 of the independently computed s
    const double s = displacement(q);
    EXPECT_NEAR(spring.energy(0.0, q, zero, {}), 0.5 * 30.0 * (s - 0.25) * (s - 0.25), 1e-12);
    Vec f(6);
    spring.forces(0.0, q, zero, {}, f);
    const Vec grad_v = multibody_test::central_gradient(
        [&](const Vec& x) { return spring.energy(0.0, x, zero, {}); }, q);
    worst = std::max(worst, (f + grad_v).lpNorm<Eigen::Infinity>());
    // damping: -c s' grad s with s' = grad s . v
    const Vec grad_s = multibody_test::central_gradient(displacement, q);
    damper.forces(0.0, q, v, {}, f);
    worst = std::max(worst, (f + 2.5 * grad_s.dot(v) * grad_s).lpNorm<Eigen::Infinity>());
  }
  EXPECT_LE(worst, 1e-7);
  std::printf("axial spring-damper: max |f - f_fd|_inf = %.3e\n", worst);
}

// A 2 kg slider on a guide along (0.6, 0.8) through (0.1, 0.2), spring k = 50 N/m to rest
// position 0.3 m, started at 0.5 m at rest, no gravity: s(t) = 0.3 + 0.2 e^{-a t}(cos w t +
// (a/w) sin w t), a = c/(2m), w = sqrt(k/m - a^2).
std::string slider_text(double damping) {
  return "bodies:\n"
         "  - {name: s, mass: 2, inertia: 0.1, pose: [0.4, 0.6, 0]}\n"
         "joints:\n"
         "  - {name: guide, type: prismatic, body_i: ground, point_i: [0.1, 0.2], body_j: s, "
         "axis: [0.6, 0.8]}\n"
         "forces:\n"
         "  - {type: prismatic_spring_damper, joint: guide, stiffness: 50, damping: " +
         std::to_string(damping) + ", rest_position: 0.3}\n";
}

TEST(AxialSpring, SliderFollowsTheHarmonicOscillatorAndConservesEnergy) {
  for (const double c : {0.0, 1.2}) {
    const ModelFile f = parse_model_file(slider_text(c), "slider.yaml");
    const auto sys = std::shared_ptr<const System>(make_system(f));
    const Model model(sys, testing::rk4_pstab(1e-3));
    Workspace ws(model);
    State s = initial_state(model);
    const double e0 = sys->energy(0.0, s.q, s.v, {});
    const double a = c / 4.0;
    const double w = std::sqrt(50.0 / 2.0 - a * a);
    double worst_s = 0.0;
    multibody_test::EnergyTrace energy(e0);
    for (int k = 0; k < 2000; ++k) {
      ASSERT_TRUE(step(model, s, ws).ok());
      const double t = s.t;
      const double exact =
          0.3 + 0.2 * std::exp(-a * t) * (std::cos(w * t) + a / w * std::sin(w * t));
      const Eigen::Vector2d p = s.q.head<2>() - Eigen::Vector2d(0.1, 0.2);
      worst_s = std::max(worst_s, std::abs(p.dot(Eigen::Vector2d(0.6, 0.8)) - exact));
      energy.add(sys->energy(t, s.q, s.v, {}));
    }
    const double worst_e = energy.worst / e0;
    EXPECT_NEAR(e0, 0.5 * 50.0 * 0.2 * 0.2, 1e-12);
    EXPECT_LE(worst_s, 1e-8);
    if (c == 0.0) {
      EXPECT_LE(worst_e, 1e-8);
    } else {
      EXPECT_TRUE(energy.monotone);
      EXPECT_GT(worst_e, 0.5);  // it really dissipates
    }
    std::printf(
        "axial spring slider, c = %.1f: max |s - closed form| = %.3e m over 2 s, max |E - E0|/E0 = "
        "%.3e\n",
        c, worst_s, worst_e);
  }
}

}  // namespace
}  // namespace rtmb
