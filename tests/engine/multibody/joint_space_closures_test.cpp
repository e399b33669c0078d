// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Constraint rows of a joint-space tree (engine/multibody/joint_space_closures.cpp) on a spatial
// tree with every closure type (spherical, revolute, planar revolute to the world, mimic) and
// every joint type, against central finite differences of the code's own g(q):
//   - G = dg/dq;
//   - L = g_qq(v, v) = d/de [G(q + e v) v] at e = 0 (Chin 1995 §1.1, scleronomic rows);
//   - d(G v)/dq, column by column;
//   - the point springs', joint springs' and efforts' generalized forces are -dV/dq of the
//     potential that energy() sums independently;
// and the assembly of initial_state (g = 0, G v = 0 afterwards; a consistent state unchanged).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "rtmb/models/joint_space_tree.hpp"

namespace rtmb {
namespace {

using Vec3 = Eigen::Vector3d;

// l0 revolute on the world, l1 revolute on l0, l2 prismatic on l1, l3 revolute on l2; l4 revolute
// on the world, l5 revolute on l4, l6 welded to l4, l7 revolute on l6. Closures: a spherical
// one l3-l5, a revolute one l2-l7, a planar revolute one world-l1 and l7 mimicking l0 (11 rows on
// 7 coordinates: the rows are checked as functions here, not simulated).
JointSpaceSpec closed_tree() {
  JointSpaceSpec s;
  s.name = "closed";
  for (int l = 0; l < 8; ++l) {
    TreeLinkSpec link;
    link.name = "l" + std::to_string(l);
    link.mass = 0.5 + 0.2 * l;
    link.com = {0.04 * l, -0.05, 0.1};
    link.inertia = Eigen::Vector3d(0.01 + 0.002 * l, 0.02, 0.015).asDiagonal();
    s.links.push_back(link);
  }
  auto joint = [&](const std::string& name, TreeJointType type, int parent, int child,
                   const Vec3& xyz, const Vec3& axis) {
    TreeJointSpec j;
    j.name = name;
    j.type = type;
    j.parent = parent;
    j.child = child;
    j.origin_xyz = xyz;
    j.origin_rotation =
        Eigen::AngleAxisd(0.3 * child, Vec3(1.0, 0.5, -0.2).normalized()).toRotationMatrix();
    j.axis = axis;
    s.joints.push_back(j);
  };
  joint("j0", TreeJointType::kRevolute, -1, 0, {0.0, 0.0, 0.1}, {0.0, 0.0, 1.0});
  joint("j1", TreeJointType::kRevolute, 0, 1, {0.3, 0.0, 0.0}, {0.0, 1.0, 0.2});
  joint("j2", TreeJointType::kPrismatic, 1, 2, {0.0, 0.2, 0.0}, {1.0, 0.2, 0.0});
  joint("j3", TreeJointType::kRevolute, 2, 3, {0.1, 0.0, 0.3}, {1.0, 1.0, 0.0});
  joint("j4", TreeJointType::kRevolute, -1, 4, {0.5, 0.2, 0.0}, {1.0, 0.0, 0.0});
  joint("j5", TreeJointType::kRevolute, 4, 5, {0.0, 0.3, 0.1}, {0.0, 1.0, 1.0});
  joint("j6", TreeJointType::kFixed, 4, 6, {0.2, 0.0, -0.1}, {0.0, 0.0, 1.0});
  joint("j7", TreeJointType::kRevolute, 6, 7, {0.0, -0.2, 0.2}, {0.3, -1.0, 0.5});
  TreeClosureSpec c;
  c.name = "sph";
  c.type = TreeClosureType::kSpherical;
  c.link_a = 3;
  c.link_b = 5;
  c.point_a = {0.1, 0.05, -0.2};
  c.point_b = {-0.15, 0.1, 0.05};
  s.closures.push_back(c);
  c = TreeClosureSpec{};
  c.name = "rev";
  c.type = TreeClosureType::kRevolute;
  c.link_a = 2;
  c.link_b = 7;
  c.point_a = {0.05, -0.1, 0.2};
  c.point_b = {0.2, 0.1, -0.05};
  c.axis_a = {0.2, 1.0, 0.3};
  c.axis_b = {1.0, 0.0, 0.4};
  s.closures.push_back(c);
  c = TreeClosureSpec{};
  c.name = "plane";
  c.type = TreeClosureType::kPlanarRevolute;
  c.link_a = -1;
  c.link_b = 1;
  c.point_a = {0.3, -0.2, 0.4};
  c.point_b = {0.1, 0.2, 0.0};
  c.normal = {0.3, 0.2, 1.0};
  s.closures.push_back(c);
  c = TreeClosureSpec{};
  c.name = "mimic";
  c.type = TreeClosureType::kMimic;
  c.joint = 7;
  c.mimicked = 0;
  c.multiplier = -1.5;
  c.offset = 0.2;
  s.closures.push_back(c);
  return s;
}

Vec test_q() {
  return (Vec(7) << 0.7, -0.4, 0.15, 1.3, -0.6, 0.9, 0.35).finished();
}
Vec test_v() {
  return (Vec(7) << 1.1, -0.6, 0.8, -2.0, 0.9, 1.4, -0.7).finished();
}

constexpr double kStep = 1e-6;

TEST(JointSpaceClosures, CountsTheRowsOfEveryClosureType) {
  const JointSpaceTree tree(closed_tree());
  EXPECT_EQ(tree.n_v(), 7);
  EXPECT_EQ(tree.n_lambda(), 3 + 5 + 2 + 1);
  EXPECT_EQ(joint_space_constraint_rows(closed_tree()), 11);
}

TEST(JointSpaceClosures, JacobianIsTheDerivativeOfTheRows) {
  const JointSpaceTree tree(closed_tree());
  const Vec q = test_q();
  Mat g_jac(11, 7);
  tree.jacobian(0.0, q, g_jac);
  Mat fd(11, 7);
  Vec gp(11);
  Vec gm(11);
  for (int k = 0; k < 7; ++k) {
    Vec qp = q;
    Vec qm = q;
    qp(k) += kStep;
    qm(k) -= kStep;
    tree.constraints(0.0, qp, gp);
    tree.constraints(0.0, qm, gm);
    fd.col(k) = (gp - gm) / (2.0 * kStep);
  }
  EXPECT_LT((g_jac - fd).cwiseAbs().maxCoeff(), 1e-8 * std::max(1.0, fd.cwiseAbs().maxCoeff()))
      << "G:\n"
      << g_jac << "\nfinite differences:\n"
      << fd;
  // the mimic row is exact: +1 on j7's coordinate (6), -multiplier on j0's (0)
  EXPECT_EQ(g_jac(10, 6), 1.0);
  EXPECT_EQ(g_jac(10, 0), 1.5);
  // every closure row depends on q: no row of G is zero
  for (int r = 0; r < 11; ++r) EXPECT_GT(g_jac.row(r).norm(), 1e-3) << "row " << r;
}

TEST(JointSpaceClosures, CurvatureIsTheSecondDerivativeAlongV) {
  const JointSpaceTree tree(closed_tree());
  const Vec q = test_q();
  const Vec v = test_v();
  Vec curvature(11);
  tree.curvature(0.0, q, v, curvature);
  Mat gp(11, 7);
  Mat gm(11, 7);
  tree.jacobian(0.0, q + kStep * v, gp);
  tree.jacobian(0.0, q - kStep * v, gm);
  const Vec fd = (gp - gm) * v / (2.0 * kStep);
  EXPECT_LT((curvature - fd).cwiseAbs().maxCoeff(), 1e-7 * std::max(1.0, fd.cwiseAbs().maxCoeff()))
      << "L: " << curvature.transpose() << "\nfd: " << fd.transpose();
  EXPECT_GT(curvature.head<10>().cwiseAbs().minCoeff(), 1e-4);  // no row's L is trivially zero
  EXPECT_EQ(curvature(10), 0.0);                                // the mimic row is linear
}

TEST(JointSpaceClosures, VelocityConstraintJacobianIsTheDerivativeOfGv) {
  const JointSpaceTree tree(closed_tree());
  const Vec q = test_q();
  const Vec v = test_v();
  Mat analytic(11, 7);
  tree.velocity_constraint_jacobian(0.0, q, v, analytic);
  Mat fd(11, 7);
  Mat gp(11, 7);
  Mat gm(11, 7);
  for (int k = 0; k < 7; ++k) {
    Vec qp = q;
    Vec qm = q;
    qp(k) += kStep;
    qm(k) -= kStep;
    tree.jacobian(0.0, qp, gp);
    tree.jacobian(0.0, qm, gm);
    fd.col(k) = (gp - gm) * v / (2.0 * kStep);
  }
  EXPECT_LT((analytic - fd).cwiseAbs().maxCoeff(), 1e-7 * std::max(1.0, fd.cwiseAbs().maxCoeff()))
      << "d(Gv)/dq:\n"
      << analytic << "\nfinite differences:\n"
      << fd;
}

TEST(JointSpaceClosures, SpringAndEffortForcesAreMinusThePotentialGradient) {
  JointSpaceSpec s = closed_tree();
  s.closures.clear();
  TreePointSpringSpec sp;
  sp.link_a = 3;
  sp.link_b = 5;
  sp.point_a = {0.1, 0.0, 0.1};
  sp.point_b = {0.0, -0.1, 0.2};
  sp.stiffness = 300.0;
  sp.rest_length = 0.1;
  s.springs.push_back(sp);
  sp.link_a = -1;
  sp.link_b = 2;
  sp.point_a = {1.0, 1.0, 0.5};
  sp.point_b = {0.05, 0.0, 0.0};
  s.springs.push_back(sp);
  s.joints[1].stiffness = 40.0;
  s.joints[1].rest_position = 0.3;
  s.joints[5].effort = 2.5;
  const JointSpaceTree tree(s);
  const Vec q = test_q();
  const Vec zero = Vec::Zero(7);
  Vec f(7);
  tree.forces(0.0, q, zero, {}, f);  // at v = 0: f = -dV/dq (gravity, springs, effort)
  Vec fd(7);
  for (int k = 0; k < 7; ++k) {
    Vec qp = q;
    Vec qm = q;
    qp(k) += kStep;
    qm(k) -= kStep;
    fd(k) = -(tree.energy(0.0, qp, zero, {}) - tree.energy(0.0, qm, zero, {})) / (2.0 * kStep);
  }
  EXPECT_LT((f - fd).cwiseAbs().maxCoeff(), 1e-7 * fd.cwiseAbs().maxCoeff())
      << f.transpose() << "\n"
      << fd.transpose();
  // the springs matter: without them the forces differ by more than the tolerance
  JointSpaceSpec plain = closed_tree();
  plain.closures.clear();
  Vec f_plain(7);
  JointSpaceTree(plain).forces(0.0, q, zero, {}, f_plain);
  EXPECT_GT((f - f_plain).cwiseAbs().maxCoeff(), 1.0);
}

// A planar four-bar in joint space: crank (1 m) on the world at A = 0, coupler (3 m) on the
// crank, rocker (2 m) on the world at D = (3, 0, 0), closed at C by a planar revolute closure.
JointSpaceSpec four_bar(double crank, double coupler, double rocker, double crank_rate) {
  JointSpaceSpec s;
  for (const char* name : {"crank", "coupler", "rocker"}) {
    TreeLinkSpec l;
    l.name = name;
    l.mass = 1.0;
    l.com = {0.5, 0.0, 0.0};
    l.inertia = Eigen::Vector3d(1e-3, 0.1, 0.1).asDiagonal();
    s.links.push_back(l);
  }
  TreeJointSpec j;
  j.name = "A";
  j.child = 0;
  j.initial_position = crank;
  j.initial_velocity = crank_rate;
  s.joints.push_back(j);
  j = TreeJointSpec{};
  j.name = "B";
  j.parent = 0;
  j.child = 1;
  j.origin_xyz = {1.0, 0.0, 0.0};
  j.initial_position = coupler;
  s.joints.push_back(j);
  j = TreeJointSpec{};
  j.name = "D";
  j.child = 2;
  j.origin_xyz = {3.0, 0.0, 0.0};
  j.initial_position = rocker;
  s.joints.push_back(j);
  TreeClosureSpec c;
  c.name = "C";
  c.type = TreeClosureType::kPlanarRevolute;
  c.link_a = 1;
  c.point_a = {3.0, 0.0, 0.0};
  c.link_b = 2;
  c.point_b = {2.0, 0.0, 0.0};
  s.closures.push_back(c);
  return s;
}

TEST(JointSpaceClosures, InitialStateAssemblesTheLoop) {
  // crank vertical; the closed pose has the coupler at -1.23 rad relative to it and the rocker at
  // 1.65 rad (configs/spatial_four_bar.yaml): start both a few hundredths off
  const JointSpaceTree tree(four_bar(std::numbers::pi / 2.0, -1.2, 1.7, 1.0));
  State s;
  tree.initial_state(s);
  Vec g(2);
  tree.constraints(0.0, s.q, g);
  EXPECT_LT(g.cwiseAbs().maxCoeff(), 1e-14);
  Mat jac(2, 3);
  tree.jacobian(0.0, s.q, jac);
  EXPECT_LT((jac * s.v).cwiseAbs().maxCoeff(), 1e-14);
  // the closed pose by hand: C = B + 3 (cos t2, sin t2) at |C - D| = 2, B = (cos t1, sin t1)
  const double t2 = s.q(0) + s.q(1);
  const Vec3 c_point =
      Vec3(std::cos(s.q(0)), std::sin(s.q(0)), 0.0) + 3.0 * Vec3(std::cos(t2), std::sin(t2), 0.0);
  EXPECT_NEAR((c_point - Vec3(3.0, 0.0, 0.0)).norm(), 2.0, 1e-14);
  EXPECT_NEAR(std::atan2(c_point.y(), c_point.x() - 3.0), s.q(2), 1e-13);
  // a state that is already consistent comes back as it was
  JointSpaceSpec closed = four_bar(s.q(0), s.q(1), s.q(2), 0.0);
  for (int k = 0; k < 3; ++k) closed.joints[static_cast<std::size_t>(k)].initial_velocity = s.v(k);
  State again;
  JointSpaceTree(closed).initial_state(again);
  EXPECT_LT((again.q - s.q).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LT((again.v - s.v).cwiseAbs().maxCoeff(), 1e-15);
}

TEST(JointSpaceClosures, RefusesAnUnclosableLoopNamingTheClosure) {
  JointSpaceSpec s = four_bar(0.0, 0.0, 0.0, 0.0);
  s.closures[0].point_b = {10.0, 0.0, 0.0};  // a 10 m rocker cannot meet a 3 m coupler
  const JointSpaceTree tree(s);
  State st;
  try {
    tree.initial_state(st);
    ADD_FAILURE() << "assembled";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("closure 'C' cannot be closed"), std::string::npos)
        << e.what();
  }
}

void expect_refused(const JointSpaceSpec& spec, const std::string& needle) {
  try {
    const JointSpaceTree tree(spec);
    ADD_FAILURE() << "accepted; expected an error with '" << needle << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(JointSpaceClosures, RefusesBadClosuresByName) {
  JointSpaceSpec s = closed_tree();
  s.closures[0].link_b = 3;
  expect_refused(s, "closure 'sph': joins a link to itself");
  s = closed_tree();
  s.closures[1].axis_b.setZero();
  expect_refused(s, "closure 'rev': axes must be non-zero");
  s = closed_tree();
  s.closures[2].normal.setZero();
  expect_refused(s, "closure 'plane': normal must be non-zero");
  s = closed_tree();
  s.closures[3].mimicked = 6;  // j6 is fixed
  expect_refused(s, "closure 'mimic': a mimic joint and the joint it follows must both move");
  s = closed_tree();
  s.closures[0].link_a = 8;
  expect_refused(s, "closure 'sph': link out of range");
}

}  // namespace
}  // namespace rtmb
