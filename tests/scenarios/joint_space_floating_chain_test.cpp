// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Issue 19 (floating joints): a free-flying two-body chain in joint space (a floating joint, then
// a revolute joint about a skew axis) against the same chain as two quaternion bodies in absolute
// coordinates (SpatialMultibody: 14 coordinates, 2 normalization rows, a 5-row revolute joint;
// Haug 1989). The formulations share no code beyond Eigen: the tree's CRBA, RNEA and c_J
// (engine/multibody/joint_space_tree.cpp) against Haug's Euler-parameter equations of motion
// (engine/multibody/spatial_multibody.cpp). No gravity (the chain tumbles: the base spins, the
// hinge swings), both RK4 + PStab at dt = 1e-3 for 0.5 s; the compared quantities are body 1's
// centre of mass and both bodies' rotation matrices.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cstdio>
#include <memory>

#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/spatial_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/support/model_lookup.hpp"

namespace rtmb {
namespace {

using Vec3 = Eigen::Vector3d;

const Vec3 kHinge{0.3, -0.1, 0.2};                     // in body 0's frame (its centre of mass)
const Vec3 kAxis = Vec3(1.0, 2.0, -1.0).normalized();  // in body 0's frame
const Vec3 kCom1{0.25, 0.1, -0.05};                    // body 1's centre of mass from the hinge
const Eigen::Quaterniond kE0 =
    Eigen::Quaterniond(Eigen::AngleAxisd(0.7, Vec3(0.2, -1.0, 0.4).normalized()));
const Vec3 kR0{0.1, 0.2, -0.3};
const Vec3 kV0{0.4, -0.2, 0.1};
const Vec3 kOmega0{0.8, -1.5, 2.0};  // world
constexpr double kTheta = 0.4;
constexpr double kThetaRate = -1.2;

Eigen::Matrix3d inertia(double a, double b, double c, double tilt) {
  const Eigen::Matrix3d r =
      Eigen::AngleAxisd(tilt, Vec3(1.0, 0.3, -0.5).normalized()).toRotationMatrix();
  return r * Vec3(a, b, c).asDiagonal() * r.transpose();
}

JointSpaceSpec tree_spec() {
  JointSpaceSpec s;
  s.gravity.setZero();
  TreeLinkSpec b0;
  b0.name = "b0";
  b0.mass = 2.0;
  b0.inertia = inertia(0.05, 0.08, 0.06, 0.3);
  TreeLinkSpec b1;
  b1.name = "b1";
  b1.mass = 0.7;
  b1.com = kCom1;
  b1.inertia = inertia(0.01, 0.02, 0.015, -0.6);
  s.links = {b0, b1};
  TreeJointSpec free;
  free.name = "free";
  free.type = TreeJointType::kFloating;
  free.child = 0;
  TreeJointSpec hinge;
  hinge.name = "hinge";
  hinge.parent = 0;
  hinge.child = 1;
  hinge.origin_xyz = kHinge;
  hinge.axis = kAxis;
  hinge.initial_position = kTheta;
  hinge.initial_velocity = kThetaRate;
  s.joints = {free, hinge};
  return s;
}

Eigen::Vector4d wxyz(const Eigen::Quaterniond& e) {
  return {e.w(), e.x(), e.y(), e.z()};
}

SpatialModelSpec spatial_spec() {
  const JointSpaceSpec t = tree_spec();
  const Eigen::Matrix3d r0 = kE0.toRotationMatrix();
  const Eigen::Quaterniond e1 = kE0 * Eigen::Quaterniond(Eigen::AngleAxisd(kTheta, kAxis));
  const Vec3 hinge_world = kR0 + r0 * kHinge;
  const Vec3 omega1 = kOmega0 + r0 * kAxis * kThetaRate;
  SpatialModelSpec s;
  SpatialBodySpec b0;
  b0.name = "b0";
  b0.mass = t.links[0].mass;
  b0.inertia = t.links[0].inertia;
  b0.position = kR0;
  b0.orientation = wxyz(kE0);
  b0.velocity = kV0;
  b0.angular_velocity = kOmega0;
  SpatialBodySpec b1;
  b1.name = "b1";
  b1.mass = t.links[1].mass;
  b1.inertia = t.links[1].inertia;
  b1.position = hinge_world + e1.toRotationMatrix() * kCom1;
  b1.orientation = wxyz(e1);
  // the hinge point moves with body 0; body 1 turns about it with omega1
  b1.velocity = kV0 + kOmega0.cross(hinge_world - kR0) + omega1.cross(b1.position - hinge_world);
  b1.angular_velocity = omega1;
  s.bodies = {b0, b1};
  SpatialJointSpec j;
  j.name = "hinge";
  j.type = SpatialJointType::kRevolute;
  j.body_i = 0;
  j.body_j = 1;
  j.point_i = kHinge;
  j.point_j = -kCom1;
  j.axis_i = kAxis;
  s.joints = {j};
  return s;
}

TEST(JointSpaceFloatingChain, AgreesWithQuaternionBodies) {
  constexpr double kDt = 1e-3;
  constexpr int kSteps = 500;
  const auto tree = std::make_shared<JointSpaceTree>(tree_spec());
  const Model mt(tree, testing::rk4_pstab(kDt));
  const Model ms(std::make_shared<SpatialMultibody>(spatial_spec()), testing::rk4_pstab(kDt));
  State st = initial_state(mt);
  st.q.head<3>() = kR0;
  st.q.segment<4>(3) = wxyz(kE0);
  st.v.head<3>() = kV0;
  // e' = E(e)^T omega / 2 (omega = 2 E e' with e.e' = 0; Haug 1989 eq. 6.3.x, euler_e)
  st.v.segment<4>(3) = 0.5 * euler_e(wxyz(kE0)).transpose() * kOmega0;
  State ss = initial_state(ms);
  Workspace wt(mt);
  Workspace ws(ms);
  // the same state: the same energy
  EXPECT_NEAR(mt.system().energy(0.0, st.q, st.v, {}), ms.system().energy(0.0, ss.q, ss.v, {}),
              1e-13);
  double worst = 0.0;
  for (int k = 0; k < kSteps; ++k) {
    ASSERT_TRUE(step(mt, st, wt).ok());
    ASSERT_TRUE(step(ms, ss, ws).ok());
    const Vec3 c1 = tree->point_position(st.q, 1, kCom1);
    Eigen::Matrix3d r[2];
    Vec3 origin;
    for (int b = 0; b < 2; ++b) {
      tree->link_pose(st.q, b, r[b], origin);
      worst = std::max(worst, (r[b] - rotation(ss.q.segment<4>(7 * b + 3))).cwiseAbs().maxCoeff());
    }
    worst = std::max(worst, (c1 - ss.q.segment<3>(7)).cwiseAbs().maxCoeff());
  }
  Eigen::Matrix3d r0;
  Vec3 p0;
  tree->link_pose(st.q, 0, r0, p0);
  EXPECT_GT((r0 - kE0.toRotationMatrix()).norm(), 0.5);  // it tumbled
  EXPECT_LE(worst, 1e-9);
  std::printf(
      "floating two-body chain, joint space vs quaternion bodies, 0.5 s RK4 + PStab dt = 1e-3: "
      "max difference of positions [m] and rotation entries %.3e\n",
      worst);
}

}  // namespace
}  // namespace rtmb
