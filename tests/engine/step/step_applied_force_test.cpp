// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The external generalized force u of applied_force(ws) (issue 3: input channels act here).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"

namespace rtmb {
namespace {

struct WorkBalance {
  double energy_change = 0.0;  // E(T) - E(0) [J]
  double work = 0.0;           // u^T (q(T) - q(0)) [J]
};

// Work-energy theorem for M v' = f + u - G^T lambda with conservative f and ideal (workless,
// scleronomic) constraints: dE/dt = u^T v, so for a constant u, E(T) - E(0) = u^T (q(T) - q(0)).
WorkBalance run_with_force(std::string_view mechanism,
                           double u_scale,
                           double t_end,
                           Method method = Method::kRk4,
                           StabilizerKind stabilizer = StabilizerKind::kPStab) {
  Settings st;
  st.method = method;
  st.stabilizer = stabilizer;
  st.dt = 1e-3;
  const Model model(std::shared_ptr<const System>(make_mechanism(mechanism)), st);
  Workspace ws(model);
  State s = initial_state(model);
  VecRef u = applied_force(ws);
  EXPECT_EQ(u.size(), model.system().n_v());
  EXPECT_EQ(u.norm(), 0.0);  // zero after construction
  for (Eigen::Index i = 0; i < u.size(); ++i) u[i] = u_scale * (1.0 + 0.5 * static_cast<double>(i));
  const Vec q0 = s.q;
  const double e0 = model.system().energy(s.t, s.q, s.v, {});
  const int steps = static_cast<int>(std::lround(t_end / st.dt));
  for (int k = 0; k < steps; ++k) {
    const StepStatus status = step(model, s, ws);
    EXPECT_TRUE(status.ok()) << "step " << k;
  }
  return {model.system().energy(s.t, s.q, s.v, {}) - e0, applied_force(ws).dot(s.q - q0)};
}

TEST(AppliedForce, WorkEqualsEnergyChangeOnThePendulum) {
  const WorkBalance r = run_with_force("pendulum", 2.0, 1.0);
  EXPECT_GT(std::abs(r.work), 0.1);  // the force does visible work
  EXPECT_NEAR(r.energy_change, r.work, 1e-7 * std::abs(r.work));
}

TEST(AppliedForce, WorkEqualsEnergyChangeOnTheSliderCrank) {
  const WorkBalance r = run_with_force("slider_crank", 0.5, 1.0);
  EXPECT_GT(std::abs(r.work), 0.01);
  EXPECT_NEAR(r.energy_change, r.work, 1e-6 * std::abs(r.work));
}

TEST(AppliedForce, ZeroForceConservesEnergy) {
  const WorkBalance r = run_with_force("pendulum", 0.0, 1.0);
  EXPECT_EQ(r.work, 0.0);
  EXPECT_NEAR(r.energy_change, 0.0, 1e-8);
}

// Every integrator family takes the input force: explicit RK, Adams PECE, the index-1 implicit
// midpoint, and the implicit index-3 methods (which evaluate f themselves, not through Dynamics).
struct MethodCase {
  Method method;
  StabilizerKind stabilizer;
  double relative_tolerance;  // of |E(T) - E(0) - work| / |work|, from the method's accuracy
};

class AppliedForceEveryMethod : public ::testing::TestWithParam<MethodCase> {};

TEST_P(AppliedForceEveryMethod, WorkEqualsEnergyChangeOnThePendulum) {
  const MethodCase c = GetParam();
  const WorkBalance r = run_with_force("pendulum", 2.0, 1.0, c.method, c.stabilizer);
  EXPECT_GT(std::abs(r.work), 0.1);
  EXPECT_NEAR(r.energy_change, r.work, c.relative_tolerance * std::abs(r.work))
      << to_string(c.method);
}

INSTANTIATE_TEST_SUITE_P(
    Methods,
    AppliedForceEveryMethod,
    ::testing::Values(MethodCase{Method::kHeun, StabilizerKind::kPStab, 1e-4},
                      MethodCase{Method::kMampc4, StabilizerKind::kPStab, 1e-6},
                      MethodCase{Method::kOdeMidpoint, StabilizerKind::kOrthProj, 1e-4},
                      MethodCase{Method::kMidpoint, StabilizerKind::kNone, 1e-6},
                      MethodCase{Method::kGenAlpha, StabilizerKind::kNone, 1e-4},
                      MethodCase{Method::kGgl, StabilizerKind::kNone, 1e-4}));

}  // namespace
}  // namespace rtmb
