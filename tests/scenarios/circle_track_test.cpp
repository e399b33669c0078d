// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Circle track of Arévalo & Lötstedt with exact solution (Hoitink 2011 App. A.1, seed
// 001_95e1ee7b0cc35f6b.txt; reference/gsssss-hoitink2011.md §4.4): a point mass on the unit
// circle driven by a constant-magnitude tangential force,
//     [2 0; 0 2] [x''; y''] + [-2x; -2y] lambda = [4y; -4x],   g = 1 - x^2 - y^2,
// exact x = sin t^2, y = cos t^2, lambda = -4 t^2. Issue 5 acceptance 2: second order in q, v and
// lambda (lambda aligned to t_{n+1} by seed eq. 3.31), slope 2 +- 0.15 over dt = 2^-4 .. 2^-7 at
// T = 1/4 (Hoitink's convergence study).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "engine/implicit/gsssss_integrator.hpp"
#include "rtmb/model.hpp"
#include "tests/engine/mechanisms/mechanism_test_support.hpp"

namespace rtmb::test {
namespace {

class CircleTrack final : public System {
 public:
  CircleTrack() noexcept : System(2, 2, 1) {}
  [[nodiscard]] std::string_view name() const noexcept override { return "circle_track"; }
  void initial_state(State& out) const override {
    out = State(2, 2);
    out.q << 0.0, 1.0;
  }
  void mass(double, VecCRef, MatRef out_M) const noexcept override {
    out_M.setZero();
    out_M(0, 0) = 2.0;
    out_M(1, 1) = 2.0;
  }
  void forces(double, VecCRef q, VecCRef, InputValues, VecRef out_f) const noexcept override {
    out_f(0) = 4.0 * q(1);
    out_f(1) = -4.0 * q(0);
  }
  void constraints(double, VecCRef q, VecRef out_g) const noexcept override {
    out_g(0) = 1.0 - q(0) * q(0) - q(1) * q(1);
  }
  void jacobian(double, VecCRef q, MatRef out_G) const noexcept override {
    out_G(0, 0) = -2.0 * q(0);
    out_G(0, 1) = -2.0 * q(1);
  }
  void curvature(double, VecCRef, VecCRef v, VecRef out_L) const noexcept override {
    out_L(0) = -2.0 * (v(0) * v(0) + v(1) * v(1));
  }
  void velocity_constraint_jacobian(double,
                                    VecCRef,
                                    VecCRef v,
                                    MatRef out_Gv_q) const noexcept override {
    out_Gv_q(0, 0) = -2.0 * v(0);
    out_Gv_q(0, 1) = -2.0 * v(1);
  }
  bool force_jacobians(double, VecCRef, VecCRef, MatRef fq, MatRef fv) const noexcept override {
    fq << 0.0, 4.0, -4.0, 0.0;
    fv.setZero();
    return true;
  }
  bool constraint_force_jacobian(double,
                                 VecCRef,
                                 VecCRef lambda,
                                 MatRef out_H) const noexcept override {
    // Hoitink App. A.1: J_B-lambda = diag(-2 lambda, -2 lambda)
    out_H.setZero();
    out_H(0, 0) = -2.0 * lambda(0);
    out_H(1, 1) = -2.0 * lambda(0);
    return true;
  }
  bool inertia_jacobian(double, VecCRef, VecCRef, MatRef out_K) const noexcept override {
    out_K.setZero();
    return true;
  }
};

TEST(CircleTrack, AnalyticBlocksMatchFiniteDifferences) {
  CircleTrack sys;
  const Vec q = (Vec(2) << 0.3, -0.8).finished();
  const Vec v = (Vec(2) << 0.1, 0.2).finished();
  const Vec lambda = (Vec(1) << 1.7).finished();
  Mat fq(2, 2), fv(2, 2), H(2, 2);
  ASSERT_TRUE(sys.force_jacobians(0.0, q, v, fq, fv));
  ASSERT_TRUE(sys.constraint_force_jacobian(0.0, q, lambda, H));
  const double h = 1e-6;
  for (int j = 0; j < 2; ++j) {
    Vec qp = q, qm = q;
    qp(j) += h;
    qm(j) -= h;
    const Vec dfq = (eval_forces(sys, 0, qp, v) - eval_forces(sys, 0, qm, v)) / (2 * h);
    const Vec dH =
        (eval_G(sys, 0, qp).transpose() * lambda - eval_G(sys, 0, qm).transpose() * lambda) /
        (2 * h);
    EXPECT_LE(max_abs(fq.col(j) - dfq), 1e-8);
    EXPECT_LE(max_abs(H.col(j) - dH), 1e-8);
  }
}

struct Errors {
  double q, v, lambda, a;
};

Errors run_to_quarter(const Settings& settings, double h) {
  CircleTrack sys;
  GsssssIntegrator integ(sys, gsssss_parameters(settings), settings.implicit);
  State s(2, 2);
  sys.initial_state(s);
  Vec q_new(2), v_new(2), lam(1);
  const int steps = static_cast<int>(std::lround(0.25 / h));
  for (int i = 0; i < steps; ++i) {
    StepStatus st;
    EXPECT_TRUE(integ.step({s.t, h, s.q, s.v}, {q_new, v_new}, st)) << "step " << i;
    EXPECT_LE(std::fabs(eval_g(sys, 0.0, q_new)(0)), 1e-10);
    s.q = q_new;
    s.v = v_new;
    s.t += h;
  }
  const double t = s.t;
  Vec q_ex(2), v_ex(2);
  q_ex << std::sin(t * t), std::cos(t * t);
  v_ex << 2 * t * std::cos(t * t), -2 * t * std::sin(t * t);
  integ.lambda_at_end(lam);
  Vec a(2), a_ex(2);
  integ.acceleration_at_end(a);
  a_ex << 2 * std::cos(t * t) - 4 * t * t * std::sin(t * t),
      -4 * t * t * std::cos(t * t) - 2 * std::sin(t * t);
  return {max_abs(s.q - q_ex), max_abs(s.v - v_ex), std::fabs(lam(0) - (-4.0 * t * t)),
          max_abs(a - a_ex)};
}

// least-squares slope of log(error) against log(dt)
double slope(const double (&h)[4], const double (&e)[4]) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < 4; ++i) {
    const double x = std::log(h[i]);
    const double y = std::log(e[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  return (4 * sxy - sx * sy) / (4 * sxx - sx * sx);
}

void expect_second_order(Method method, int option, const char* label) {
  Settings settings;
  settings.method = method;
  settings.stabilizer = StabilizerKind::kNone;
  settings.implicit.option = option;
  const double h[4] = {1.0 / 16, 1.0 / 32, 1.0 / 64, 1.0 / 128};
  double eq[4], ev[4], el[4], ea[4];
  for (int i = 0; i < 4; ++i) {
    const Errors e = run_to_quarter(settings, h[i]);
    eq[i] = e.q;
    ev[i] = e.v;
    el[i] = e.lambda;
    ea[i] = e.a;
    std::printf("%s dt = 2^-%d: e_q %.4g  e_v %.4g  e_lambda %.4g\n", label, i + 4, e.q, e.v,
                e.lambda);
  }
  std::printf("%s slopes: q %.3f  v %.3f  lambda %.3f  a %.3f\n", label, slope(h, eq), slope(h, ev),
              slope(h, el), slope(h, ea));
  EXPECT_NEAR(slope(h, eq), 2.0, 0.15) << label;
  EXPECT_NEAR(slope(h, ev), 2.0, 0.15) << label;
  EXPECT_NEAR(slope(h, el), 2.0, 0.15) << label;
  // Hoitink claim 4 (reference §6): also a, after the eq. 3.31 alignment
  EXPECT_NEAR(slope(h, ea), 2.0, 0.15) << label;
}

TEST(CircleTrack, MidpointOption2IsSecondOrderInQVAndLambda) {
  expect_second_order(Method::kMidpoint, 2, "V0(1,1,0) opt 2");
}

TEST(CircleTrack, OtherMembersAndOptionsAreSecondOrder) {
  // Hoitink App. A.1: "precise second order accuracy regardless of the algorithm or option"
  expect_second_order(Method::kMidpoint, 3, "V0(1,1,0) opt 3");
  expect_second_order(Method::kMidpoint, 4, "V0(1,1,0) opt 4");
  expect_second_order(Method::kNewmark, 2, "U0(1,1,0)");
}

}  // namespace
}  // namespace rtmb::test
