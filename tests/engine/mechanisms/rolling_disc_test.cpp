// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The rolling disc's model (engine/mechanisms/rolling_disc.cpp; Chin 1995 §4.6,
// reference/post-stabilization-chin1995.md §3.11) against an independent description of the same
// body: its pose, the centre c(q) and the rotation R(q) = [e d a] Rz(psi), written here from the
// geometry alone (contact line e, contact-to-centre unit vector d, disc axis a = e x d). By finite
// differences of that pose along v:
//   * A v (the nonholonomic rows) is the velocity of the disc's material point at the contact;
//   * 1/2 v^T M v is 1/2 m |c'|^2 + 1/2 w^T diag(A, A, C) w, w the body-frame angular velocity;
//   * L = d/ds A(q + s v) v, and d(A v)/dq, by differences of A;
//   * f has the Lagrange velocity terms of M and minus the gradient of V = m g r cos theta.

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "engine/mechanisms/mechanisms_impl.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "tests/engine/mechanisms/mechanism_test_support.hpp"

namespace rtmb::test {
namespace {

using detail::RollingDisc;

constexpr double kR = RollingDisc::kRadius;

struct Pose {
  Eigen::Vector3d c;  ///< centre [m]
  Eigen::Matrix3d R;  ///< body to world; body axes: two diameters, then the disc axis
};

// q = (x, y, phi, theta, psi): the pose from the geometry (see the file comment)
Pose pose(const Vec& q) {
  const double phi = q(2);
  const double theta = q(3);
  const Eigen::Vector3d e(std::cos(phi), std::sin(phi), 0.0);
  const Eigen::Vector3d n(-std::sin(phi), std::cos(phi), 0.0);
  const Eigen::Vector3d z = Eigen::Vector3d::UnitZ();
  const Eigen::Vector3d d = std::sin(theta) * n + std::cos(theta) * z;
  const Eigen::Vector3d a = e.cross(d);
  Eigen::Matrix3d frame;
  frame << e, d, a;
  Pose p;
  p.c = Eigen::Vector3d(q(0), q(1), 0.0) + kR * d;
  p.R = frame * Eigen::AngleAxisd(q(4), Eigen::Vector3d::UnitZ()).toRotationMatrix();
  return p;
}

// random states around the upright start and well into the fall (theta up to 1.2 rad)
std::vector<std::pair<Vec, Vec>> samples() {
  std::mt19937_64 rng(20261127u);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<std::pair<Vec, Vec>> out;
  for (int k = 0; k < 8; ++k) {
    Vec q(5);
    Vec v(5);
    q << 0.3 * u(rng), 0.3 * u(rng), 3.0 * u(rng), 1.2 * u(rng), 3.0 * u(rng);
    for (int i = 0; i < 5; ++i) v(i) = 2.0 * u(rng);
    out.emplace_back(q, v);
  }
  return out;
}

constexpr double kStep = 1e-6;  // central differences: truncation ~1e-12, round-off ~1e-10

TEST(RollingDisc, NonholonomicRowsAreTheVelocityOfTheMaterialContactPoint) {
  const RollingDisc disc;
  for (const auto& [q, v] : samples()) {
    // the material point at the contact, carried by the body motion along v
    const Pose p0 = pose(q);
    const Eigen::Vector3d body_point = p0.R.transpose() * (Eigen::Vector3d(q(0), q(1), 0.0) - p0.c);
    const Pose pp = pose(q + kStep * v);
    const Pose pm = pose(q - kStep * v);
    const Eigen::Vector3d u =
        ((pp.c + pp.R * body_point) - (pm.c + pm.R * body_point)) / (2.0 * kStep);
    const Vec rows = eval_G(disc, 0.0, q) * v + eval_gt(disc, 0.0, q);
    EXPECT_NEAR(rows(0), u.x(), 1e-8);
    EXPECT_NEAR(rows(1), u.y(), 1e-8);
    EXPECT_NEAR(u.z(), 0.0, 1e-8) << "the lowest rim point moves horizontally";
    // no position-level residual in a nonholonomic row
    EXPECT_EQ(max_abs(eval_g(disc, 0.0, q)), 0.0);
  }
}

TEST(RollingDisc, KineticEnergyOfTheMassMatrixIsThatOfTheRigidBody) {
  const RollingDisc disc;
  const Eigen::Vector3d inertia(RollingDisc::kDiametral, RollingDisc::kDiametral,
                                RollingDisc::kPolar);
  for (const auto& [q, v] : samples()) {
    const Pose pp = pose(q + kStep * v);
    const Pose pm = pose(q - kStep * v);
    const Eigen::Vector3d c_dot = (pp.c - pm.c) / (2.0 * kStep);
    const Eigen::Matrix3d r_dot = (pp.R - pm.R) / (2.0 * kStep);
    const Eigen::Matrix3d skew = pose(q).R.transpose() * r_dot;  // body-frame [w]x
    const Eigen::Vector3d w(skew(2, 1), skew(0, 2), skew(1, 0));
    const double expected =
        0.5 * RollingDisc::kMass * c_dot.squaredNorm() + 0.5 * w.dot(inertia.cwiseProduct(w));
    const double kinetic = 0.5 * v.dot(eval_mass(disc, 0.0, q) * v);
    EXPECT_NEAR(kinetic, expected, 1e-9 * (1.0 + expected));
    const double potential = RollingDisc::kMass * RollingDisc::kGravity * pose(q).c.z();
    EXPECT_NEAR(disc.energy(0.0, q, v, {}), expected + potential, 1e-9 * (1.0 + expected));
  }
}

TEST(RollingDisc, CurvatureAndVelocityJacobianMatchDifferencesOfTheRows) {
  const RollingDisc disc;
  for (const auto& [q, v] : samples()) {
    // L = d/dt(A v) - A v' = d/ds A(q + s v) v (a = 0, no explicit t)
    const Vec l_fd =
        (eval_G(disc, 0.0, q + kStep * v) - eval_G(disc, 0.0, q - kStep * v)) * v / (2.0 * kStep);
    EXPECT_LE(max_abs(eval_L(disc, 0.0, q, v) - l_fd), 1e-8);
    EXPECT_LE(max_abs(eval_Gv_q(disc, 0.0, q, v) -
                      fd_velocity_constraint_jacobian(disc, 0.0, q, v, kStep)),
              1e-8);
  }
}

TEST(RollingDisc, ForcesAreTheLagrangeTermsAndGravity) {
  const RollingDisc disc;
  for (const auto& [q, v] : samples()) {
    const Vec zero = Vec::Zero(5);
    const Vec f_rest = eval_forces(disc, 0.0, q, zero);
    const Vec grad = fd_energy_gradient(disc, 0.0, q, zero, kStep);
    EXPECT_LE(max_abs(f_rest + grad), 1e-7) << f_rest.transpose() << " vs " << -grad.transpose();
    const Vec f_vel = eval_forces(disc, 0.0, q, v) - f_rest;
    const Vec expected = fd_lagrange_velocity_forces(disc, 0.0, q, v, kStep);
    EXPECT_LE(max_abs(f_vel - expected), 1e-7)
        << f_vel.transpose() << " vs " << expected.transpose();
  }
}

TEST(RollingDisc, SteadyPrecessionIsAnEquilibriumOfTheAccelerations) {
  // Closed form, derived from Chin's Lagrangian (4.30) by hand: along a motion with theta, phi' =
  // W and psi' = w constant and x' = -r cos(phi) w, y' = -r sin(phi) w, the x' sin phi - y' cos phi
  // terms vanish with their derivative, so the theta equation (no multiplier: A has no theta
  // column) reduces to
  //   (m r^2 - A) W^2 s c + m r^2 W w c + C (w + W s) W c + m g r s = 0,  s, c = sin, cos theta,
  // linear in w. At that w the disc rolls on a circle at constant tilt: v' has no phi, theta or
  // psi component, and x'', y'' are the centripetal turn of the contact velocity.
  const RollingDisc disc;
  const double m = RollingDisc::kMass;
  const double a = RollingDisc::kDiametral;
  const double c_polar = RollingDisc::kPolar;
  const double g = RollingDisc::kGravity;
  for (const double theta : {-0.6, 0.3, 1.0}) {
    for (const double precession : {-2.0, 1.5}) {
      const double s = std::sin(theta);
      const double c = std::cos(theta);
      const double spin =
          -((m * kR * kR - a + c_polar) * precession * precession * s * c + m * g * kR * s) /
          ((m * kR * kR + c_polar) * precession * c);
      const double phi = 0.4;
      Vec q(5);
      Vec v(5);
      q << 0.2, -0.1, phi, theta, 0.7;
      v << -kR * std::cos(phi) * spin, -kR * std::sin(phi) * spin, precession, 0.0, spin;
      const Accelerations acc = solve_kkt(disc, 0.0, q, v);
      const double scale = 1.0 + v.cwiseAbs().maxCoeff() * v.cwiseAbs().maxCoeff();
      EXPECT_LE(acc.a.segment<3>(2).cwiseAbs().maxCoeff(), 1e-12 * scale)
          << "theta " << theta << ", phi' " << precession << ": v' = " << acc.a.transpose();
      // x' = -r cos(phi) w with phi' = W: x'' = r sin(phi) W w, y'' = -r cos(phi) W w
      EXPECT_NEAR(acc.a(0), kR * std::sin(phi) * precession * spin, 1e-12 * scale);
      EXPECT_NEAR(acc.a(1), -kR * std::cos(phi) * precession * spin, 1e-12 * scale);
    }
  }
}

TEST(RollingDisc, StartsUprightOnItsRowsWithTwoNonholonomicRowsOnly) {
  const std::unique_ptr<System> sys = make_mechanism("rolling_disc");
  EXPECT_EQ(sys->n_lambda(), 2);
  EXPECT_EQ(sys->n_holonomic(), 0);
  EXPECT_EQ(sys->n_nonholonomic(), 2);
  State x0;
  sys->initial_state(x0);
  EXPECT_NEAR(pose(x0.q).c.z(), kR, 1e-15) << "centre height 1 (Fig. 4.39)";
  EXPECT_LE(max_abs(eval_G(*sys, 0.0, x0.q) * x0.v), 1e-16);
}

}  // namespace
}  // namespace rtmb::test
