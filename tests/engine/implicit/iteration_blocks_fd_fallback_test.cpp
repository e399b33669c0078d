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

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"
#include "tests/support/without_iteration_blocks.hpp"

namespace rtmb {
namespace {

class FdFallback : public ::testing::TestWithParam<std::string> {};

TEST_P(FdFallback, SameStepsAsTheAnalyticBlocks) {
  const MechanismInfo* info = find_mechanism(GetParam());
  ASSERT_NE(info, nullptr);
  for (Method method : {Method::kMidpoint, Method::kGenAlpha, Method::kGgl}) {
    Settings settings;
    settings.method = method;
    settings.stabilizer = StabilizerKind::kNone;
    settings.dt = info->default_dt;
    settings.implicit.option = 4;  // the option whose constraint block uses both lambdas
    const Model analytic(make_mechanism(info->name), settings);
    const Model fd(std::make_shared<testing::WithoutIterationBlocks>(make_mechanism(info->name)),
                   settings);
    Workspace wa(analytic), wf(fd);
    State a = initial_state(analytic);
    State b = initial_state(fd);
    long it_a = 0, it_f = 0;
    for (int i = 0; i < 300; ++i) {
      const StepStatus sa = step(analytic, a, wa);
      const StepStatus sf = step(fd, b, wf);
      ASSERT_TRUE(sa.ok() && sf.ok()) << to_string(method) << " step " << i;
      it_a += sa.newton_iterations;
      it_f += sf.newton_iterations;
    }
    const double scale = std::max(1.0, a.q.lpNorm<Eigen::Infinity>());
    EXPECT_LE((a.q - b.q).lpNorm<Eigen::Infinity>(), 1e-8 * scale) << to_string(method);
    // central differences are accurate to ~1e-9 relative: Newton stays (nearly) quadratic
    EXPECT_LE(it_f, it_a + 300) << to_string(method);
  }
}

INSTANTIATE_TEST_SUITE_P(Mechanisms,
                         FdFallback,
                         ::testing::Values("double_pendulum", "andrews", "robot_sine"));

}  // namespace
}  // namespace rtmb
