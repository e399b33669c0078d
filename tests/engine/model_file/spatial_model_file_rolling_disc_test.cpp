// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Model files' spatial `rolling_disc` joint (engine/model_file/spatial_model_file.cpp; rows in
// engine/multibody/spatial_rolling_disc.hpp): configs/rolling_disc_body.yaml compiles to a
// contact row and two no-slip rows, the latter the System's last (nonholonomic) rows wherever the
// entry stands in the file; bad input is refused naming file, line and key.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/spatial_multibody.hpp"
#include "tests/support/model_lookup.hpp"

namespace rtmb {
namespace {

TEST(SpatialModelFileRollingDisc, ConfigCompilesToAContactAndTwoNoSlipRowsLast) {
  const ModelFile f = load_model_file(testing::config_path("rolling_disc_body.yaml"));
  ASSERT_TRUE(f.spatial);
  const SpatialModelSpec& spec = *f.spatial;
  ASSERT_EQ(spec.joints.size(), 2u);
  EXPECT_EQ(spec.joints[0].name, "roll");
  EXPECT_EQ(spec.joints[0].type, SpatialJointType::kDiscContact);
  EXPECT_EQ(spec.joints[1].name, "roll.no_slip");
  EXPECT_EQ(spec.joints[1].type, SpatialJointType::kDiscNoSlip);
  EXPECT_EQ(spec.joints[0].body_i, kGround);
  EXPECT_EQ(spec.joints[0].body_j, 0);
  EXPECT_EQ(spec.joints[0].radius, 1.0);
  EXPECT_EQ(spec.joints[0].axis_j, Eigen::Vector3d::UnitX());
  EXPECT_EQ(spec.joints[0].axis_i, Eigen::Vector3d::UnitZ()) << "default plane: z = 0";
  EXPECT_EQ(spec.joints[0].point_i, Eigen::Vector3d::Zero());
  const std::shared_ptr<const System> sys = make_system(f);
  EXPECT_EQ(sys->n_lambda(), 4);  // normalization, contact, 2 no slip
  EXPECT_EQ(sys->n_holonomic(), 2);
  EXPECT_EQ(sys->n_nonholonomic(), 2);
}

TEST(SpatialModelFileRollingDisc, NoSlipRowsFollowEveryOtherJoint) {
  // a disc listed before a spherical joint: its no-slip rows still come last
  const ModelFile f = parse_model_file(
      "dimension: spatial\n"
      "bodies:\n"
      "  - {name: disc, mass: 1, inertia: [0.5, 0.25, 0.25], position: [0, 0, 1]}\n"
      "  - {name: bob, mass: 1, inertia: [1, 1, 1], position: [3, 0, 1]}\n"
      "joints:\n"
      "  - {name: roll, type: rolling_disc, body: disc, radius: 1, axis: [1, 0, 0], "
      "plane_point: [0, 0, -0.5], plane_normal: [0, 0, 2]}\n"
      "  - {name: pin, type: spherical, body_i: ground, point_i: [3, 0, 2], body_j: bob, "
      "point_j: [0, 0, 1]}\n",
      "d.yaml");
  ASSERT_EQ(f.spatial->joints.size(), 3u);
  EXPECT_EQ(f.spatial->joints[0].name, "roll");
  EXPECT_EQ(f.spatial->joints[1].name, "pin");
  EXPECT_EQ(f.spatial->joints[2].name, "roll.no_slip");
  EXPECT_EQ(f.spatial->joints[0].axis_i, Eigen::Vector3d::UnitZ()) << "normalized";
  // assembly put the centre R = 1 above the plane z = -0.5
  EXPECT_NEAR(f.spatial->bodies[0].position.z(), 0.5, 1e-10);
  const std::shared_ptr<const System> sys = make_system(f);
  EXPECT_EQ(sys->n_lambda(), 2 + 1 + 3 + 2);
  EXPECT_EQ(sys->n_nonholonomic(), 2);
}

struct BadDiscInput {
  const char* joint;  ///< the joints: entry
  int line;
  const char* key;
  const char* reason_part;
};

class SpatialModelFileRollingDiscBadInput : public ::testing::TestWithParam<BadDiscInput> {};

TEST_P(SpatialModelFileRollingDiscBadInput, NamesFileLineAndKey) {
  const BadDiscInput& c = GetParam();
  const std::string text =
      "dimension: spatial\n"
      "bodies:\n"
      "  - {name: disc, mass: 1, inertia: [0.5, 0.25, 0.25], position: [0, 0, 1]}\n"
      "joints:\n" +
      std::string(c.joint) + "\n";
  try {
    (void)parse_model_file(text, "disc.yaml");
    FAIL() << "accepted: " << c.joint;
  } catch (const ModelFileError& e) {
    EXPECT_EQ(e.file(), "disc.yaml");
    EXPECT_EQ(e.line(), c.line) << e.what();
    EXPECT_EQ(e.key(), c.key) << e.what();
    EXPECT_NE(e.reason().find(c.reason_part), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases,
    SpatialModelFileRollingDiscBadInput,
    ::testing::Values(
        BadDiscInput{"  - {type: rolling_disc, body: disc, radius: 0, axis: [1, 0, 0]}", 5,
                     "joints[0].radius", "> 0"},
        BadDiscInput{"  - {type: rolling_disc, body: disc, radius: -1, axis: [1, 0, 0]}", 5,
                     "joints[0].radius", "> 0"},
        BadDiscInput{"  - {type: rolling_disc, body: disc, axis: [1, 0, 0]}", 5, "joints[0].radius",
                     "missing"},
        BadDiscInput{"  - {type: rolling_disc, body: disc, radius: 1, axis: [0, 0, 0]}", 5,
                     "joints[0].axis", "zero"},
        BadDiscInput{"  - {type: rolling_disc, body: disc, radius: 1}", 5, "joints[0].axis",
                     "missing"},
        BadDiscInput{"  - {type: rolling_disc, body: wheel, radius: 1, axis: [1, 0, 0]}", 5,
                     "joints[0].body", "unknown body 'wheel'"},
        BadDiscInput{"  - {type: rolling_disc, body: ground, radius: 1, axis: [1, 0, 0]}", 5,
                     "joints[0].body", "ground"},
        BadDiscInput{"  - {type: rolling_disc, body: disc, radius: 1, axis: [1, 0, 0], "
                     "plane_normal: [0, 0, 0]}",
                     5, "joints[0].plane_normal", "zero"},
        BadDiscInput{"  - {type: rolling_disc, body: disc, radius: 1, axis: [1, 0, 0], "
                     "plane_normal: [0, 0, -1]}",
                     5, "joints[0].plane_normal", "above the plane"},
        BadDiscInput{"  - {type: rolling_disc, body: disc, radius: 1, axis: [0, 0, 1]}", 5,
                     "joints[0].axis", "flat"},
        BadDiscInput{"  - {type: rolling_disc, body: disc, radius: 1, axis: [1, 0, 0], "
                     "body_i: ground}",
                     5, "joints[0].body_i", "unknown key"},
        BadDiscInput{"  - {name: roll, type: rolling_disc, body: disc, radius: 1, axis: [1, 0, "
                     "0]}\n  - {name: roll.no_slip, type: distance, body_i: ground, body_j: "
                     "disc, length: 1}",
                     6, "joints[1].name", "duplicate"}));

}  // namespace
}  // namespace rtmb
