// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Closed-form and published values for the reference mechanisms: initial energies and
// accelerations worked out by hand, and states at later times from the independent
// re-computations recorded in reference/ (trajectories integrated here with RK4 + projection,
// mechanism_test_support.hpp). Andrews has its own file (andrews_test.cpp).

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "engine/mechanisms/mechanisms_impl.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "tests/engine/mechanisms/mechanism_test_support.hpp"

namespace rtmb::test {
namespace {

State initial_state(const System& sys) {
  State x;
  sys.initial_state(x);
  return x;
}

// (q, v) stacked, for comparing against the published state tables
Vec stacked(const State& x) {
  Vec y(x.q.size() + x.v.size());
  y << x.q, x.v;
  return y;
}

// ---- pendulum ---------------------------------------------------------------------------------

TEST(PendulumReference, InitialStateEnergyAndAcceleration) {
  const detail::Pendulum sys;
  const State x = initial_state(sys);
  const double theta0 = std::numbers::pi / 3.0;
  EXPECT_NEAR(x.q(0), std::sin(theta0), 1e-15);
  EXPECT_NEAR(x.q(1), -std::cos(theta0), 1e-15);
  EXPECT_EQ(x.v.norm(), 0.0);
  // E0 = m g y0 = -9.81 cos(60 deg) = -4.905 J
  EXPECT_NEAR(sys.energy(0.0, x.q, x.v, {}), -4.905, 1e-14);
  // from rest the acceleration is tangential, l theta'' = -g sin(theta0), along (cos, sin)
  const Accelerations acc = solve_kkt(sys, 0.0, x.q, x.v);
  const double tangential = -9.81 * std::sin(theta0);
  EXPECT_NEAR(acc.a(0), tangential * std::cos(theta0), 1e-13);
  EXPECT_NEAR(acc.a(1), tangential * std::sin(theta0), 1e-13);
  // constraint force G^T lambda = (2x, 2y) lambda balances the radial gravity m g cos(theta0)
  EXPECT_NEAR(2.0 * acc.lambda(0), 9.81 * std::cos(theta0), 1e-13);
}

// ---- double pendulum (Hoitink 2011 §4.1, reference/gsssss-hoitink2011.md) ----------------------

TEST(DoublePendulumReference, InitialEnergyAccelerationAndMultipliers) {
  const detail::DoublePendulum sys;
  const State x = initial_state(sys);
  Vec u0(6);
  u0 << 1.0, 0.0, std::numbers::pi / 2.0, 1.0, -1.0, 0.0;
  EXPECT_EQ(x.q, u0);
  // E0 = M1 g y1 + M2 g y2 = 0 + 1 * 10 * (-1)
  EXPECT_NEAR(sys.energy(0.0, x.q, x.v, {}), -10.0, 1e-14);
  // §4.1 [derived]: both masses start in free fall, a0 = (0, -10, -10, 0, -10, 0), lambda0 = 0;
  // the KKT solve must cope with the zero diagonal entries of M
  const Accelerations acc = solve_kkt(sys, 0.0, x.q, x.v);
  Vec a0(6);
  a0 << 0.0, -10.0, -10.0, 0.0, -10.0, 0.0;
  EXPECT_LE(max_abs(acc.a - a0), 1e-12) << acc.a.transpose();
  EXPECT_LE(max_abs(acc.lambda), 1e-12) << acc.lambda.transpose();
}

// ---- slider-crank (Wu et al. 2000 §9, reference/adams-moulton-pc-wu2000.md) -------------------

TEST(SliderCrankReference, ConsistentInitialValuesAndEnergy) {
  const detail::SliderCrank sys;
  const State x = initial_state(sys);
  // §9 "consistent values to use"; the paper's 4-decimal values round these
  EXPECT_NEAR(x.q(0), 0.9851107833377457, 1e-15);
  EXPECT_NEAR(x.q(1), -0.5235987755982988, 1e-15);
  EXPECT_NEAR(x.q(2), 0.4256388606531016, 1e-15);
  EXPECT_EQ(x.q(3), 0.1);
  EXPECT_NEAR(sys.energy(0.0, x.q, x.v, {}), 0.981, 1e-15);
}

TEST(SliderCrankReference, MatchesPublishedStates) {
  // §9 re-computed states (12 digits, energy conserved to 12 digits). RK4 + projection at
  // h = 5e-4 reproduces them to ~1e-10, so 1e-9 only admits integrator error
  const detail::SliderCrank sys;
  State x = initial_state(sys);
  Vec ref1(8);
  ref1 << -2.723711997542, 0.245967308804, 0.016785351173, -0.048698926708, -6.663894650776,
      -3.767683005400, -0.536088115161, 0.730856840526;
  Vec ref2(8);
  ref2 << -2.787794413684, 0.209405039297, 0.012027370561, -0.041575594605, 6.558393420703,
      3.773752315715, 0.446328770670, -0.738262763468;
  Vec ref10(8);
  ref10 << -2.526691001466, 0.353439680851, 0.036407254053, -0.069225382987, -6.857621566356,
      -3.582340059750, -0.814820404342, 0.672181475615;
  x = integrate_rk4(sys, x, 1.0, 5e-4);
  EXPECT_LE(max_abs(stacked(x) - ref1), 1e-9) << stacked(x).transpose();
  x = integrate_rk4(sys, x, 2.0, 5e-4);
  EXPECT_LE(max_abs(stacked(x) - ref2), 1e-9) << stacked(x).transpose();
  x = integrate_rk4(sys, x, 10.0, 5e-4);
  EXPECT_LE(max_abs(stacked(x) - ref10), 1e-9) << stacked(x).transpose();
  EXPECT_NEAR(sys.energy(x.t, x.q, x.v, {}), 0.981, 1e-10);
}

// ---- two-link robot (Chin 1995 §3.6, reference/post-stabilization-chin1995.md) ---------------

TEST(RobotReference, InitialTipAndParabolaOffset) {
  const detail::TwoLinkRobot sys(detail::RobotPath::kParabola);
  const State x = initial_state(sys);
  EXPECT_NEAR(x.q(0), 70.0 * std::numbers::pi / 180.0, 1e-15);
  EXPECT_NEAR(x.q(1), -140.0 * std::numbers::pi / 180.0, 1e-15);
  // with theta2 = pi link 2 folds back onto link 1 and the tip sits at the origin, so there
  // g = y2 - x2^2 + b = b, which must be 4 cos^2(70 deg) = 0.46791111376204 (§3.6)
  Vec folded(2);
  folded << 0.3, std::numbers::pi;
  EXPECT_NEAR(eval_g(sys, 0.0, folded)(0), 0.46791111376204, 1e-13);
}

TEST(RobotReference, ParabolaMatchesPublishedEndState) {
  // §3.6 case I end state at t = 10 (8 digits). RK4 + projection at h = 1e-3 lands 4e-9 away,
  // i.e. within the rounding of the printed digits
  const detail::TwoLinkRobot sys(detail::RobotPath::kParabola);
  const State x = integrate_rk4(sys, initial_state(sys), 10.0, 1e-3);
  Vec ref(4);
  ref << -0.50153296, -2.66799331, 6.43895610, -0.07407734;
  EXPECT_LE(max_abs(stacked(x) - ref), 2e-8) << stacked(x).transpose();
  // scleronomic and conservative: energy is conserved
  const State x0 = initial_state(sys);
  EXPECT_NEAR(sys.energy(x.t, x.q, x.v, {}), sys.energy(0.0, x0.q, x0.v, {}), 1e-7);
}

TEST(RobotReference, SinePathMatchesPublishedEndState) {
  // §3.6 case II with omega = 0.5 at t = 10, published to about +-3e-6. (The omega = 1 state is
  // also published, but that motion amplifies errors by ~1e6 over 10 s: RK4 needs h < 3e-5 to
  // reach it, too slow for a unit test. Offline: h = 2.5e-5 gives 4e-5, converging.)
  const detail::TwoLinkRobot sys(detail::RobotPath::kSine, 0.5);
  const State x = integrate_rk4(sys, initial_state(sys), 10.0, 2.5e-4);
  Vec ref(4);
  ref << 1.106536, 2.009671, 5.597507, -2.818251;
  EXPECT_LE(max_abs(stacked(x) - ref), 1e-5) << stacked(x).transpose();
  // the tip follows the prescribed height
  const double y2 = std::sin(x.q(0)) + std::sin(x.q(0) + x.q(1));
  EXPECT_NEAR(y2, std::pow(std::sin(0.5 * 10.0), 2), 1e-12);
}

// ---- chain ------------------------------------------------------------------------------------

TEST(ChainReference, ThreeLinkArcByHand) {
  // angles -30, -90, -150 deg: p1 = (cos30, -1/2), p2 = (cos30, -3/2), p3 = (0, -2)
  const detail::Chain sys(3, true);
  const State x = initial_state(sys);
  const double c30 = std::cos(std::numbers::pi / 6.0);
  Vec q_ref(6);
  q_ref << c30, -0.5, c30, -1.5, 0.0, -2.0;
  EXPECT_LE(max_abs(x.q - q_ref), 1e-15) << x.q.transpose();
  // E0 = m g (y1 + y2 + y3) = -9.81 * 4
  EXPECT_NEAR(sys.energy(0.0, x.q, x.v, {}), -39.24, 1e-13);
  // the pin rows are p3 - (0, -2)
  Vec moved = x.q;
  moved(4) += 0.25;
  moved(5) -= 0.5;
  const Vec g = eval_g(sys, 0.0, moved);
  EXPECT_NEAR(g(3), 0.25, 1e-15);
  EXPECT_NEAR(g(4), -0.5, 1e-15);
}

TEST(ChainReference, SingleLinkIsAPendulum) {
  // N = 1: a 1 m pendulum at -30 deg from +x, i.e. 60 deg from the downward vertical, like
  // `pendulum`; g differs by the factor 1/2 only
  const detail::Chain chain(1, false);
  const detail::Pendulum pendulum;
  const State xc = initial_state(chain);
  const State xp = initial_state(pendulum);
  EXPECT_LE(max_abs(xc.q - xp.q), 1e-15);
  EXPECT_NEAR(chain.energy(0.0, xc.q, xc.v, {}), pendulum.energy(0.0, xp.q, xp.v, {}), 1e-14);
  const Accelerations ac = solve_kkt(chain, 0.0, xc.q, xc.v);
  const Accelerations ap = solve_kkt(pendulum, 0.0, xp.q, xp.v);
  EXPECT_LE(max_abs(ac.a - ap.a), 1e-13);
}

}  // namespace
}  // namespace rtmb::test
