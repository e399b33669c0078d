// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Andrews' squeezing mechanism (Chin 1995 §3.7, Hairer-Wanner data;
// reference/post-stabilization-chin1995.md). Its forces mix three things that must be kept apart:
// velocity-dependent Lagrange terms (which must match M(q)), the spring on body 3 and the drive
// torque on body 1. The published initial accelerations/multipliers and the Test Set reference
// solution pin the whole model down.

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "engine/mechanisms/andrews_data.hpp"
#include "engine/mechanisms/mechanisms_impl.hpp"
#include "tests/engine/mechanisms/mechanism_test_support.hpp"

namespace rtmb::test {
namespace {

// the Hairer-Wanner data of §3.7 (kXb, kSc, kC0, ...); the spring potential below is written
// from it independently of the engine's forces
using namespace detail::andrews_data;  // NOLINT(google-build-using-namespace)

constexpr int kBeta = 0;
constexpr int kGamma = 2;

// 1/2 c0 (l - l0)^2 with l = |D - C|, D = (sd cos g + sc sin g + xb, sd sin g - sc cos g + yb)
double spring_potential(const Vec& q) {
  const double xd = kSd * std::cos(q(kGamma)) + kSc * std::sin(q(kGamma)) + kXb;
  const double yd = kSd * std::sin(q(kGamma)) - kSc * std::cos(q(kGamma)) + kYb;
  const double l = std::hypot(xd - kXc, yd - kYc);
  return 0.5 * kC0 * (l - kL0) * (l - kL0);
}

class AndrewsTest : public ::testing::Test {
 protected:
  void SetUp() override { sys_.initial_state(x0_); }

  // q near q0 and velocities of the size seen in the first milliseconds (|v| ~ 1e2 rad/s)
  Vec random_q(std::mt19937_64& rng) const {
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    Vec q = x0_.q;
    for (int i = 0; i < q.size(); ++i) q(i) += 0.3 * unit(rng);
    return q;
  }
  static Vec random_v(std::mt19937_64& rng, double scale) {
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    Vec v(7);
    for (int i = 0; i < v.size(); ++i) v(i) = scale * unit(rng);
    return v;
  }

  detail::Andrews sys_;
  State x0_;
};

TEST_F(AndrewsTest, CoriolisForcesMatchMassMatrix) {
  // f(q,v) - f(q,0) removes the spring and the torque (neither depends on v) and must equal the
  // Lagrange terms -(M' v - 1/2 d(v^T M v)/dq) of T = 1/2 v^T M(q) v
  std::mt19937_64 rng(7);
  for (int k = 0; k < 8; ++k) {
    const Vec q = random_q(rng);
    const Vec v = random_v(rng, k < 4 ? 1.0 : 100.0);
    const Vec zero = Vec::Zero(7);
    const Vec coriolis = eval_forces(sys_, 0.0, q, v) - eval_forces(sys_, 0.0, q, zero);
    const Vec expected = fd_lagrange_velocity_forces(sys_, 0.0, q, v, 1e-6);
    ASSERT_GT(max_abs(expected), 0.0);
    EXPECT_LE(scaled_error(coriolis, expected, 1e-7, 0.0), 1.0)
        << "f_coriolis = " << coriolis.transpose() << "\nLagrange   = " << expected.transpose();
  }
}

TEST_F(AndrewsTest, SpringForceIsMinusSpringPotentialGradient) {
  std::mt19937_64 rng(11);
  for (int k = 0; k < 8; ++k) {
    const Vec q = random_q(rng);
    Vec f = eval_forces(sys_, 0.0, q, Vec::Zero(7));
    f(kBeta) -= kMom;
    Vec grad(7);
    for (int j = 0; j < 7; ++j) {
      const double h = 1e-6;
      Vec qp = q;
      Vec qm = q;
      qp(j) += h;
      qm(j) -= h;
      grad(j) = (spring_potential(qp) - spring_potential(qm)) / (2.0 * h);
    }
    ASSERT_GT(std::abs(grad(kGamma)), 1e-3) << "spring should be stretched near q0";
    EXPECT_LE(scaled_error(f, -grad, 1e-7, 1e-12), 1.0)
        << "f - mom e1 = " << f.transpose() << "\n-dV/dq     = " << -grad.transpose();
  }
}

TEST_F(AndrewsTest, DriveTorqueActsOnlyOnBeta) {
  // at rest only the torque (on beta) and the spring (on gamma) remain; the torque is constant
  std::mt19937_64 rng(13);
  for (int k = 0; k < 8; ++k) {
    const Vec q = random_q(rng);
    const Vec f = eval_forces(sys_, 0.0, q, Vec::Zero(7));
    EXPECT_EQ(f(kBeta), kMom);
    for (int j = 0; j < 7; ++j) {
      if (j != kBeta && j != kGamma) {
        EXPECT_EQ(f(j), 0.0) << "f(" << j << ")";
      }
    }
  }
}

TEST_F(AndrewsTest, EnergyIsKineticPlusSpringMinusTorqueWork) {
  std::mt19937_64 rng(17);
  for (int k = 0; k < 8; ++k) {
    const Vec q = random_q(rng);
    const Vec v = random_v(rng, 10.0);
    const double expected =
        0.5 * v.dot(eval_mass(sys_, 0.0, q) * v) + spring_potential(q) - kMom * q(kBeta);
    EXPECT_NEAR(sys_.energy(0.0, q, v, {}), expected, 1e-14 * (1.0 + std::abs(expected)));
  }
}

TEST_F(AndrewsTest, InitialAccelerationsAndMultipliersMatchHairerWanner) {
  // v'0 and lambda0 published with q0 (Chin §3.7); they come out of the KKT system only if M, f, G
  // and L all match the Hairer-Wanner model, signs of G^T lambda included
  const Accelerations acc = solve_kkt(sys_, 0.0, x0_.q, x0_.v);
  Vec a_ref = Vec::Zero(7);
  a_ref(0) = 14222.4439199541138705911625887;
  a_ref(1) = -10666.8329399655854029433719415;
  Vec lambda_ref = Vec::Zero(6);
  lambda_ref(0) = 98.5668703962410896057654982170;
  lambda_ref(1) = -6.12268834425566265503114393122;
  // the KKT matrix mixes 1e-7 (inertias) and 1e-2 (lengths): ~1e-9 relative is what LU delivers
  EXPECT_LE(scaled_error(acc.a, a_ref, 1e-9, 0.0), 1.0) << acc.a.transpose();
  EXPECT_LE(scaled_error(acc.lambda, lambda_ref, 1e-9, 0.0), 1.0) << acc.lambda.transpose();
}

TEST_F(AndrewsTest, MatchesTestSetReferenceSolutionAtT003) {
  // Reference q(0.03) of the problem "andrews" in the Test Set for IVP Solvers (Univ. Bari,
  // archimede.uniba.it/~testset; not in reference/, which only has the model). RK4 with projection
  // at h = 1e-5 lands within 1e-9 rad of it (5e-9 at h = 2e-5, no better below 1e-5: that is the
  // reference's own accuracy), so 1e-7 separates integrator error from a modelling error.
  const State x = integrate_rk4(sys_, x0_, 0.03, 1e-5);
  Vec q_ref(7);
  q_ref << 0.1581077119629904e+2, -0.1575637105984298e+2, 0.4082224013073101e-1,
      -0.5347301163226948, 0.5244099658805304, 0.5347301163226948, 0.1048080741042263e+1;
  EXPECT_LE(max_abs(x.q - q_ref), 1e-7) << "q(0.03) = " << x.q.transpose();
}

// Every evaluation of the Andrews System at one (q, v, lambda), for the bitwise comparison below.
struct Evaluations {
  Mat M = Mat::Zero(7, 7);
  Vec f = Vec::Zero(7);
  Vec g = Vec::Zero(6);
  Mat G = Mat::Zero(6, 7);
  Vec L = Vec::Zero(6);
  Mat Gv = Mat::Zero(6, 7);
  Mat H = Mat::Zero(7, 7);
  Vec e = Vec::Zero(1);
};

// The calls in a rotated order starting at `first`, so that each function is sometimes the first
// at a new q (a miss of the memo) and sometimes follows others (a hit).
void evaluate_all(
    const System& s, const Vec& q, const Vec& v, const Vec& lambda, int first, Evaluations& out) {
  const std::array<std::function<void()>, 8> calls{
      [&] { s.mass(0.0, q, out.M); },
      [&] { s.forces(0.0, q, v, {}, out.f); },
      [&] { s.constraints(0.0, q, out.g); },
      [&] { s.jacobian(0.0, q, out.G); },
      [&] { s.curvature(0.0, q, v, out.L); },
      [&] { s.velocity_constraint_jacobian(0.0, q, v, out.Gv); },
      [&] { ASSERT_TRUE(s.constraint_force_jacobian(0.0, q, lambda, out.H)); },
      [&] { out.e(0) = s.energy(0.0, q, v, {}); },
  };
  for (std::size_t k = 0; k < calls.size(); ++k) calls[(static_cast<std::size_t>(first) + k) % 8]();
}

[[nodiscard]] bool same_bits(const Mat& a, const Mat& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

TEST(AndrewsMemo, ForSimulationInstanceEvaluatesBitIdenticallyToShared) {
  // The Workspace's own instance (for_simulation) remembers the sines and cosines of the last q;
  // every evaluation must stay bit-identical to the shared instance's, which keeps nothing,
  // whatever the order of the calls and however q changes: a new q, the same q again, and q with
  // Theta's +0.0 turned into -0.0 (equal values whose sines differ in sign, so a memo keyed on
  // value rather than bits would hand back sin(+0.0) for -0.0 and flip the sign of f_Theta).
  const detail::Andrews shared;
  const std::unique_ptr<const System> own_instance = shared.for_simulation();
  ASSERT_NE(own_instance, nullptr);
  const System& own = *own_instance;
  State x0;
  shared.initial_state(x0);
  ASSERT_EQ(x0.q(1), 0.0);
  ASSERT_FALSE(std::signbit(x0.q(1)));

  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  Vec v(7);
  for (int j = 0; j < 7; ++j) v(j) = 30.0 * u(rng);
  Vec lambda(6);
  for (int j = 0; j < 6; ++j) lambda(j) = 100.0 * u(rng);
  std::vector<Vec> qs{x0.q};
  Vec flipped = x0.q;
  flipped(1) = -0.0;
  qs.push_back(flipped);
  qs.push_back(x0.q);
  for (int k = 0; k < 4; ++k) {
    Vec q = x0.q;
    for (int j = 0; j < 7; ++j) q(j) += u(rng);
    qs.push_back(q);
    qs.push_back(q);  // the same q again: every call a hit
  }

  int first = 0;
  for (std::size_t i = 0; i < qs.size(); ++i) {
    Evaluations ref;
    Evaluations got;
    evaluate_all(shared, qs[i], v, lambda, 0, ref);
    evaluate_all(own, qs[i], v, lambda, first, got);
    first = (first + 3) % 8;
    EXPECT_TRUE(same_bits(got.M, ref.M)) << "q #" << i;
    EXPECT_TRUE(same_bits(got.f, ref.f)) << "q #" << i;
    EXPECT_TRUE(same_bits(got.g, ref.g)) << "q #" << i;
    EXPECT_TRUE(same_bits(got.G, ref.G)) << "q #" << i;
    EXPECT_TRUE(same_bits(got.L, ref.L)) << "q #" << i;
    EXPECT_TRUE(same_bits(got.Gv, ref.Gv)) << "q #" << i;
    EXPECT_TRUE(same_bits(got.H, ref.H)) << "q #" << i;
    EXPECT_TRUE(same_bits(got.e, ref.e)) << "q #" << i;
  }
  // the signed-zero case is a real one: f_Theta = c12 beta'^2 with c12 ~ sin(Theta) is -0.0 there
  Evaluations at_plus;
  Evaluations at_minus;
  evaluate_all(own, x0.q, Vec::Zero(7), lambda, 0, at_plus);
  evaluate_all(own, flipped, Vec::Zero(7), lambda, 0, at_minus);
  EXPECT_NE(std::signbit(at_plus.f(1)), std::signbit(at_minus.f(1)));
}

}  // namespace
}  // namespace rtmb::test
