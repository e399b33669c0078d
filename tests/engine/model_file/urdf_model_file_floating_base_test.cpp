// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Floating and planar joints from URDF (engine/model_file/urdf_model_file.cpp), and
// `floating_base: true`, which frees a URDF's welded root (issue 19: drchubo.urdf of Debian's
// dart-doc has no floating joint). Checked against laws that hold whatever the tree computes:
//   - a free-floating drchubo (58 coordinates) without gravity keeps its total spatial momentum
//     (angular about the origin and linear) and its energy: no external force acts on it;
//   - under gravity its centre of mass moves as c0 + c0' t + g t^2 / 2 exactly (Newton's second
//     law for the whole system: the joint forces are internal);
//   - one body on a URDF planar joint (plane x-z, centre of mass off the joint) falls with q_z'' =
//     g and keeps its angle, a body on a URDF floating joint falls freely: closed forms.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "engine/model_file/urdf_model_file.hpp"
#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"

namespace rtmb {
namespace {

const std::string kDrChubo =
    "urdf: /usr/share/doc/dart/data/urdf/drchubo/drchubo.urdf\nfloating_base: true\n";

// The drchubo with a floating base, every joint and the base moving: v(k) a fixed pseudo-random
// pattern, the Euler-parameter rates made tangent (e . e' = 0, the normalization row's velocity
// level).
struct Robot {
  const JointSpaceTree* tree = nullptr;
  std::unique_ptr<Model> model;
  State state;
};

Robot moving_drchubo(const std::string& gravity) {
  const ModelFile f =
      parse_model_file(kDrChubo + "forces: [{type: gravity, vector: " + gravity +
                           "}]\nintegration: {method: rk4, stabilizer: pstab, dt: 0.001}\n",
                       "/tmp/drchubo.yaml");
  const std::shared_ptr<const System> sys = make_system(f);
  Robot r{dynamic_cast<const JointSpaceTree*>(sys.get()), std::make_unique<Model>(sys, f.settings),
          State()};
  r.state = initial_state(*r.model);
  for (int k = 0; k < sys->n_v(); ++k) r.state.v(k) = 0.8 * std::sin(1.3 * k + 0.4);
  r.state.v(3) = 0.0;  // e = (1, 0, 0, 0): e' tangent
  return r;
}

TEST(UrdfModelFile, FloatingBaseDrChuboHasSevenMoreCoordinatesAndANormalizationRow) {
  const ModelFile f = parse_model_file(kDrChubo, "/tmp/drchubo.yaml");
  ASSERT_TRUE(f.joint_space);
  const std::unique_ptr<System> sys = make_system(f);
  EXPECT_EQ(sys->n_q(), 58);
  EXPECT_EQ(sys->n_v(), 58);
  EXPECT_EQ(sys->n_lambda(), 1);
  EXPECT_EQ(f.settings.stabilizer, StabilizerKind::kPStab);  // the row to keep
  ASSERT_EQ(f.inputs.size(), 58u);
  EXPECT_EQ(f.inputs[0].name, "floating_base/x");
  EXPECT_EQ(f.inputs[6].name, "floating_base/e3");
  EXPECT_EQ(f.inputs[3].unit, "N*m");
  ASSERT_EQ(f.output_units.size(), 116u);
  EXPECT_EQ(f.output_units[3], "1");
  EXPECT_EQ(f.output_units[58 + 6], "1/s");
}

TEST(UrdfModelFile, FreeFloatingDrChuboKeepsItsMomentumAndEnergy) {
  Robot r = moving_drchubo("[0, 0, 0]");
  Workspace ws(*r.model);
  const Eigen::Matrix<double, 6, 1> h0 = r.tree->spatial_momentum(r.state.q, r.state.v);
  const double e0 = r.model->system().energy(0.0, r.state.q, r.state.v, {});
  const Vec q0 = r.state.q;
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(step(*r.model, r.state, ws).ok());
  const Eigen::Matrix<double, 6, 1> h1 = r.tree->spatial_momentum(r.state.q, r.state.v);
  EXPECT_LE((h1 - h0).norm(), 1e-9 * h0.norm()) << h0.transpose() << "\n" << h1.transpose();
  EXPECT_NEAR(r.model->system().energy(0.0, r.state.q, r.state.v, {}), e0, 1e-9 * e0);
  EXPECT_GT(h0.head<3>().norm(), 0.1);                                   // it spins
  EXPECT_GT(h0.tail<3>().norm(), 0.1);                                   // and drifts
  EXPECT_GT((r.state.q.segment<4>(3) - q0.segment<4>(3)).norm(), 0.01);  // the base turned
  EXPECT_NEAR(r.state.q.segment<4>(3).norm(), 1.0, 1e-12);               // e stays unit
  std::printf(
      "free-floating drchubo, 0.2 s RK4 + PStab dt = 1e-3: momentum change %.3e relative, energy "
      "change %.3e relative\n",
      (h1 - h0).norm() / h0.norm(),
      std::abs(r.model->system().energy(0.0, r.state.q, r.state.v, {}) - e0) / e0);
}

TEST(UrdfModelFile, FloatingDrChuboCentreOfMassFallsAtExactlyG) {
  Robot r = moving_drchubo("[0.5, -1.0, -9.81]");
  const Eigen::Vector3d g(0.5, -1.0, -9.81);
  Workspace ws(*r.model);
  double mass = 0.0;
  const Eigen::Vector3d c0 = r.tree->centre_of_mass(r.state.q, mass);
  const Eigen::Vector3d c0_rate = r.tree->spatial_momentum(r.state.q, r.state.v).tail<3>() / mass;
  constexpr int kSteps = 200;
  for (int i = 0; i < kSteps; ++i) ASSERT_TRUE(step(*r.model, r.state, ws).ok());
  const double t = kSteps * 0.001;
  const Eigen::Vector3d c1 = r.tree->centre_of_mass(r.state.q, mass);
  std::printf(
      "floating drchubo under gravity, 0.2 s: centre of mass off c0 + c0' t + g t^2/2 by %.3e m\n",
      (c1 - (c0 + c0_rate * t + 0.5 * g * t * t)).norm());
  EXPECT_LE((c1 - (c0 + c0_rate * t + 0.5 * g * t * t)).norm(), 1e-10) << (c1 - c0).transpose();
  EXPECT_GT(mass, 10.0);
}

const char* const kPlanarAndFloating = R"(<?xml version="1.0"?>
<robot name="free">
  <link name="world"/>
  <joint name="slide" type="planar">
    <parent link="world"/><child link="puck"/><axis xyz="0 1 0"/>
  </joint>
  <link name="puck">
    <inertial><origin xyz="0.2 0.1 -0.3" rpy="0.3 0.2 0.1"/><mass value="2"/>
      <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.04"/></inertial>
  </link>
  <joint name="free" type="floating">
    <parent link="world"/><child link="stone"/><origin xyz="1 0 0"/>
  </joint>
  <link name="stone">
    <inertial><origin xyz="0.1 0 0"/><mass value="1"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial>
  </link>
</robot>
)";

// Planar joint about y: u = x, w = y x x = -z (the coordinate axis least aligned with the normal,
// rtmb/models/joint_space_tree.hpp), so gravity -9.81 z drives q_w'' = +9.81; the floating joint's
// translation is world z: q_z'' = -9.81. Uniform gravity exerts no torque about a centre of
// mass, so the angles stay.
TEST(UrdfModelFile, PlanarAndFloatingJointsFallFreely) {
  const ModelFile f = detail::urdf_model_file(kPlanarAndFloating, "free.urdf");
  // coordinates in the order of the links from the root, depth first (urdfdom lists the world's
  // children stone, puck)
  ASSERT_EQ(f.inputs.size(), 10u);
  EXPECT_EQ(f.inputs[0].name, "free/x");
  EXPECT_EQ(f.inputs[6].name, "free/e3");
  EXPECT_EQ(f.inputs[7].name, "slide/x");
  EXPECT_EQ(f.inputs[9].name, "slide/angle");
  Settings settings = f.settings;
  settings.method = Method::kRk4;
  const Model model(std::shared_ptr<const System>(make_system(f)), settings);
  Workspace ws(model);
  State s = initial_state(model);
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(step(model, s, ws).ok());
  const double t = 500 * settings.dt;
  const double fall = 0.5 * 9.81 * t * t;
  EXPECT_LE(s.q.head<2>().norm(), 1e-12);
  EXPECT_NEAR(s.q(2), -fall, 1e-12);
  EXPECT_LE((s.q.segment<4>(3) - Eigen::Vector4d(1.0, 0.0, 0.0, 0.0)).norm(), 1e-12);
  EXPECT_NEAR(s.q(7), 0.0, 1e-12);
  EXPECT_NEAR(s.q(8), fall, 1e-12);
  EXPECT_NEAR(s.q(9), 0.0, 1e-12);
}

TEST(UrdfModelFile, FloatingBaseErrorsNameTheKey) {
  try {
    (void)parse_model_file("mechanism: pendulum\nfloating_base: true\n", "robot.yaml");
    ADD_FAILURE() << "accepted";
  } catch (const ModelFileError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'floating_base': only with 'urdf'"),
              std::string::npos)
        << e.what();
  }
  try {
    (void)parse_model_file(
        "urdf: /usr/share/doc/dart/data/urdf/wam/wam.urdf\nfloating_base: true\n"
        "outputs:\n  channels:\n    - {name: b, kind: joint_position, joint: floating_base}\n",
        "robot.yaml");
    ADD_FAILURE() << "accepted";
  } catch (const ModelFileError& e) {
    EXPECT_NE(
        std::string(e.what()).find("key 'outputs.channels[0].joint': joint 'floating_base' is "
                                   "planar or floating: read its child link's pose instead"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace rtmb
