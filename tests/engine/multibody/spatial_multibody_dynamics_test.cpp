// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Spatial bodies in motion (RK4 + PStab through the ordinary step): a torque-free asymmetric body
// against an independent integration of Euler's rotation equations J w' = -w x J w, with energy
// and world angular momentum conserved; a heavy symmetric top on a spherical joint with its three
// invariants (energy, vertical angular momentum about the pivot, spin); and a two-body chain for
// every joint type staying on its constraints with its energy conserved.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "rtmb/models/spatial_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/engine/multibody/multibody_test_support.hpp"
#include "tests/support/model_lookup.hpp"

namespace rtmb {
namespace {

using testing::rk4_pstab;

Eigen::Vector4d quat_of(const Eigen::Matrix3d& R) {
  const Eigen::Quaterniond q(R);
  return {q.w(), q.x(), q.y(), q.z()};
}

Eigen::Matrix3d tilted_inertia(double a, double b, double c) {
  const Eigen::Matrix3d R =
      Eigen::AngleAxisd(0.4, Eigen::Vector3d(1.0, -2.0, 0.5).normalized()).toRotationMatrix();
  return R * Eigen::Vector3d(a, b, c).asDiagonal() * R.transpose();
}

// A joint of `type` from body i to body j (kGround: the ground), frames and points at their
// defaults.
SpatialJointSpec joint_between(std::string name, SpatialJointType type, int i, int j) {
  SpatialJointSpec jt;
  jt.name = std::move(name);
  jt.type = type;
  jt.body_i = i;
  jt.body_j = j;
  return jt;
}

// omega' = 2 L e' and the world angular momentum A J' omega' of body b
Eigen::Vector3d body_omega(const State& s, int b) {
  return 2.0 * euler_l(s.q.segment<4>(7 * b + 3)) * s.v.segment<4>(7 * b + 3);
}

TEST(SpatialDynamics, TorqueFreeBodyFollowsEulersEquations) {
  SpatialBodySpec body;
  body.name = "brick";
  body.mass = 2.0;
  body.inertia = tilted_inertia(1.0, 2.0, 3.0);
  const Eigen::Matrix3d A0 =
      Eigen::AngleAxisd(0.9, Eigen::Vector3d(0.2, 0.7, -0.3).normalized()).toRotationMatrix();
  body.orientation = quat_of(A0);
  const Eigen::Vector3d w0_body(2.0, 0.4, 1.0);
  body.angular_velocity = A0 * w0_body;
  body.velocity = {0.3, 0.0, -0.1};
  SpatialModelSpec spec;
  spec.bodies = {body};
  const auto sys = std::make_shared<SpatialMultibody>(spec);
  const Model model(sys, rk4_pstab(1e-3));
  Workspace ws(model);
  State s = initial_state(model);
  const Eigen::Matrix3d& J = body.inertia;
  const double e0 = sys->energy(0.0, s.q, s.v, {});
  const Eigen::Vector3d h0 = A0 * J * w0_body;
  // independent reference: RK4 on Euler's equations at a 10x finer step
  Eigen::Vector3d w = w0_body;
  const Eigen::Matrix3d Jinv = J.inverse();
  auto euler_rhs = [&](const Eigen::Vector3d& x) -> Eigen::Vector3d {
    return Jinv * (-x.cross(J * x));
  };
  double worst_w = 0.0;
  double worst_e = 0.0;
  double worst_h = 0.0;
  double worst_g = 0.0;
  Vec g(sys->n_lambda());
  for (int k = 0; k < 3000; ++k) {
    ASSERT_TRUE(step(model, s, ws).ok());
    for (int sub = 0; sub < 10; ++sub) {
      const double h = 1e-4;
      const Eigen::Vector3d k1 = euler_rhs(w);
      const Eigen::Vector3d k2 = euler_rhs(w + 0.5 * h * k1);
      const Eigen::Vector3d k3 = euler_rhs(w + 0.5 * h * k2);
      const Eigen::Vector3d k4 = euler_rhs(w + h * k3);
      w += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    }
    const Eigen::Vector3d wb = body_omega(s, 0);
    const Eigen::Matrix3d A = rotation(s.q.segment<4>(3));
    worst_w = std::max(worst_w, (wb - w).norm());
    worst_e = std::max(worst_e, std::abs(sys->energy(s.t, s.q, s.v, {}) - e0) / e0);
    worst_h = std::max(worst_h, (A * J * wb - h0).norm() / h0.norm());
    sys->constraints(s.t, s.q, g);
    worst_g = std::max(worst_g, g.lpNorm<Eigen::Infinity>());
  }
  // the body turned through a good part of a revolution in 3 s and omega' changed direction
  EXPECT_GT((w - w0_body).norm(), 0.3);
  EXPECT_LE(worst_w, 1e-8);
  EXPECT_LE(worst_e, 1e-9);
  EXPECT_LE(worst_h, 1e-9);
  EXPECT_LE(worst_g, 1e-12);
  EXPECT_NEAR(s.q(0), 0.3 * s.t, 1e-12);  // the centre of mass drifts uniformly
  std::printf(
      "torque-free: |w' - w'_Euler| <= %.3e rad/s, |dE|/E <= %.3e, |dH|/|H| <= %.3e, |g| <= %.3e "
      "over 3 s (|w'(3) - w'(0)| = %.3f)\n",
      worst_w, worst_e, worst_h, worst_g, (w - w0_body).norm());
}

TEST(SpatialDynamics, HeavySymmetricTopKeepsItsThreeInvariants) {
  // pivot at the origin, centre of mass at distance h along the body z axis; gravity -z.
  // Invariants: E, the vertical angular momentum about the pivot (A J w' + m r x r').z, and the
  // spin w'_3 (J = diag(a, a, c): Euler's third equation gives c w3' = 0 with the gravity torque
  // normal to the symmetry axis).
  const double m = 1.2;
  const double h = 0.3;
  SpatialBodySpec top;
  top.name = "top";
  top.mass = m;
  top.inertia = Eigen::Vector3d(0.02, 0.02, 0.035).asDiagonal();
  const Eigen::Matrix3d A0 = Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitX()).toRotationMatrix();
  top.orientation = quat_of(A0);
  top.position = A0 * Eigen::Vector3d(0.0, 0.0, h);
  const Eigen::Vector3d w0 = A0 * Eigen::Vector3d(0.0, 0.0, 40.0) + Eigen::Vector3d(0, 0, 1.5);
  top.angular_velocity = w0;
  top.velocity = w0.cross(top.position);
  SpatialModelSpec spec;
  spec.bodies = {top};
  SpatialJointSpec pivot = joint_between("pivot", SpatialJointType::kSpherical, kGround, 0);
  pivot.point_j = {0.0, 0.0, -h};
  spec.joints = {pivot};
  SpatialForceSpec gravity;
  gravity.type = SpatialForceType::kGravity;
  gravity.vector = {0.0, 0.0, -9.81};
  spec.forces = {gravity};
  const std::vector<std::string> notes = assemble(spec);
  EXPECT_TRUE(notes.empty());  // consistent as built
  const auto sys = std::make_shared<SpatialMultibody>(spec);
  const Model model(sys, rk4_pstab(1e-3));
  Workspace ws(model);
  State s = initial_state(model);
  auto hz = [&](const State& x) {
    const Eigen::Matrix3d A = rotation(x.q.segment<4>(3));
    const Eigen::Vector3d r = x.q.head<3>();
    const Eigen::Vector3d rd = x.v.head<3>();
    return (A * top.inertia * body_omega(x, 0) + m * r.cross(rd)).z();
  };
  const double e0 = sys->energy(0.0, s.q, s.v, {});
  const double hz0 = hz(s);
  const double spin0 = body_omega(s, 0).z();
  multibody_test::EnergyTrace energy(e0);
  double worst_h = 0.0;
  double worst_spin = 0.0;
  double worst_g = 0.0;
  double min_z = 1.0;
  double max_z = -1.0;
  Vec g(sys->n_lambda());
  for (int k = 0; k < 3000; ++k) {
    ASSERT_TRUE(step(model, s, ws).ok());
    energy.add(sys->energy(s.t, s.q, s.v, {}));
    worst_h = std::max(worst_h, std::abs(hz(s) - hz0) / std::abs(hz0));
    worst_spin = std::max(worst_spin, std::abs(body_omega(s, 0).z() - spin0) / spin0);
    sys->constraints(s.t, s.q, g);
    worst_g = std::max(worst_g, g.lpNorm<Eigen::Infinity>());
    min_z = std::min(min_z, s.q(2));
    max_z = std::max(max_z, s.q(2));
  }
  EXPECT_GT(max_z - min_z, 1e-4);                      // it nutates
  const double worst_e = energy.worst / std::abs(e0);  // relative
  // energy, vertical angular momentum and spin are conserved to 1e-8 relative
  EXPECT_LE(std::max({worst_e, worst_h, worst_spin}), 1e-8)
      << "|dE|/E " << worst_e << ", |dHz|/Hz " << worst_h << ", |dspin|/spin " << worst_spin;
  EXPECT_LE(worst_g, 1e-10);
  std::printf(
      "top: |dE|/E <= %.3e, |dHz|/Hz <= %.3e, |dspin|/spin <= %.3e, |g| <= %.3e over 3 s, "
      "nutation z in [%.5f, %.5f] m\n",
      worst_e, worst_h, worst_spin, worst_g, min_z, max_z);
}

TEST(SpatialDynamics, RotationalSpringOnARevoluteJointIsAHarmonicOscillator) {
  // a body hinged at its centre of mass about the world axis a, spring k with rest angle phi0,
  // starting at phi = 0 at rest: phi(t) = phi0 (1 - cos(w t)), w^2 = k / (a^T J a) (J in world
  // axes at t = 0 = body axes here). phi is measured here from A(t) A0^T, not from the System.
  const Eigen::Vector3d a = Eigen::Vector3d(0.2, -0.5, 1.0).normalized();
  SpatialBodySpec body;
  body.name = "wheel";
  body.mass = 1.5;
  body.inertia = tilted_inertia(0.02, 0.03, 0.05);
  SpatialModelSpec spec;
  spec.bodies = {body};
  SpatialJointSpec hinge = joint_between("hinge", SpatialJointType::kRevolute, kGround, 0);
  hinge.axis_i = a;
  spec.joints = {hinge};
  SpatialForceSpec spring;
  spring.type = SpatialForceType::kRotationalSpring;
  spring.joint = 0;
  spring.body_i = kGround;
  spring.body_j = 0;
  spring.stiffness = 3.0;
  spring.rest = 0.4;
  spec.forces = {spring};
  const double w = std::sqrt(spring.stiffness / a.dot(body.inertia * a));
  for (const double damping : {0.0, 0.05}) {
    spec.forces[0].damping = damping;
    const auto sys = std::make_shared<SpatialMultibody>(spec);
    const Model model(sys, rk4_pstab(1e-3));
    Workspace ws(model);
    State s = initial_state(model);
    const double e0 = sys->energy(0.0, s.q, s.v, {});
    double worst_phi = 0.0;
    multibody_test::EnergyTrace energy(e0);
    for (int k = 0; k < 2000; ++k) {
      ASSERT_TRUE(step(model, s, ws).ok());
      const Eigen::AngleAxisd turn(rotation(s.q.segment<4>(3)));
      const double phi = turn.angle() * (turn.axis().dot(a) >= 0.0 ? 1.0 : -1.0);
      energy.add(sys->energy(s.t, s.q, s.v, {}));
      if (damping == 0.0) {
        worst_phi = std::max(worst_phi, std::abs(phi - spring.rest * (1.0 - std::cos(w * s.t))));
      }
    }
    if (damping == 0.0) {
      EXPECT_LE(worst_phi, 1e-9);
      EXPECT_LE(energy.worst, 1e-10 * std::abs(e0));
      std::printf("rotational spring: |phi - phi_exact| <= %.3e rad, |dE| <= %.3e J over 2 s\n",
                  worst_phi, energy.worst);
    } else {
      EXPECT_TRUE(energy.monotone);
      EXPECT_LT(energy.last, 0.9 * e0);
      std::printf("rotational damper: E %.6f -> %.6f J, never rising\n", e0, energy.last);
    }
  }
}

// ---- one mechanism per joint type: ground -joint- a -joint- b under gravity ------------------

class SpatialJointMechanism : public ::testing::TestWithParam<SpatialJointType> {};

TEST_P(SpatialJointMechanism, StaysOnTheConstraintsAndConservesEnergy) {
  const SpatialJointType type = GetParam();
  SpatialModelSpec spec;
  spec.name = "chain";
  SpatialBodySpec a;
  a.name = "a";
  a.mass = 1.5;
  a.inertia = tilted_inertia(0.02, 0.03, 0.04);
  a.orientation = quat_of(Eigen::AngleAxisd(0.3, Eigen::Vector3d(1, 0, 1).normalized()).matrix());
  a.position = {0.0, 0.0, -0.4};
  a.velocity = {0.4, -0.3, 0.2};
  a.angular_velocity = {0.5, 1.0, -0.7};
  SpatialBodySpec b = a;
  b.name = "b";
  b.mass = 0.8;
  b.orientation = quat_of(Eigen::AngleAxisd(-0.5, Eigen::Vector3d(0, 1, 1).normalized()).matrix());
  b.position = {0.1, 0.2, -0.9};
  b.angular_velocity = {-0.6, 0.8, 1.1};
  spec.bodies = {a, b};
  const Eigen::Vector3d axis = Eigen::Vector3d(0.3, 0.4, 1.0).normalized();  // world, at t = 0
  auto make = [&](int i, int j, const Eigen::Vector3d& world_point) {
    SpatialJointSpec jt =
        joint_between(std::string(to_string(type)) + "_" + std::to_string(j), type, i, j);
    auto frame = [&](int body) -> Eigen::Matrix3d {
      return body == kGround ? Eigen::Matrix3d::Identity()
                             : rotation(spec.bodies[static_cast<std::size_t>(body)].orientation);
    };
    auto origin = [&](int body) -> Eigen::Vector3d {
      return body == kGround ? Eigen::Vector3d::Zero()
                             : spec.bodies[static_cast<std::size_t>(body)].position;
    };
    jt.point_i = frame(i).transpose() * (world_point - origin(i));
    jt.point_j = frame(j).transpose() * (world_point - origin(j));
    if (type == SpatialJointType::kDistance) jt.point_j += Eigen::Vector3d(0.05, -0.1, 0.02);
    jt.length = 0.3;
    jt.axis_i = frame(i).transpose() * axis;
    jt.axis_j.setZero();
    if (type == SpatialJointType::kUniversal)
      jt.axis_j = frame(j).transpose() * axis.unitOrthogonal();
    return jt;
  };
  spec.joints = {make(kGround, 0, {0.0, 0.0, -0.1}), make(0, 1, {0.05, 0.1, -0.65})};
  SpatialForceSpec gravity;
  gravity.type = SpatialForceType::kGravity;
  gravity.vector = {0.0, 0.0, -9.81};
  spec.forces = {gravity};
  assemble(spec);
  const auto sys = std::make_shared<SpatialMultibody>(spec);
  struct Run {
    double g = 0.0;      // max |g|inf
    double e = 0.0;      // max |E - E0| [J]
    double moved = 0.0;  // max |q - q0|inf
  };
  auto run = [&](double dt) {
    const Model model(sys, rk4_pstab(dt));
    Workspace ws(model);
    State s = initial_state(model);
    const double e0 = sys->energy(0.0, s.q, s.v, {});
    Vec g(sys->n_lambda());
    const Vec q0 = s.q;
    Run out;
    for (int k = 0; k < static_cast<int>(std::lround(1.0 / dt)); ++k) {
      EXPECT_TRUE(step(model, s, ws).ok()) << k;
      sys->constraints(s.t, s.q, g);
      out.g = std::max(out.g, g.lpNorm<Eigen::Infinity>());
      out.e = std::max(out.e, std::abs(sys->energy(s.t, s.q, s.v, {}) - e0));
      out.moved = std::max(out.moved, (s.q - q0).lpNorm<Eigen::Infinity>());
    }
    return out;
  };
  // one second at dt and dt/2: on the constraints at both; the energy error is RK4's (it falls
  // by about 2^4 when it is above round-off) and small
  const double e0 = sys->energy(0.0, initial_state(Model(sys, rk4_pstab(1e-3))).q,
                                initial_state(Model(sys, rk4_pstab(1e-3))).v, {});
  const double scale = 1.0 + std::abs(e0);
  const Run coarse = run(1e-3);
  const Run fine = run(5e-4);
  if (type != SpatialJointType::kFixed) {
    EXPECT_GT(coarse.moved, 1e-2);
  }
  EXPECT_LE(coarse.g, 1e-10);
  EXPECT_LE(fine.g, 1e-10);
  EXPECT_LE(coarse.e / scale, 1e-6);
  EXPECT_LE(fine.e / scale, 2e-8);
  if (coarse.e > 1e-10 * scale) {
    EXPECT_GE(coarse.e / fine.e, 10.0);
  }
  std::printf(
      "%s chain, 1 s: |g|inf <= %.3e; |E - E0| <= %.3e J at dt 1e-3, %.3e J at 5e-4 (E0 = %.4f "
      "J), moved %.3f\n",
      std::string(to_string(type)).c_str(), std::max(coarse.g, fine.g), coarse.e, fine.e, e0,
      coarse.moved);
}

INSTANTIATE_TEST_SUITE_P(AllTypes,
                         SpatialJointMechanism,
                         ::testing::ValuesIn(multibody_test::all_spatial_joint_types()),
                         multibody_test::joint_type_name);

}  // namespace
}  // namespace rtmb
