// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Named channels of spatial model files (docs/model-format.md, "Spatial channels"): drives and
// outputs parse into the System's inputs and a SpatialOutputs evaluator whose channels match
// their closed forms; bad keys fail with "FILE:LINE:COL: key 'K': reason"; configs/arm6.yaml's
// tip coupling holds the arm where the spring balances gravity (static equilibrium residual of
// f(q, 0) - G^T lambda in the least-squares sense).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <memory>
#include <string>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/spatial_multibody.hpp"
#include "rtmb/models/spatial_outputs.hpp"
#include "rtmb/step.hpp"
#include "tests/support/model_file_errors.hpp"

namespace rtmb {
namespace {

using testing::model_file_error;
using testing::replace_once;

const char* const kBob = R"(dimension: spatial
bodies:
  - {name: bob, mass: 2.0, inertia: [0.1, 0.2, 0.3], position: [0.5, 0.0, -0.5]}
joints:
  - {name: pivot, type: revolute, body_i: ground, body_j: bob, point_j: [-0.5, 0, 0.5], axis_i: [0, 1, 0]}
forces:
  - {type: gravity, vector: [0, 0, -9.81]}
  - {name: grip, type: coupling, body: bob, point: [0.1, 0, 0], stiffness: 100, damping: 2}
inputs:
  channels:
    - {name: push, drive: {type: force, body: bob, point: [0, 0, 0.1], axis: z}}
    - {name: twist, drive: {type: torque, body: bob, direction: [0, 1, 0]}}
    - {name: motor, drive: {type: motor, joint: pivot, limit: 3}}
    - {name: gz, drive: {type: coupling, element: grip, axis: z}}
outputs:
  channels:
    - {name: r, kind: position, body: bob}
    - {name: e, kind: orientation, body: bob}
    - {name: v, kind: velocity, body: bob}
    - {name: w, kind: angular_velocity, body: bob}
    - {name: tip, kind: point_position, body: bob, point: [0.1, 0, 0]}
    - {name: tipv, kind: point_velocity, body: bob, point: [0.1, 0, 0]}
    - {name: angle, kind: joint_position, joint: pivot}
    - {name: rate, kind: joint_velocity, joint: pivot}
    - {name: grip_force, kind: coupling_force, element: grip}
    - {name: drift, kind: position_drift}
    - {name: vdrift, kind: velocity_drift}
    - {name: energy, kind: energy}
)";

TEST(SpatialChannelsFile, DrivesAndOutputsMatchClosedForms) {
  const ModelFile f = parse_model_file(kBob, "bob.yaml");
  ASSERT_TRUE(f.spatial);
  ASSERT_EQ(f.inputs.size(), 4u);
  EXPECT_EQ(f.inputs[0].name, "push");
  EXPECT_EQ(f.inputs[0].unit, "N");
  EXPECT_EQ(f.inputs[2].unit, "N*m");
  EXPECT_EQ(f.inputs[3].unit, "m");
  // the coupling's target starts at its point: bob's tip at (0.6, 0, -0.5)
  EXPECT_NEAR(f.inputs[3].config.initial_value, -0.5, 1e-12);
  const auto channels = model_output_channels(f);
  ASSERT_EQ(channels.size(), 3u + 4 + 3 + 3 + 3 + 3 + 1 + 1 + 3 + 1 + 1 + 1);
  EXPECT_EQ(channels[0].first, "r.x");
  EXPECT_EQ(channels[3].first, "e.e0");
  EXPECT_EQ(channels[10].first, "w.wx");
  EXPECT_EQ(channels[10].second, "rad/s");
  const std::unique_ptr<System> sys = make_system(f);
  ASSERT_EQ(sys->n_inputs(), 4);
  ASSERT_NE(dynamic_cast<const SpatialMultibody*>(sys.get()), nullptr);
  const std::unique_ptr<OutputEvaluator> out = make_output_evaluator(f, *sys);
  ASSERT_TRUE(out);
  ASSERT_EQ(out->count(), static_cast<int>(channels.size()));
  // a rotated state about the pivot axis y by 0.3 rad with rate 0.7 rad/s
  const double phi = 0.3;
  const double rate = 0.7;
  const Eigen::Vector3d pivot(0.0, 0.0, 0.0);
  const Eigen::Matrix3d R = Eigen::AngleAxisd(phi, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const Eigen::Vector3d omega = rate * Eigen::Vector3d::UnitY();
  State s(sys->n_q(), sys->n_v());
  const Eigen::Vector3d r = R * Eigen::Vector3d(0.5, 0.0, -0.5);
  const Eigen::Vector4d e(std::cos(phi / 2), 0.0, std::sin(phi / 2), 0.0);
  s.q << r, e;
  s.v << omega.cross(r), 0.5 * euler_e(e).transpose() * omega;
  const Model model(make_system(f), f.settings);
  Workspace ws(model);
  std::vector<double> y(static_cast<std::size_t>(out->count()));
  const std::vector<double> u = {1.0, 0.5, 2.0, -0.4};
  set_inputs(ws, u);
  out->evaluate(s, ws, y);
  const Eigen::Vector3d tip = r + R * Eigen::Vector3d(0.1, 0.0, 0.0);
  const Eigen::Vector3d tipv = omega.cross(tip - pivot);
  const Eigen::Vector3d grip = -100.0 * (tip - Eigen::Vector3d(0.6, 0.0, -0.4)) - 2.0 * tipv;
  const double expect[] = {r.x(),    r.y(),   r.z(),   e(0),    e(1),     e(2),
                           e(3),     s.v(0),  s.v(1),  s.v(2),  omega(0), omega(1),
                           omega(2), tip.x(), tip.y(), tip.z(), tipv(0),  tipv(1),
                           tipv(2),  phi,     rate,    grip(0), grip(1),  grip(2)};
  double worst = 0.0;
  for (std::size_t k = 0; k < std::size(expect); ++k) {
    EXPECT_NEAR(y[k], expect[k], 1e-12) << channels[k].first;
    worst = std::max(worst, std::abs(y[k] - expect[k]));
  }
  EXPECT_LT(y[24], 1e-15);  // drift: the rotated state is on the constraints
  EXPECT_LT(y[25], 1e-14);
  // energy: T + V_gravity + V_coupling (relative to the channel's target)
  const double T = 0.5 * 2.0 * s.v.head<3>().squaredNorm() + 0.5 * 0.2 * rate * rate;
  const double V =
      2.0 * 9.81 * r.z() + 0.5 * 100.0 * (tip - Eigen::Vector3d(0.6, 0.0, -0.4)).squaredNorm();
  EXPECT_NEAR(y[26], T + V, 1e-12);
  std::printf(
      "spatial outputs: max |y - closed form| = %.3e, drift %.3e, vdrift %.3e, "
      "energy %.9f (closed form %.9f)\n",
      worst, y[24], y[25], y[26], T + V);
}

TEST(SpatialChannelsFile, BadKeysNameFileLineColumnAndKey) {
  const std::string base = kBob;
  const struct {
    const char* from;
    const char* to;
    const char* expect;
  } cases[] = {
      {"axis: z}}\n", "axis: w}}\n", "key 'inputs.channels[0].drive.axis': expected x, y or z"},
      {"direction: [0, 1, 0]", "direction: [0, 0, 0]",
       "key 'inputs.channels[1].drive.direction': must not be zero"},
      {"joint: pivot, limit: 3", "joint: nope, limit: 3",
       "key 'inputs.channels[2].drive.joint': 'nope' is not a revolute joint"},
      {"element: grip, axis: z}", "element: pivot, axis: z}",
       "key 'inputs.channels[3].drive.element'"},
      {"{type: torque, body: bob, direction: [0, 1, 0]}", "{type: torque, body: bob}",
       "key 'inputs.channels[1].drive.axis': missing"},
      {"kind: position, body: bob}", "kind: pose, body: bob}",
       "key 'outputs.channels[0].kind': unknown output kind 'pose'"},
      {"kind: joint_position, joint: pivot}", "kind: joint_position}",
       "key 'outputs.channels[6].joint': missing (needed by kind 'joint_position')"},
      {"kind: position, body: bob}", "kind: energy, body: bob}",
       "key 'outputs.channels[0].body': only for body and point outputs"},
      {"{name: v, kind: velocity, body: bob}", "{name: tipv, kind: velocity, body: bob}",
       "key 'outputs.channels[5].name': channel 'tipv.vx' is already defined"},
      {"stiffness: 100,", "stiffness: -1,", "key 'forces[1].stiffness': must be >= 0"},
  };
  for (const auto& c : cases) {
    const std::string err = model_file_error(replace_once(base, c.from, c.to), "m.yaml");
    std::printf("%s\n", err.c_str());
    EXPECT_EQ(err.rfind("m.yaml:", 0), 0u) << err;
    EXPECT_NE(err.find(c.expect), std::string::npos) << err;
  }
  // every channel needs a drive once one has
  const std::string err = model_file_error(
      replace_once(base, "{name: motor, drive: {type: motor, joint: pivot, limit: 3}}",
                   "{name: motor}"),
      "m.yaml");
  EXPECT_NE(err.find("key 'inputs.channels[2].drive': missing"), std::string::npos) << err;
}

// arm6.yaml: with the coupling target held at a fixed point below and in front of the start,
// the damped arm comes to rest; at rest f(q, 0) = G^T lambda must have a solution (the
// coupling spring, gravity and the flange load balanced by the joints).
TEST(SpatialChannelsFile, Arm6TipCouplingSettlesInStaticEquilibrium) {
  const ModelFile f = load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/arm6.yaml");
  ASSERT_EQ(f.inputs.size(), 3u);
  EXPECT_EQ(f.inputs[0].name, "target_x");
  EXPECT_NEAR(f.inputs[0].config.initial_value, 1.2, 1e-9);
  EXPECT_NEAR(f.inputs[2].config.initial_value, 0.3, 1e-9);
  const Model model(make_system(f), f.settings);
  const auto& sys = dynamic_cast<const SpatialMultibody&>(model.system());
  const Eigen::Vector3d target(0.8, 0.3, 0.1);
  const std::vector<double> u = {target.x(), target.y(), target.z()};
  Workspace ws(model);
  set_inputs(ws, u);
  State s = initial_state(model);
  const int steps = 20000;  // 20 s at dt = 1 ms
  for (int i = 0; i < steps; ++i) ASSERT_TRUE(step(model, s, ws).ok()) << "step " << i;
  Vec f0(sys.n_v());
  const Vec zero = Vec::Zero(sys.n_v());
  sys.forces(s.t, s.q, zero, u, f0);
  Mat G(sys.n_lambda(), sys.n_v());
  sys.jacobian(s.t, s.q, G);
  const Vec lambda = G.transpose().colPivHouseholderQr().solve(f0);
  const double residual = (f0 - G.transpose() * lambda).lpNorm<Eigen::Infinity>();
  const Eigen::Vector3d tip = sys.point_position(5, Eigen::Vector3d(0.05, 0.0, 0.0), s.q);
  const Eigen::Vector3d F = sys.coupling_force(8, s.q, s.v, u);  // forces[8]: tip
  std::printf(
      "arm6 after %.1f s: tip (%.6f, %.6f, %.6f), target (%.2f, %.2f, %.2f), "
      "coupling force (%.4f, %.4f, %.4f) N, |v|inf %.3e, equilibrium residual %.3e "
      "(|f|inf %.3f)\n",
      s.t, tip.x(), tip.y(), tip.z(), target.x(), target.y(), target.z(), F.x(), F.y(), F.z(),
      s.v.lpNorm<Eigen::Infinity>(), residual, f0.lpNorm<Eigen::Infinity>());
  EXPECT_LT(s.v.lpNorm<Eigen::Infinity>(), 1e-4);
  EXPECT_LT(residual, 1e-4 * f0.lpNorm<Eigen::Infinity>());
  // the spring holds the arm up (pulls the tip upwards) and the tip went towards the target
  EXPECT_GT(F.z(), 0.0);
  EXPECT_LT((tip - target).norm(), (Eigen::Vector3d(1.2, 0.0, 0.3) - target).norm());
}

}  // namespace
}  // namespace rtmb
