// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// URDF robots (engine/model_file/urdf_model_file.cpp): the real files of Debian's dart-doc load
// and run (issue 19 acceptance 1, fixed base); a one-joint robot with rotated joint and inertial
// frames has the closed-form inertia, gravity torque and damper (URDF: R = Rz(yaw) Ry(pitch)
// Rx(roll), inertia in the inertial frame); bad files fail with the file, line and joint.
#include "engine/model_file/urdf_model_file.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"
#include "tests/support/model_file_errors.hpp"

namespace rtmb {
namespace {

const std::string kDart = "/usr/share/doc/dart/data/urdf/";

Eigen::Matrix3d rpy(double roll, double pitch, double yaw) {
  return (Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()) *
          Eigen::AngleAxisd(pitch, Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(roll, Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}

const char* const kOneJoint = R"(<?xml version="1.0"?>
<robot name="one">
  <link name="base"/>
  <joint name="shoulder" type="revolute">
    <parent link="base"/>
    <child link="upper"/>
    <origin xyz="0.1 0.2 0.3" rpy="0.3 -0.5 0.7"/>
    <axis xyz="0 1 1"/>
    <limit effort="10" lower="-1" upper="1" velocity="2"/>
    <dynamics damping="0.4"/>
  </joint>
  <link name="upper">
    <inertial>
      <origin xyz="0.2 -0.1 0.05" rpy="0.2 0.4 -0.3"/>
      <mass value="2.5"/>
      <inertia ixx="0.03" ixy="0.001" ixz="-0.002" iyy="0.05" iyz="0.003" izz="0.04"/>
    </inertial>
  </link>
</robot>
)";

TEST(UrdfModelFile, OneJointHasTheClosedFormInertiaGravityTorqueAndDamper) {
  const ModelFile f = detail::urdf_model_file(kOneJoint, "one.urdf");
  ASSERT_TRUE(f.joint_space);
  const std::unique_ptr<System> sys = make_system(f);
  ASSERT_EQ(sys->n_v(), 1);
  ASSERT_EQ(f.inputs.size(), 1u);
  EXPECT_EQ(f.inputs[0].name, "shoulder");
  EXPECT_EQ(f.inputs[0].unit, "N*m");
  EXPECT_EQ(model_name(f), "one");

  const double q = 0.8;
  const double v = 1.5;
  // everything by hand, in the world frame
  const Eigen::Matrix3d joint_frame = rpy(0.3, -0.5, 0.7);
  const Eigen::Vector3d axis_joint = Eigen::Vector3d(0.0, 1.0, 1.0).normalized();
  const Eigen::Vector3d p(0.1, 0.2, 0.3);
  const Eigen::Vector3d a = joint_frame * axis_joint;
  const Eigen::Matrix3d link = joint_frame * Eigen::AngleAxisd(q, axis_joint).toRotationMatrix();
  Eigen::Matrix3d principal;
  principal << 0.03, 0.001, -0.002, 0.001, 0.05, 0.003, -0.002, 0.003, 0.04;
  const Eigen::Matrix3d r_in = rpy(0.2, 0.4, -0.3);
  const Eigen::Matrix3d inertia_world =
      link * r_in * principal * r_in.transpose() * link.transpose();
  const Eigen::Vector3d c = p + link * Eigen::Vector3d(0.2, -0.1, 0.05);
  const double m = 2.5;
  // M = a^T I_c a + m |a x (c - p)|^2 (parallel axes)
  const double mass = a.dot(inertia_world * a) + m * a.cross(c - p).squaredNorm();
  // generalized gravity force: (m g) . dc/dq = (m g) . (a x (c - p)); damper -d v
  const Eigen::Vector3d weight(0.0, 0.0, -9.81 * m);
  const double force = weight.dot(a.cross(c - p)) - 0.4 * v;

  Vec qv(1);
  qv << q;
  Vec vv(1);
  vv << v;
  Mat mm(1, 1);
  sys->mass(0.0, qv, mm);
  Vec ff(1);
  sys->forces(0.0, qv, vv, {}, ff);
  EXPECT_NEAR(mm(0, 0), mass, 1e-14 * mass);
  EXPECT_NEAR(ff(0), force, 1e-13 * std::abs(force));
  EXPECT_GT(std::abs(weight.dot(a.cross(c - p))), 1.0);  // the gravity torque is not trivial
}

TEST(UrdfModelFile, DebianDartRobotsLoadAndRun) {
  struct Case {
    std::string file;
    int coordinates;
    std::string first_joint;
  };
  const Case cases[] = {{"wam/wam.urdf", 7, "/j1"},
                        {"KR5/KR5 sixx R650.urdf", 6, ""},
                        {"drchubo/drchubo.urdf", 51, ""}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    const ModelFile f = load_model_file(kDart + c.file);
    ASSERT_TRUE(f.joint_space);
    EXPECT_EQ(static_cast<int>(f.inputs.size()), c.coordinates);
    if (!c.first_joint.empty()) {
      EXPECT_EQ(f.inputs[0].name, c.first_joint);
    }
    Settings settings = f.settings;
    settings.method = Method::kRk4;
    settings.stabilizer = StabilizerKind::kNone;
    const Model model(std::shared_ptr<const System>(make_system(f)), settings);
    ASSERT_EQ(model.system().n_v(), c.coordinates);
    Workspace ws(model);
    State s = initial_state(model);
    const double e0 = model.system().energy(0.0, s.q, s.v, {});
    for (int k = 0; k < 100; ++k) ASSERT_TRUE(step(model, s, ws).ok());
    // released from q = 0 under gravity: it falls (moves) and keeps its energy
    EXPECT_GT(s.v.cwiseAbs().maxCoeff(), 1e-3);
    EXPECT_NEAR(model.system().energy(0.0, s.q, s.v, {}), e0, 1e-8 * (1.0 + std::abs(e0)));
  }
}

std::string error_of(const std::string& text, const std::string& path = "bad.urdf") {
  try {
    (void)detail::urdf_model_file(text, path);
  } catch (const ModelFileError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(UrdfModelFile, ErrorsNameTheFileLineAndJoint) {
  std::string text = kOneJoint;
  text.replace(text.find("type=\"revolute\""), 15, "type=\"floating\"");
  EXPECT_EQ(error_of(text).rfind("bad.urdf:4:3: key 'joint shoulder': <dynamics damping> is not "
                                 "supported on a planar or floating joint",
                                 0),
            0u)
      << error_of(text);

  text = kOneJoint;
  text.replace(text.find("0 1 1"), 5, "0 0 0");
  EXPECT_NE(error_of(text).find("bad.urdf:4:3: key 'joint shoulder': axis must be non-zero"),
            std::string::npos)
      << error_of(text);

  // urdfdom's own complaint, captured, names the missing link
  text = kOneJoint;
  text.replace(text.find("<parent link=\"base\"/>"), 21, "<parent link=\"nowhere\"/>");
  EXPECT_NE(error_of(text).find("bad.urdf: not a valid URDF robot"), std::string::npos)
      << error_of(text);
  EXPECT_NE(error_of(text).find("nowhere"), std::string::npos) << error_of(text);

  // Debian dart-doc's joint test robot: links without <inertial>
  std::ifstream massless("/usr/share/doc/dart/data/urdf/test/joint_properties.urdf");
  std::ostringstream massless_text;
  massless_text << massless.rdbuf();
  EXPECT_NE(error_of(massless_text.str(), "joint_properties.urdf")
                .find("joint_properties.urdf:17:3: key 'joint 0_to_1': moves no mass"),
            std::string::npos)
      << error_of(massless_text.str(), "joint_properties.urdf");

  EXPECT_NE(error_of("This is not a valid URDF file.").find("bad.urdf: not a valid URDF robot"),
            std::string::npos);
  try {
    (void)load_model_file("/nonexistent/robot.urdf");
    ADD_FAILURE() << "loaded a missing file";
  } catch (const ModelFileError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/robot.urdf: cannot open"), std::string::npos)
        << e.what();
  }
}

TEST(UrdfModelFile, YamlFileNamesTheUrdfAndSetsJointsByName) {
  const ModelFile f = parse_model_file(R"(urdf: /usr/share/doc/dart/data/urdf/wam/wam.urdf
initial_positions: {/j2: 0.5, /j4: -1.25}
initial_velocities: {/j1: 0.3}
integration: {method: rk4, dt: 0.002}
)",
                                       "/tmp/robot.yaml");
  ASSERT_TRUE(f.joint_space);
  EXPECT_EQ(f.settings.stabilizer, StabilizerKind::kNone);
  EXPECT_EQ(f.settings.method, Method::kRk4);
  EXPECT_DOUBLE_EQ(f.settings.dt, 0.002);
  ASSERT_EQ(f.inputs.size(), 7u);
  EXPECT_EQ(f.inputs[6].name, "/j7");
  State s;
  make_system(f)->initial_state(s);
  EXPECT_EQ(s.q, (Vec(7) << 0.0, 0.5, 0.0, -1.25, 0.0, 0.0, 0.0).finished());
  EXPECT_EQ(s.v, (Vec(7) << 0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0).finished());
}

// the error a YAML model file with this text gives (a test failure when it loads)
std::string urdf_yaml_error_of(const std::string& text) {
  return testing::model_file_error(text, "robot.yaml");
}

TEST(UrdfModelFile, YamlErrorsNameTheKey) {
  const std::string wam = "urdf: /usr/share/doc/dart/data/urdf/wam/wam.urdf\n";
  EXPECT_NE(urdf_yaml_error_of(wam + "initial_positions: {/j9: 1}\n")
                .find("robot.yaml:2:21: key 'initial_positions./j9': no moving joint '/j9' in the "
                      "URDF (joints: /j1, /j2, /j3, /j4, /j5, /j6, /j7)"),
            std::string::npos)
      << urdf_yaml_error_of(wam + "initial_positions: {/j9: 1}\n");
  EXPECT_NE(urdf_yaml_error_of("mechanism: pendulum\ninitial_positions: {a: 1}\n")
                .find("key 'initial_positions': only with 'urdf'"),
            std::string::npos);
  EXPECT_NE(urdf_yaml_error_of(wam + "bodies: []\n").find("key 'bodies': not with 'urdf'"),
            std::string::npos);
  EXPECT_NE(urdf_yaml_error_of("urdf: missing.urdf\n")
                .find("robot.yaml:1:7: key 'urdf': cannot open the URDF file 'missing.urdf'"),
            std::string::npos)
      << urdf_yaml_error_of("urdf: missing.urdf\n");
  EXPECT_NE(urdf_yaml_error_of("urdf: /dev/zero\n").find("key 'urdf': cannot open the URDF file"),
            std::string::npos);
}

const char* const kMimic = R"(<?xml version="1.0"?>
<robot name="mimic">
  <link name="base"/>
  <link name="a">
    <inertial><origin xyz="0.3 0 0"/><mass value="1"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <link name="b">
    <inertial><origin xyz="0.2 0 0"/><mass value="0.5"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <joint name="driver" type="revolute">
    <parent link="base"/><child link="a"/><axis xyz="0 1 0"/>
    <limit effort="1" lower="-2" upper="2" velocity="1"/>
  </joint>
  <joint name="follower" type="revolute">
    <parent link="a"/><child link="b"/><origin xyz="0.6 0 0"/><axis xyz="0 1 0"/>
    <limit effort="1" lower="-2" upper="2" velocity="1"/>
    <mimic joint="driver" multiplier="-2" offset="0.1"/>
  </joint>
</robot>
)";

TEST(UrdfModelFile, MimicIsAConstraintRowThatHoldsUnderPStab) {
  const ModelFile f = detail::urdf_model_file(kMimic, "mimic.urdf");
  EXPECT_EQ(f.settings.stabilizer, StabilizerKind::kPStab);  // a row to keep
  const std::shared_ptr<const System> sys = make_system(f);
  ASSERT_EQ(sys->n_lambda(), 1);
  const Model model(sys, f.settings);
  State s = initial_state(model);
  // assembled: follower = -2 driver + 0.1 from both at 0, g = q1 + 2 q0 - 0.1 = -0.1: the
  // minimum-norm correction -G^T (G G^T)^-1 g with G = [2, 1] gives driver 0.04, follower 0.02
  EXPECT_NEAR(s.q(0), 0.04, 1e-15);
  EXPECT_NEAR(s.q(1), 0.02, 1e-15);
  Workspace ws(model);
  double worst = 0.0;
  for (int k = 0; k < 500; ++k) {
    ASSERT_TRUE(step(model, s, ws).ok());
    worst = std::max(worst, std::abs(s.q(1) - (-2.0 * s.q(0) + 0.1)));
  }
  EXPECT_GT(std::abs(s.q(0) - 0.04), 0.1);  // it swung under gravity
  EXPECT_LE(worst, 1e-12);
}

TEST(UrdfModelFile, YamlClosesTheParallelogramArmAndNamesItsChannels) {
  const std::string path = std::string(RTMB_SOURCE_DIR) + "/configs/urdf/parallelogram_arm.yaml";
  const ModelFile f = load_model_file(path);
  EXPECT_EQ(f.settings.stabilizer, StabilizerKind::kPStab);
  const std::vector<std::pair<std::string, std::string>> channels = model_output_channels(f);
  ASSERT_EQ(channels.size(), 14u);
  EXPECT_EQ(channels[3].first + " " + channels[13].first, "tool.x drift");
  const std::shared_ptr<const System> sys = make_system(f);
  ASSERT_EQ(sys->n_lambda(), 2);
  const Model model(sys, f.settings);
  const std::unique_ptr<OutputEvaluator> outputs = make_output_evaluator(f, *sys);
  ASSERT_TRUE(outputs);
  // coordinates in the tree's order (links depth first from the root): bar, shoulder, elbow
  const JointSpaceTree& tree = dynamic_cast<const JointSpaceTree&>(*sys);
  int bar = -1;
  int shoulder = -1;
  for (std::size_t j = 0; j < f.joint_space->joints.size(); ++j) {
    const std::string& name = f.joint_space->joints[j].name;
    if (name == "bar") bar = tree.coordinate(static_cast<int>(j));
    if (name == "shoulder") shoulder = tree.coordinate(static_cast<int>(j));
  }
  ASSERT_GE(bar, 0);
  ASSERT_GE(shoulder, 0);
  State s = initial_state(model);
  Workspace ws(model);
  std::vector<double> out(14);
  double worst = 0.0;
  for (int k = 0; k < 300; ++k) {
    ASSERT_TRUE(step(model, s, ws).ok());
    outputs->evaluate(s, ws, out);
    // the parallelogram keeps the forearm level: elbow = -shoulder, bar = shoulder
    worst = std::max({worst, std::abs(out[0] + out[1]), std::abs(s.q(bar) - s.q(shoulder))});
    EXPECT_EQ(out[0], s.q(shoulder));
    EXPECT_LE(out[13], 1e-10);
  }
  EXPECT_GT(std::abs(out[0] - 0.3), 0.05);  // it moved
  EXPECT_LE(worst, 1e-9);
  // the tool point by hand: elbow at (0, 0, 0.5) + R_y(shoulder) (0.4, 0, 0), the forearm level
  const double c = std::cos(out[0]);
  const double sn = std::sin(out[0]);
  EXPECT_NEAR(out[3], 0.4 * c + 0.3, 1e-9);
  EXPECT_NEAR(out[5], 0.5 - 0.4 * sn - 0.1, 1e-9);
}

TEST(UrdfModelFile, YamlRevoluteClosureOnAPlanarLoopNeedsRemove) {
  const std::string dir = std::string(RTMB_SOURCE_DIR) + "/configs/urdf/";
  const std::string base = "urdf: " + dir +
                           "parallelogram_arm.urdf\n"
                           "initial_positions: {shoulder: 0.3, elbow: -0.3, bar: 0.3}\n"
                           "joints:\n"
                           "  - {name: tip, type: revolute, link_i: parallel_bar, point_i: [0.4, "
                           "0, 0], link_j: forearm, point_j: [-0.2, 0, 0], axis_i: [0, 1, 0], "
                           "axis_j: [0, 1, 0]}\n";
  EXPECT_NE(urdf_yaml_error_of(base).find("redundant constraints"), std::string::npos)
      << urdf_yaml_error_of(base);
  EXPECT_NE(urdf_yaml_error_of(base).find("joint tip"), std::string::npos)
      << urdf_yaml_error_of(base);
  const ModelFile f = parse_model_file(base + "redundant_constraints: remove\n", "arm.yaml");
  EXPECT_EQ(make_system(f)->n_lambda(), 2);  // 5 rows, 3 of them identically zero here
}

TEST(UrdfModelFile, YamlClosureAndForceErrorsNameTheKey) {
  const std::string arm =
      "urdf: " + std::string(RTMB_SOURCE_DIR) + "/configs/urdf/parallelogram_arm.urdf\n";
  auto expect = [&](const std::string& extra, const std::string& needle) {
    const std::string e = urdf_yaml_error_of(arm + extra);
    EXPECT_NE(e.find(needle), std::string::npos) << e;
  };
  expect("joints:\n  - {name: c, type: spherical, link_i: hand, link_j: forearm}\n",
         "key 'joints.c.link_i': no link 'hand' in the URDF (links: world, base, ");
  expect("joints:\n  - {name: c, type: hinge, link_i: base, link_j: forearm}\n",
         "key 'joints.c.type': unknown closure type 'hinge'");
  expect("joints:\n  - {name: c, type: spherical, link_i: forearm, link_j: forearm}\n",
         "key 'joints.c.link_j': joins a link to itself");
  expect("joints:\n  - {name: c, type: mimic, joint: elbow, mimics: wrist}\n",
         "key 'joints.c.mimics': no moving joint 'wrist'");
  expect(
      "joints:\n  - {name: c, type: spherical, link_i: base, link_j: forearm, normal: [0, 1, "
      "0]}\n",
      "key 'joints.c.normal': unknown key");
  expect(
      "joints:\n  - {name: c, type: spherical, link_i: world, point_i: [5, 0, 0], link_j: "
      "forearm}\n",
      "closure 'c' cannot be closed from the initial positions");
  expect("forces:\n  - {type: joint_spring, joint: bar, stiffness: -1}\n",
         "key 'forces[0].stiffness': must be >= 0");
  expect("forces:\n  - {type: magnet}\n", "unknown force type 'magnet'");
  expect("outputs:\n  channels:\n    - {name: x, kind: pose, link: world}\n",
         "key 'outputs.channels[0].link': a link of the robot, not the world");
  expect("outputs:\n  channels:\n    - {name: x, kind: joint_position, joint: bar, link: base}\n",
         "key 'outputs.channels[0].link': only for link outputs");
}

}  // namespace
}  // namespace rtmb
