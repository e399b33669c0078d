// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Named channels of spatial models keep the step contract (issue 4): configs/arm6.yaml with its
// three coupling-target channels plus a force, a torque and a motor channel, and one output of
// every spatial kind; the runner's tick path (input ring, bank, set_inputs(ws, u), steps, outputs,
// publish) allocates nothing, for RK4 and an implicit method (finite differences of the
// channel-driven forces in its Newton matrix).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
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

// arm6.yaml with its inputs and outputs replaced by more of them
std::string rig_text() {
  std::ifstream in(std::string(RTMB_SOURCE_DIR) + "/configs/arm6.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  s = s.substr(0, s.find("\ninputs:"));
  return s + R"(
inputs:
  channels:
    - {name: target_x, drive: {type: coupling, element: tip, axis: x}}
    - {name: target_y, drive: {type: coupling, element: tip, axis: y}}
    - {name: target_z, drive: {type: coupling, element: tip, axis: z}}
    - {name: push, drive: {type: force, body: forearm, point: [0.1, 0, 0], direction: [0, 1, 1]}}
    - {name: twist, drive: {type: torque, body: upperarm, axis: z}}
    - {name: motor, drive: {type: motor, joint: elbow, limit: 5}}
outputs:
  channels:
    - {name: a, kind: position, body: flange}
    - {name: b, kind: orientation, body: flange}
    - {name: c, kind: velocity, body: flange}
    - {name: d, kind: angular_velocity, body: flange}
    - {name: e, kind: point_position, body: flange, point: [0.05, 0, 0]}
    - {name: f, kind: point_velocity, body: flange, point: [0.05, 0, 0]}
    - {name: g, kind: joint_position, joint: elbow}
    - {name: h, kind: joint_velocity, joint: elbow}
    - {name: i, kind: coupling_force, element: tip}
    - {name: j, kind: position_drift}
    - {name: k, kind: velocity_drift}
    - {name: l, kind: energy}
)";
}

class SpatialChannelTickAllocations : public ::testing::TestWithParam<Method> {};

TEST_P(SpatialChannelTickAllocations, RunnerTicksAllocateNothing) {
  ModelFile file = parse_model_file(rig_text(), "arm6_rig.yaml");
  file.settings.method = GetParam();
  file.settings.stabilizer =
      is_implicit(GetParam()) ? StabilizerKind::kNone : StabilizerKind::kPStab;
  const Model model(std::shared_ptr<const System>(make_system(file)), file.settings);
  ASSERT_EQ(model.system().n_inputs(), 6);
  testing::ChannelTickRig rig(file, model);
  ASSERT_TRUE(rig.outputs);
  ASSERT_EQ(rig.outputs->count(), 3 + 4 + 3 + 3 + 3 + 3 + 1 + 1 + 3 + 1 + 1 + 1);
  const double values[6] = {1.0, 0.2, 0.2, 0.5, 0.1, 0.3};
  for (std::int64_t k = 0; k < 20; ++k)
    ASSERT_TRUE(rig.tick(k, values));  // warm-up outside the count
  const testing::ChannelTickRig::Counted run = rig.count_ticks(20, 520, values);
  EXPECT_TRUE(run.ok);
  EXPECT_EQ(run.counts.allocations, 0u);
  EXPECT_EQ(run.counts.deallocations, 0u);
  StateSnapshot s;
  ASSERT_TRUE(rig.snapshots->try_read(s));
  EXPECT_EQ(s.n_outputs, rig.outputs->count());
  EXPECT_EQ(s.step, 1040);
  EXPECT_TRUE(std::isfinite(s.outputs[26]));  // energy (l)
  // the channels acted: the tip left its start (1.2, 0, 0.3) towards y > 0
  EXPECT_GT(s.outputs[14], 1e-3);  // e.y: the tip point's y
}

INSTANTIATE_TEST_SUITE_P(Families,
                         SpatialChannelTickAllocations,
                         ::testing::Values(Method::kRk4, Method::kMidpoint),
                         [](const ::testing::TestParamInfo<Method>& p) {
                           std::string n(to_string(p.param));
                           for (char& ch : n) {
                             if (ch == '-') ch = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace rtmb
