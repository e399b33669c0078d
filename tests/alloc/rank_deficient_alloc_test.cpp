// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The rank-deficient path keeps the step contract (issue 16, acceptance 5): the parallel-crank
// linkage (tests/support/parallel_cranks.hpp) stepped through both singular poses of one turn,
// where the KKT factorizations drop dependent rows (DenseKkt, BlockKkt), allocates nothing; each
// run must actually have taken that path (kRankDeficient seen inside the count). So do the
// implicit methods' Newton iterations that stop at the residual's round-off there, and
// ode-midpoint's Newton fallback. DenseLu's complete pivoting is counted on a singular matrix
// directly: the steps' Newton matrices near the poses are nearly, not numerically, singular, so no
// step run reaches it reliably.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>

#include "engine/implicit/dense_lu.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/status.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/parallel_cranks.hpp"

namespace rtmb {
namespace {

using testing::AllocationScope;

using Combo = std::tuple<Method, StabilizerKind, KktSolver>;

std::shared_ptr<const System> parallel_cranks() {
  return make_system(parse_model_file(testing::parallel_cranks_yaml(), "parallel_cranks.yaml"));
}

// What 199 counted steps through both singular poses did (after one warm-up step).
struct SingularRun {
  testing::AllocationCounts counts;
  std::uint32_t flags = 0;   ///< OR of the steps' flags
  int most_evaluations = 0;  ///< the most KKT factorizations in one step
};

SingularRun run_through_singular_poses(const std::shared_ptr<const System>& sys,
                                       Method method,
                                       StabilizerKind stabilizer,
                                       KktSolver solver = KktSolver::kDense) {
  Settings settings;
  settings.method = method;
  settings.stabilizer = stabilizer;
  settings.solver = solver;
  settings.dt = 0.005;  // divides 1/4: step ends land on the singular poses
  const Model model(sys, settings);
  Workspace ws(model);
  State s = initial_state(model);
  (void)step(model, s, ws);  // warm-up outside the count
  SingularRun r;
  AllocationScope scope;
  for (int i = 1; i < 200; ++i) {
    const StepStatus st = step(model, s, ws);
    r.flags |= st.flags;
    r.most_evaluations = std::max(r.most_evaluations, st.kkt_factorizations);
  }
  r.counts = scope.counts();
  return r;
}

// the only flag a run may carry is the one that says it passed a singular pose
std::uint32_t unexpected_flags(std::uint32_t flags) {
  return flags & ~static_cast<std::uint32_t>(StepFlag::kRankDeficient);
}

TEST(RankDeficientStepAllocations, SingularPosesAllocateNothing) {
  const std::shared_ptr<const System> sys = parallel_cranks();
  const Combo combos[] = {
      {Method::kRk4, StabilizerKind::kPStab, KktSolver::kDense},
      {Method::kRk4, StabilizerKind::kSBoth, KktSolver::kDense},
      {Method::kRk4, StabilizerKind::kProject, KktSolver::kDense},
      {Method::kRk4, StabilizerKind::kPStab, KktSolver::kSparse},
      {Method::kRk4, StabilizerKind::kProject, KktSolver::kSparse},
      {Method::kDopri5, StabilizerKind::kPStab, KktSolver::kDense},
      {Method::kMampc4, StabilizerKind::kSBoth, KktSolver::kDense},
      // nearly dependent rows at the Adams predictors' points (kDependentRowTol)
      {Method::kAmpc3, StabilizerKind::kPStab, KktSolver::kDense},
      {Method::kMampc3, StabilizerKind::kProject, KktSolver::kDense},
  };
  for (const auto& [method, stabilizer, solver] : combos) {
    const SingularRun r = run_through_singular_poses(sys, method, stabilizer, solver);
    const std::string what = std::string(to_string(method)) + " + " +
                             std::string(to_string(stabilizer)) + " (" +
                             std::string(to_string(solver)) + ")";
    EXPECT_EQ(r.counts.allocations, 0u) << what;
    EXPECT_EQ(r.counts.deallocations, 0u) << what;
    EXPECT_TRUE(has_flag(r.flags, StepFlag::kRankDeficient)) << what;
    EXPECT_EQ(unexpected_flags(r.flags), 0u) << what << ": " << step_flag_names(r.flags);
  }
}

TEST(RankDeficientStepAllocations, OdeMidpointNewtonFallbackAllocatesNothing) {
  // ode-midpoint's fixed-point iteration diverges near the singular poses and its steps there fall
  // back to Newton's method (engine/integrate/implicit_midpoint.hpp): that path too. The fallback
  // is seen in the count of evaluations: more than the fixed-point iteration's 100 sweeps + 1.
  const SingularRun r =
      run_through_singular_poses(parallel_cranks(), Method::kOdeMidpoint, StabilizerKind::kPStab);
  EXPECT_EQ(r.counts.allocations, 0u);
  EXPECT_EQ(r.counts.deallocations, 0u);
  EXPECT_GT(r.most_evaluations, 101);
  EXPECT_EQ(unexpected_flags(r.flags), 0u) << step_flag_names(r.flags);
}

TEST(RankDeficientStepAllocations, ImplicitNewtonThroughSingularPosesAllocatesNothing) {
  // the implicit methods' steps that land on a singular pose stop Newton by the residual's
  // round-off (GsssssIntegrator / GglIntegrator residual_at_round_off): that path too
  const std::shared_ptr<const System> sys = parallel_cranks();
  for (const Method method : {Method::kGenAlpha, Method::kMidpoint, Method::kGgl}) {
    const SingularRun r = run_through_singular_poses(sys, method, StabilizerKind::kNone);
    const std::string what(to_string(method));
    EXPECT_EQ(r.counts.allocations, 0u) << what;
    EXPECT_EQ(r.counts.deallocations, 0u) << what;
    EXPECT_EQ(unexpected_flags(r.flags), 0u) << what << ": " << step_flag_names(r.flags);
  }
}

TEST(RankDeficientStepAllocations, NewtonMatrixCompletePivotingAllocatesNothing) {
  // [A B^T; B 0] with B's third row the sum of the first two: singular
  const int n = 4;
  Mat j = Mat::Zero(n + 3, n + 3);
  j.topLeftCorner(n, n) = 4.0 * Mat::Identity(n, n);
  Mat b(3, n);
  b << 1.0, 2.0, 0.0, 1.0, 0.0, 1.0, 3.0, -1.0, 1.0, 3.0, 3.0, 0.0;
  j.topRightCorner(n, 3) = b.transpose();
  j.bottomLeftCorner(3, n) = b;
  DenseLu lu(n + 3);
  Vec x = Vec::Ones(n + 3);
  testing::AllocationCounts counts;
  bool ok = true;
  int dropped = 0;
  {
    AllocationScope scope;
    for (int k = 0; k < 100; ++k) {
      lu.matrix() = j;  // same size: no reallocation
      ok = ok && lu.factor();
      dropped = lu.dropped();
      lu.solve_in_place(x);
    }
    counts = scope.counts();
  }
  EXPECT_TRUE(ok);
  EXPECT_EQ(dropped, 1);
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 0u);
}

}  // namespace
}  // namespace rtmb
