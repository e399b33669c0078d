// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// A linkage whose constraint rank changes along its motion (issue 16, acceptance 3): three
// parallel cranks sharing a coupler (tests/support/parallel_cranks.hpp), turning a full circle in
// one second and passing two singular poses (cranks horizontal, t = 1/4 and 3/4), where the KKT
// matrix loses rank; every step size below divides 1/4, so step ends and RK stages land on the
// singular poses exactly. Every explicit method with pstab, sboth and project, and every implicit
// method: no non-finite state, no failed KKT or Newton solve, and the error of q(1) against the
// closed form (uniform rotation) falls at the method's order as the step halves. The whole error
// table is printed ("[ table ]" lines).
#include "tests/support/parallel_cranks.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "rtmb/models/model_file.hpp"
#include "rtmb/status.hpp"
#include "rtmb/step.hpp"

namespace rtmb {
namespace {

struct CrankRun {
  double error = 0.0;       ///< ||q(1) - q_exact(1)||inf
  std::uint32_t flags = 0;  ///< OR of every step's flags
};

std::shared_ptr<const System> parallel_cranks() {
  static const std::shared_ptr<const System> sys =
      make_system(parse_model_file(testing::parallel_cranks_yaml(), "parallel_cranks.yaml"));
  return sys;
}

CrankRun run(Method method, StabilizerKind stabilizer, KktSolver solver, double dt) {
  Settings settings;
  settings.method = method;
  settings.stabilizer = stabilizer;
  settings.dt = dt;
  settings.solver = solver;
  const Model model(parallel_cranks(), settings);
  Workspace ws(model);
  State s = initial_state(model);
  CrankRun r;
  const long n = std::lround(1.0 / dt);
  for (long i = 0; i < n; ++i) {
    const StepStatus st = step(model, s, ws);
    r.flags |= st.flags;
    // a failed step ends the run (error inf): a known limitation stays cheap
    if ((st.flags & ~static_cast<std::uint32_t>(StepFlag::kRankDeficient)) != 0u) break;
  }
  r.error = (s.q - testing::parallel_cranks_exact_q(s.t)).lpNorm<Eigen::Infinity>();
  if (std::abs(s.t - 1.0) > 1e-9) r.error = INFINITY;  // stopped early
  return r;
}

struct Case {
  Method method;
  StabilizerKind stabilizer;
  KktSolver solver;
  int order;
};

// Every combination is asserted. What it took (issue 16): the Adams methods pass with the
// dependent-row tolerance of engine/kkt/pivot_tolerance.hpp (kDependentRowTol); the implicit
// index-3 methods because Newton stops once the residual is at round-off where the nearly singular
// Newton matrix amplifies it (GsssssIntegrator, GglIntegrator residual_at_round_off); ode-midpoint
// because its steps fall back to Newton's method where the fixed-point iteration diverges (the
// index-1 vector field off the constraint manifold has a Lipschitz constant growing like 1/sin^2
// of the rows' angle near the pose, so h L > 2; engine/integrate/implicit_midpoint.hpp).
std::vector<Case> cases() {
  const std::pair<Method, int> explicit_methods[] = {
      {Method::kEuler, 1},  {Method::kHeun, 2},   {Method::kRk4, 4},        {Method::kDopri5, 5},
      {Method::kAmpc3, 3},  {Method::kAmpc4, 4},  {Method::kAmpc5, 5},      {Method::kMampc3, 4},
      {Method::kMampc4, 5}, {Method::kMampc5, 6}, {Method::kOdeMidpoint, 2}};
  std::vector<Case> out;
  for (const auto& [method, order] : explicit_methods) {
    for (StabilizerKind st :
         {StabilizerKind::kPStab, StabilizerKind::kSBoth, StabilizerKind::kProject}) {
      out.push_back({method, st, KktSolver::kDense, order});
    }
  }
  // the sparse path (BlockKkt) on the same runs for RK4
  for (StabilizerKind st :
       {StabilizerKind::kPStab, StabilizerKind::kSBoth, StabilizerKind::kProject}) {
    out.push_back({Method::kRk4, st, KktSolver::kSparse, 4});
  }
  // implicit index-3 methods (second order; they keep g = 0 by Newton iteration)
  for (Method m : {Method::kMidpoint, Method::kNewmark, Method::kHht, Method::kWbz,
                   Method::kGenAlpha, Method::kGsssss, Method::kGgl}) {
    out.push_back({m, StabilizerKind::kNone, KktSolver::kDense, 2});
  }
  return out;
}

TEST(ParallelCranks, EveryMethodPassesTheSingularPosesAtItsOrder) {
  const double dts[] = {0.02, 0.01, 0.005};
  std::uint32_t seen = 0;
  for (const Case& c : cases()) {
    CrankRun r[3];
    for (int k = 0; k < 3; ++k) r[k] = run(c.method, c.stabilizer, c.solver, dts[k]);
    const double order = std::log2(r[1].error / r[2].error);
    std::printf(
        "[ table ] %-12s %-8s %-6s p=%d  err(0.02) %.3e  err(0.01) %.3e  err(0.005) %.3e"
        "  observed order %.2f  flags %s\n",
        std::string(to_string(c.method)).c_str(), std::string(to_string(c.stabilizer)).c_str(),
        std::string(to_string(c.solver)).c_str(), c.order, r[0].error, r[1].error, r[2].error,
        order, step_flag_names(r[0].flags | r[1].flags | r[2].flags).c_str());
    const std::string what = std::string(to_string(c.method)) + " + " +
                             std::string(to_string(c.stabilizer)) + " (" +
                             std::string(to_string(c.solver)) + ")";
    for (const CrankRun& x : r) {
      seen |= x.flags;
      // the only flag a run may carry is the one that says it passed a singular pose
      EXPECT_EQ(x.flags & ~static_cast<std::uint32_t>(StepFlag::kRankDeficient), 0u)
          << what << ": " << step_flag_names(x.flags);
      EXPECT_TRUE(std::isfinite(x.error)) << what;
    }
    // the error falls at the method's order as the step halves (0.4 of an order of slack for
    // the pre-asymptotic range)
    EXPECT_GE(order, c.order - 0.4) << what << ": errors " << r[1].error << ", " << r[2].error;
  }
  // the runs did meet the singular poses: some factorization dropped a dependent row
  EXPECT_TRUE(has_flag(seen, StepFlag::kRankDeficient));
}

}  // namespace
}  // namespace rtmb
