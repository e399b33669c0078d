// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Issue 19, acceptance 3: the same mechanism in joint space (JointSpaceTree, one angle per joint,
// no constraint rows) and in the existing absolute coordinates (the built-in `pendulum`, a
// Cartesian point mass on a constraint circle, and `double_pendulum`, Hoitink 2011 §4.1's redundant
// coordinates with four constraint rows) agrees to <= 1e-9 in every mass position over 1 s. Both
// run RK4 at dt = 1e-4 (the absolute ones with post-stabilization); the data are the built-ins'
// (pendulum: m = 1 kg, l = 1 m, g = 9.81, theta0 = pi/3; double pendulum: masses 1 kg, bars 1 m,
// g = 10, bar 1 horizontal, bar 2 hanging).
//
// The planar mechanisms move in the x-y plane with gravity along -y; in joint space each bar is a
// link turning about z whose point mass sits at (0, -l, 0) of its frame, so the angle is measured
// from the downward vertical as in the built-ins: x = l sin(theta), y = -l cos(theta).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>

#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"
#include "tests/support/model_lookup.hpp"

namespace rtmb {
namespace {

using testing::rk4_pstab;

constexpr double kDt = 1e-4;
constexpr int kSteps = 10000;  // 1 s

// A chain of point masses on bars turning about z, gravity g along -y.
JointSpaceSpec planar_chain(int links, double g, const double* initial_angles) {
  JointSpaceSpec s;
  s.gravity = {0.0, -g, 0.0};
  for (int l = 0; l < links; ++l) {
    TreeLinkSpec link;
    link.name = "bar" + std::to_string(l + 1);
    link.mass = 1.0;
    link.com = {0.0, -1.0, 0.0};  // a point mass: zero inertia about its centre
    s.links.push_back(link);
    TreeJointSpec j;
    j.name = "joint" + std::to_string(l + 1);
    j.parent = l - 1;
    j.child = l;
    j.origin_xyz = l == 0 ? Eigen::Vector3d::Zero() : Eigen::Vector3d(0.0, -1.0, 0.0);
    j.initial_position = initial_angles[l];
    s.joints.push_back(j);
  }
  return s;
}

Settings rk4_only(double dt) {
  Settings s = rk4_pstab(dt);
  s.stabilizer = StabilizerKind::kNone;  // a tree has no constraint rows to stabilize
  return s;
}

TEST(JointSpacePendulums, PendulumAgreesWithTheCartesianBuiltIn) {
  const double theta0[] = {std::numbers::pi / 3.0};
  const Model joint(std::make_shared<JointSpaceTree>(planar_chain(1, 9.81, theta0)), rk4_only(kDt));
  const Model ref(make_mechanism("pendulum"), rk4_pstab(kDt));
  Workspace wj(joint);
  Workspace wr(ref);
  State sj = initial_state(joint);
  State sr = initial_state(ref);
  double worst = 0.0;
  double lowest = 0.0;
  for (int k = 0; k < kSteps; ++k) {
    ASSERT_TRUE(step(joint, sj, wj).ok());
    ASSERT_TRUE(step(ref, sr, wr).ok());
    worst = std::max(
        {worst, std::abs(std::sin(sj.q(0)) - sr.q(0)), std::abs(-std::cos(sj.q(0)) - sr.q(1))});
    lowest = std::min(lowest, sj.q(0));
  }
  EXPECT_LT(lowest, -0.9);  // it swung through to the other side
  EXPECT_LE(worst, 1e-9);
  std::printf(
      "pendulum joint space vs Cartesian, 1 s RK4 dt = 1e-4: max position difference %.3e m\n",
      worst);
}

TEST(JointSpacePendulums, DoublePendulumAgreesWithHoitinksRedundantCoordinates) {
  // relative angles: joint 2 turns bar 2 against bar 1, so theta2 = q1 + q2
  const double q0[] = {std::numbers::pi / 2.0, -std::numbers::pi / 2.0};
  const Model joint(std::make_shared<JointSpaceTree>(planar_chain(2, 10.0, q0)), rk4_only(kDt));
  const Model ref(make_mechanism("double_pendulum"), rk4_pstab(kDt));
  Workspace wj(joint);
  Workspace wr(ref);
  State sj = initial_state(joint);
  State sr = initial_state(ref);
  // energy of the same state in both: Hoitink's E0 = -10 J
  EXPECT_NEAR(joint.system().energy(0.0, sj.q, sj.v, {}), -10.0, 1e-14);
  double worst = 0.0;
  double swing_min = sj.q(0);
  double swing_max = sj.q(0);
  for (int k = 0; k < kSteps; ++k) {
    ASSERT_TRUE(step(joint, sj, wj).ok());
    ASSERT_TRUE(step(ref, sr, wr).ok());
    const double t1 = sj.q(0);
    const double t2 = sj.q(0) + sj.q(1);
    const double x1 = std::sin(t1);
    const double y1 = -std::cos(t1);
    const double x2 = x1 + std::sin(t2);
    const double y2 = y1 - std::cos(t2);
    worst = std::max({worst, std::abs(x1 - sr.q(0)), std::abs(y1 - sr.q(1)), std::abs(x2 - sr.q(3)),
                      std::abs(y2 - sr.q(4))});
    swing_min = std::min(swing_min, t1);
    swing_max = std::max(swing_max, t1);
  }
  EXPECT_GT(swing_max - swing_min, 1.0);  // bar 1 really swings
  EXPECT_LE(worst, 1e-9);
  std::printf(
      "double pendulum joint space vs Hoitink's coordinates, 1 s RK4 dt = 1e-4: max position "
      "difference %.3e m\n",
      worst);
}

}  // namespace
}  // namespace rtmb
