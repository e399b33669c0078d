// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The analytic iteration-matrix blocks the mechanisms provide for the implicit methods
// (System::force_jacobians, constraint_force_jacobian, inertia_jacobian; Hoitink eq. 3.22,
// seed 001_95e1ee7b0cc35f6b.txt eqs. 4.15-4.18) against central differences of the System's own
// forces(), jacobian() and mass(), at random states and multipliers.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "rtmb/models/mechanisms.hpp"
#include "tests/engine/mechanisms/mechanism_test_support.hpp"

namespace rtmb::test {
namespace {

Vec random_vec(std::mt19937& rng, int n, double scale) {
  std::uniform_real_distribution<double> d(-scale, scale);
  Vec x(n);
  for (int i = 0; i < n; ++i) x(i) = d(rng);
  return x;
}

class IterationMatrix : public ::testing::TestWithParam<std::string> {};

TEST_P(IterationMatrix, AnalyticBlocksMatchFiniteDifferences) {
  const auto sys = make_mechanism(GetParam());
  const int n = sys->n_v();
  const int m = sys->n_lambda();
  State x0(n, n);
  sys->initial_state(x0);
  std::mt19937 rng(7);
  const double h = 1e-6;
  for (int trial = 0; trial < 5; ++trial) {
    const double t = 0.3 * trial;
    const Vec q = x0.q + random_vec(rng, n, 0.5);
    const Vec v = random_vec(rng, n, 2.0);
    const Vec a = random_vec(rng, n, 5.0);
    const Vec lambda = random_vec(rng, m, 10.0);

    Mat fq = Mat::Constant(n, n, 99.0);
    Mat fv = Mat::Constant(n, n, 99.0);
    Mat H = Mat::Constant(n, n, 99.0);
    Mat K = Mat::Constant(n, n, 99.0);
    ASSERT_TRUE(sys->force_jacobians(t, q, v, fq, fv));
    ASSERT_TRUE(sys->constraint_force_jacobian(t, q, lambda, H));
    ASSERT_TRUE(sys->inertia_jacobian(t, q, a, K));

    Mat fq_fd(n, n), fv_fd(n, n), H_fd(n, n), K_fd(n, n);
    for (int j = 0; j < n; ++j) {
      Vec qp = q, qm = q, vp = v, vm = v;
      qp(j) += h;
      qm(j) -= h;
      vp(j) += h;
      vm(j) -= h;
      fq_fd.col(j) = (eval_forces(*sys, t, qp, v) - eval_forces(*sys, t, qm, v)) / (2 * h);
      fv_fd.col(j) = (eval_forces(*sys, t, q, vp) - eval_forces(*sys, t, q, vm)) / (2 * h);
      H_fd.col(j) =
          (eval_G(*sys, t, qp).transpose() * lambda - eval_G(*sys, t, qm).transpose() * lambda) /
          (2 * h);
      K_fd.col(j) = (eval_mass(*sys, t, qp) * a - eval_mass(*sys, t, qm) * a) / (2 * h);
    }
    EXPECT_LE(scaled_error(fq, fq_fd, 1e-6, 1e-6), 1.0) << "df/dq\n" << fq << "\n" << fq_fd;
    EXPECT_LE(scaled_error(fv, fv_fd, 1e-6, 1e-6), 1.0) << "df/dv\n" << fv << "\n" << fv_fd;
    EXPECT_LE(scaled_error(H, H_fd, 1e-6, 1e-6), 1.0) << "d(G^T l)/dq\n" << H << "\n" << H_fd;
    EXPECT_LE(scaled_error(K, K_fd, 1e-6, 1e-6), 1.0) << "d(M a)/dq\n" << K << "\n" << K_fd;
    // the FD check is not vacuous: the constraint-force block is non-zero here
    EXPECT_GT(max_abs(H_fd), 1e-6 * max_abs(lambda));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Mechanisms,
    IterationMatrix,
    ::testing::Values("pendulum", "double_pendulum", "slider_crank", "andrews", "chain"));

// a System that implements only the required interface
class Minimal final : public System {
 public:
  Minimal() noexcept : System(1, 1, 0) {}
  [[nodiscard]] std::string_view name() const noexcept override { return "minimal"; }
  void initial_state(State& out) const override { out = State(1, 1); }
  void mass(double, VecCRef, MatRef out_M) const noexcept override { out_M(0, 0) = 1.0; }
  void forces(double, VecCRef, VecCRef, InputValues, VecRef out_f) const noexcept override {
    out_f(0) = 0.0;
  }
  void constraints(double, VecCRef, VecRef) const noexcept override {}
  void jacobian(double, VecCRef, MatRef) const noexcept override {}
  void curvature(double, VecCRef, VecCRef, VecRef) const noexcept override {}
  void velocity_constraint_jacobian(double, VecCRef, VecCRef, MatRef) const noexcept override {}
};

TEST(IterationMatrix, DefaultIsNotProvided) {
  // the defaults say "not provided", so the integrator takes finite differences (system.hpp)
  const Minimal sys;
  const Vec x = Vec::Zero(1);
  Mat out = Mat::Zero(1, 1);
  Mat out2 = Mat::Zero(1, 1);
  EXPECT_FALSE(sys.force_jacobians(0.0, x, x, out, out2));
  EXPECT_FALSE(sys.constraint_force_jacobian(0.0, x, Vec::Zero(0), out));
  EXPECT_FALSE(sys.inertia_jacobian(0.0, x, x, out));
}

}  // namespace
}  // namespace rtmb::test
