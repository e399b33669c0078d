// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Issue 6 acceptance 6: zero allocations per step for the Adams predictor-correctors (start-up,
// steady state and restart), the implicit midpoint rule, the symmetric and orthogonal
// projections and the direct corrections (both metrics), counted by the malloc-family
// interposer over 2 000 steps per combination.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/param_names.hpp"

namespace rtmb {
namespace {

using testing::AllocationCounts;
using testing::AllocationScope;

constexpr long kCorrectionSteps = 2'000;

struct Case {
  const char* mechanism;
  Method method;
  StabilizerKind stabilizer;
  bool mass_weighted;
};

// Steps the model from its initial state; the counted window starts at step 0, so it covers the
// Adams start-up and the first multistep steps, and a mid-run time reset (history restart).
AllocationCounts count_steps(const Case& c) {
  Settings settings;
  settings.method = c.method;
  settings.stabilizer = c.stabilizer;
  settings.correction_mass_weighted = c.mass_weighted;
  const MechanismInfo* info = find_mechanism(c.mechanism);
  settings.dt = info->default_dt;
  if (c.stabilizer == StabilizerKind::kBaumgarte) {
    settings.gamma1 = 10.0;
    settings.gamma2 = 25.0;
  }
  if (c.stabilizer == StabilizerKind::kSvf) settings.gamma = 10.0;
  const Model model(make_mechanism(c.mechanism), settings);
  Workspace ws(model);
  State s = initial_state(model);
  const State s0 = s;
  AllocationCounts counts;
  {
    AllocationScope scope;
    for (long i = 0; i < kCorrectionSteps; ++i) {
      (void)step(model, s, ws);
      if (i == kCorrectionSteps / 2) s = s0;  // same sizes: copies without allocating; t jumps back
    }
    counts = scope.counts();
  }
  return counts;
}

class CorrectionAllocations : public ::testing::TestWithParam<Case> {};

TEST_P(CorrectionAllocations, StepsAllocateNothing) {
  const AllocationCounts counts = count_steps(GetParam());
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 0u);
}

const Case kCases[] = {
    // Adams methods with every drift control they combine with
    {"slider_crank", Method::kAmpc3, StabilizerKind::kBaumgarte, false},
    {"slider_crank", Method::kAmpc4, StabilizerKind::kBaumgarte, false},
    {"slider_crank", Method::kAmpc5, StabilizerKind::kBaumgarte, false},
    {"slider_crank", Method::kMampc3, StabilizerKind::kBaumgarte, false},
    {"slider_crank", Method::kMampc4, StabilizerKind::kBaumgarte, false},
    {"slider_crank", Method::kMampc5, StabilizerKind::kBaumgarte, false},
    {"andrews", Method::kMampc3, StabilizerKind::kPStab, false},
    {"andrews", Method::kAmpc5, StabilizerKind::kNone, false},
    {"double_pendulum", Method::kMampc4, StabilizerKind::kProject, false},
    {"four_bar", Method::kMampc5, StabilizerKind::kDcD, false},
    // projections
    {"double_pendulum", Method::kOdeMidpoint, StabilizerKind::kSymProj, false},
    {"double_pendulum", Method::kOdeMidpoint, StabilizerKind::kOrthProj, false},
    {"double_pendulum", Method::kOdeMidpoint, StabilizerKind::kOrthProjM, false},
    {"andrews", Method::kRk4, StabilizerKind::kSymProj, false},
    {"chain", Method::kMampc3, StabilizerKind::kSymProj, false},
    {"slider_crank", Method::kOdeMidpoint, StabilizerKind::kSymProjM, false},
    {"four_bar", Method::kMampc3, StabilizerKind::kSymProjM, false},
    // direct corrections, both metrics
    {"four_bar", Method::kRk4, StabilizerKind::kDcB, false},
    {"four_bar", Method::kRk4, StabilizerKind::kDcC, false},
    {"four_bar", Method::kRk4, StabilizerKind::kDcD, false},
    {"four_bar", Method::kRk4, StabilizerKind::kDcB, true},
    {"four_bar", Method::kRk4, StabilizerKind::kDcC, true},
    {"four_bar", Method::kRk4, StabilizerKind::kDcD, true},
    {"double_pendulum", Method::kRk4, StabilizerKind::kDcD, true},
    {"andrews", Method::kRk4, StabilizerKind::kDcD, false},
    {"robot_sine", Method::kHeun, StabilizerKind::kDcC, false},
    // coordinate partitioning (the pendulum re-partitions during the run)
    {"pendulum", Method::kRk4, StabilizerKind::kPartition, false},
    {"andrews", Method::kMampc3, StabilizerKind::kPartition, false},
    // Chin's stabilized vector field (issue 16) in the multistep and midpoint right-hand sides
    {"four_bar", Method::kMampc4, StabilizerKind::kSvf, false},
    {"andrews", Method::kAmpc3, StabilizerKind::kSvf, false},
    {"slider_crank", Method::kOdeMidpoint, StabilizerKind::kSvf, false},
};

INSTANTIATE_TEST_SUITE_P(Issue6,
                         CorrectionAllocations,
                         ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& p) {
                           return testing::param_name({p.param.mechanism, to_string(p.param.method),
                                                       to_string(p.param.stabilizer)}) +
                                  (p.param.mass_weighted ? "_mass" : "");
                         });

// Eigen switches its LLT and partial-pivoting LU to blocked algorithms for larger matrices; a
// 24-link chain (48 coordinates, 24 constraints) takes those paths in the mass-metric projections,
// the direct correction and the partitioning.
TEST(CorrectionAllocationsLargeModel, BlockedFactorizationsAllocateNothing) {
  MechanismOptions options;
  options.chain_links = 24;
  for (const StabilizerKind stabilizer :
       {StabilizerKind::kSymProjM, StabilizerKind::kOrthProjM, StabilizerKind::kDcD,
        StabilizerKind::kPartition, StabilizerKind::kSvf}) {
    Settings settings;
    settings.method = stabilizer == StabilizerKind::kSymProjM ? Method::kOdeMidpoint : Method::kRk4;
    settings.stabilizer = stabilizer;
    settings.correction_mass_weighted = true;
    settings.gamma = 10.0;  // svf
    settings.dt = 1e-3;
    const Model model(make_mechanism("chain", options), settings);
    ASSERT_GE(model.system().n_v(), 32);
    Workspace ws(model);
    State s = initial_state(model);
    (void)step(model, s, ws);  // warm-up
    AllocationCounts counts;
    {
      AllocationScope scope;
      for (int i = 0; i < 200; ++i) (void)step(model, s, ws);
      counts = scope.counts();
    }
    EXPECT_EQ(counts.allocations, 0u) << to_string(stabilizer);
    EXPECT_EQ(counts.deallocations, 0u) << to_string(stabilizer);
  }
}

}  // namespace
}  // namespace rtmb
