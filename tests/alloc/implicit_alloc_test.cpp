// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The step contract for the implicit index-3 methods (engine/implicit, issue 5 acceptance 6):
// after setup, Newton iterations, factorizations, the finite-difference fallback of the iteration
// matrix and the re-initialization on a state reset allocate nothing. Counted by the malloc-family
// interposer (tests/support/alloc_counter.cpp).
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <tuple>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/without_iteration_blocks.hpp"

namespace rtmb {
namespace {

using testing::AllocationCounts;
using testing::AllocationScope;

constexpr long kImplicitSteps = 2'000;

const char* const kMechanismNames[] = {"pendulum", "double_pendulum", "slider_crank",
                                       "andrews",  "robot_parabola",  "robot_sine",
                                       "chain"};

struct MethodCase {
  Method method;
  int option;
  bool modified;
  const char* label;
};

const MethodCase kMethods[] = {
    {Method::kMidpoint, 1, false, "midpoint_opt1"},
    {Method::kMidpoint, 2, false, "midpoint_opt2"},
    {Method::kMidpoint, 3, false, "midpoint_opt3"},
    {Method::kMidpoint, 4, false, "midpoint_opt4"},
    {Method::kMidpoint, 2, true, "midpoint_modified"},
    {Method::kNewmark, 2, false, "newmark"},
    {Method::kHht, 2, false, "hht"},
    {Method::kWbz, 2, false, "wbz"},
    {Method::kGenAlpha, 2, false, "genalpha"},
    {Method::kGsssss, 2, false, "gsssss_v0_08"},
    {Method::kGgl, 2, false, "ggl"},
};

using ImplicitCombo = std::tuple<int, int>;

class ImplicitStepAllocations : public ::testing::TestWithParam<ImplicitCombo> {};

TEST_P(ImplicitStepAllocations, StepsAllocateNothing) {
  const auto [mech_index, method_index] = GetParam();
  const MethodCase& mc = kMethods[method_index];
  const MechanismInfo* info = find_mechanism(kMechanismNames[mech_index]);
  ASSERT_NE(info, nullptr);
  Settings settings;
  settings.method = mc.method;
  settings.stabilizer = StabilizerKind::kNone;
  settings.dt = info->default_dt;
  settings.implicit.option = mc.option;
  settings.implicit.modified_newton = mc.modified;
  settings.implicit.family = GsssssFamily::kV0;
  settings.implicit.rho1 = settings.implicit.rho2 = settings.implicit.rho3 = 0.8;
  const Model model(make_mechanism(info->name), settings);
  Workspace ws(model);
  State s = initial_state(model);
  const State s0 = s;
  for (int i = 0; i < 5; ++i) (void)step(model, s, ws);

  AllocationCounts counts;
  long iterations = 0;
  {
    AllocationScope scope;
    for (long i = 0; i < kImplicitSteps; ++i) {
      if (i == kImplicitSteps / 2) s = s0;  // reset: re-initializes a_n, lambda_n inside the step
      const StepStatus st = step(model, s, ws);
      iterations += st.newton_iterations;
    }
    counts = scope.counts();
  }
  EXPECT_GT(iterations, kImplicitSteps);  // Newton really ran
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    AllCombinations,
    ImplicitStepAllocations,
    ::testing::Combine(::testing::Range(0, static_cast<int>(std::size(kMechanismNames))),
                       ::testing::Range(0, static_cast<int>(std::size(kMethods)))),
    [](const ::testing::TestParamInfo<ImplicitCombo>& p) {
      return std::string(kMechanismNames[std::get<0>(p.param)]) + "_" +
             kMethods[std::get<1>(p.param)].label;
    });

TEST(ImplicitStepAllocationsFd, FiniteDifferenceFallbackAllocatesNothing) {
  // the mechanisms all provide analytic blocks; hide them to exercise the FD fallback
  for (Method method : {Method::kMidpoint, Method::kGgl}) {
    Settings settings;
    settings.method = method;
    settings.stabilizer = StabilizerKind::kNone;
    settings.dt = 5e-5;
    const Model model(std::make_shared<testing::WithoutIterationBlocks>(make_mechanism("andrews")),
                      settings);
    Workspace ws(model);
    State s = initial_state(model);
    (void)step(model, s, ws);
    AllocationCounts counts;
    long iterations = 0;
    {
      AllocationScope scope;
      for (long i = 0; i < kImplicitSteps; ++i) iterations += step(model, s, ws).newton_iterations;
      counts = scope.counts();
    }
    EXPECT_GT(iterations, kImplicitSteps);
    EXPECT_EQ(counts.allocations, 0u) << to_string(method);
    EXPECT_EQ(counts.deallocations, 0u) << to_string(method);
  }
}

}  // namespace
}  // namespace rtmb
