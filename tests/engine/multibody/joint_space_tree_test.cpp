// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// JointSpaceTree (engine/multibody/joint_space_tree.cpp) on a branched spatial tree with every
// joint type (revolute, prismatic, fixed; unnormalized axes, rotated joint frames, off-centre
// inertias). The two recursions are checked against each other and against Lagrange's equations
// by finite differences:
//   - M e_k is inverse dynamics at q' = 0, q'' = e_k minus the gravity term (RBDA eq. 6.1 with
//     C = 0): CRBA against RNEA;
//   - T(q, v) = v^T M v / 2 (RBDA eq. 2.67 summed over links against the composite inertias);
//   - the bias b = C(q, v) v + g(q) of RNEA equals Lagrange's (dM/dt) v - dT/dq + dV/dq, with
//     dM/dt, dT/dq and dV/dq by central differences of mass() and energy();
//   - energy is conserved by RK4 at a small step without dampers, and the dampers' dissipation
//     equals the integral of D v.v (work-energy balance).

#include "rtmb/models/joint_space_tree.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "rtmb/model.hpp"
#include "rtmb/step.hpp"

namespace rtmb {
namespace {

Eigen::Matrix3d inertia_of(double a, double b, double c, double tilt) {
  const Eigen::Matrix3d r =
      Eigen::AngleAxisd(tilt, Eigen::Vector3d(1.0, 2.0, 0.5).normalized()).toRotationMatrix();
  return r * Eigen::Vector3d(a, b, c).asDiagonal() * r.transpose();
}

// l0 on the world by a revolute joint, l1 prismatic on l0, l2 revolute on l1, l3 welded to l0
// (fixed), l4 revolute on l3: a tree with a branch and a fixed joint inside it.
JointSpaceSpec branched_tree(double damping = 0.0) {
  JointSpaceSpec s;
  s.name = "branched";
  const double masses[] = {2.0, 1.5, 1.0, 0.5, 0.8};
  for (int l = 0; l < 5; ++l) {
    TreeLinkSpec link;
    link.name = "l" + std::to_string(l);
    link.mass = masses[l];
    link.com = {0.05 * l, -0.1, 0.2 - 0.03 * l};
    link.inertia = inertia_of(0.02 + 0.01 * l, 0.03, 0.015 + 0.005 * l, 0.3 * l);
    s.links.push_back(link);
  }
  auto joint = [&](const char* name, TreeJointType type, int parent, int child) {
    TreeJointSpec j;
    j.name = name;
    j.type = type;
    j.parent = parent;
    j.child = child;
    j.damping = type == TreeJointType::kFixed ? 0.0 : damping;
    s.joints.push_back(j);
    return &s.joints.back();
  };
  TreeJointSpec* j = joint("j0", TreeJointType::kRevolute, -1, 0);
  j->origin_xyz = {0.1, 0.2, 0.3};
  j->origin_rotation = Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitX()).toRotationMatrix();
  j->initial_position = 0.3;
  j = joint("j1", TreeJointType::kPrismatic, 0, 1);
  j->origin_xyz = {0.0, 0.0, 0.4};
  j->axis = {1.0, 0.5, 0.0};
  j->initial_position = 0.1;
  j->initial_velocity = 0.5;
  j = joint("j2", TreeJointType::kRevolute, 1, 2);
  j->origin_xyz = {0.3, 0.0, 0.0};
  j->origin_rotation = Eigen::AngleAxisd(-0.7, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  j->axis = {0.0, 2.0, 0.0};
  j->initial_position = -0.8;
  j->initial_velocity = 1.0;
  j = joint("j3", TreeJointType::kFixed, 0, 3);
  j->origin_xyz = {-0.2, 0.1, 0.1};
  j->origin_rotation = Eigen::AngleAxisd(1.1, Eigen::Vector3d::UnitY()).toRotationMatrix();
  j = joint("j4", TreeJointType::kRevolute, 3, 4);
  j->origin_xyz = {0.0, -0.25, 0.0};
  j->axis = {1.0, 1.0, 1.0};
  j->initial_position = 0.6;
  j->initial_velocity = -2.0;
  return s;
}

Vec test_q() {
  return (Vec(4) << 0.7, -0.2, 1.3, -0.4).finished();
}
Vec test_v() {
  return (Vec(4) << 1.1, 0.6, -2.0, 0.9).finished();
}

TEST(JointSpaceTree, CountsOneCoordinatePerMovingJoint) {
  const JointSpaceTree tree(branched_tree());
  EXPECT_EQ(tree.n_q(), 4);
  EXPECT_EQ(tree.n_v(), 4);
  EXPECT_EQ(tree.n_lambda(), 0);
  EXPECT_EQ(tree.coordinate(2), 2);
  EXPECT_EQ(tree.coordinate(3), -1);
  EXPECT_EQ(tree.coordinate(4), 3);
  State s;
  tree.initial_state(s);
  EXPECT_DOUBLE_EQ(s.q(3), 0.6);
  EXPECT_DOUBLE_EQ(s.v(1), 0.5);
}

TEST(JointSpaceTree, MassMatrixColumnsAreInverseDynamicsOfUnitAccelerations) {
  const JointSpaceTree tree(branched_tree());
  const Vec q = test_q();
  Mat m(4, 4);
  tree.mass(0.0, q, m);
  const Vec zero = Vec::Zero(4);
  Vec gravity(4);
  tree.inverse_dynamics(q, zero, zero, gravity);
  for (int k = 0; k < 4; ++k) {
    Vec tau(4);
    tree.inverse_dynamics(q, zero, Vec::Unit(4, k), tau);
    EXPECT_LE((tau - gravity - m.col(k)).cwiseAbs().maxCoeff(), 1e-13 * m.cwiseAbs().maxCoeff())
        << "column " << k;
  }
  EXPECT_LE((m - m.transpose()).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Mat>(m).eigenvalues().minCoeff(), 0.0);
}

TEST(JointSpaceTree, KineticEnergyIsHalfVMV) {
  const JointSpaceTree tree(branched_tree());
  const Vec q = test_q();
  const Vec v = test_v();
  Mat m(4, 4);
  tree.mass(0.0, q, m);
  const double kinetic = tree.energy(0.0, q, v, {}) - tree.energy(0.0, q, Vec::Zero(4), {});
  EXPECT_NEAR(kinetic, 0.5 * v.dot(m * v), 1e-13 * kinetic);
}

// Lagrange: d/dt (M v) - dT/dq + dV/dq = tau, so with v' = 0 the bias is
//   b = (sum_k dM/dq_k v_k) v - dT/dq + dV/dq.
TEST(JointSpaceTree, BiasForcesSatisfyLagrangesEquations) {
  const JointSpaceTree tree(branched_tree());
  const Vec q = test_q();
  const Vec v = test_v();
  const Vec zero = Vec::Zero(4);
  constexpr double h = 1e-6;
  Vec lagrange = Vec::Zero(4);
  Mat mp(4, 4);
  Mat mm(4, 4);
  for (int k = 0; k < 4; ++k) {
    const Vec e = h * Vec::Unit(4, k);
    tree.mass(0.0, q + e, mp);
    tree.mass(0.0, q - e, mm);
    lagrange += (mp - mm) / (2.0 * h) * v * v(k);  // dM/dt v
    const double kinetic_p = tree.energy(0.0, q + e, v, {}) - tree.energy(0.0, q + e, zero, {});
    const double kinetic_m = tree.energy(0.0, q - e, v, {}) - tree.energy(0.0, q - e, zero, {});
    lagrange(k) -= (kinetic_p - kinetic_m) / (2.0 * h);
    lagrange(k) +=
        (tree.energy(0.0, q + e, zero, {}) - tree.energy(0.0, q - e, zero, {})) / (2.0 * h);
  }
  Vec bias(4);
  tree.inverse_dynamics(q, v, zero, bias);
  EXPECT_LE((bias - lagrange).cwiseAbs().maxCoeff(), 1e-7 * bias.cwiseAbs().maxCoeff())
      << "rnea " << bias.transpose() << "\nlagrange " << lagrange.transpose();
  // forces() is the negative bias minus the dampers
  const JointSpaceTree damped(branched_tree(0.25));
  Vec f(4);
  damped.forces(0.0, q, v, {}, f);
  EXPECT_LE((f + bias + 0.25 * v).cwiseAbs().maxCoeff(), 1e-13 * bias.cwiseAbs().maxCoeff());
}

State run(const JointSpaceSpec& spec, double dt, int steps, double* dissipated = nullptr) {
  Settings settings;
  settings.method = Method::kRk4;
  settings.stabilizer = StabilizerKind::kNone;
  settings.dt = dt;
  const Model model(std::make_shared<JointSpaceTree>(spec), settings);
  Workspace ws(model);
  State s = initial_state(model);
  Vec damping(4);
  for (int j = 0, k = 0; j < static_cast<int>(spec.joints.size()); ++j) {
    if (spec.joints[static_cast<std::size_t>(j)].type != TreeJointType::kFixed) {
      damping(k++) = spec.joints[static_cast<std::size_t>(j)].damping;
    }
  }
  double power_before = damping.dot(s.v.cwiseProduct(s.v));
  for (int i = 0; i < steps; ++i) {
    EXPECT_TRUE(step(model, s, ws).ok());
    const double power = damping.dot(s.v.cwiseProduct(s.v));
    if (dissipated != nullptr) *dissipated += 0.5 * dt * (power_before + power);  // trapezoid
    power_before = power;
  }
  return s;
}

TEST(JointSpaceTree, Rk4ConservesEnergyWithoutDampers) {
  const JointSpaceSpec spec = branched_tree();
  const JointSpaceTree tree(spec);
  State s0;
  tree.initial_state(s0);
  const State s = run(spec, 1e-3, 1000);
  const double e0 = tree.energy(0.0, s0.q, s0.v, {});
  const double e1 = tree.energy(0.0, s.q, s.v, {});
  EXPECT_LE(std::abs(e1 - e0), 1e-9 * std::abs(e0)) << e0 << " -> " << e1;
  EXPECT_GT((s.q - s0.q).cwiseAbs().maxCoeff(), 0.5);  // it moved
}

TEST(JointSpaceTree, DampersDissipateTheIntegralOfTheirPower) {
  const JointSpaceSpec spec = branched_tree(0.3);
  const JointSpaceTree tree(spec);
  State s0;
  tree.initial_state(s0);
  double dissipated = 0.0;
  const State s = run(spec, 1e-3, 1000, &dissipated);
  const double e0 = tree.energy(0.0, s0.q, s0.v, {});
  const double e1 = tree.energy(0.0, s.q, s.v, {});
  EXPECT_GT(dissipated, 0.1);
  // trapezoidal quadrature of the dissipation at dt = 1 ms: O(dt^2) relative
  EXPECT_NEAR(e0 - e1, dissipated, 1e-5 * dissipated);
}

TEST(JointSpaceTree, PrismaticJointTranslatesAlongItsUnitAxis) {
  const JointSpaceTree tree(branched_tree());
  Vec q = test_q();
  Eigen::Matrix3d r0;
  Eigen::Vector3d p0;
  Eigen::Matrix3d r1;
  Eigen::Vector3d p1;
  tree.link_pose(q, 1, r0, p0);
  q(1) += 0.5;
  tree.link_pose(q, 1, r1, p1);
  Eigen::Matrix3d rl;
  Eigen::Vector3d pl;
  tree.link_pose(q, 0, rl, pl);
  EXPECT_LE((p1 - p0 - 0.5 * rl * Eigen::Vector3d(1.0, 0.5, 0.0).normalized()).norm(), 1e-15);
  EXPECT_LE((r1 - r0).norm(), 1e-15);
}

void expect_refused(const JointSpaceSpec& spec, const std::string& needle) {
  try {
    const JointSpaceTree tree(spec);
    ADD_FAILURE() << "accepted; expected an error with '" << needle << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(JointSpaceTree, RefusesWhatIsNotATreeNamingTheJointOrLink) {
  JointSpaceSpec s = branched_tree();
  s.joints[4].child = 2;  // l2 gets a second parent
  expect_refused(s, "joint 'j4': link 'l2' is already the child of joint 'j2'");
  s = branched_tree();
  s.joints[0].parent = 2;  // l0 -> l1 -> l2 -> l0
  expect_refused(s, "on a cycle of joints");
  s = branched_tree();
  s.joints[2].axis.setZero();
  expect_refused(s, "joint 'j2': axis must be non-zero");
  s = branched_tree();
  s.links[3].mass = -1.0;
  expect_refused(s, "link 'l3': mass");
  s = branched_tree();
  s.links[1].inertia(0, 0) = -1.0;
  expect_refused(s, "link 'l1': inertia is not positive semi-definite");
  s = branched_tree();
  s.joints[1].child = 7;
  expect_refused(s, "joint 'j1': child link out of range");
}

}  // namespace
}  // namespace rtmb
