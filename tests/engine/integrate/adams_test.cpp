// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// AMPC_m / MAMPC_m against Wu, Chiou & Lin 2000 (seed 002_b80ca893801d8a0f.txt): the
// coefficient tables from their definition (Table 1, eq. 13), Theorem 1, the stability limits of
// Table 2, the constraint errors of Table 3 and the Baumgarte gain thresholds of Fig. 7 on the
// slider-crank, the convergence orders of §6, and the restart of the history.
#include "engine/integrate/adams.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "engine/integrate/adams_stability.hpp"
#include "engine/mechanisms/mechanisms_impl.hpp"
#include "tests/support/run_helpers.hpp"

namespace rtmb {
namespace {

using testing::relative_deviation;
using testing::settings_for;

// integral over [0, 1] of prod_{r=0}^{k-1} (s + shift + r) / k!  (shift 0: gamma_k, eq. 13;
// shift -1: gamma*_k), by expanding the polynomial exactly
double gamma_integral(int k, double shift) {
  std::vector<double> poly{1.0};  // coefficients of s^0, s^1, ...
  double factorial = 1.0;
  for (int r = 0; r < k; ++r) {
    std::vector<double> next(poly.size() + 1, 0.0);
    for (std::size_t i = 0; i < poly.size(); ++i) {
      next[i] += (shift + r) * poly[i];
      next[i + 1] += poly[i];
    }
    poly = next;
    factorial *= (r + 1);
  }
  double integral = 0.0;
  for (std::size_t i = 0; i < poly.size(); ++i) integral += poly[i] / static_cast<double>(i + 1);
  return integral / factorial;
}
double gamma_k(int k) {
  return gamma_integral(k, 0.0);
}
double gamma_star_k(int k) {
  return gamma_integral(k, -1.0);
}

double binomial(int n, int k) {
  double b = 1.0;
  for (int i = 1; i <= k; ++i) b = b * (n - k + i) / i;
  return b;
}

// ordinate coefficient on the j-th value of h sum_{k<terms} g_k nabla^k f
double ordinate(int j, int terms, double (*g)(int)) {
  double c = 0.0;
  for (int k = j; k < terms; ++k) c += g(k) * (j % 2 == 0 ? 1.0 : -1.0) * binomial(k, j);
  return c;
}

TEST(AdamsCoefficients, Table1FromTheDefiningIntegrals) {
  // Wu Table 1 (exact fractions as printed)
  const std::array<double, 6> gamma{1.0, 1.0 / 2, 5.0 / 12, 3.0 / 8, 251.0 / 720, 95.0 / 288};
  const std::array<double, 6> gamma_star{1.0,       -1.0 / 2,    -1.0 / 12,
                                         -1.0 / 24, -19.0 / 720, -3.0 / 160};
  for (int k = 0; k < 6; ++k) {
    EXPECT_NEAR(gamma_k(k), gamma[static_cast<std::size_t>(k)], 1e-15) << k;
    EXPECT_NEAR(gamma_star_k(k), gamma_star[static_cast<std::size_t>(k)], 1e-15) << k;
  }
}

TEST(AdamsCoefficients, PredictorCorrectorAndWeightsFollowFromGammas) {
  for (int m = 3; m <= 5; ++m) {
    const AdamsCoefficients& c = adams_coefficients(m);
    for (int j = 0; j < m; ++j) {
      // eq. 17: AB_m = y_i + h sum_{k<m} gamma_k nabla^k f_i
      EXPECT_NEAR(c.predictor[static_cast<std::size_t>(j)], ordinate(j, m, gamma_k), 1e-14);
      // eq. 18: AM_(m-1) = y_i + h sum_{k<m} gamma*_k nabla^k f_{i+1}
      EXPECT_NEAR(c.corrector[static_cast<std::size_t>(j)], ordinate(j, m, gamma_star_k), 1e-14);
    }
    // Theorem 1: W1 = -gamma*_m, W2 = gamma_m, W1 + W2 = gamma_{m-1}
    EXPECT_NEAR(c.w_ab, -gamma_star_k(m) / gamma_k(m - 1), 1e-15);
    EXPECT_NEAR(c.w_am, gamma_k(m) / gamma_k(m - 1), 1e-15);
    EXPECT_NEAR(c.w_ab + c.w_am, 1.0, 1e-15);
  }
}

TEST(AdamsCoefficients, Theorem1BlendIsTheAmMStepCorrector) {
  // w_AB AB_m + w_AM AM_(m-1) = AM_m with f(t_{i+1}) at the predictor (eq. 20-26)
  for (int m = 3; m <= 5; ++m) {
    const AdamsCoefficients& c = adams_coefficients(m);
    EXPECT_NEAR(c.w_am * c.corrector[0], ordinate(0, m + 1, gamma_star_k), 1e-15) << m;
    for (int j = 0; j < m; ++j) {
      const double blended =
          c.w_ab * c.predictor[static_cast<std::size_t>(j)] +
          (j + 1 < m ? c.w_am * c.corrector[static_cast<std::size_t>(j + 1)] : 0.0);
      EXPECT_NEAR(blended, ordinate(j + 1, m + 1, gamma_star_k), 1e-14) << m << " " << j;
    }
  }
}

struct Table2Row {
  AdamsScheme scheme;
  std::array<double, 3> limit;  // m = 3, 4, 5
};

TEST(AdamsStability, Table2RealAxisLimits) {
  // Wu Table 2, within the issue's +-0.005
  const std::array<Table2Row, 3> rows{{
      {AdamsScheme::kAb, {0.545, 0.300, 0.164}},
      {AdamsScheme::kAmpc, {1.729, 1.285, 0.947}},
      {AdamsScheme::kMampc, {1.935, 1.412, 1.040}},
  }};
  for (const Table2Row& row : rows) {
    for (int m = 3; m <= 5; ++m) {
      const double limit = adams_real_stability_limit(row.scheme, m);
      std::printf("Table 2 scheme %d m %d: %.6f (paper %.3f)\n", static_cast<int>(row.scheme), m,
                  limit, row.limit[static_cast<std::size_t>(m - 3)]);
      EXPECT_NEAR(limit, row.limit[static_cast<std::size_t>(m - 3)], 0.005)
          << "scheme " << static_cast<int>(row.scheme) << " m " << m;
    }
  }
  // closed forms of the AB limits (reference §7): 6/11, 3/10, 90/551
  EXPECT_NEAR(adams_real_stability_limit(AdamsScheme::kAb, 3), 6.0 / 11.0, 1e-8);
  EXPECT_NEAR(adams_real_stability_limit(AdamsScheme::kAb, 4), 3.0 / 10.0, 1e-8);
  EXPECT_NEAR(adams_real_stability_limit(AdamsScheme::kAb, 5), 90.0 / 551.0, 1e-8);
}

Method ampc(int m) {
  return m == 3 ? Method::kAmpc3 : m == 4 ? Method::kAmpc4 : Method::kAmpc5;
}
Method mampc(int m) {
  return m == 3 ? Method::kMampc3 : m == 4 ? Method::kMampc4 : Method::kMampc5;
}

struct CrankRun {
  double mean_g2 = 0.0;  ///< mean over t_n in [0, T] of ||Phi(q_n)||_2, start point included
  bool blew_up = false;  ///< non-finite state or ||Phi||_2 > 1 m
  State final_state;
};

// Slider-crank of Wu §9 with Baumgarte alpha = beta (eq. 33): g'' + 2 alpha g' + alpha^2 g = 0,
// i.e. Chin's B(gamma1, gamma2) = (2 alpha, alpha^2).
CrankRun run_crank(Method method, double h, double alpha, double t_end) {
  const Model model(
      std::make_shared<detail::SliderCrank>(),
      settings_for(method, StabilizerKind::kBaumgarte, h, 2.0 * alpha, alpha * alpha));
  Workspace ws(model);
  CrankRun r;
  r.final_state = initial_state(model);
  Vec g(3);
  const long n = std::lround(t_end / h);
  double sum = 0.0;
  model.system().constraints(0.0, r.final_state.q, g);
  sum += g.norm();
  for (long i = 0; i < n; ++i) {
    const StepStatus st = step(model, r.final_state, ws);
    model.system().constraints(r.final_state.t, r.final_state.q, g);
    if (has_flag(st.flags, StepFlag::kNonFinite) || !(g.norm() <= 1.0)) {
      r.blew_up = true;
      return r;
    }
    sum += g.norm();
  }
  r.mean_g2 = sum / static_cast<double>(n + 1);
  return r;
}

TEST(AdamsSliderCrank, Table3MeanConstraintErrors) {
  // Wu Table 3, alpha = beta = 5; T = 10 s and the mean over all grid points (reference §11)
  struct Entry {
    Method method;
    double h;
    double printed;
  };
  const std::array<Entry, 4> table{{
      {Method::kAmpc3, 0.01, 4.65e-6},
      {Method::kAmpc3, 0.001, 4.14e-9},
      {Method::kMampc3, 0.01, 9.8e-7},
      {Method::kMampc3, 0.001, 9.6e-11},
  }};
  for (const Entry& e : table) {
    const CrankRun r = run_crank(e.method, e.h, 5.0, 10.0);
    ASSERT_FALSE(r.blew_up);
    std::printf("Table 3 %s h = %g: %.4e (paper %.3g)\n", to_string(e.method).data(), e.h,
                r.mean_g2, e.printed);
    EXPECT_LE(relative_deviation(r.mean_g2, e.printed), 0.05)
        << to_string(e.method) << " h = " << e.h << ": " << r.mean_g2;
  }
}

TEST(AdamsSliderCrank, BaumgarteGainThresholdsOfFig7) {
  // h = 0.01: "AMPC_3 becomes unstable when alpha >= 168 ... MAMPC_3 is still stable when
  // 168 <= alpha <= 188" (Wu §V, Fig. 7)
  EXPECT_FALSE(run_crank(Method::kAmpc3, 0.01, 167.0, 10.0).blew_up);
  EXPECT_TRUE(run_crank(Method::kAmpc3, 0.01, 168.0, 10.0).blew_up);
  EXPECT_TRUE(run_crank(Method::kAmpc3, 0.01, 175.0, 10.0).blew_up);
  for (double alpha : {168.0, 178.0, 188.0}) {
    const CrankRun r = run_crank(Method::kMampc3, 0.01, alpha, 10.0);
    std::printf("MAMPC_3 h = 0.01 alpha = %g: mean ||Phi||_2 %.3e\n", alpha, r.mean_g2);
    EXPECT_FALSE(r.blew_up) << alpha;
    EXPECT_LT(r.mean_g2, 1e-3) << alpha;
  }
  // and the a-priori rule alpha h <= SL of eq. 34 brackets both thresholds from above
  EXPECT_LT(1.68, adams_real_stability_limit(AdamsScheme::kAmpc, 3));
  EXPECT_LT(1.88, adams_real_stability_limit(AdamsScheme::kMampc, 3));
}

TEST(AdamsSliderCrank, ConvergenceOrdersAgainstReferenceState) {
  // reference §9: state at t = 1 s (RK4 h = 1e-4, alpha = beta = 5, agrees to ~1e-11)
  Vec ref(8);
  ref << -2.723711997542, 0.245967308804, 0.016785351173, -0.048698926708, -6.663894650776,
      -3.767683005400, -0.536088115161, 0.730856840526;
  const auto error = [&](Method method, double h) {
    const CrankRun r = run_crank(method, h, 5.0, 1.0);
    Vec y(8);
    y << r.final_state.q, r.final_state.v;
    return (y - ref).norm();
  };
  for (int m = 3; m <= 4; ++m) {
    // h small enough to be asymptotic, large enough to stay above the reference's 1e-11
    const double h = m == 3 ? 1e-3 : 2e-3;
    const double p_ampc = std::log2(error(ampc(m), h) / error(ampc(m), h / 2));
    const double p_mampc = std::log2(error(mampc(m), h) / error(mampc(m), h / 2));
    EXPECT_NEAR(p_ampc, m, 0.4) << "AMPC_" << m;
    EXPECT_NEAR(p_mampc, m + 1, 0.4) << "MAMPC_" << m;
  }
}

TEST(AdamsPece, HistoryRestartsWhenTimeIsSetBack) {
  // a state set from outside with a new t must not reuse the old history: the run after the reset
  // is bit-identical to a fresh one
  const Settings s = settings_for(Method::kMampc4, StabilizerKind::kPStab, 1e-3);
  const Model model(make_mechanism("slider_crank"), s);
  Workspace ws(model);
  State a = initial_state(model);
  for (int i = 0; i < 50; ++i) (void)step(model, a, ws);
  State b = initial_state(model);  // back to t = 0 in the same workspace
  for (int i = 0; i < 20; ++i) (void)step(model, b, ws);

  Workspace fresh_ws(model);
  State c = initial_state(model);
  for (int i = 0; i < 20; ++i) (void)step(model, c, fresh_ws);
  EXPECT_EQ((b.q - c.q).lpNorm<Eigen::Infinity>(), 0.0);
  EXPECT_EQ((b.v - c.v).lpNorm<Eigen::Infinity>(), 0.0);
}

TEST(AdamsPece, ExplicitResetStartsOverWithRk4) {
  AdamsPece pece(3, AdamsVariant::kMampc, 4, 4, 4);
  detail::SliderCrank crank;
  Dynamics dyn(crank);
  State s(4, 4);
  crank.initial_state(s);
  Vec q(4), v(4);
  StepStatus st;
  for (int i = 0; i < 5; ++i) {
    pece.advance(dyn, {s.t, 1e-3, s.q, s.v}, {q, v}, st);
    s.q = q;
    s.v = v;
    s.t += 1e-3;
  }
  EXPECT_EQ(pece.history_size(), 3);
  pece.reset();
  EXPECT_EQ(pece.history_size(), 0);
  const long before = dyn.evaluations();
  pece.advance(dyn, {s.t, 1e-3, s.q, s.v}, {q, v}, st);
  EXPECT_EQ(dyn.evaluations() - before, 1 + 4 * 4);  // E at the state, then 4 RK4 substeps
}

TEST(AdamsPece, RetakingAStepReplacesTheNewestValueOnly) {
  // two calls from the same t and h: the second is the same step from another state, so the
  // result equals a single call from that state with the same older history
  AdamsPece a(3, AdamsVariant::kMampc, 4, 4, 4);
  AdamsPece b(3, AdamsVariant::kMampc, 4, 4, 4);
  detail::SliderCrank crank;
  Dynamics dyn(crank);
  State s(4, 4);
  crank.initial_state(s);
  Vec q(4), v(4), qa(4), va(4), qb(4), vb(4);
  StepStatus st;
  for (int i = 0; i < 6; ++i) {
    a.advance(dyn, {s.t, 1e-3, s.q, s.v}, {q, v}, st);
    b.advance(dyn, {s.t, 1e-3, s.q, s.v}, {q, v}, st);
    s.q = q;
    s.v = v;
    s.t += 1e-3;
  }
  Vec q_other = s.q + Vec::Constant(4, 1e-6);
  a.advance(dyn, {s.t, 1e-3, s.q, s.v}, {qa, va}, st);      // first take
  a.advance(dyn, {s.t, 1e-3, q_other, s.v}, {qa, va}, st);  // retake from another state
  b.advance(dyn, {s.t, 1e-3, q_other, s.v}, {qb, vb}, st);
  EXPECT_EQ(a.history_size(), 3);
  EXPECT_EQ((qa - qb).lpNorm<Eigen::Infinity>(), 0.0);
  EXPECT_EQ((va - vb).lpNorm<Eigen::Infinity>(), 0.0);
  // and the multistep formula was used, not the RK4 starter: 2 evaluations
  const long before = dyn.evaluations();
  a.advance(dyn, {s.t, 1e-3, q_other, s.v}, {qa, va}, st);
  EXPECT_EQ(dyn.evaluations() - before, 2);
}

TEST(AdamsPece, SymmetricProjectionAroundMampcKeepsTheManifold) {
  const testing::RunSummary r = testing::run_fixed(
      "slider_crank", settings_for(Method::kMampc3, StabilizerKind::kSymProj, 1e-3), 2.0);
  EXPECT_EQ(r.flags, 0u);
  EXPECT_LE(r.max_position_drift, 1e-12);
  EXPECT_LE(r.max_velocity_drift, 1e-12);
}

TEST(AdamsPece, TwoEvaluationsPerStepAndPStabKeepsDriftAtRoundOff) {
  for (int m = 3; m <= 5; ++m) {
    const testing::RunSummary r = testing::run_fixed(
        "slider_crank", settings_for(mampc(m), StabilizerKind::kPStab, 1e-3), 2.0);
    EXPECT_EQ(r.flags, 0u);
    EXPECT_LE(r.max_position_drift, 1e-12);
    EXPECT_LE(r.max_velocity_drift, 1e-10);
    // (m - 1) start-up steps of 1 + 4 * 8 evaluations, then 2 per step
    EXPECT_EQ(r.rhs_evaluations, (m - 1) * 33 + (r.steps - (m - 1)) * 2);
  }
}

TEST(AdamsPece, BaumgarteCombinesWithPStab) {
  // issue 6: Baumgarte gains act in the right-hand side under any stabilizer. With the no-op
  // stabilizer the run is bit-identical to `baumgarte` (so the feedback is there); with PStab
  // the drift is at round-off.
  const Settings baumgarte =
      settings_for(Method::kMampc3, StabilizerKind::kBaumgarte, 1e-2, 10.0, 25.0);
  const Settings none = settings_for(Method::kMampc3, StabilizerKind::kNone, 1e-2, 10.0, 25.0);
  const Settings plain = settings_for(Method::kMampc3, StabilizerKind::kNone, 1e-2);
  const testing::RunSummary a = testing::run_fixed("slider_crank", baumgarte, 10.0);
  const testing::RunSummary b = testing::run_fixed("slider_crank", none, 10.0);
  const testing::RunSummary c = testing::run_fixed("slider_crank", plain, 10.0);
  EXPECT_EQ((a.final_state.q - b.final_state.q).lpNorm<Eigen::Infinity>(), 0.0);
  // and the gains change the run
  EXPECT_GT((c.final_state.q - b.final_state.q).lpNorm<Eigen::Infinity>(), 1e-8);
  const testing::RunSummary both = testing::run_fixed(
      "slider_crank", settings_for(Method::kMampc3, StabilizerKind::kPStab, 1e-3, 10.0, 25.0), 2.0);
  EXPECT_EQ(both.flags, 0u);
  EXPECT_LE(both.max_position_drift, 1e-12);
}

}  // namespace
}  // namespace rtmb
