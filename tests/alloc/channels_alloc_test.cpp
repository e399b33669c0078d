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
#include "tests/support/param_names.hpp"
#include "tests/support/text_files.hpp"

namespace rtmb {
namespace {

class ChannelTickAllocations : public ::testing::TestWithParam<Method> {};

TEST_P(ChannelTickAllocations, RunnerTicksAllocateNothing) {
  ModelFile file = testing::channel_rig_file(
      testing::read_text(std::string(RTMB_SOURCE_DIR) + "/tests/alloc/data/five_bar_rig.yaml"),
      "rig.yaml", GetParam());
  file.settings.dt = 5e-4;
  const Model model(std::shared_ptr<const System>(make_system(file)), file.settings);
  testing::ChannelTickRig rig(file, model);
  ASSERT_EQ(rig.outputs->count(), 30);
  const double values[6] = {0.02, -0.01, 0.005, 0.152, 0.1, 0.003};
  EXPECT_TRUE(testing::ticked_without_heap(rig.warm_up_and_count(20, 1020, values)));
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
                         testing::method_param_name);

}  // namespace
}  // namespace rtmb
