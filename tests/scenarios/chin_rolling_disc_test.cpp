// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Chin 1995 §4.6, the rolling disc (reference/post-stabilization-chin1995.md §3.11; issue 16,
// acceptance 1): a disc released upright, rolling without slip, falls flat. The built-in
// `rolling_disc` (r = 1, m = 1, A = m r^2/4, C = m r^2/2, g = 9.81: the reference's assumptions)
// run over Chin's interval [0, 1.8] as the thesis does, RKSTAB (DOPRI5 with the stabilized FSAL
// stage) at tolerance 1e-3, and with RK4 at a fixed step:
//   * the nonholonomic drift |A v| stays at round-off with PStab, whose velocity pass on these rows
//     is Chin's eq. 3.75 (I - HF = 0), and is far larger with Baumgarte gamma = 20 (Figs.
//     4.36/4.37), worst where the disc comes down flat;
//   * the centre height r cos(theta) falls from 1 to about 0 near t = 1.6 (Fig. 4.39: 1.6 .. 1.8);
//   * rolling without slip does no work, so T + V stays at its initial value (PStab).
// Near the lowest point the motion is the rolling disc's (Euler's disk's) near-singular passage:
// the precession and spin rates grow from about 2 to 600 rad/s between t = 1.55 and 1.60 while
// the height goes through its minimum of about 0.01 (this ideal disc turns back up instead of lying
// flat; the thesis's figure is read up to the fall). A fixed 1 ms step cannot resolve that passage,
// and neither does an error control at 1e-3, which bounds the local error, not the energy: the
// energy is asserted to 1e-8 up to t = 1.5 with RK4 at 1 ms (measured 4e-12) and over the whole
// run at tolerance 1e-10 (measured 9e-10). Printed, not asserted: at 1 ms the error is 0.4 over
// the passage; at tolerance 1e-3 it is 2e-5 by t = 1.5 and 0.35 over the passage.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "rtmb/adaptive_dopri5.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"

namespace rtmb {
namespace {

constexpr double kEnd = 1.8;            // Chin's interval [s]
constexpr double kResolvedUntil = 1.5;  // before the near-singular passage [s]

struct DiscRun {
  double max_velocity_drift = 0.0;
  double max_velocity_drift_resolved = 0.0;  ///< the same for t <= kResolvedUntil
  double max_position_drift = 0.0;
  double max_energy_error = 0.0;           ///< max |E - E0| / |E0| over the run
  double max_energy_error_resolved = 0.0;  ///< the same for t <= kResolvedUntil
  double height_at_1_4 = std::numeric_limits<double>::quiet_NaN();
  double min_height = 1.0;
  double min_height_time = 0.0;
  long steps = 0;
  std::uint32_t flags = 0;
};

// The disc's centre height: r cos(theta) of the built-in (r = 1), z of the spatial body of
// configs/rolling_disc_body.yaml (the same disc as a body with a `rolling_disc` joint).
using Height = double (*)(const State&);
double euler_angle_height(const State& s) {
  return std::cos(s.q(3));
}
double body_height(const State& s) {
  return s.q(2);
}

std::shared_ptr<const System> body_disc() {
  return make_system(
      load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/rolling_disc_body.yaml"));
}

void record(const StepStatus& st, const State& s, double e0, Height height_of, DiscRun& r) {
  ++r.steps;
  r.flags |= st.flags;
  r.max_velocity_drift = std::max(r.max_velocity_drift, st.velocity_drift);
  r.max_position_drift = std::max(r.max_position_drift, st.position_drift);
  const double energy_error = std::abs(st.energy - e0) / std::abs(e0);
  r.max_energy_error = std::max(r.max_energy_error, energy_error);
  if (s.t <= kResolvedUntil + 1e-9) {
    r.max_energy_error_resolved = std::max(r.max_energy_error_resolved, energy_error);
    r.max_velocity_drift_resolved = std::max(r.max_velocity_drift_resolved, st.velocity_drift);
  }
  const double height = height_of(s);
  if (std::isnan(r.height_at_1_4) && s.t >= 1.4 - 1e-9) r.height_at_1_4 = height;
  if (height < r.min_height) {
    r.min_height = height;
    r.min_height_time = s.t;
  }
}

double initial_energy(const Model& model, const State& s) {
  return model.system().energy(0.0, s.q, s.v, {});
}

DiscRun run_rk4(StabilizerKind stabilizer,
                double dt,
                std::shared_ptr<const System> disc = make_mechanism("rolling_disc"),
                Height height = euler_angle_height) {
  Settings settings;
  settings.method = Method::kRk4;
  settings.stabilizer = stabilizer;
  settings.dt = dt;
  const Model model(std::move(disc), settings);
  Workspace ws(model);
  State s = initial_state(model);
  const double e0 = initial_energy(model, s);
  DiscRun r;
  const long n = std::lround(kEnd / dt);
  for (long i = 0; i < n; ++i) record(step(model, s, ws), s, e0, height, r);
  return r;
}

// RKSTAB: DOPRI5 at rtol = tol, atol = tol / 10 (Chin p. 92), the model's stabilizer after every
// step; Baumgarte's gain gamma1 is the rows' gamma (index-2 Baumgarte, reference pitfall 5)
DiscRun run_rkstab(StabilizerKind stabilizer,
                   double tol,
                   double gamma1 = 0.0,
                   bool stabilize_energy = false,
                   std::shared_ptr<const System> disc = make_mechanism("rolling_disc"),
                   Height height = euler_angle_height) {
  Settings settings;
  settings.method = Method::kDopri5;
  settings.stabilizer = stabilizer;
  settings.gamma1 = gamma1;
  settings.stabilize_energy = stabilize_energy;
  const Model model(std::move(disc), settings);
  AdaptiveOptions options;
  options.rtol = tol;
  AdaptiveDopri5 dopri(model, options);
  State s = initial_state(model);
  const double e0 = initial_energy(model, s);
  DiscRun r;
  for (;;) {
    StepStatus st;
    if (!dopri.step(s, kEnd, st)) {
      r.flags |= st.flags;
      break;
    }
    record(st, s, e0, height, r);
  }
  return r;
}

void print(const char* label, const DiscRun& r) {
  std::printf(
      "%-30s steps %5ld  max|Av| %.2e  max|dE|/E0 %.2e (t <= 1.5: %.2e)  h(1.4) %.3f  "
      "min h %.4f at t = %.4f\n",
      label, r.steps, r.max_velocity_drift, r.max_energy_error, r.max_energy_error_resolved,
      r.height_at_1_4, r.min_height, r.min_height_time);
}

// Fig. 4.39: the centre height starts at 1 and comes down to about 0 near t = 1.6 .. 1.8
void expect_falls_as_fig_4_39(const DiscRun& r) {
  EXPECT_GT(r.height_at_1_4, 0.5) << "still well up at t = 1.4";
  EXPECT_LE(r.min_height, 0.02);
  EXPECT_GE(r.min_height_time, 1.6);
  EXPECT_LE(r.min_height_time, 1.8);
}

TEST(ChinRollingDisc, Rk4WithPStabKeepsRollingConservesEnergyAndFallsFlat) {
  const DiscRun r = run_rk4(StabilizerKind::kPStab, 1e-3);
  print("rk4 h=1e-3 pstab", r);
  EXPECT_EQ(r.flags, 0u);
  EXPECT_LE(r.max_velocity_drift, 1e-10);
  EXPECT_EQ(r.max_position_drift, 0.0) << "no holonomic row";
  EXPECT_LE(r.max_energy_error_resolved, 1e-8);
  expect_falls_as_fig_4_39(r);
}

TEST(ChinRollingDisc, RkstabPStabDriftIsAHundredTimesBelowBaumgarte) {
  const DiscRun pstab = run_rkstab(StabilizerKind::kPStab, 1e-3);
  const DiscRun baum = run_rkstab(StabilizerKind::kBaumgarte, 1e-3, 20.0);
  print("rkstab tol=1e-3 pstab", pstab);
  print("rkstab tol=1e-3 baumgarte 20", baum);
  EXPECT_EQ(pstab.flags, 0u);
  EXPECT_EQ(baum.flags, 0u);
  EXPECT_LE(pstab.max_velocity_drift, 1e-10);                            // Fig. 4.36
  EXPECT_GE(baum.max_velocity_drift, 100.0 * pstab.max_velocity_drift);  // Fig. 4.37
  expect_falls_as_fig_4_39(pstab);
}

TEST(ChinRollingDisc, RkstabPStabConservesEnergyThroughTheFallAtTightTolerance) {
  const DiscRun r = run_rkstab(StabilizerKind::kPStab, 1e-10);
  print("rkstab tol=1e-10 pstab", r);
  EXPECT_EQ(r.flags, 0u);
  EXPECT_LE(r.max_energy_error, 1e-8);
  EXPECT_LE(r.max_velocity_drift, 1e-10);
  expect_falls_as_fig_4_39(r);
}

// Acceptance 1 at Chin's tolerance: an error control at 1e-3 bounds the local error, not the
// energy (2e-5 by t = 1.5 above). Post-stabilizing the energy invariant as one more pass of PStab
// (Settings::stabilize_energy, engine/stabilize/energy_stabilization.hpp: Chin's F = D (H D)^-1
// for h = E - E0) keeps it to round-off over the whole run, through the passage, while the
// nonholonomic drift stays PStab's and the disc still comes down as in Fig. 4.39.
TEST(ChinRollingDisc, RkstabPStabWithTheEnergyInvariantConservesEnergyAtTolerance1e3) {
  const DiscRun r = run_rkstab(StabilizerKind::kPStab, 1e-3, 0.0, true);
  print("rkstab tol=1e-3 pstab+energy", r);
  EXPECT_EQ(r.flags, 0u);
  EXPECT_LE(r.max_energy_error, 1e-8);
  EXPECT_LE(r.max_velocity_drift, 1e-10);
  expect_falls_as_fig_4_39(r);
}

// The same disc as a spatial body with a `rolling_disc` joint (configs/rolling_disc_body.yaml;
// engine/multibody/spatial_rolling_disc.hpp): Euler parameters, a holonomic contact row besides
// the normalization row, and the two no-slip rows as its nonholonomic rows. Run as the built-in
// above (tests/engine/multibody/spatial_rolling_disc_test.cpp compares the two trajectories).
// Up to t = 1.5 its drift and energy error are at round-off (measured 3e-15 and 4e-12) and it
// comes down as in Fig. 4.39. In the near-singular passage (height below 0.02 for 10 ms) a 1 ms
// step does not resolve the body model either: the contact row's curvature grows as
// R / (1 - k^2)^(3/2) = R^4 / height^3 (1e6 at the lowest point), PStab's correction is a
// linearization about the unstabilized point, and the velocity drift after the step reaches
// 1e-6 there (the no-slip rows' share 4e-8; printed, not asserted). At 0.25 ms the whole run,
// passage included, stays below 1e-10.
TEST(ChinRollingDisc, BodyModelRk4WithPStabKeepsRollingConservesEnergyAndFallsFlat) {
  const DiscRun r = run_rk4(StabilizerKind::kPStab, 1e-3, body_disc(), body_height);
  print("body rk4 h=1e-3 pstab", r);
  std::printf("  max |Gv| (incl. the contact row) up to t = 1.5: %.2e, through the passage: %.2e\n",
              r.max_velocity_drift_resolved, r.max_velocity_drift);
  EXPECT_EQ(r.flags, 0u);
  EXPECT_LE(r.max_velocity_drift_resolved, 1e-10);
  EXPECT_LE(r.max_position_drift, 1e-10);
  EXPECT_LE(r.max_energy_error_resolved, 1e-8);
  expect_falls_as_fig_4_39(r);
}

TEST(ChinRollingDisc, BodyModelRk4AtAQuarterMillisecondKeepsItsRowsThroughThePassage) {
  const DiscRun r = run_rk4(StabilizerKind::kPStab, 2.5e-4, body_disc(), body_height);
  print("body rk4 h=2.5e-4 pstab", r);
  EXPECT_EQ(r.flags, 0u);
  EXPECT_LE(r.max_velocity_drift, 1e-10);
  EXPECT_LE(r.max_position_drift, 1e-10);
  EXPECT_LE(r.max_energy_error_resolved, 1e-8);
  expect_falls_as_fig_4_39(r);
}

}  // namespace
}  // namespace rtmb
