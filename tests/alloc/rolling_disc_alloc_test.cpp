// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Issue 16, acceptance 5 (nonholonomic part): zero allocations per step on the rolling disc
// (engine/mechanisms/rolling_disc.cpp), the model whose every constraint row is nonholonomic
// (rtmb/system.hpp), for every explicit method x every stabilizer, at the mechanism's default step
// from its upright start (1000 steps stay before the disc falls flat at 1.7 s). The implicit
// methods refuse such a system at setup (they enforce position constraints only): the test
// requires exactly those refusals, and that each combination that ran stayed unflagged.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/step_allocations.hpp"

namespace rtmb {
namespace {

constexpr long kDiscSteps = testing::kCountsViaSanitizerHooks ? 50 : 1000;

TEST(RollingDiscAllocations, EveryExplicitMethodAndStabilizerAllocatesNothing) {
  const std::shared_ptr<const System> sys = make_mechanism("rolling_disc");
  const MechanismInfo* info = find_mechanism("rolling_disc");
  ASSERT_NE(info, nullptr);
  const testing::StepAllocationSweep sweep = testing::sweep_step_allocations(
      sys, info->default_dt, kDiscSteps, "rolling_disc",
      [&](Method method, StabilizerKind stabilizer, const testing::StepAllocationCounts& run) {
        const std::string combo =
            std::string(to_string(method)) + " + " + std::string(to_string(stabilizer));
        EXPECT_EQ(run.counts.allocations, 0u) << combo;
        EXPECT_EQ(run.counts.deallocations, 0u) << combo;
        EXPECT_EQ(run.flagged, 0) << combo;
      });
  int implicit_methods = 0;
  for (Method m : testing::all_methods()) implicit_methods += is_implicit(m) ? 1 : 0;
  std::printf("rolling_disc: %d method x stabilizer runs of %ld steps, %d refused at setup\n",
              sweep.ran, kDiscSteps, sweep.refused);
  EXPECT_EQ(sweep.refused, implicit_methods);
  EXPECT_EQ(sweep.ran, static_cast<int>((testing::all_methods().size() - implicit_methods) *
                                        testing::all_stabilizers().size()));
}

}  // namespace
}  // namespace rtmb
