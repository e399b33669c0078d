// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Named input channels of spatial models (issue 4): each channel-driven generalized force against
// its closed form and against the virtual power / potential it comes from:
//   force u d at body point s:  Q = (u d, B(e, s)^T u d),  Q.v = F.p'  (p' = r' + B(e, s) e')
//   world torque n = u d:       Q_e = 2 E(e)^T n,          Q.v = n.omega (omega = 2 E e')
//   motor on a revolute joint:  Q.v = tau phi'  (equal and opposite torques about the axis)
//   coupling element:           Q = -grad V, V = k |p - p*|^2 / 2 (finite differences of energy())
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <vector>

#include "rtmb/models/spatial_multibody.hpp"
#include "rtmb/state.hpp"

namespace rtmb {
namespace {

SpatialBodySpec body(const char* name, const Eigen::Vector3d& r, const Eigen::Vector4d& e) {
  SpatialBodySpec b;
  b.name = name;
  b.mass = 1.3;
  b.inertia = Eigen::Vector3d(0.2, 0.3, 0.25).asDiagonal();
  b.position = r;
  b.orientation = e.normalized();
  return b;
}

// A free body (no joints) in a generic pose, and a generic velocity (with e.e' = 0)
struct Free {
  SpatialModelSpec spec;
  Vec q;
  Vec v;
};

Free free_body(std::vector<SpatialInputSpec> inputs, std::vector<SpatialForceSpec> forces = {}) {
  Free f;
  f.spec.bodies.push_back(body("b", {0.3, -0.2, 0.5}, {0.9, 0.2, -0.3, 0.25}));
  f.spec.inputs = std::move(inputs);
  f.spec.forces = std::move(forces);
  f.q = Vec(7);
  f.q << 0.3, -0.2, 0.5, Eigen::Vector4d(0.9, 0.2, -0.3, 0.25).normalized();
  f.v = Vec(7);
  const Eigen::Vector4d e = f.q.segment<4>(3);
  Eigen::Vector4d ed(0.1, -0.4, 0.3, 0.2);
  ed -= ed.dot(e) * e;
  f.v << 0.7, -0.1, 0.4, ed;
  return f;
}

// generalized force of the inputs alone: f(u) - f(0)
Vec input_force(const SpatialMultibody& sys, const Vec& q, const Vec& v, std::vector<double> u) {
  Vec f1(sys.n_v());
  Vec f0(sys.n_v());
  sys.forces(0.0, q, v, u, f1);
  std::fill(u.begin(), u.end(), 0.0);
  sys.forces(0.0, q, v, u, f0);
  return f1 - f0;
}

TEST(SpatialInputs, ForceAtBodyPointMatchesClosedFormAndVirtualPower) {
  SpatialInputSpec in;
  in.name = "push";
  in.type = SpatialInputType::kForce;
  in.body = 0;
  in.point = {0.1, 0.2, -0.3};
  in.direction = {1.0, 2.0, -2.0};  // normalized by the System: (1, 2, -2) / 3
  Free m = free_body({in});
  const SpatialMultibody sys(m.spec);
  ASSERT_EQ(sys.n_inputs(), 1);
  const double u = 4.5;
  const Vec Q = input_force(sys, m.q, m.v, {u});
  const Eigen::Vector3d F = u * Eigen::Vector3d(1.0, 2.0, -2.0) / 3.0;
  // translational part: F; virtual power Q.v = F.p' with p' from the point's velocity
  const double power = Q.dot(m.v);
  const double expect = F.dot(sys.point_velocity(0, in.point, m.q, m.v));
  std::printf("force: |Q_r - F| = %.3e, Q.v = %.12f, F.p' = %.12f\n", (Q.head<3>() - F).norm(),
              power, expect);
  EXPECT_LT((Q.head<3>() - F).norm(), 1e-14);
  EXPECT_NEAR(power, expect, 1e-12);
  // Q = grad_q (F.p(q)) by central differences (F constant: Q = -grad V, V = -F.p)
  const double h = 1e-6;
  for (int k = 0; k < 7; ++k) {
    Vec qp = m.q;
    Vec qm = m.q;
    qp(k) += h;
    qm(k) -= h;
    const double fd =
        (F.dot(sys.point_position(0, in.point, qp)) - F.dot(sys.point_position(0, in.point, qm))) /
        (2.0 * h);
    EXPECT_NEAR(Q(k), fd, 1e-8) << "coordinate " << k;
  }
}

TEST(SpatialInputs, WorldTorqueIsTwoETransposeN) {
  SpatialInputSpec in;
  in.name = "twist";
  in.type = SpatialInputType::kTorque;
  in.body = 0;
  in.direction = {0.0, 0.6, 0.8};
  Free m = free_body({in});
  const SpatialMultibody sys(m.spec);
  const double u = -1.7;
  const Vec Q = input_force(sys, m.q, m.v, {u});
  const Eigen::Vector3d n = u * Eigen::Vector3d(0.0, 0.6, 0.8);
  const Eigen::Vector4d e = m.q.segment<4>(3);
  const Eigen::Vector4d closed = 2.0 * euler_e(e).transpose() * n;
  const Eigen::Vector3d omega = 2.0 * euler_e(e) * m.v.segment<4>(3);
  std::printf("torque: |Q_e - 2 E^T n| = %.3e, Q.v = %.12f, n.omega = %.12f\n",
              (Q.segment<4>(3) - closed).norm(), Q.dot(m.v), n.dot(omega));
  EXPECT_LT(Q.head<3>().norm(), 1e-15);
  EXPECT_LT((Q.segment<4>(3) - closed).norm(), 1e-14);
  EXPECT_NEAR(Q.dot(m.v), n.dot(omega), 1e-12);
}

// two bodies on revolute joints: ground-b0 about z, b0-b1 about a tilted axis
SpatialModelSpec two_link(std::vector<SpatialInputSpec> inputs) {
  SpatialModelSpec s;
  s.bodies.push_back(body("a", {0.0, 0.0, 0.5}, {1.0, 0.0, 0.0, 0.0}));
  s.bodies.push_back(body("b", {0.5, 0.0, 1.0}, {1.0, 0.0, 0.0, 0.0}));
  SpatialJointSpec j0;
  j0.name = "j0";
  j0.type = SpatialJointType::kRevolute;
  j0.body_i = kGround;
  j0.body_j = 0;
  j0.axis_i = Eigen::Vector3d::UnitZ();
  j0.point_j = {0.0, 0.0, -0.5};
  SpatialJointSpec j1;
  j1.name = "j1";
  j1.type = SpatialJointType::kRevolute;
  j1.body_i = 0;
  j1.body_j = 1;
  j1.point_i = {0.0, 0.0, 0.5};
  j1.point_j = {-0.5, 0.0, 0.0};
  j1.axis_i = Eigen::Vector3d(1.0, 1.0, 0.0);
  s.joints = {j0, j1};
  s.inputs = std::move(inputs);
  assemble(s);
  return s;
}

TEST(SpatialInputs, MotorTorqueDoesWorkTauPhiDotAndIsClamped) {
  SpatialInputSpec in;
  in.name = "motor";
  in.type = SpatialInputType::kMotor;
  in.joint = 1;
  in.limit = 2.0;
  const SpatialMultibody sys(two_link({in}));
  State s;
  sys.initial_state(s);
  // a velocity on the constraint manifold: v = null-space component of a generic vector
  Mat G(sys.n_lambda(), sys.n_v());
  sys.jacobian(0.0, s.q, G);
  Vec v = Vec::LinSpaced(sys.n_v(), -0.5, 0.9);
  v -= G.completeOrthogonalDecomposition().solve(G * v);
  ASSERT_LT((G * v).norm(), 1e-12);
  const double phid = sys.revolute_coordinate(1, s.q, v)[1];
  ASSERT_GT(std::abs(phid), 1e-3);
  const Vec Q = input_force(sys, s.q, v, {1.5});
  std::printf("motor: Q.v = %.12f, tau phi' = %.12f\n", Q.dot(v), 1.5 * phid);
  EXPECT_NEAR(Q.dot(v), 1.5 * phid, 1e-12);
  // beyond the limit the torque is clamped to +-limit
  const Vec Qc = input_force(sys, s.q, v, {10.0});
  EXPECT_NEAR(Qc.dot(v), 2.0 * phid, 1e-12);
  const Vec Qn = input_force(sys, s.q, v, {-10.0});
  EXPECT_NEAR(Qn.dot(v), -2.0 * phid, 1e-12);
  // the motor's torque acts only on the Euler parameters
  EXPECT_LT(Q.head<3>().norm() + Q.segment<3>(7).norm(), 1e-15);
}

TEST(SpatialInputs, CouplingForceIsMinusGradientOfItsPotential) {
  SpatialForceSpec c;
  c.name = "tip";
  c.type = SpatialForceType::kCoupling;
  c.body_i = 0;
  c.point_i = {0.2, -0.1, 0.3};
  c.stiffness = 80.0;
  c.damping = 3.0;
  c.vector = {9.0, 9.0, 9.0};  // the z target stays here; x and y come from channels
  std::vector<SpatialInputSpec> in(2);
  in[0].name = "tx";
  in[0].type = SpatialInputType::kCouplingX;
  in[0].element = 0;
  in[0].initial = 0.4;
  in[1].name = "ty";
  in[1].type = SpatialInputType::kCouplingY;
  in[1].element = 0;
  in[1].initial = -0.3;
  Free m = free_body(in, {c});
  const SpatialMultibody sys(m.spec);
  // no channel values given: the channels' initial values
  EXPECT_EQ(sys.coupling_target(0, {}), Eigen::Vector3d(0.4, -0.3, 9.0));
  const std::vector<double> u = {0.1, 0.6};
  const Eigen::Vector3d target(0.1, 0.6, 9.0);
  EXPECT_EQ(sys.coupling_target(0, u), target);
  // closed form F = -k (p - p*) - c p'
  const Eigen::Vector3d p = sys.point_position(0, c.point_i, m.q);
  const Eigen::Vector3d pd = sys.point_velocity(0, c.point_i, m.q, m.v);
  const Eigen::Vector3d F = -80.0 * (p - target) - 3.0 * pd;
  EXPECT_LT((sys.coupling_force(0, m.q, m.v, u) - F).norm(), 1e-12);
  Vec f(7);
  sys.forces(0.0, m.q, m.v, u, f);
  Vec f_free(7);
  SpatialModelSpec bare = m.spec;
  bare.forces.clear();
  bare.inputs.clear();
  SpatialMultibody(bare).forces(0.0, m.q, m.v, {}, f_free);
  EXPECT_LT(((f - f_free).head<3>() - F).norm(), 1e-12);
  // at v = 0 (no gyroscopic or damping term): f = -grad energy(q, 0) by central differences
  const Vec zero = Vec::Zero(7);
  sys.forces(0.0, m.q, zero, u, f);
  const double h = 1e-6;
  double worst = 0.0;
  for (int k = 0; k < 7; ++k) {
    Vec qp = m.q;
    Vec qm = m.q;
    qp(k) += h;
    qm(k) -= h;
    const double fd = -(sys.energy(0.0, qp, zero, u) - sys.energy(0.0, qm, zero, u)) / (2.0 * h);
    worst = std::max(worst, std::abs(f(k) - fd));
    EXPECT_NEAR(f(k), fd, 1e-5 * (1.0 + std::abs(fd))) << "coordinate " << k;
  }
  const double V = 0.5 * 80.0 * (p - target).squaredNorm();
  std::printf("coupling: V = %.9f, energy(q,0) = %.9f, max |f + grad V| = %.3e\n", V,
              sys.energy(0.0, m.q, zero, u), worst);
  EXPECT_NEAR(sys.energy(0.0, m.q, zero, u), V, 1e-12 * (1.0 + V));
}

TEST(SpatialInputs, BadBindingsAreRejected) {
  SpatialInputSpec in;
  in.name = "m";
  in.type = SpatialInputType::kMotor;
  in.joint = 0;  // no joints
  EXPECT_THROW(SpatialMultibody(free_body({in}).spec), std::invalid_argument);
  in.type = SpatialInputType::kCouplingZ;
  in.element = 0;  // no force element
  EXPECT_THROW(SpatialMultibody(free_body({in}).spec), std::invalid_argument);
  in.type = SpatialInputType::kForce;
  in.body = 0;
  in.direction.setZero();
  EXPECT_THROW(SpatialMultibody(free_body({in}).spec), std::invalid_argument);
}

}  // namespace
}  // namespace rtmb
