// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Joint-space output channels (engine/multibody/joint_space_outputs.cpp) on a two-link arm in the
// x-y plane whose kinematics are known in closed form: joint channels are the state, a link
// point's position is the arm's forward kinematics, its velocity the time derivative of that
// (central differences along the motion), the pose's quaternion the rotation about z by the sum
// of the angles, and the units follow the joint type.
#include "rtmb/models/joint_space_outputs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "rtmb/step.hpp"

namespace rtmb {
namespace {

// link 0 turns about z at the origin, link 1 about z at (0.5, 0, 0) of link 0, link 2 slides
// along x on link 1 at (0.3, 0, 0)
JointSpaceSpec arm() {
  JointSpaceSpec s;
  s.gravity.setZero();
  for (int l = 0; l < 3; ++l) {
    TreeLinkSpec link;
    link.name = "l" + std::to_string(l);
    link.mass = 1.0;
    link.com = {0.1, 0.0, 0.0};
    link.inertia = Eigen::Matrix3d::Identity() * 0.01;
    s.links.push_back(link);
  }
  TreeJointSpec j;
  j.name = "shoulder";
  j.child = 0;
  s.joints.push_back(j);
  j.name = "elbow";
  j.parent = 0;
  j.child = 1;
  j.origin_xyz = {0.5, 0.0, 0.0};
  s.joints.push_back(j);
  j.name = "slide";
  j.type = TreeJointType::kPrismatic;
  j.parent = 1;
  j.child = 2;
  j.origin_xyz = {0.3, 0.0, 0.0};
  j.axis = Eigen::Vector3d::UnitX();
  s.joints.push_back(j);
  return s;
}

std::vector<JointSpaceOutputSpec> channels() {
  std::vector<JointSpaceOutputSpec> o(5);
  o[0].type = JointSpaceOutputType::kJointPosition;
  o[0].joint = 1;
  o[1].type = JointSpaceOutputType::kJointVelocity;
  o[1].joint = 2;
  o[2].type = JointSpaceOutputType::kPointPosition;
  o[2].link = 2;
  o[2].point = {0.1, 0.2, 0.0};
  o[3].type = JointSpaceOutputType::kPointVelocity;
  o[3].link = 2;
  o[3].point = {0.1, 0.2, 0.0};
  o[4].type = JointSpaceOutputType::kPose;
  o[4].link = 1;
  return o;
}

// the point (0.1, 0.2) of link 2 at (a, b, d): 0.5 u(a) + (0.3 + d) u(a + b) + R(a + b) (0.1, 0.2)
Eigen::Vector3d tip(double a, double b, double d) {
  const double c = a + b;
  return {0.5 * std::cos(a) + (0.4 + d) * std::cos(c) - 0.2 * std::sin(c),
          0.5 * std::sin(a) + (0.4 + d) * std::sin(c) + 0.2 * std::cos(c), 0.0};
}

TEST(JointSpaceOutputs, ChannelsAreTheClosedFormKinematics) {
  const JointSpaceTree tree(arm());
  JointSpaceOutputs outputs(tree, tree, channels());
  ASSERT_EQ(outputs.count(), 1 + 1 + 3 + 3 + 7);
  const Model model(std::make_shared<JointSpaceTree>(arm()), Settings{});
  const Workspace ws(model);
  State s(3, 3);
  s.q << 0.4, -1.1, 0.05;
  s.v << 0.7, 1.3, -0.2;
  std::vector<double> out(15);
  outputs.evaluate(s, ws, out);
  EXPECT_EQ(out[0], -1.1);
  EXPECT_EQ(out[1], -0.2);
  const Eigen::Vector3d p = tip(0.4, -1.1, 0.05);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(out[2 + c], p(c), 1e-15);
  const double h = 1e-6;
  const Eigen::Vector3d rate = (tip(0.4 + h * 0.7, -1.1 + h * 1.3, 0.05 - h * 0.2) -
                                tip(0.4 - h * 0.7, -1.1 - h * 1.3, 0.05 + h * 0.2)) /
                               (2.0 * h);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(out[5 + c], rate(c), 1e-8);
  // link 1's frame: origin at the elbow, turned by a + b about z: e = (cos(c/2), 0, 0, sin(c/2))
  EXPECT_NEAR(out[8], 0.5 * std::cos(0.4), 1e-15);
  EXPECT_NEAR(out[9], 0.5 * std::sin(0.4), 1e-15);
  EXPECT_NEAR(out[10], 0.0, 1e-15);
  EXPECT_NEAR(out[11], std::cos(-0.35), 1e-15);
  EXPECT_NEAR(out[14], std::sin(-0.35), 1e-15);
  EXPECT_NEAR(out[12], 0.0, 1e-15);
  EXPECT_NEAR(out[13], 0.0, 1e-15);
}

TEST(JointSpaceOutputs, NamesAndUnitsFollowTheKindAndTheJointType) {
  std::vector<JointSpaceOutputSpec> o = channels();
  o[0].name = "elbow";
  o[1].name = "slide_rate";
  o[4].name = "forearm";
  const JointSpaceTree tree(arm());
  JointSpaceOutputs outputs(tree, tree, o);  // fills in the default units
  o[0].units = default_output_units(o[0].type, false);
  o[1].units = default_output_units(o[1].type, true);
  o[4].units = default_output_units(o[4].type);
  const auto named = output_channels(o);
  EXPECT_EQ(named[0].first + " " + named[0].second, "elbow rad");
  EXPECT_EQ(named[1].first + " " + named[1].second, "slide_rate m/s");
  EXPECT_EQ(named[8].first + " " + named[11].first + " " + named[11].second,
            "forearm.x forearm.e0 1");
}

TEST(JointSpaceOutputs, RefusesAFixedJointOrAMissingLink) {
  JointSpaceSpec s = arm();
  s.joints[1].type = TreeJointType::kFixed;
  const JointSpaceTree tree(s);
  std::vector<JointSpaceOutputSpec> o(1);
  o[0].name = "elbow";
  o[0].joint = 1;
  EXPECT_THROW(JointSpaceOutputs(tree, tree, o), std::invalid_argument);
  o[0].type = JointSpaceOutputType::kPose;
  o[0].link = 3;
  EXPECT_THROW(JointSpaceOutputs(tree, tree, o), std::invalid_argument);
}

}  // namespace
}  // namespace rtmb
