// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// A URDF robot's virtual coupling, joint dampers and named channels from YAML
// (engine/model_file/urdf_model_file.cpp; issue 19 acceptance 6): configs/urdf/wam_haptic.yaml
// loads with its coupling on /wam7, its target starting where the flange starts (the point's
// forward kinematics at the initial pose), its channels named and its dampers set; bad input is a
// ModelFileError naming file, line and key.
#include <gtest/gtest.h>

#include <string>

#include "engine/model_file/urdf_model_file.hpp"
#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/model_file.hpp"
#include "tests/support/model_file_errors.hpp"

namespace rtmb {
namespace {

const std::string kWam = "urdf: /usr/share/doc/dart/data/urdf/wam/wam.urdf\n";

// the error a YAML model file with this text gives (a test failure when it loads)
std::string yaml_error_of(const std::string& text) {
  return testing::model_file_error(text, "robot.yaml");
}

TEST(UrdfModelFileCoupling, WamHapticLoadsWithItsCouplingChannelsAndDampers) {
  const ModelFile f =
      load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/urdf/wam_haptic.yaml");
  ASSERT_TRUE(f.joint_space);
  const JointSpaceSpec& spec = *f.joint_space;
  ASSERT_EQ(spec.couplings.size(), 1u);
  const TreeCouplingSpec& c = spec.couplings[0];
  EXPECT_EQ(spec.links[static_cast<std::size_t>(c.link)].name, "/wam7");
  EXPECT_EQ(c.stiffness, 500.0);
  EXPECT_EQ(c.damping, 5.0);
  EXPECT_TRUE(c.safety.passivity);
  EXPECT_EQ(c.safety.max_force, 10.0);
  // the default target is the flange at the initial pose
  const JointSpaceTree tree(spec);
  State s;
  tree.initial_state(s);
  EXPECT_LT((c.target - tree.point_position(s.q, c.link, c.point)).norm(), 1e-15);
  // the start the config's comment gives haptic-sim, to 0.1 mm
  EXPECT_NEAR(c.target.x(), 0.8809, 1e-4);
  EXPECT_NEAR(c.target.y(), 0.14, 1e-4);
  EXPECT_NEAR(c.target.z(), 0.6005, 1e-4);
  // channels: the three target axes (positions, starting at the target) and a joint torque
  ASSERT_EQ(f.inputs.size(), 4u);
  EXPECT_EQ(f.inputs[0].name, "target_x");
  EXPECT_EQ(f.inputs[2].config.initial_value, c.target.z());
  EXPECT_EQ(f.inputs[2].config.kind, InputKind::kPosition);
  EXPECT_EQ(f.inputs[3].config.kind, InputKind::kTorque);
  EXPECT_EQ(tree.n_inputs(), 4);
  for (const TreeJointSpec& j : spec.joints) {
    if (j.type != TreeJointType::kFixed) {
      EXPECT_GT(j.damping, 0.0) << j.name;
    }
  }
}

TEST(UrdfModelFileCoupling, BadCouplingsDampersAndDrivesNameTheKey) {
  auto expect = [&](const std::string& extra, const std::string& needle) {
    const std::string e = yaml_error_of(kWam + extra);
    EXPECT_NE(e.find(needle), std::string::npos) << e;
  };
  expect("forces:\n  - {type: coupling, link: /wam9, stiffness: 100}\n",
         "robot.yaml:3:28: key 'forces[0].link': no link '/wam9' in the URDF (links: world, ");
  expect("forces:\n  - {type: coupling, link: /wam7}\n",
         "robot.yaml:3:5: key 'forces[0].stiffness': missing (N/m)");
  expect("forces:\n  - {type: coupling, link: /wam7, stiffness: 1, safety: {passivity: true}}\n",
         "key 'forces[0].safety.passivity': the passivity controller needs max_damping > 0");
  expect("forces:\n  - {type: joint_damper, joint: /j2, damping: -1}\n",
         "key 'forces[0].damping': must be >= 0");
  const std::string coupled = "forces:\n  - {name: c, type: coupling, link: /wam7, stiffness: 1}\n";
  expect(coupled +
             "inputs:\n  channels:\n    - {name: x, drive: {type: coupling, element: d, "
             "axis: x}}\n",
         "key 'inputs.channels[0].drive.element': no coupling 'd' (couplings: c)");
  expect(coupled +
             "inputs:\n  channels:\n    - {name: x, drive: {type: coupling, element: c, "
             "axis: w}}\n",
         "key 'inputs.channels[0].drive.axis': expected x, y or z");
  expect(coupled +
             "inputs:\n  channels:\n    - {name: x, drive: {type: coupling, element: c, "
             "axis: x}}\n    - {name: y}\n",
         "key 'inputs.channels[1].drive': missing");
  expect(coupled + "outputs:\n  channels:\n    - {name: f, kind: haptic_force, element: e}\n",
         "key 'outputs.channels[0].element': no coupling 'e'");
  expect(coupled + "outputs:\n  channels:\n    - {name: f, kind: energy, element: c}\n",
         "key 'outputs.channels[0].element': only for coupling outputs");
}

}  // namespace
}  // namespace rtmb
