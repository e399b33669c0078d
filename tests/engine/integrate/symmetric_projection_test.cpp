// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Symmetric projection (Hairer 2000, BIT 40:726; Hairer-Lubich-Wanner GNI §V.4.1)
// around the implicit midpoint rule (symmetric) against the orthogonal projection around the same
// base method, on the conservative double pendulum (Hoitink 2011 §4.1 data) over 1000 s.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "engine/integrate/implicit_midpoint.hpp"
#include "engine/mechanisms/mechanisms_impl.hpp"
#include "tests/support/run_helpers.hpp"

namespace rtmb {
namespace {

using testing::settings_for;

struct EnergyHistory {
  double e0 = 0.0;
  double first = 0.0;               ///< max |E - E0| over t in (0, window]
  double last = 0.0;                ///< max |E - E0| over the last window
  std::vector<double> window_mean;  ///< mean of E - E0 over each window: the secular part
  double max_position_drift = 0.0;
  double max_velocity_drift = 0.0;
  std::uint32_t flags = 0;
};

EnergyHistory run_energy(StabilizerKind stabilizer,
                         double dt,
                         double t_end,
                         double window,
                         const char* mechanism = "double_pendulum") {
  const Model model(make_mechanism(mechanism), settings_for(Method::kOdeMidpoint, stabilizer, dt));
  Workspace ws(model);
  State s = initial_state(model);
  StepStatus st;
  measure(model, s, ws, st);
  EnergyHistory h;
  h.e0 = st.energy;
  const long n = std::lround(t_end / dt);
  const long w = std::lround(window / dt);
  double sum = 0.0;
  for (long i = 1; i <= n; ++i) {
    st = step(model, s, ws);
    h.flags |= st.flags;
    if (has_flag(st.flags, StepFlag::kNonFinite)) break;
    const double de = std::abs(st.energy - h.e0);
    if (i <= w) h.first = std::max(h.first, de);
    if (i > n - w) h.last = std::max(h.last, de);
    sum += st.energy - h.e0;
    if (i % w == 0) {
      h.window_mean.push_back(sum / static_cast<double>(w));
      sum = 0.0;
    }
    h.max_position_drift = std::max(h.max_position_drift, st.position_drift);
    h.max_velocity_drift = std::max(h.max_velocity_drift, st.velocity_drift);
  }
  return h;
}

// What both energy contrasts below check alike: no step of either run flagged, the symmetric run
// on the position constraint, ten window means each, and the orthogonal projection's mean falling
// from each window to the next.
void expect_clean_runs_and_orthogonal_trend(const EnergyHistory& sym, const EnergyHistory& orth) {
  EXPECT_EQ(sym.flags, 0u);
  EXPECT_EQ(orth.flags, 0u);
  EXPECT_LE(sym.max_position_drift, 1e-12);
  ASSERT_EQ(sym.window_mean.size(), 10u);
  ASSERT_EQ(orth.window_mean.size(), 10u);
  for (std::size_t k = 1; k < orth.window_mean.size(); ++k) {
    EXPECT_LT(orth.window_mean[k], orth.window_mean[k - 1]) << "window " << k;
  }
}

TEST(ImplicitMidpoint, IsSymmetricAndSecondOrder) {
  // symmetric: Phi_{-h}(Phi_h(y)) = y to round-off; order 2: error ratio 4 on halving h
  const auto sys = make_mechanism("slider_crank");
  Dynamics dyn(*sys);
  ImplicitMidpoint mid(4, 4);
  State s(4, 4);
  sys->initial_state(s);
  s.v << 1.0, 0.5, -0.2, 0.3;  // any state: the ODE is defined off the manifold too
  Vec q1(4), v1(4), q0(4), v0(4);
  StepStatus st;
  mid.advance(dyn, {0.0, 0.02, s.q, s.v}, {q1, v1}, st);
  mid.advance(dyn, {0.02, -0.02, q1, v1}, {q0, v0}, st);
  EXPECT_EQ(st.flags, 0u);
  EXPECT_LE((q0 - s.q).lpNorm<Eigen::Infinity>(), 1e-13);
  EXPECT_LE((v0 - s.v).lpNorm<Eigen::Infinity>(), 1e-13);
}

TEST(SymmetricProjection, EnergyBoundedWhereOrthogonalProjectionDrifts) {
  // acceptance 4. Base method: implicit midpoint (symmetric), dt = 1e-2, 1000 s, in ten windows
  // of 100 s. The energy error of this chaotic motion oscillates with an amplitude set by the
  // first window's max |E - E0|; the secular part is the window mean of E - E0. Bounded: the
  // symmetric projection's window means all stay inside that first-window amplitude. Drift: the
  // orthogonal projection's window mean moves monotonically in one direction and ends several
  // times outside its own first-window amplitude (GNI §V.4.1: projection breaks the symmetry).
  constexpr double kDt = 1e-2;
  constexpr double kEnd = 1000.0;
  constexpr double kWindow = 100.0;
  const EnergyHistory sym = run_energy(StabilizerKind::kSymProj, kDt, kEnd, kWindow);
  const EnergyHistory orth = run_energy(StabilizerKind::kOrthProj, kDt, kEnd, kWindow);
  for (const EnergyHistory* h : {&sym, &orth}) {
    std::printf("%s: E0 %.3f, max|dE| first/last window %.3e / %.3e, window means of dE:",
                h == &sym ? "symproj " : "orthproj", h->e0, h->first, h->last);
    for (double mean : h->window_mean) std::printf(" %.2e", mean);
    std::printf("\n");
  }
  RecordProperty("symproj_energy_first_window", std::to_string(sym.first));
  RecordProperty("symproj_energy_last_window", std::to_string(sym.last));
  RecordProperty("orthproj_energy_first_window", std::to_string(orth.first));
  RecordProperty("orthproj_energy_last_window", std::to_string(orth.last));
  ASSERT_NO_FATAL_FAILURE(expect_clean_runs_and_orthogonal_trend(sym, orth));
  EXPECT_LE(orth.max_position_drift, 1e-12);
  double sym_secular = 0.0;
  for (double mean : sym.window_mean) {
    EXPECT_LE(std::abs(mean), sym.first);
    sym_secular = std::max(sym_secular, std::abs(mean));
  }
  EXPECT_GE(std::abs(orth.window_mean.back()), 5.0 * orth.first);
  EXPECT_GE(std::abs(orth.window_mean.back()), 10.0 * sym_secular);
}

TEST(SymmetricProjection, MassMetricVariantOnTheSliderCrank) {
  // the same contrast in the metric diag(M, M) (the slider-crank's M is constant and positive
  // definite): symmetric projection keeps the mean energy error of every 100 s window at its
  // first-window value, the M-orthogonal projection's mean moves steadily away
  const EnergyHistory sym =
      run_energy(StabilizerKind::kSymProjM, 1e-2, 1000.0, 100.0, "slider_crank");
  const EnergyHistory orth =
      run_energy(StabilizerKind::kOrthProjM, 1e-2, 1000.0, 100.0, "slider_crank");
  for (const EnergyHistory* h : {&sym, &orth}) {
    std::printf("%s: max|dE| first window %.3e, window means of dE:",
                h == &sym ? "symproj-m " : "orthproj-m", h->first);
    for (double mean : h->window_mean) std::printf(" %.2e", mean);
    std::printf("\n");
  }
  ASSERT_NO_FATAL_FAILURE(expect_clean_runs_and_orthogonal_trend(sym, orth));
  EXPECT_LE(sym.max_velocity_drift, 1e-12);
  for (double mean : sym.window_mean) {
    EXPECT_LE(std::abs(mean - sym.window_mean.front()), 0.1 * sym.first);
  }
  EXPECT_GE(std::abs(orth.window_mean.back() - orth.window_mean.front()), 3.0 * orth.first);
}

TEST(SymmetricProjection, MassMetricNeedsAPositiveDefiniteMass) {
  // the double pendulum's M = diag(M1, M1, 0, M2, M2, 0) has no inverse: the step says so
  const Model model(make_mechanism("double_pendulum"),
                    settings_for(Method::kOdeMidpoint, StabilizerKind::kSymProjM, 1e-2));
  Workspace ws(model);
  State s = initial_state(model);
  const StepStatus st = step(model, s, ws);
  EXPECT_TRUE(has_flag(st.flags, StepFlag::kSingularKkt));
  EXPECT_TRUE(s.q.allFinite());
}

}  // namespace
}  // namespace rtmb
