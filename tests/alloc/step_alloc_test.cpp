// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The step contract: after setup, a step never allocates. Counted by the malloc-family
// interposer (tests/support/alloc_counter.cpp) over 10 000 steps for every fixed-step method x
// stabilizer x reference mechanism, and over the adaptive DOPRI5 driver.
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "rtmb/adaptive_dopri5.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/param_names.hpp"
#include "tests/support/reference_mechanisms.hpp"
#include "tests/support/step_allocations.hpp"

namespace rtmb {

// readable parameters in test listings (GoogleTest finds these by argument-dependent lookup)
void PrintTo(Method m, std::ostream* os) {
  *os << to_string(m);
}
void PrintTo(StabilizerKind k, std::ostream* os) {
  *os << to_string(k);
}

namespace {

using testing::AllocationCounts;
using testing::AllocationScope;

constexpr long kStepCount = 10'000;
constexpr long kWarmUp = 10;

const std::vector<testing::MechanismCase> kMechanisms = testing::reference_mechanisms(6);

using StepCombo = std::tuple<int, Method, StabilizerKind>;

class StepAllocations : public ::testing::TestWithParam<StepCombo> {};

TEST_P(StepAllocations, TenThousandStepsAllocateNothing) {
  const auto [mech_index, method, stabilizer] = GetParam();
  const testing::MechanismCase& mc = kMechanisms[mech_index];
  const MechanismInfo* info = find_mechanism(mc.name);
  ASSERT_NE(info, nullptr);

  const Model model(make_mechanism(mc.name, mc.options),
                    testing::step_allocation_settings(method, stabilizer, info->default_dt));
  const testing::StepAllocationCounts run =
      testing::count_step_allocations(model, kWarmUp, kStepCount);
  EXPECT_EQ(run.counts.allocations, 0u);
  EXPECT_EQ(run.counts.deallocations, 0u);
  RecordProperty("flagged_steps", std::to_string(run.flagged));
}

INSTANTIATE_TEST_SUITE_P(
    AllCombinations,
    StepAllocations,
    ::testing::Combine(::testing::Range(0, static_cast<int>(kMechanisms.size())),
                       ::testing::ValuesIn(testing::kRungeKuttaMethods),
                       ::testing::ValuesIn(testing::kReferenceStabilizers)),
    [](const ::testing::TestParamInfo<StepCombo>& param_info) {
      return testing::param_name({kMechanisms[std::get<0>(param_info.param)].label,
                                  to_string(std::get<1>(param_info.param)),
                                  to_string(std::get<2>(param_info.param))});
    });

// The matrix above runs svf with its default direction S = G^T (G G^T)^-1; the other one,
// S = G^T (Chin eq. 2.50), on every reference mechanism with RK4.
TEST(StepAllocations, SvfTransposeDirectionAllocatesNothing) {
  for (const testing::MechanismCase& mc : kMechanisms) {
    const MechanismInfo* info = find_mechanism(mc.name);
    ASSERT_NE(info, nullptr);
    Settings settings =
        testing::step_allocation_settings(Method::kRk4, StabilizerKind::kSvf, info->default_dt);
    settings.svf_variant = SvfVariant::kGt;
    const Model model(make_mechanism(mc.name, mc.options), settings);
    const testing::StepAllocationCounts run = testing::count_step_allocations(model, kWarmUp, 1000);
    EXPECT_EQ(run.counts.allocations, 0u) << mc.label;
    EXPECT_EQ(run.counts.deallocations, 0u) << mc.label;
  }
}

TEST(StepAllocations, CounterSeesSetupAllocationsInThisExecutable) {
  // negative control: the same counter, around setup code that must allocate
  AllocationCounts counts;
  {
    AllocationScope scope;
    const Model model(make_mechanism("andrews"), Settings{});
    Workspace ws(model);
    counts = scope.counts();
  }
  EXPECT_GT(counts.allocations, 10u);
}

TEST(AdaptiveAllocations, Dopri5StepsAllocateNothing) {
  for (StabilizerKind stabilizer :
       {StabilizerKind::kPStab, StabilizerKind::kBaumgarte, StabilizerKind::kSvf}) {
    Settings settings;
    settings.method = Method::kDopri5;
    settings.stabilizer = stabilizer;
    settings.gamma1 = 20.0;
    settings.gamma2 = 100.0;
    settings.gamma = 10.0;  // svf
    const Model model(make_mechanism("andrews"), settings);
    AdaptiveOptions options;
    options.rtol = 1e-7;
    AdaptiveDopri5 dopri(model, options);
    State s = initial_state(model);
    StepStatus st;
    ASSERT_TRUE(dopri.step(s, 0.3, st));  // first call: f(y0) and HINIT

    AllocationCounts counts;
    long accepted = 0;
    {
      AllocationScope scope;
      while (dopri.step(s, 0.3, st)) ++accepted;
      counts = scope.counts();
    }
    EXPECT_GT(accepted, 1000);
    EXPECT_EQ(counts.allocations, 0u) << to_string(stabilizer);
    EXPECT_EQ(counts.deallocations, 0u) << to_string(stabilizer);
  }
}

}  // namespace
}  // namespace rtmb
