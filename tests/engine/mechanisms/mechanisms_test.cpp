// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Properties every reference mechanism must have, checked for each registered mechanism (and a
// few variants) at the initial state and at random states near it:
//   * G, g_t, L and d(Gv + g_t)/dq against finite differences of g (L by its definition
//     L = d^2/ds^2 g(t + s, q + s v), Chin 1995 §1.1 and §6.2 item 3,
//     reference/post-stabilization-chin1995.md);
//   * M symmetric positive semi-definite, positive definite on ker G, G of full row rank
//     (Chin Lemma 4.1: the KKT matrix is then regular);
//   * energy consistent with M and f: kinetic part 1/2 v^T M v, f(t,q,0) = -dV/dq, velocity
//     terms of f equal to the Lagrange terms -M' v + 1/2 d(v^T M v)/dq, and dE/dt = lambda^T g_t
//     along the motion (constraint forces only do work through a moving constraint);
//   * consistent initial state; every output entry written.

#include "rtmb/models/mechanisms.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/mechanisms/mechanisms_impl.hpp"
#include "tests/engine/mechanisms/mechanism_test_support.hpp"

namespace rtmb::test {
namespace {

using Factory = std::unique_ptr<System> (*)();

struct MechanismCase {
  const char* label;          ///< gtest parameter name
  const char* registry_name;  ///< expected System::name()
  Factory make;
  double q_spread;        ///< random states: q = q0 + q_spread * U(-1, 1) [m | rad]
  double v_spread;        ///< random states: v = v_spread * U(-1, 1) [m/s | rad/s]
  double fd_step;         ///< finite-difference step in q and t
  double curvature_step;  ///< step of the five-point stencil for L
  double initial_g_tol;   ///< bound on ||g(0, q0)||inf
  double sample_time;     ///< end of the short run used for the power-balance check [s]
  double sample_step;     ///< RK4 step of that run [s]
};

std::unique_ptr<System> make_named(const char* name, MechanismOptions options = {}) {
  return make_mechanism(name, options);
}

// Tolerance on ||g(0,q0)||inf: 1e-14 for the O(1) models. The Andrews q0 is a 30-digit decimal
// rounded to double and its constraint terms are O(0.01..0.07 m), so the residual is a few ulps of
// 0.07 m (ulp = 1.4e-17 m); 1e-15 m leaves a factor ~10 for round-off in the 22 terms.
constexpr double kInitialGTol = 1e-14;
constexpr double kAndrewsInitialGTol = 1e-15;

const MechanismCase kCases[] = {
    {"pendulum", "pendulum", [] { return make_named("pendulum"); }, 0.1, 2.0, 1e-6, 1e-3,
     kInitialGTol, 0.5, 1e-3},
    {"double_pendulum", "double_pendulum", [] { return make_named("double_pendulum"); }, 0.1, 2.0,
     1e-6, 1e-3, kInitialGTol, 0.5, 1e-3},
    {"slider_crank", "slider_crank", [] { return make_named("slider_crank"); }, 0.1, 2.0, 1e-6,
     1e-3, kInitialGTol, 0.5, 1e-3},
    {"andrews", "andrews", [] { return make_named("andrews"); }, 0.1, 2.0, 1e-6, 1e-3,
     kAndrewsInitialGTol, 2e-3, 1e-5},
    {"robot_parabola", "robot_parabola", [] { return make_named("robot_parabola"); }, 0.1, 2.0,
     1e-6, 1e-3, kInitialGTol, 0.5, 1e-3},
    {"robot_sine", "robot_sine", [] { return make_named("robot_sine"); }, 0.1, 2.0, 1e-6, 1e-3,
     kInitialGTol, 0.5, 1e-3},
    {"robot_sine_omega3", "robot_sine",
     [] {
       return std::unique_ptr<System>(
           std::make_unique<detail::TwoLinkRobot>(detail::RobotPath::kSine, 3.0));
     },
     0.1, 2.0, 1e-6, 1e-3, kInitialGTol, 0.5, 1e-3},
    {"chain_open1", "chain",
     [] {
       return make_named("chain", {1, false});
     },
     0.1, 2.0, 1e-6, 1e-3, kInitialGTol, 0.5, 1e-3},
    {"chain_open4", "chain",
     [] {
       return make_named("chain", {4, false});
     },
     0.1, 2.0, 1e-6, 1e-3, kInitialGTol, 0.5, 1e-3},
    {"four_bar", "four_bar", [] { return make_named("four_bar"); }, 0.1, 2.0, 1e-6, 1e-3,
     kInitialGTol, 0.5, 1e-3},
    {"four_bar_grashof", "four_bar",
     [] { return std::unique_ptr<System>(std::make_unique<detail::FourBar>(0.8)); }, 0.1, 2.0, 1e-6,
     1e-3, kInitialGTol, 0.5, 1e-3},
    {"chain_loop5", "chain",
     [] {
       return make_named("chain", {5, true});
     },
     0.1, 2.0, 1e-6, 1e-3, kInitialGTol, 0.5, 1e-3},
};

// Relative and absolute tolerances of the finite-difference comparisons. Central differences with
// step 1e-6 on O(1) functions are accurate to ~1e-10 (truncation h^2, round-off eps/h), so 1e-7
// relative is loose enough for round-off yet far below any modelling error (a wrong sign or
// coefficient changes entries by O(1) relative).
constexpr double kFdRtol = 1e-7;
constexpr double kFdAtol = 1e-9;
// The five-point second derivative with h = 1e-3 has truncation ~h^4 and round-off ~5 eps/h^2.
constexpr double kCurvatureRtol = 1e-6;
constexpr double kCurvatureAtol = 1e-7;

constexpr int kRandomStates = 6;
constexpr unsigned kSeed = 20240611u;

struct Sample {
  double t;
  Vec q;
  Vec v;
};

class MechanismTest : public ::testing::TestWithParam<MechanismCase> {
 protected:
  void SetUp() override {
    sys_ = GetParam().make();
    ASSERT_NE(sys_, nullptr);
    sys_->initial_state(x0_);
  }

  // The initial state first, then random states near it with random velocities and times.
  [[nodiscard]] std::vector<Sample> samples() const {
    std::vector<Sample> out;
    out.push_back({x0_.t, x0_.q, x0_.v});
    std::mt19937_64 rng(kSeed);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    std::uniform_real_distribution<double> time(0.0, 2.0);
    for (int k = 0; k < kRandomStates; ++k) {
      Sample s{time(rng), x0_.q, Vec(sys_->n_v())};
      for (int i = 0; i < s.q.size(); ++i) s.q(i) += GetParam().q_spread * unit(rng);
      for (int i = 0; i < s.v.size(); ++i) s.v(i) = GetParam().v_spread * unit(rng);
      out.push_back(s);
    }
    return out;
  }

  // At every sample, the analytic value against its finite-difference estimate: scaled_error
  // <= 1 for the tolerances (rtol, atol).
  template <class Analytic, class Estimate>
  void expect_matches_estimate(
      const char* what, Analytic analytic, Estimate estimate, double rtol, double atol) const {
    for (const Sample& s : samples()) {
      const Mat value = analytic(s);
      const Mat fd = estimate(s);
      EXPECT_LE(scaled_error(value, fd, rtol, atol), 1.0) << "t = " << s.t << "\n"
                                                          << what << " =\n"
                                                          << value << "\nfinite differences =\n"
                                                          << fd;
    }
  }

  std::unique_ptr<System> sys_;
  State x0_;
};

TEST_P(MechanismTest, SizesAndMetadata) {
  EXPECT_EQ(sys_->name(), GetParam().registry_name);
  EXPECT_GT(sys_->n_q(), 0);
  EXPECT_EQ(sys_->n_q(), sys_->n_v());
  EXPECT_GT(sys_->n_lambda(), 0);
  EXPECT_LT(sys_->n_lambda(), sys_->n_v()) << "at least one degree of freedom must remain";
  EXPECT_TRUE(sys_->has_energy());
  EXPECT_EQ(x0_.t, 0.0);
  EXPECT_EQ(x0_.q.size(), sys_->n_q());
  EXPECT_EQ(x0_.v.size(), sys_->n_v());
}

TEST_P(MechanismTest, EveryOutputEntryIsWritten) {
  // outputs arrive with stale contents; NaN-filled buffers must come back fully finite
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int n = sys_->n_v();
  const int m = sys_->n_lambda();
  for (const Sample& s : samples()) {
    Mat mass = Mat::Constant(n, n, nan);
    Vec f = Vec::Constant(n, nan);
    Vec g = Vec::Constant(m, nan);
    Mat jac = Mat::Constant(m, n, nan);
    Vec gt = Vec::Constant(m, nan);
    Vec l = Vec::Constant(m, nan);
    Mat gv_q = Mat::Constant(m, n, nan);
    sys_->mass(s.t, s.q, mass);
    sys_->forces(s.t, s.q, s.v, {}, f);
    sys_->constraints(s.t, s.q, g);
    sys_->jacobian(s.t, s.q, jac);
    sys_->constraint_rate(s.t, s.q, gt);
    sys_->curvature(s.t, s.q, s.v, l);
    sys_->velocity_constraint_jacobian(s.t, s.q, s.v, gv_q);
    EXPECT_TRUE(mass.allFinite());
    EXPECT_TRUE(f.allFinite());
    EXPECT_TRUE(g.allFinite());
    EXPECT_TRUE(jac.allFinite());
    EXPECT_TRUE(gt.allFinite());
    EXPECT_TRUE(l.allFinite());
    EXPECT_TRUE(gv_q.allFinite());
    EXPECT_TRUE(std::isfinite(sys_->energy(s.t, s.q, s.v, {})));
  }
}

TEST_P(MechanismTest, InitialStateIsConsistent) {
  const Vec g = eval_g(*sys_, 0.0, x0_.q);
  EXPECT_LE(max_abs(g), GetParam().initial_g_tol) << "g(0, q0) = " << g.transpose();
  const Vec rate = eval_G(*sys_, 0.0, x0_.q) * x0_.v + eval_gt(*sys_, 0.0, x0_.q);
  EXPECT_LE(max_abs(rate), 1e-14) << "G v0 + g_t = " << rate.transpose();
}

TEST_P(MechanismTest, JacobianMatchesFiniteDifferences) {
  const double h = GetParam().fd_step;
  expect_matches_estimate(
      "G", [&](const Sample& s) { return eval_G(*sys_, s.t, s.q); },
      [&](const Sample& s) { return fd_jacobian(*sys_, s.t, s.q, h); }, kFdRtol, kFdAtol);
}

TEST_P(MechanismTest, ConstraintRateMatchesFiniteDifferences) {
  const double h = GetParam().fd_step;
  expect_matches_estimate(
      "g_t", [&](const Sample& s) { return eval_gt(*sys_, s.t, s.q); },
      [&](const Sample& s) { return fd_constraint_rate(*sys_, s.t, s.q, h); }, kFdRtol, kFdAtol);
}

TEST_P(MechanismTest, CurvatureMatchesSecondDerivativeAlongLine) {
  const double h = GetParam().curvature_step;
  expect_matches_estimate(
      "L", [&](const Sample& s) { return eval_L(*sys_, s.t, s.q, s.v); },
      [&](const Sample& s) { return fd_curvature(*sys_, s.t, s.q, s.v, h); }, kCurvatureRtol,
      kCurvatureAtol);
}

TEST_P(MechanismTest, VelocityConstraintJacobianMatchesFiniteDifferences) {
  const double h = GetParam().fd_step;
  expect_matches_estimate(
      "Gv_q", [&](const Sample& s) { return eval_Gv_q(*sys_, s.t, s.q, s.v); },
      [&](const Sample& s) { return fd_velocity_constraint_jacobian(*sys_, s.t, s.q, s.v, h); },
      kFdRtol, kFdAtol);
}

TEST_P(MechanismTest, MassIsSymmetricPositiveSemidefinite) {
  for (const Sample& s : samples()) {
    const Mat mass = eval_mass(*sys_, s.t, s.q);
    EXPECT_LE(max_abs(mass - mass.transpose()), 1e-15 * max_abs(mass)) << mass;
    const Eigen::SelfAdjointEigenSolver<Mat> eig(mass);
    EXPECT_GE(eig.eigenvalues().minCoeff(), -1e-14 * max_abs(mass)) << eig.eigenvalues();
  }
}

TEST_P(MechanismTest, KktIsRegular) {
  // Chin Lemma 4.1: G full row rank and M positive definite on ker G
  for (const Sample& s : samples()) {
    const Mat jac = eval_G(*sys_, s.t, s.q);
    const Eigen::JacobiSVD<Mat> svd(jac, Eigen::ComputeFullV);
    const Vec sigma = svd.singularValues();
    EXPECT_GT(sigma.minCoeff(), 1e-3 * sigma.maxCoeff()) << "singular values " << sigma.transpose();
    const int m = sys_->n_lambda();
    const Mat kernel = svd.matrixV().rightCols(sys_->n_v() - m);
    const Mat reduced = kernel.transpose() * eval_mass(*sys_, s.t, s.q) * kernel;
    const Eigen::SelfAdjointEigenSolver<Mat> eig(reduced);
    EXPECT_GT(eig.eigenvalues().minCoeff(), 1e-8 * max_abs(eval_mass(*sys_, s.t, s.q)))
        << "Z^T M Z eigenvalues " << eig.eigenvalues().transpose();
  }
}

TEST_P(MechanismTest, KineticEnergyIsHalfVtMv) {
  for (const Sample& s : samples()) {
    const Vec zero = Vec::Zero(sys_->n_v());
    const double kinetic = sys_->energy(s.t, s.q, s.v, {}) - sys_->energy(s.t, s.q, zero, {});
    const double expected = 0.5 * s.v.dot(eval_mass(*sys_, s.t, s.q) * s.v);
    EXPECT_NEAR(kinetic, expected, 1e-12 * (1.0 + std::abs(expected)));
  }
}

TEST_P(MechanismTest, ForcesAtRestAreMinusPotentialGradient) {
  // at v = 0 only gravity, springs and constant torques remain in f, and E(t,q,0) = V(q)
  for (const Sample& s : samples()) {
    const Vec zero = Vec::Zero(sys_->n_v());
    const Vec f = eval_forces(*sys_, s.t, s.q, zero);
    const Vec grad = fd_energy_gradient(*sys_, s.t, s.q, zero, GetParam().fd_step);
    EXPECT_LE(scaled_error(f, -grad, kFdRtol, kFdAtol), 1.0)
        << "f(q,0) = " << f.transpose() << "\n-dV/dq  = " << -grad.transpose();
  }
}

TEST_P(MechanismTest, VelocityDependentForcesMatchLagrangeEquations) {
  // Lagrange for T = 1/2 v^T M(q) v: M v' + M' v - 1/2 d(v^T M v)/dq = Q, so the velocity part of f
  // must be -M' v + 1/2 d(v^T M v)/dq; zero for the constant-M models
  for (const Sample& s : samples()) {
    const Vec zero = Vec::Zero(sys_->n_v());
    const Vec f_vel = eval_forces(*sys_, s.t, s.q, s.v) - eval_forces(*sys_, s.t, s.q, zero);
    const Vec expected = fd_lagrange_velocity_forces(*sys_, s.t, s.q, s.v, GetParam().fd_step);
    const double scale = max_abs(eval_mass(*sys_, s.t, s.q)) * s.v.squaredNorm();
    EXPECT_LE(max_abs(f_vel - expected), 1e-7 * scale + 1e-12)
        << "f(q,v) - f(q,0) = " << f_vel.transpose()
        << "\nLagrange terms  = " << expected.transpose();
  }
}

TEST_P(MechanismTest, EnergyRateEqualsConstraintPowerAlongMotion) {
  // on the manifold (G v = -g_t) and with conservative f: dE/dt = v^T (f - G^T lambda) + ... =
  // -lambda^T G v = lambda^T g_t; zero for scleronomic constraints
  const MechanismCase& c = GetParam();
  State x = x0_;
  for (int leg = 0; leg < 3; ++leg) {
    x = integrate_rk4(*sys_, x, x.t + c.sample_time / 3.0, c.sample_step);
    const Accelerations acc = solve_kkt(*sys_, x.t, x.q, x.v);
    const double sq = 1e-6 / std::max(1.0, max_abs(x.v));
    const double sv = 1e-6 * std::max(1.0, max_abs(x.v)) / std::max(1.0, max_abs(acc.a));
    const double de_q =
        (sys_->energy(x.t, x.q + sq * x.v, x.v, {}) - sys_->energy(x.t, x.q - sq * x.v, x.v, {})) /
        (2.0 * sq);
    const double de_v = (sys_->energy(x.t, x.q, x.v + sv * acc.a, {}) -
                         sys_->energy(x.t, x.q, x.v - sv * acc.a, {})) /
                        (2.0 * sv);
    const double power = acc.lambda.dot(eval_gt(*sys_, x.t, x.q));
    EXPECT_NEAR(de_q + de_v, power, 1e-6 * (std::abs(de_q) + std::abs(de_v)) + 1e-9)
        << "t = " << x.t << ": dE/dq v = " << de_q << ", dE/dv v' = " << de_v;
  }
}

std::string case_label(const ::testing::TestParamInfo<MechanismCase>& param) {
  return param.param.label;
}

INSTANTIATE_TEST_SUITE_P(ReferenceMechanisms,
                         MechanismTest,
                         ::testing::ValuesIn(kCases),
                         case_label);

}  // namespace
}  // namespace rtmb::test
