// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// configs/five_bar.yaml, the five-bar haptic pantograph (issue 4): it loads and assembles, holds
// its constraints over 1000 steps, its handle output matches the forward kinematics computed
// here (intersection of the two distal-link circles around the elbows), and motor torques move
// it the way statics says: at rest the coupling force F on the handle balances the motor
// torques through the Jacobian transpose, tau + J^T F = 0 (virtual work), with J = dE/dtheta
// taken here by central differences of the closed-form kinematics.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "rtmb/models/model_file.hpp"
#include "rtmb/runtime/input_channels.hpp"
#include "rtmb/runtime/simulation_runner.hpp"
#include "rtmb/step.hpp"

namespace rtmb {
namespace {

using Vec2 = Eigen::Vector2d;

constexpr double kBase = 0.025;  // motors at (-kBase, 0), (kBase, 0)
constexpr double kL1 = 0.10;     // crank
constexpr double kL2 = 0.12;     // distal link

ModelFile five_bar() {
  return load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/five_bar.yaml");
}

// Handle position from the motor angles: elbows P1, P2 on the crank circles, the handle the
// upper intersection of the circles of radius L2 around them.
Vec2 forward_kinematics(double th1, double th2) {
  const Vec2 p1(-kBase + kL1 * std::cos(th1), kL1 * std::sin(th1));
  const Vec2 p2(kBase + kL1 * std::cos(th2), kL1 * std::sin(th2));
  const Vec2 d = p2 - p1;
  const double dist = d.norm();
  const double h = std::sqrt(kL2 * kL2 - dist * dist / 4.0);
  const Vec2 mid = 0.5 * (p1 + p2);
  const Vec2 n(-d.y() / dist, d.x() / dist);  // left normal of p1 -> p2: upwards here
  return mid + h * n;
}

Eigen::Matrix2d fk_jacobian(double th1, double th2) {
  constexpr double e = 1e-7;
  Eigen::Matrix2d J;
  J.col(0) = (forward_kinematics(th1 + e, th2) - forward_kinematics(th1 - e, th2)) / (2 * e);
  J.col(1) = (forward_kinematics(th1, th2 + e) - forward_kinematics(th1, th2 - e)) / (2 * e);
  return J;
}

struct Rig {
  explicit Rig(const ModelFile& f)
      : file(f),
        sys(make_system(file)),
        model(sys, file.settings),
        ws(model),
        s(initial_state(model)),
        outputs(make_output_evaluator(file, model.system())) {}
  void run(int steps, StepStatus& worst) {
    for (int i = 0; i < steps; ++i) {
      const StepStatus st = step(model, s, ws);
      ASSERT_TRUE(st.ok()) << i;
      worst.position_drift = std::max(worst.position_drift, st.position_drift);
    }
  }
  std::array<double, 64> eval() {
    std::array<double, 64> o{};
    outputs->evaluate(s, ws, o);
    return o;
  }
  ModelFile file;
  std::shared_ptr<const System> sys;
  Model model;
  Workspace ws;
  State s;
  std::unique_ptr<OutputEvaluator> outputs;
};

// output layout of configs/five_bar.yaml (indices of the named outputs)
enum Output : int {
  kHandleX = 0,
  kHandleY = 1,
  kMotorL = 4,
  kMotorR = 5,
  kForceX = 6,
  kForceY = 7,
  kDrift = 8,
};

TEST(FiveBar, LoadsWithNamedChannels) {
  const ModelFile f = five_bar();
  ASSERT_TRUE(f.bodies);
  EXPECT_EQ(f.bodies->bodies.size(), 4u);
  ASSERT_EQ(f.inputs.size(), 4u);
  EXPECT_EQ(f.inputs[0].name, "motor_l");
  EXPECT_EQ(f.inputs[2].name, "target_x");
  EXPECT_EQ(f.inputs[2].config.kind, InputKind::kPosition);
  EXPECT_EQ(f.inputs[0].config.kind, InputKind::kTorque);
  // the coupling target starts at the assembled handle position (0, 0.15)
  // (to the 1e-6 of the poses in the file)
  EXPECT_NEAR(f.inputs[2].config.initial_value, 0.0, 1e-5);
  EXPECT_NEAR(f.inputs[3].config.initial_value, 0.15, 1e-5);
  const auto channels = output_channels(f.outputs);
  ASSERT_EQ(channels.size(), 10u);
  EXPECT_EQ(channels[0].first, "handle.x");
  EXPECT_EQ(channels[0].second, "m");
  EXPECT_EQ(channels[3].first, "handle_velocity.vy");
  EXPECT_EQ(channels[4].first, "motor_l_angle");
  EXPECT_EQ(channels[4].second, "rad");
  EXPECT_EQ(channels[6].first, "coupling_force.fx");
  EXPECT_EQ(channels[6].second, "N");
  EXPECT_EQ(channels[9].first, "energy");
  EXPECT_EQ(channels[9].second, "J");
}

TEST(FiveBar, ThousandStepsHoldTheConstraintsAndTheHandleFollowsKinematics) {
  Rig rig(five_bar());
  set_inputs(rig.ws, std::vector<double>{0.02, -0.01, 0.01, 0.16});
  StepStatus worst;
  double max_fk_error = 0.0;
  for (int block = 0; block < 10; ++block) {
    rig.run(100, worst);
    const auto o = rig.eval();
    const Vec2 fk = forward_kinematics(o[kMotorL], o[kMotorR]);
    max_fk_error = std::max(max_fk_error, (fk - Vec2(o[kHandleX], o[kHandleY])).norm());
    EXPECT_LE(o[kDrift], 1e-10);
  }
  const auto o = rig.eval();
  std::printf("1000 steps: max ||g||inf %.2e, max |handle - FK| %.2e, handle (%.6f, %.6f)\n",
              worst.position_drift, max_fk_error, o[kHandleX], o[kHandleY]);
  EXPECT_LE(worst.position_drift, 1e-10);
  EXPECT_LT(max_fk_error, 1e-9);
  EXPECT_GT(std::abs(o[kHandleX]) + std::abs(o[kHandleY] - 0.15), 1e-3);  // it moved (mm)
}

TEST(FiveBar, MotorTorquesBalanceTheCouplingThroughTheJacobianTranspose) {
  Rig rig(five_bar());
  // target where the handle starts; hold the motor torques until everything is at rest
  const Eigen::Vector2d tau(0.05, -0.03);
  const Vec2 start(rig.file.inputs[2].config.initial_value,
                   rig.file.inputs[3].config.initial_value);
  set_inputs(rig.ws, std::vector<double>{tau.x(), tau.y(), start.x(), start.y()});
  StepStatus worst;
  rig.run(20000, worst);  // 10 s at dt = 0.5 ms; the coupling's damper brings it to rest
  const auto o = rig.eval();
  const Eigen::Matrix2d J = fk_jacobian(o[kMotorL], o[kMotorR]);
  const Vec2 F(o[kForceX], o[kForceY]);
  const Vec2 residual = tau + J.transpose() * F;
  // the handle moved the way the torques push it: to first order E - E0 = J^-T tau / k
  const Vec2 moved = Vec2(o[kHandleX], o[kHandleY]) - start;
  const Vec2 predicted = J.transpose().inverse() * tau / 500.0;
  std::printf(
      "at rest: |v| %.2e, F (%.6f, %.6f) N, |tau + J^T F| %.2e, handle moved (%.6f, "
      "%.6f), J^-T tau / k (%.6f, %.6f)\n",
      rig.s.v.norm(), F.x(), F.y(), residual.norm(), moved.x(), moved.y(), predicted.x(),
      predicted.y());
  EXPECT_LT(rig.s.v.norm(), 1e-8);
  EXPECT_LT(residual.norm(), 1e-7 * tau.norm() + 1e-9);
  EXPECT_GT(moved.dot(predicted), 0.9 * moved.norm() * predicted.norm());
  EXPECT_NEAR(moved.norm(), predicted.norm(), 0.2 * predicted.norm());
}

TEST(FiveBar, RunnerRoutesNamedChannelsAndAHaltZeroesOnlyTheTorques) {
  const ModelFile f = five_bar();
  const auto sys = std::shared_ptr<const System>(make_system(f));
  const auto* body_model = dynamic_cast<const PlanarMultibody*>(sys.get());
  ASSERT_NE(body_model, nullptr);
  const Model model(sys, f.settings);
  Workspace ws(model);
  State state = initial_state(model);
  auto ring = std::make_unique<InputRing>();
  auto slot = std::make_unique<SnapshotSlot>();
  SimulationRunner runner(model, state, ws, *ring, *slot);
  std::vector<InputChannelConfig> configs;
  for (const InputChannelSpec& c : f.inputs) configs.push_back(c.config);
  InputBankConfig bank_config;
  bank_config.period_ns = runner.period_ns();
  InputChannelBank bank(configs, bank_config);
  runner.set_input_bank(&bank);
  const double sent[4] = {0.1, -0.2, 0.01, 0.14};
  for (std::uint32_t c = 0; c < 4; ++c) {
    QueuedInput q;
    q.channel = c;
    q.value = sent[c];
    ASSERT_TRUE(ring->try_push(q));
  }
  Tick t;
  ASSERT_TRUE(runner.on_tick(t));
  // channel i went to the System's input i, held in the Workspace (input_values) (the motor limit
  // of 0.5 does not bind here)
  for (std::size_t c = 0; c < 4; ++c) EXPECT_EQ(input_values(ws)[c], sent[c]) << c;
  EXPECT_EQ(applied_force(ws).norm(), 0.0);  // not the generalized-force path
  runner.halt_inputs();
  EXPECT_EQ(input_values(ws)[0], 0.0);
  EXPECT_EQ(input_values(ws)[1], 0.0);
  EXPECT_EQ(input_values(ws)[2], 0.01);  // targets hold
  EXPECT_EQ(input_values(ws)[3], 0.14);
  runner.reset_inputs();  // back to the start: target where the handle started
  EXPECT_EQ(input_values(ws)[3], f.inputs[3].config.initial_value);
}

}  // namespace
}  // namespace rtmb
