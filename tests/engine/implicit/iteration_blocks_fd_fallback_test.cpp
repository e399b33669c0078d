// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The finite-difference fallback of the iteration matrix (system.hpp, iteration_blocks.cpp):
// with the analytic blocks hidden, Newton converges to the same steps. The iteration matrix only
// steers Newton; the converged step is fixed by the residual, so trajectories agree to the Newton
// tolerance scale.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"
#include "tests/support/run_helpers.hpp"
#include "tests/support/without_iteration_blocks.hpp"

namespace rtmb {
namespace {

// One side of the comparison: a model stepped from its initial state, with the Newton
// iterations its steps took.
struct Run {
  Run(std::shared_ptr<const System> system, const Settings& settings)
      : model(std::move(system), settings), ws(model), s(initial_state(model)) {}

  StepStatus step() {
    const StepStatus st = rtmb::step(model, s, ws);
    newton_iterations += st.newton_iterations;
    return st;
  }

  Model model;
  Workspace ws;
  State s;
  long newton_iterations = 0;
};

// 300 steps of the mechanism by `method` (no stabilizer, constraint-force option 4, the option
// whose constraint block uses both lambdas), once with its analytic iteration-matrix blocks and
// once through the finite-difference fallback: the same steps, at a similar Newton cost.
void expect_fallback_matches_analytic(const MechanismInfo& info, Method method) {
  Settings settings = testing::settings_for(method, StabilizerKind::kNone, info.default_dt);
  settings.implicit.option = 4;
  Run analytic(make_mechanism(info.name), settings);
  Run fd(std::make_shared<testing::WithoutIterationBlocks>(make_mechanism(info.name)), settings);
  for (int i = 0; i < 300; ++i) {
    const StepStatus sa = analytic.step();
    const StepStatus sf = fd.step();
    ASSERT_TRUE(sa.ok() && sf.ok()) << to_string(method) << " step " << i;
  }
  const double scale = std::max(1.0, analytic.s.q.lpNorm<Eigen::Infinity>());
  EXPECT_LE((analytic.s.q - fd.s.q).lpNorm<Eigen::Infinity>(), 1e-8 * scale) << to_string(method);
  // central differences are accurate to ~1e-9 relative: Newton stays (nearly) quadratic
  EXPECT_LE(fd.newton_iterations, analytic.newton_iterations + 300) << to_string(method);
}

class FdFallback : public ::testing::TestWithParam<std::string> {};

TEST_P(FdFallback, SameStepsAsTheAnalyticBlocks) {
  const MechanismInfo* info = find_mechanism(GetParam());
  ASSERT_NE(info, nullptr);
  for (Method method : {Method::kMidpoint, Method::kGenAlpha, Method::kGgl}) {
    ASSERT_NO_FATAL_FAILURE(expect_fallback_matches_analytic(*info, method));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Mechanisms,
    FdFallback,
    ::testing::Values("double_pendulum", "andrews", "robot_sine", "deformable_slider_crank"));

}  // namespace
}  // namespace rtmb
