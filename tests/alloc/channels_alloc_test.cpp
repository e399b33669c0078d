// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Named input and output channels keep the step contract (issue 4): with input channels of every
// binding kind (force, torque, motor, coupling target) and output channels of every kind, the
// runner's tick path (drain the input ring, bank policies, set_inputs(ws, u), the engine steps,
// the outputs with their KKT solves for reactions and the coupling linearization, the haptic
// force filter, publish; a unilateral wall element in the model) allocates nothing, for an explicit
// RK, an Adams, the ODE midpoint and two implicit index-3 methods (whose Newton matrix takes
// finite differences of the channel-driven forces).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "rtmb/models/model_file.hpp"
#include "rtmb/runtime/input_channels.hpp"
#include "rtmb/runtime/simulation_runner.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/channel_tick_rig.hpp"

namespace rtmb {
namespace {

// The five-bar plus a force and a torque channel, and one output of every kind.
std::string rig_text() {
  return R"(name: rig
bodies:
  - {name: crank_l, mass: 0.03, inertia: 2.5e-5, pose: [-0.058803, 0.036842, 2.313203]}
  - {name: crank_r, mass: 0.03, inertia: 2.5e-5, pose: [0.058803, 0.036842, 0.828390]}
  - {name: distal_l, mass: 0.04, inertia: 4.8e-5, pose: [-0.046303, 0.111842, 0.689256]}
  - {name: distal_r, mass: 0.04, inertia: 4.8e-5, pose: [0.046303, 0.111842, 2.452336]}
joints:
  - {name: motor_l, type: revolute, body_i: ground, body_j: crank_l, point_i: [-0.025, 0], point_j: [-0.05, 0]}
  - {name: motor_r, type: revolute, body_i: ground, body_j: crank_r, point_i: [0.025, 0], point_j: [-0.05, 0]}
  - {name: elbow_l, type: revolute, body_i: crank_l, body_j: distal_l, point_i: [0.05, 0], point_j: [-0.06, 0]}
  - {name: elbow_r, type: revolute, body_i: crank_r, body_j: distal_r, point_i: [0.05, 0], point_j: [-0.06, 0]}
  - {name: handle, type: revolute, body_i: distal_l, body_j: distal_r, point_i: [0.06, 0], point_j: [0.06, 0]}
forces:
  - name: coupling
    type: coupling
    body: distal_l
    point: [0.06, 0]
    stiffness: 500
    damping: 2
    safety: {max_force: 5, max_rate: 2000, engage_force: 1, engage_ramp: 0.05, passivity: true,
             max_damping: 10}
  - {name: stop, type: wall, body: distal_r, origin: [0, 0.16], normal: [0, -1], stiffness: 5000,
     damping: 2}
inputs:
  channels:
    - {name: motor_l, drive: {type: motor, joint: motor_l, limit: 0.5}}
    - {name: motor_r, drive: {type: motor, joint: motor_r}}
    - {name: target_x, drive: {type: coupling, element: coupling, axis: x}}
    - {name: target_y, drive: {type: coupling, element: coupling, axis: y}}
    - {name: push, drive: {type: force, body: distal_r, point: [0.02, 0], direction: [1, 1]}}
    - {name: twist, drive: {type: torque, body: crank_r}}
outputs:
  channels:
    - {name: a, kind: pose, body: crank_l}
    - {name: b, kind: velocity, body: crank_l}
    - {name: c, kind: point_position, body: distal_l, point: [0.06, 0]}
    - {name: d, kind: point_velocity, body: distal_l, point: [0.06, 0]}
    - {name: e, kind: joint_position, joint: motor_l}
    - {name: f, kind: joint_velocity, joint: motor_r}
    - {name: g, kind: reaction, joint: handle}
    - {name: h, kind: coupling_force, element: coupling}
    - {name: i, kind: position_drift}
    - {name: j, kind: velocity_drift}
    - {name: k, kind: energy}
    - {name: l, kind: haptic_force, element: coupling}
    - {name: m, kind: coupling_linearization, element: coupling}
)";
}

class ChannelTickAllocations : public ::testing::TestWithParam<Method> {};

TEST_P(ChannelTickAllocations, RunnerTicksAllocateNothing) {
  ModelFile file = parse_model_file(rig_text(), "rig.yaml");
  file.settings.method = GetParam();
  file.settings.dt = 5e-4;
  file.settings.stabilizer =
      is_implicit(GetParam()) ? StabilizerKind::kNone : StabilizerKind::kPStab;
  const Model model(std::shared_ptr<const System>(make_system(file)), file.settings);
  testing::ChannelTickRig rig(file, model);
  ASSERT_EQ(rig.outputs->count(), 30);
  const double values[6] = {0.02, -0.01, 0.005, 0.152, 0.1, 0.003};
  for (std::int64_t k = 0; k < 20; ++k)
    ASSERT_TRUE(rig.tick(k, values));  // warm-up outside the count
  const testing::ChannelTickRig::Counted run = rig.count_ticks(20, 1020, values);
  EXPECT_TRUE(run.ok);
  EXPECT_EQ(run.counts.allocations, 0u);
  EXPECT_EQ(run.counts.deallocations, 0u);
  // the run did what it should: the channels acted and the outputs were published
  StateSnapshot s;
  ASSERT_TRUE(rig.snapshots->try_read(s));
  EXPECT_EQ(s.n_outputs, 30);
  EXPECT_EQ(s.step, 2040);
  EXPECT_LT(s.outputs[17], 1e-8);  // position drift
  EXPECT_GT(std::abs(s.outputs[0] - file.bodies->bodies[0].pose.x()), 1e-5);
  // the haptic filter ran (engaged, a finite force within its clamp) and the linearization is
  // a positive semi-definite inverse mass
  EXPECT_TRUE(std::isfinite(s.outputs[20]) && std::isfinite(s.outputs[21]));
  EXPECT_LE(std::hypot(s.outputs[20], s.outputs[21]), 5.0 + 1e-12);
  EXPECT_GT(s.outputs[25], 0.0);
  EXPECT_GE(s.outputs[25] * s.outputs[27] - s.outputs[26] * s.outputs[26], -1e-9);
}

INSTANTIATE_TEST_SUITE_P(Families,
                         ChannelTickAllocations,
                         ::testing::Values(Method::kRk4,
                                           Method::kMampc4,
                                           Method::kOdeMidpoint,
                                           Method::kMidpoint,
                                           Method::kGenAlpha),
                         [](const ::testing::TestParamInfo<Method>& p) {
                           std::string n(to_string(p.param));
                           for (char& ch : n) {
                             if (ch == '-') ch = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace rtmb
