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
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"

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
  EXPECT_EQ(error_of(text).rfind("bad.urdf:4:3: key 'joint shoulder': this joint type is not "
                                 "supported yet",
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

std::string yaml_error_of(const std::string& text) {
  try {
    (void)parse_model_file(text, "robot.yaml");
  } catch (const ModelFileError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(UrdfModelFile, YamlErrorsNameTheKey) {
  const std::string wam = "urdf: /usr/share/doc/dart/data/urdf/wam/wam.urdf\n";
  EXPECT_NE(yaml_error_of(wam + "initial_positions: {/j9: 1}\n")
                .find("robot.yaml:2:21: key 'initial_positions./j9': no moving joint '/j9' in the "
                      "URDF (joints: /j1, /j2, /j3, /j4, /j5, /j6, /j7)"),
            std::string::npos)
      << yaml_error_of(wam + "initial_positions: {/j9: 1}\n");
  EXPECT_NE(yaml_error_of("mechanism: pendulum\ninitial_positions: {a: 1}\n")
                .find("key 'initial_positions': only with 'urdf'"),
            std::string::npos);
  EXPECT_NE(yaml_error_of(wam + "bodies: []\n").find("key 'bodies': not with 'urdf'"),
            std::string::npos);
  EXPECT_NE(yaml_error_of("urdf: missing.urdf\n")
                .find("robot.yaml:1:7: key 'urdf': cannot open the URDF file 'missing.urdf'"),
            std::string::npos)
      << yaml_error_of("urdf: missing.urdf\n");
  EXPECT_NE(yaml_error_of("urdf: /dev/zero\n").find("key 'urdf': cannot open the URDF file"),
            std::string::npos);
}

}  // namespace
}  // namespace rtmb
