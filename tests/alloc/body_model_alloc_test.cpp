// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Compiled body models (rtmb/models/planar_multibody.hpp) keep the step contract: after
// construction neither the System's evaluations nor a step allocate. Counted by the malloc-family
// interposer over 10 000 steps of each body-model example file for every fixed-step method x
// stabilizer, and around direct calls of every System evaluation.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/param_names.hpp"
#include "tests/support/reference_mechanisms.hpp"
#include "tests/support/step_allocations.hpp"

namespace rtmb {
namespace {

const char* const kFiles[] = {"pendulum_body.yaml", "slider_crank_body.yaml", "four_bar.yaml"};

class BodyModelStepAllocations : public ::testing::TestWithParam<testing::FileCombo> {};

TEST_P(BodyModelStepAllocations, TenThousandStepsAllocateNothing) {
  EXPECT_TRUE(testing::config_steps_without_heap(kFiles, GetParam(), 10'000, true));
}

INSTANTIATE_TEST_SUITE_P(Files,
                         BodyModelStepAllocations,
                         ::testing::Combine(::testing::Range(0,
                                                             static_cast<int>(std::size(kFiles))),
                                            ::testing::ValuesIn(testing::kRungeKuttaMethods),
                                            ::testing::ValuesIn(testing::kReferenceStabilizers)),
                         testing::FileComboName{kFiles});

TEST(BodyModelAllocations, EveryEvaluationAllocatesNothing) {
  for (const char* file : kFiles) {
    const testing::EvaluationAllocations run =
        testing::count_evaluation_allocations(*testing::load_config_system(file));
    EXPECT_EQ(run.counts.allocations, 0u) << file;
    EXPECT_TRUE(std::isfinite(run.sum));
  }
}

TEST(BodyModelAllocations, CounterSeesTheLoaderAllocate) {
  // negative control: loading and compiling a model (planar and spatial) must allocate, and the
  // counter must see it
  for (const char* file : {"four_bar.yaml", "spatial_four_bar.yaml"}) {
    const testing::AllocationCounts counts =
        testing::count_allocations([file] { (void)testing::load_config_system(file); });
    EXPECT_GT(counts.allocations, 10u) << file;
  }
}

}  // namespace
}  // namespace rtmb
