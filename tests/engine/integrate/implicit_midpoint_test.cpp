// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The ode-midpoint integrator (engine/integrate/implicit_midpoint.*) on a stiff step, where its
// fixed-point iteration cannot converge (h * Lipschitz >= 2) and the step falls back to Newton's
// method on the same equations. The implicit midpoint rule on a linear ODE Y' = A Y is the Cayley
// transform Y1 = (I - h A / 2)^-1 (I + h A / 2) Y0; for the oscillator q'' = -w^2 q it is a
// rotation of (q, v / w) by phi = 2 atan(h w / 2) (Hairer-Lubich-Wanner GNI §I.1 and §VI.4),
// whatever h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string_view>

#include "rtmb/step.hpp"

namespace rtmb {
namespace {

// q'' = -w^2 q, unconstrained: M = 1, f = -w^2 q
class Oscillator final : public System {
 public:
  static constexpr double kOmega = 400.0;  // [rad/s]
  Oscillator() noexcept : System(1, 1, 0) {}
  [[nodiscard]] std::string_view name() const noexcept override { return "oscillator"; }
  void initial_state(State& out) const override {
    out = State(1, 1);
    out.q << 1.0;
    out.v << 0.0;
  }
  void mass(double, VecCRef, MatRef out_M) const noexcept override { out_M(0, 0) = 1.0; }
  void forces(double, VecCRef q, VecCRef, InputValues, VecRef out_f) const noexcept override {
    out_f(0) = -kOmega * kOmega * q(0);
  }
  void constraints(double, VecCRef, VecRef) const noexcept override {}
  void jacobian(double, VecCRef, MatRef) const noexcept override {}
  void curvature(double, VecCRef, VecCRef, VecRef) const noexcept override {}
  void velocity_constraint_jacobian(double, VecCRef, VecCRef, MatRef) const noexcept override {}
};

TEST(ImplicitMidpoint, StiffStepsFallBackToNewtonAndRotateByTheCayleyAngle) {
  for (const double h : {1e-3, 1e-2, 5e-2}) {  // h w = 0.4 (fixed point), 4 and 20 (Newton)
    Settings settings;
    settings.method = Method::kOdeMidpoint;
    settings.stabilizer = StabilizerKind::kNone;
    settings.dt = h;
    const Model model(std::make_shared<Oscillator>(), settings);
    Workspace ws(model);
    State s = initial_state(model);
    constexpr int kSteps = 20;
    int most_evaluations = 0;
    for (int i = 0; i < kSteps; ++i) {
      const StepStatus st = step(model, s, ws);
      ASSERT_TRUE(st.ok()) << "h " << h << ", step " << i << ": " << step_flag_names(st.flags);
      most_evaluations = std::max(most_evaluations, st.kkt_factorizations);
    }
    // the stiff steps did take the fallback: more evaluations than the fixed-point iteration's
    // 100 sweeps and its start (and the mild step did not)
    if (h * Oscillator::kOmega > 2.0) {
      EXPECT_GT(most_evaluations, 101) << "h " << h;
    } else {
      EXPECT_LT(most_evaluations, 101) << "h " << h;
    }
    const double w = Oscillator::kOmega;
    const double phi = kSteps * 2.0 * std::atan(0.5 * h * w);
    EXPECT_NEAR(s.q(0), std::cos(phi), 1e-9) << "h " << h;
    EXPECT_NEAR(s.v(0) / w, -std::sin(phi), 1e-9) << "h " << h;
    // a rotation: the energy is exact
    EXPECT_NEAR(s.q(0) * s.q(0) + s.v(0) * s.v(0) / (w * w), 1.0, 1e-9) << "h " << h;
  }
}

}  // namespace
}  // namespace rtmb
