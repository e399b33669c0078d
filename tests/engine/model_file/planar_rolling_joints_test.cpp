// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Model files' `knife_edge` and `rolling_wheel` joints (engine/model_file/planar_rolling_joints.*,
// docs/model-format.md "Knife edges and rolling wheels"; issue 16): what they compile to, that
// their nonholonomic rows come last whatever the file's order, and every bad input reported at
// its file, line, column and key.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "tests/support/model_lookup.hpp"

namespace rtmb {
namespace {

const PlanarMultibody& body_model(const std::shared_ptr<const System>& sys) {
  const auto* p = dynamic_cast<const PlanarMultibody*>(sys.get());
  EXPECT_NE(p, nullptr);
  return *p;
}

TEST(PlanarRollingJoints, RollingWheelConfigCompilesToAContactAndANoSlipRow) {
  const ModelFile f = load_model_file(testing::config_path("rolling_wheel.yaml"));
  const auto sys = std::shared_ptr<const System>(make_system(f));
  const PlanarMultibody& m = body_model(sys);
  ASSERT_EQ(m.spec().joints.size(), 2u);
  EXPECT_EQ(m.spec().joints[0].name, "road");
  EXPECT_EQ(m.spec().joints[0].type, PlanarJointType::kRollingContact);
  EXPECT_EQ(m.spec().joints[1].name, "road.no_slip");
  EXPECT_EQ(m.spec().joints[1].type, PlanarJointType::kRollingNoSlip);
  EXPECT_EQ(m.spec().joints[1].radius, 0.25);
  EXPECT_EQ(sys->n_lambda(), 2);
  EXPECT_EQ(sys->n_holonomic(), 1);
  EXPECT_TRUE(f.notes.empty());  // the file's pose is on the incline already
}

// A sled hitched to a cart that is pinned to the ground: the blade is written first, its row
// comes last.
constexpr const char* kSled =
    "bodies:\n"
    "  - {name: sled, mass: 2, inertia: 0.1, pose: [1, 0, 0], velocity: [0.5, 0, 0.2]}\n"
    "  - {name: arm, mass: 1, inertia: 0.05, pose: [0.5, 0, 0]}\n"
    "joints:\n"
    "  - {name: blade, type: knife_edge, body: sled, point: [-0.2, 0], axis: [2, 0]}\n"
    "  - {name: pin, type: revolute, body_i: ground, point_i: [0, 0], body_j: arm, "
    "point_j: [-0.5, 0]}\n";

TEST(PlanarRollingJoints, KnifeEdgeRowsFollowEveryOtherJoint) {
  const ModelFile f = parse_model_file(kSled, "sled.yaml");
  const auto sys = std::shared_ptr<const System>(make_system(f));
  const PlanarMultibody& m = body_model(sys);
  ASSERT_EQ(m.spec().joints.size(), 2u);
  EXPECT_EQ(m.spec().joints[0].name, "pin");
  EXPECT_EQ(m.spec().joints[1].name, "blade");
  EXPECT_EQ(m.spec().joints[1].body_i, 0);
  EXPECT_EQ(m.spec().joints[1].body_j, kGround);
  EXPECT_EQ(m.spec().joints[1].axis, Eigen::Vector2d(1.0, 0.0));  // normalized
  EXPECT_EQ(sys->n_holonomic(), 2);
  EXPECT_EQ(sys->n_lambda(), 3);
  // assembly projected the velocity onto the blade's row: no sideways speed of the blade point
  // (th' = 0.2 at x = -0.2 gives -0.04 across, so v_y became 0.04)
  State s0(sys->n_q(), sys->n_v());
  sys->initial_state(s0);
  Mat G(3, 6);
  sys->jacobian(0.0, s0.q, G);
  EXPECT_LE(std::abs(G.row(2).dot(s0.v)), 1e-12);
  EXPECT_FALSE(f.notes.empty());
}

struct BadRollingInput {
  const char* joint;  ///< the joints: entry
  int line;
  const char* key;
  const char* reason_part;
};

class PlanarRollingJointsBadInput : public ::testing::TestWithParam<BadRollingInput> {};

TEST_P(PlanarRollingJointsBadInput, NamesFileLineAndKey) {
  const BadRollingInput& c = GetParam();
  const std::string text =
      "bodies:\n"
      "  - {name: wheel, mass: 2, inertia: 0.06, pose: [0, 0.25, 0]}\n"
      "joints:\n"
      "  - {name: pin, type: distance, body_i: ground, body_j: wheel, point_i: [0, 1.25], "
      "length: 1}\n" +
      std::string(c.joint) + "\n";
  try {
    (void)parse_model_file(text, "w.yaml");
    FAIL() << "accepted: " << c.joint;
  } catch (const ModelFileError& e) {
    EXPECT_EQ(e.file(), "w.yaml");
    EXPECT_EQ(e.line(), c.line) << e.what();
    EXPECT_EQ(e.key(), c.key) << e.what();
    EXPECT_NE(e.reason().find(c.reason_part), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases,
    PlanarRollingJointsBadInput,
    ::testing::Values(
        BadRollingInput{"  - {type: rolling_wheel, body: wheel, direction: [1, 0]}", 5,
                        "joints[1].radius", "missing"},
        BadRollingInput{"  - {type: rolling_wheel, body: wheel, radius: 0, direction: [1, 0]}", 5,
                        "joints[1].radius", "> 0"},
        BadRollingInput{"  - {type: rolling_wheel, body: wheel, radius: 0.25, direction: [-1, 0]}",
                        5, "joints[1].direction", "left"},
        BadRollingInput{"  - {type: rolling_wheel, body: wheel, radius: 0.25, direction: [0, 0]}",
                        5, "joints[1].direction", "zero"},
        BadRollingInput{"  - {type: rolling_wheel, body: ground, radius: 0.25, direction: [1, 0]}",
                        5, "joints[1].body", "ground"},
        BadRollingInput{"  - {type: rolling_wheel, body: wheel, radius: 0.25, direction: [1, 0], "
                        "axis: [1, 0]}",
                        5, "joints[1].axis", "unknown key"},
        BadRollingInput{"  - {type: knife_edge, body: wheel, body_i: wheel}", 5, "joints[1].body_i",
                        "unknown key"},
        BadRollingInput{"  - {type: knife_edge}", 5, "joints[1].body", "missing"},
        BadRollingInput{"  - {name: pin, type: knife_edge, body: wheel}", 5, "joints[1].name",
                        "duplicate"},
        BadRollingInput{"  - {name: road, type: rolling_wheel, body: wheel, radius: 0.25, "
                        "direction: [1, 0]}\n  - {name: road.no_slip, type: knife_edge, body: "
                        "wheel}",
                        6, "joints[2].name", "duplicate"}));

}  // namespace
}  // namespace rtmb
