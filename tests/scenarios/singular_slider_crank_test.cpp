// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Chin's singular slider-crank (thesis §4.5, reference post-stabilization-chin1995.md §3.10; issue
// 16 acceptance 2) with the initial values of tests/support/singular_slider_crank.hpp, which pass
// the singular configuration th1 = 0 at t = 1.0 and 2.7 (and th1 = pi in between): G = 0 there
// and the KKT matrix is singular. RKSTAB-style DOPRI5 (AdaptiveDopri5) at tol = rtol = atol:
//  * PStab runs through [0, 10] at tol 1e-10 and stays on the slider-crank branch, with its
//    energy and its motion those of the Remark 4.4 reformulation;
//  * Baumgarte B(20, 100) fails at tol 1e-10, as the thesis reports (Fig. 4.31);
//  * on the reformulation (linear g, no singularity) PStab coincides with exact projection to
//    1e-12 wherever it is applied along a run over [0, 20] at atol 1e-10 (Fig. 4.33).
#include "tests/support/singular_slider_crank.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numbers>

#include "rtmb/adaptive_dopri5.hpp"
#include "rtmb/status.hpp"
#include "rtmb/step.hpp"

namespace rtmb {
namespace {

struct Result {
  State s;
  bool reached = false;     ///< the run got to t_end
  std::uint32_t flags = 0;  ///< OR of the accepted steps' flags, and the failing step's
  long steps = 0;           ///< NSTEP
  double energy_start = 0.0;
  double max_energy_error = 0.0;
  double max_branch_error = 0.0;  ///< max |th1 + th2 - pi| (mod 2 pi) over the accepted steps
};

// th1 + th2 - pi reduced to (-pi, pi]: 0 on the slider-crank branch
double branch_error(const State& s) {
  return std::remainder(s.q(0) + s.q(1) - std::numbers::pi, 2.0 * std::numbers::pi);
}

Result run(bool linear, StabilizerKind stabilizer, double tol, double t_end) {
  const auto sys = std::make_shared<testing::SingularSliderCrank>(linear);
  Settings settings;
  settings.method = Method::kDopri5;
  settings.stabilizer = stabilizer;
  if (stabilizer == StabilizerKind::kBaumgarte) {
    settings.gamma1 = 20.0;  // B(20, 100): g'' + 20 g' + 100 g = 0 (Chin eq. 2.14)
    settings.gamma2 = 100.0;
  }
  settings.projection_tolerance = 1e-13;  // exact projection, to round-off
  const Model model(sys, settings);
  AdaptiveOptions options;
  options.rtol = tol;
  options.atol = tol;
  options.max_steps = 200'000;
  AdaptiveDopri5 dopri(model, options);
  Result r;
  r.s = initial_state(model);
  r.energy_start = sys->energy(0.0, r.s.q, r.s.v, {});
  StepStatus st;
  while (dopri.step(r.s, t_end, st)) {
    r.flags |= st.flags;
    r.max_energy_error = std::max(r.max_energy_error,
                                  std::abs(sys->energy(r.s.t, r.s.q, r.s.v, {}) - r.energy_start));
    r.max_branch_error = std::max(r.max_branch_error, std::abs(branch_error(r.s)));
  }
  r.flags |= st.flags;
  r.reached = r.s.t == t_end && r.s.q.allFinite();
  r.steps = dopri.counters().nstep;
  return r;
}

void print(const char* label, const Result& r) {
  std::printf("%-34s t %.4f  NSTEP %ld  th1 %.12f  max|dE| %.2e  max branch %.2e  flags %s\n",
              label, r.s.t, r.steps, r.s.q(0), r.max_energy_error, r.max_branch_error,
              step_flag_names(r.flags).c_str());
}

TEST(SingularSliderCrank, PStabPassesBothSingularPointsAtTol1e10) {
  const Result pstab = run(false, StabilizerKind::kPStab, 1e-10, 10.0);
  print("singular, PStab, tol 1e-10", pstab);
  ASSERT_TRUE(pstab.reached) << step_flag_names(pstab.flags);
  EXPECT_EQ(pstab.flags & static_cast<std::uint32_t>(StepFlag::kNonFinite), 0u);
  // on the slider-crank branch through every singular point (th1 = 0, pi every 0.85 s), with
  // the energy of the start (the mechanism is conservative)
  EXPECT_LE(pstab.max_branch_error, 1e-6);
  EXPECT_LE(pstab.max_energy_error, 1e-6 * std::abs(pstab.energy_start));
  // th1 passed 0 at t = 1 and 2pi at t = 2.7 (eleven singular points on [0, 10])
  EXPECT_GT(pstab.s.q(0), 9.0 * std::numbers::pi);
  // and moved as the reformulation without singularity, computed to 1e-12
  const Result reference = run(true, StabilizerKind::kProject, 1e-12, 10.0);
  print("reformulated, projection, tol 1e-12", reference);
  ASSERT_TRUE(reference.reached);
  std::printf("|th1 - th1_ref| at t = 10: %.3e\n", std::abs(pstab.s.q(0) - reference.s.q(0)));
  EXPECT_LE(std::abs(pstab.s.q(0) - reference.s.q(0)), 1e-5);
}

TEST(SingularSliderCrank, BaumgarteFailsAtTol1e10) {
  const Result b = run(false, StabilizerKind::kBaumgarte, 1e-10, 10.0);
  print("singular, B(20,100), tol 1e-10", b);
  // fails: does not reach t = 10 on the slider-crank branch (measured: the step size collapses at
  // the first singular point, t = 1.0, and the driver stops with kNonFinite)
  EXPECT_FALSE(b.reached && b.max_branch_error <= 1e-6) << step_flag_names(b.flags);
}

TEST(SingularSliderCrank, ReformulationPStabCoincidesWithExactProjection) {
  // Remark 4.4: with the linear constraint th1 + th2 = pi one PStab correction lands exactly on
  // g = 0 and G v = 0, so PStab is the exact (M-metric) projection. Checked where it is applied:
  // along the PStab run over [0, 20] at atol 1e-10, each accepted state is pushed off the
  // manifold by 1e-8 (100 x the tolerance, a generous local error) and corrected by PStab and by
  // iterated projection; the two corrected states must agree to 1e-12.
  const auto sys = std::make_shared<testing::SingularSliderCrank>(true);
  Settings ps;
  ps.method = Method::kDopri5;
  ps.stabilizer = StabilizerKind::kPStab;
  Settings pr = ps;
  pr.stabilizer = StabilizerKind::kProject;
  pr.projection_tolerance = 1e-13;  // to round-off (th1 reaches 70 rad)
  const Model m_pstab(sys, ps);
  const Model m_proj(sys, pr);
  Workspace ws_pstab(m_pstab);
  Workspace ws_proj(m_proj);
  AdaptiveOptions options;
  options.rtol = 1e-10;
  options.atol = 1e-10;
  AdaptiveDopri5 dopri(m_pstab, options);
  State s = initial_state(m_pstab);
  StepStatus st;
  double max_dq = 0.0;
  double max_dv = 0.0;
  long n = 0;
  const Vec dq0 = (Vec(2) << 0.7e-8, 0.4e-8).finished();   // off g = 0 (th1 + th2 moves)
  const Vec dv0 = (Vec(2) << -0.3e-8, 0.9e-8).finished();  // off G v = 0
  while (dopri.step(s, 20.0, st)) {
    Vec q1 = s.q + dq0;
    Vec v1 = s.v + dv0;
    Vec q2 = q1;
    Vec v2 = v1;
    StepStatus a;
    StepStatus b;
    stabilize(ws_pstab, s.t, q1, v1, a);
    stabilize(ws_proj, s.t, q2, v2, b);
    ASSERT_TRUE(a.ok() && b.ok()) << step_flag_names(a.flags | b.flags);
    max_dq = std::max(max_dq, (q1 - q2).lpNorm<Eigen::Infinity>());
    max_dv = std::max(max_dv, (v1 - v2).lpNorm<Eigen::Infinity>());
    ++n;
  }
  ASSERT_EQ(s.t, 20.0);
  std::printf(
      "reformulated, %ld corrections: max |q_pstab - q_proj| %.3e, max |v_pstab - v_proj| "
      "%.3e\n",
      n, max_dq, max_dv);
  EXPECT_LE(max_dq, 1e-12);
  EXPECT_LE(max_dv, 1e-12);
  // the whole runs, for the record (round-off grows along the rotation: not asserted)
  const Result pstab = run(true, StabilizerKind::kPStab, 1e-10, 20.0);
  const Result proj = run(true, StabilizerKind::kProject, 1e-10, 20.0);
  print("reformulated, PStab, tol 1e-10", pstab);
  print("reformulated, projection, tol 1e-10", proj);
}

}  // namespace
}  // namespace rtmb
