// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Issue 19, acceptance 3 (the closed loops): Andrews' mechanism and the spatial four-bar built as
// joint-space trees closed by constraint rows (JointSpaceTree with closures) agree with the
// existing formulations to <= 1e-9 over 1 s.
//
// Andrews' mechanism (Hairer-Wanner data, Chin 1995 §3.7 via engine/mechanisms/andrews_data.hpp):
// seven links turning about z, the tree O-K1-K2, B-K3, A-K5-K4, A-K7-K6 with the relative angles
// of the built-in `andrews` (beta, Theta, gamma, Phi, delta, Omega, epsilon) as its coordinates,
// and the three closures at E (K2 with K3, K4 and K6) as planar revolute closures, 6 rows. The
// geometry is configs/andrews.yaml's (each link frame sits at its parent joint with the body's
// axes, so a point's link coordinates are its body coordinates minus the joint's). Both models
// run RK4 + PStab at the built-in's dt = 5e-5; the coordinates are the same, so q is compared
// directly. Over 1 s the crank spins up to ~5900 rad (no friction, constant drive), so the 1 s
// bound is relative to the angles; Hairer-Wanner's interval [0, 0.03] s is held absolutely.
//
// The spatial four-bar: configs/spatial_four_bar.yaml (3 quaternion bodies, 5-row revolute
// joints, gravity, a rotational spring at A) against the tree A-crank-coupler, D-rocker closed at
// C, once by a planar revolute closure (2 rows) and once by a spatial revolute closure (5 rows,
// 3 of them dependent and dropped by `redundant_constraints: remove`'s row selection), RK4 +
// PStab at the file's dt = 1e-3 (the formulations differ, so each has its own truncation error;
// both are far below the bound at this step). The
// compared quantity is each bar's angle about z, from the body quaternion e (theta = 2 atan2(e3,
// e0)) and from the joint angles (crank q_A, coupler q_A + q_B, rocker q_D).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <utility>

#include "engine/constraints/redundant_constraints.hpp"
#include "engine/mechanisms/andrews_data.hpp"
#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"
#include "tests/support/model_lookup.hpp"

namespace rtmb {
namespace {

using testing::rk4_pstab;
using Vec3 = Eigen::Vector3d;

TreeLinkSpec planar_link(const char* name, double mass, double inertia, const Vec3& com) {
  TreeLinkSpec l;
  l.name = name;
  l.mass = mass;
  l.com = com;
  l.inertia = Eigen::Matrix3d::Identity() * inertia;  // only I_zz acts: every axis is z
  return l;
}

TreeJointSpec z_joint(const char* name, int parent, int child, const Vec3& origin) {
  TreeJointSpec j;
  j.name = name;
  j.parent = parent;
  j.child = child;
  j.origin_xyz = origin;
  return j;
}

TreeClosureSpec planar_closure(const char* name, int a, const Vec3& pa, int b, const Vec3& pb) {
  TreeClosureSpec c;
  c.name = name;
  c.type = TreeClosureType::kPlanarRevolute;
  c.link_a = a;
  c.point_a = pa;
  c.link_b = b;
  c.point_b = pb;
  return c;
}

JointSpaceSpec andrews_tree(VecCRef q0) {
  using namespace detail::andrews_data;  // NOLINT(google-build-using-namespace): the paper's names
  JointSpaceSpec s;
  s.name = "andrews_joint_space";
  s.gravity.setZero();
  // links K1..K7 (indices 0..6), com in the frame at the parent joint
  s.links = {planar_link("K1", kM1, kI1, {kRa, 0.0, 0.0}),
             planar_link("K2", kM2, kI2, {-kDa, 0.0, 0.0}),
             planar_link("K3", kM3, kI3, {kSb, -kSa, 0.0}),
             planar_link("K4", kM4, kI4, {0.0, -(kE - kEa), 0.0}),
             planar_link("K5", kM5, kI5, {kTa, kTb, 0.0}),
             planar_link("K6", kM6, kI6, {kZf - kFa, 0.0, 0.0}),
             planar_link("K7", kM7, kI7, {-kUb, -kUa, 0.0})};
  // joints in the order of the built-in's coordinates
  s.joints = {z_joint("O", -1, 0, Vec3::Zero()),     z_joint("P", 0, 1, {kRr, 0.0, 0.0}),
              z_joint("B", -1, 2, {kXb, kYb, 0.0}),  z_joint("F", 4, 3, {kZt, 0.0, 0.0}),
              z_joint("A5", -1, 4, {kXa, kYa, 0.0}), z_joint("G", 6, 5, {0.0, -kU, 0.0}),
              z_joint("A7", -1, 6, {kXa, kYa, 0.0})};
  for (int k = 0; k < 7; ++k) s.joints[static_cast<std::size_t>(k)].initial_position = q0(k);
  s.joints[0].effort = kMom;  // the drive torque on beta
  const Vec3 e_on_k2(-kD, 0.0, 0.0);
  s.closures = {planar_closure("E3", 1, e_on_k2, 2, {0.0, -kSs, 0.0}),
                planar_closure("E4", 1, e_on_k2, 3, {0.0, -kE, 0.0}),
                planar_closure("E6", 1, e_on_k2, 5, {kZf, 0.0, 0.0})};
  TreePointSpringSpec spring;
  spring.name = "spring";
  spring.link_a = -1;
  spring.point_a = {kXc, kYc, 0.0};
  spring.link_b = 2;
  spring.point_b = {kSd, -kSc, 0.0};
  spring.stiffness = kC0;
  spring.rest_length = kL0;
  s.springs.push_back(spring);
  return s;
}

TEST(JointSpaceClosedLoops, AndrewsAgreesWithTheRelativeCoordinateBuiltIn) {
  constexpr double kDt = 5e-5;
  constexpr int kSteps = 20000;            // 1 s
  constexpr int kHairerWannerSteps = 600;  // 0.03 s
  const Model ref(make_mechanism("andrews"), rk4_pstab(kDt));
  State sr = initial_state(ref);
  const Model joint(std::make_shared<JointSpaceTree>(andrews_tree(sr.q)), rk4_pstab(kDt));
  State sj = initial_state(joint);
  ASSERT_EQ(joint.system().n_lambda(), 6);
  EXPECT_LT((sj.q - sr.q).cwiseAbs().maxCoeff(), 1e-15);
  // the same state has the same energy in both (T, spring, drive potential)
  EXPECT_NEAR(joint.system().energy(0.0, sj.q, sj.v, {}), ref.system().energy(0.0, sr.q, sr.v, {}),
              1e-15);
  Workspace wj(joint);
  Workspace wr(ref);
  double worst_interval = 0.0;  // over Hairer-Wanner's [0, 0.03] s
  double worst = 0.0;
  double worst_relative = 0.0;
  for (int k = 0; k < kSteps; ++k) {
    ASSERT_TRUE(step(joint, sj, wj).ok());
    ASSERT_TRUE(step(ref, sr, wr).ok());
    const double d = (sj.q - sr.q).cwiseAbs().maxCoeff();
    if (k < kHairerWannerSteps) worst_interval = std::max(worst_interval, d);
    worst = std::max(worst, d);
    worst_relative = std::max(worst_relative, d / std::max(1.0, sr.q.cwiseAbs().maxCoeff()));
  }
  EXPECT_GT(sj.q(0), 1000.0);  // the drive spun the crank up: > 150 turns
  EXPECT_LE(worst_interval, 1e-9);
  // Without friction the constant drive torque spins the crank up without bound (beta reaches
  // about 5900 rad in 1 s): the two runs are the same discrete map, and their difference is the
  // rounding of angles of that size, so over 1 s it is bounded relative to them
  EXPECT_LE(worst_relative, 1e-9);
  std::printf(
      "andrews joint space (tree + 3 closures) vs built-in, RK4 + PStab dt = 5e-5: max angle "
      "difference %.3e rad over [0, 0.03] s; over 1 s %.3e rad, %.3e relative to the angles "
      "(crank at %.0f rad)\n",
      worst_interval, worst, worst_relative, sj.q(0));
}

// angle about z of spatial body b (q_b = (r, e)) and its rate, omega_z = 2 (e0 e3' - e3 e0')
double body_angle(const State& s, int b) {
  return 2.0 * std::atan2(s.q(7 * b + 6), s.q(7 * b + 3));
}
double body_rate(const State& s, int b) {
  return 2.0 * (s.q(7 * b + 3) * s.v(7 * b + 6) - s.q(7 * b + 6) * s.v(7 * b + 3));
}
double wrapped(double a) {
  return std::remainder(a, 2.0 * std::numbers::pi);
}

JointSpaceSpec four_bar_tree(const State& spatial, TreeClosureType closure) {
  JointSpaceSpec s;
  s.name = "four_bar_joint_space";
  s.gravity = {0.0, -9.81, 0.0};
  auto bar = [](const char* name, double mass, double length, const Eigen::Vector3d& inertia) {
    TreeLinkSpec l;
    l.name = name;
    l.mass = mass;
    l.com = {length / 2.0, 0.0, 0.0};
    l.inertia = inertia.asDiagonal();
    return l;
  };
  s.links = {bar("crank", 1.0, 1.0, {0.001, 1.0 / 12.0, 1.0 / 12.0}),
             bar("coupler", 3.0, 3.0, {0.003, 2.25, 2.25}),
             bar("rocker", 2.0, 2.0, {0.002, 2.0 / 3.0, 2.0 / 3.0})};
  s.joints = {z_joint("A", -1, 0, Vec3::Zero()), z_joint("B", 0, 1, {1.0, 0.0, 0.0}),
              z_joint("D", -1, 2, {3.0, 0.0, 0.0})};
  const double crank = body_angle(spatial, 0);
  const double coupler = body_angle(spatial, 1);
  s.joints[0].initial_position = crank;
  s.joints[1].initial_position = coupler - crank;
  s.joints[2].initial_position = body_angle(spatial, 2);
  s.joints[0].initial_velocity = body_rate(spatial, 0);
  s.joints[1].initial_velocity = body_rate(spatial, 1) - body_rate(spatial, 0);
  s.joints[2].initial_velocity = body_rate(spatial, 2);
  // the file's rotational spring at A: its angle is measured from the assembled pose (the joint's
  // reference vectors, SpatialMultibody), so rest angle 0 is the starting crank angle
  s.joints[0].stiffness = 20.0;
  s.joints[0].rest_position = crank;
  TreeClosureSpec c = planar_closure("C", 1, {3.0, 0.0, 0.0}, 2, {2.0, 0.0, 0.0});
  c.type = closure;
  s.closures.push_back(c);
  return s;
}

// A model stepped from its initial state (held by pointer: the Workspace refers to the Model).
struct SteppedModel {
  SteppedModel(std::shared_ptr<const System> system, double dt)
      : model(std::make_unique<Model>(std::move(system), rk4_pstab(dt))),
        s(std::make_unique<State>(initial_state(*model))),
        ws(std::make_unique<Workspace>(*model)) {}
  std::unique_ptr<Model> model;
  std::unique_ptr<State> s;
  std::unique_ptr<Workspace> ws;
};

TEST(JointSpaceClosedLoops, SpatialFourBarAgreesWithQuaternionBodies) {
  // RK4 + PStab at the file's dt = 1e-3 over 1 s; the tree once closed by a planar revolute
  // closure and once by a 5-row revolute closure with its 3 identically vanishing rows dropped
  constexpr double kDt = 1e-3;
  constexpr int kSteps = 1000;
  const ModelFile file = load_model_file(testing::config_path("spatial_four_bar.yaml"));
  const Model ref(std::shared_ptr<const System>(make_system(file)), rk4_pstab(kDt));
  State sr = initial_state(ref);
  Workspace wr(ref);
  std::shared_ptr<const System> planar =
      std::make_shared<JointSpaceTree>(four_bar_tree(sr, TreeClosureType::kPlanarRevolute));
  std::shared_ptr<const System> revolute =
      std::make_shared<JointSpaceTree>(four_bar_tree(sr, TreeClosureType::kRevolute));
  State s0;
  revolute->initial_state(s0);
  const ConstraintRank rank = constraint_rank(*revolute, s0.q);
  EXPECT_EQ(rank.rank, 2);
  EXPECT_EQ(rank.dependent.size(), 3u);
  revolute = std::make_shared<IndependentRowsSystem>(revolute, rank.independent);
  const SteppedModel runs[2] = {SteppedModel(planar, kDt), SteppedModel(revolute, kDt)};
  // the same state has the same energy (T, gravity, the spring at A)
  EXPECT_NEAR(planar->energy(0.0, runs[0].s->q, runs[0].s->v, {}),
              ref.system().energy(0.0, sr.q, sr.v, {}), 1e-12);
  double worst[2] = {0.0, 0.0};
  double lo = runs[0].s->q(0);
  double hi = lo;
  for (int k = 0; k < kSteps; ++k) {
    ASSERT_TRUE(step(ref, sr, wr).ok());
    for (int c = 0; c < 2; ++c) {
      ASSERT_TRUE(step(*runs[c].model, *runs[c].s, *runs[c].ws).ok());
      const State& s = *runs[c].s;
      worst[c] = std::max({worst[c], std::abs(wrapped(s.q(0) - body_angle(sr, 0))),
                           std::abs(wrapped(s.q(0) + s.q(1) - body_angle(sr, 1))),
                           std::abs(wrapped(s.q(2) - body_angle(sr, 2)))});
    }
    lo = std::min(lo, runs[0].s->q(0));
    hi = std::max(hi, runs[0].s->q(0));
  }
  EXPECT_GT(hi - lo, 0.3);  // the crank really swings (0.54 rad)
  EXPECT_LE(worst[0], 1e-9);
  EXPECT_LE(worst[1], 1e-9);
  std::printf(
      "spatial four-bar, joint space vs quaternion bodies, 1 s RK4 + PStab dt = 1e-3: max bar "
      "angle difference %.3e rad (planar closure), %.3e rad (5-row revolute closure, 3 rows "
      "dropped); crank range %.2f rad\n",
      worst[0], worst[1], hi - lo);
}

}  // namespace
}  // namespace rtmb
