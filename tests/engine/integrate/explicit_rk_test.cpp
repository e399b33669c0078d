// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Orders of the fixed-step integrators and the multipliers of the KKT right-hand side, on the
// circle track whose exact solution is known (x = sin t^2, lambda = -4 t^2).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <ostream>

#include "engine/dynamics/dynamics.hpp"
#include "rtmb/step.hpp"
#include "tests/support/test_systems.hpp"

namespace rtmb {
namespace {

using testing::CircleTrack;

double position_error_at(Method method, StabilizerKind stab, double h, double t_end) {
  auto sys = std::make_shared<CircleTrack>();
  Settings st;
  st.method = method;
  st.stabilizer = stab;
  st.dt = h;
  const Model model(sys, st);
  Workspace ws(model);
  State s = initial_state(model);
  const long n = std::lround(t_end / h);
  for (long i = 0; i < n; ++i) (void)step(model, s, ws);
  return std::hypot(s.q[0] - CircleTrack::x(s.t), s.q[1] - CircleTrack::y(s.t));
}

struct OrderCase {
  Method method;
  double expected_order;
  double h0;     ///< coarsest step [s]
  double t_end;  ///< long enough that the finest error stays well above round-off
};

void PrintTo(const OrderCase& c, std::ostream* os) {
  *os << to_string(c.method) << " h0 = " << c.h0 << " t_end = " << c.t_end;
}

class IntegratorOrder : public ::testing::TestWithParam<OrderCase> {};

TEST_P(IntegratorOrder, ObservedOrderMatchesClassicalOrder) {
  const OrderCase c = GetParam();
  // slope of log(error) over three halvings, with PStab keeping the solution on the circle
  double prev = position_error_at(c.method, StabilizerKind::kPStab, c.h0, c.t_end);
  for (int k = 1; k <= 3; ++k) {
    const double e = position_error_at(c.method, StabilizerKind::kPStab, c.h0 / (1 << k), c.t_end);
    const double slope = std::log2(prev / e);
    EXPECT_NEAR(slope, c.expected_order, 0.25) << "halving " << k << ": " << prev << " -> " << e;
    prev = e;
  }
}

INSTANTIATE_TEST_SUITE_P(Methods,
                         IntegratorOrder,
                         ::testing::Values(OrderCase{Method::kEuler, 1.0, 1e-3, 2.0},
                                           OrderCase{Method::kHeun, 2.0, 1e-2, 2.0},
                                           OrderCase{Method::kRk4, 4.0, 2e-2, 2.0},
                                           OrderCase{Method::kDopri5, 5.0, 2e-2, 4.0}),
                         [](const auto& param_info) {
                           return std::string(to_string(param_info.param.method));
                         });

TEST(Dynamics, MultipliersAndAccelerationsMatchExactSolution) {
  CircleTrack sys;
  Dynamics dyn(sys);
  StepStatus st;
  Vec a(2);
  for (double t : {0.0, 0.3, 0.7, 1.2}) {
    Vec q(2), v(2);
    q << CircleTrack::x(t), CircleTrack::y(t);
    v << CircleTrack::xdot(t), CircleTrack::ydot(t);
    dyn.evaluate(t, q, v, a, st);
    const double s = std::sin(t * t);
    const double c = std::cos(t * t);
    EXPECT_NEAR(a[0], -4 * t * t * s + 2 * c, 1e-12);
    EXPECT_NEAR(a[1], -4 * t * t * c - 2 * s, 1e-12);
    EXPECT_NEAR(dyn.lambda()[0], CircleTrack::lambda(t), 1e-12);
  }
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.rhs_evaluations, 4);
}

TEST(Dynamics, BaumgarteFeedbackEntersConstraintRow) {
  // off the manifold, B(g1, g2) must make the constraint acceleration g'' = -g1 g' - g2 g
  CircleTrack sys;
  Dynamics dyn(sys);
  dyn.set_baumgarte(3.0, 5.0);
  Vec q(2), v(2), a(2), g(1), G_v(1);
  q << 0.3, 1.1;  // g = 1 - 0.09 - 1.21 = -0.3
  v << 0.2, -0.4;
  StepStatus st;
  dyn.evaluate(0.0, q, v, a, st);
  const double g_val = 1.0 - q.squaredNorm();
  const double gdot = -2.0 * q.dot(v);
  const double gddot = -2.0 * v.squaredNorm() - 2.0 * q.dot(a);
  EXPECT_NEAR(gddot, -3.0 * gdot - 5.0 * g_val, 1e-12);
}

}  // namespace
}  // namespace rtmb
