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

// arm6.yaml with its inputs and outputs replaced by more of them
std::string rig_text() {
  const std::string arm6 = testing::read_text(std::string(RTMB_SOURCE_DIR) + "/configs/arm6.yaml");
  return arm6.substr(0, arm6.find("\ninputs:")) + "\n" +
         testing::read_text(std::string(RTMB_SOURCE_DIR) +
                            "/tests/alloc/data/arm6_rig_channels.yaml");
}

class SpatialChannelTickAllocations : public ::testing::TestWithParam<Method> {};

TEST_P(SpatialChannelTickAllocations, RunnerTicksAllocateNothing) {
  const ModelFile file = testing::channel_rig_file(rig_text(), "arm6_rig.yaml", GetParam());
  const Model model(std::shared_ptr<const System>(make_system(file)), file.settings);
  ASSERT_EQ(model.system().n_inputs(), 6);
  testing::ChannelTickRig rig(file, model);
  ASSERT_TRUE(rig.outputs);
  ASSERT_EQ(rig.outputs->count(), 3 + 4 + 3 + 3 + 3 + 3 + 1 + 1 + 3 + 1 + 1 + 1);
  const double values[6] = {1.0, 0.2, 0.2, 0.5, 0.1, 0.3};
  EXPECT_TRUE(testing::ticked_without_heap(rig.warm_up_and_count(20, 520, values)));
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
                         testing::method_param_name);

}  // namespace
}  // namespace rtmb
