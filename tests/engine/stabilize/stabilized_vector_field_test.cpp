// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Chin's stabilized underlying vector field (StabilizerKind::kSvf, Chin 1995 eq. 2.58;
// reference/post-stabilization-chin1995.md §1.4) on the multibody DAE: Prop. 2.1 (the field is
// unchanged on the manifold), the constraint ODE it imposes off the manifold (eq. 2.59/2.60,
// checked against G, g and g_t evaluated here and against the closed-form solution of
// g'' + 2 gamma g' + gamma^2 g = 0), and bounded drift on closed loops with every explicit
// method. The toy DAEs of Tables 2.1/2.2 are in tests/scenarios/chin_toy_dae_tables_test.cpp.
#include "engine/stabilize/stabilized_vector_field.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"
#include "tests/support/reference_mechanisms.hpp"
#include "tests/support/run_helpers.hpp"

namespace rtmb {
namespace {

using testing::settings_for;

Settings svf_settings(Method method, double dt, double gamma, SvfVariant variant) {
  Settings s = settings_for(method, StabilizerKind::kSvf, dt);
  s.gamma = gamma;
  s.svf_variant = variant;
  return s;
}

// v' at (t, q, v) under the given settings, through the Workspace's right-hand side
Vec accel(const Model& model, double t, const Vec& q, const Vec& v) {
  Workspace ws(model);
  Vec a = Vec::Zero(model.system().n_v());
  StepStatus st;
  acceleration(ws, t, q, v, a, st);
  EXPECT_TRUE(st.ok());
  return a;
}

struct Invariants {
  Mat G;
  Vec g;
  Vec gdot;  // G v + g_t
};

Invariants invariants_at(const System& sys, double t, const Vec& q, const Vec& v) {
  Invariants r{Mat::Zero(sys.n_lambda(), sys.n_v()), Vec::Zero(sys.n_lambda()),
               Vec::Zero(sys.n_lambda())};
  sys.jacobian(t, q, r.G);
  sys.constraints(t, q, r.g);
  sys.constraint_rate(t, q, r.gdot);
  r.gdot += r.G * v;
  return r;
}

const char* const kClosedLoops[] = {"four_bar", "slider_crank", "andrews"};

TEST(StabilizedVectorField, EqualsThePlainFieldOnTheManifold) {
  // Prop. 2.1: z' = f - gamma F h admits every solution on M iff it equals f on M. Consistent
  // moving states: 100 PStab steps from the initial state (g and G v + g_t at round-off)
  for (const char* name : kClosedLoops) {
    const Model pstab(make_mechanism(name),
                      settings_for(Method::kRk4, StabilizerKind::kPStab, 1e-4));
    State s = initial_state(pstab);
    Workspace ws(pstab);
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(step(pstab, s, ws).ok()) << name;
    const Invariants h = invariants_at(pstab.system(), s.t, s.q, s.v);
    ASSERT_LE(h.g.lpNorm<Eigen::Infinity>(), 1e-13) << name;
    ASSERT_LE(h.gdot.lpNorm<Eigen::Infinity>(), 1e-11) << name;
    ASSERT_GT(s.v.lpNorm<Eigen::Infinity>(), 1e-3) << name;  // moving
    for (const SvfVariant variant : {SvfVariant::kGgtInverse, SvfVariant::kGt}) {
      const Model plain(make_mechanism(name),
                        settings_for(Method::kRk4, StabilizerKind::kNone, 1e-3));
      const Model stabilized(make_mechanism(name), svf_settings(Method::kRk4, 1e-3, 50.0, variant));
      const Vec a0 = accel(plain, s.t, s.q, s.v);
      const Vec a1 = accel(stabilized, s.t, s.q, s.v);
      EXPECT_LE((a1 - a0).lpNorm<Eigen::Infinity>(), 1e-9 * (1.0 + a0.lpNorm<Eigen::Infinity>()))
          << name << " " << to_string(variant);
    }
  }
}

TEST(StabilizedVectorField, OffTheManifoldImposesEquation259AlongTheNormal) {
  // Off M the term is v' = a - G^T w (eq. 2.58): it lies in range(G^T) and changes g'' by
  //   G (v'_svf - a) = -(2 gamma g' + gamma^2 g)                        P1 = P2 = G G^T (2.60)
  //   G (v'_svf - a) = -(2 gamma G G^T g' + gamma^2 (G G^T)^2 g)        P1 = I, P2^-1 = G G^T
  // (eq. 2.59), with G, g, g' taken from the System here
  const double gamma = 7.0;
  for (const char* name : kClosedLoops) {
    const Model plain(make_mechanism(name),
                      settings_for(Method::kRk4, StabilizerKind::kNone, 1e-3));
    State s = initial_state(plain);
    for (int i = 0; i < s.q.size(); ++i) s.q(i) += 1e-3 * (1.0 + 0.3 * i);
    for (int i = 0; i < s.v.size(); ++i) s.v(i) -= 2e-3 * (1.0 + 0.2 * i);
    const Invariants h = invariants_at(plain.system(), s.t, s.q, s.v);
    ASSERT_GT(h.g.lpNorm<Eigen::Infinity>(), 1e-5) << name;
    const Mat ggt = h.G * h.G.transpose();
    const Vec a = accel(plain, s.t, s.q, s.v);
    for (const SvfVariant variant : {SvfVariant::kGgtInverse, SvfVariant::kGt}) {
      const Model stabilized(make_mechanism(name),
                             svf_settings(Method::kRk4, 1e-3, gamma, variant));
      const Vec dv = accel(stabilized, s.t, s.q, s.v) - a;
      const Vec expected =
          variant == SvfVariant::kGgtInverse
              ? Vec(-(2.0 * gamma * h.gdot + gamma * gamma * h.g))
              : Vec(-(2.0 * gamma * ggt * h.gdot + gamma * gamma * ggt * ggt * h.g));
      const Vec got = h.G * dv;
      EXPECT_LE((got - expected).lpNorm<Eigen::Infinity>(),
                1e-9 * expected.lpNorm<Eigen::Infinity>())
          << name << " " << to_string(variant);
      // dv in range(G^T): its component in ker G vanishes
      const Vec normal = h.G.transpose() * ggt.ldlt().solve(h.G * dv);
      EXPECT_LE((dv - normal).lpNorm<Eigen::Infinity>(), 1e-9 * dv.lpNorm<Eigen::Infinity>())
          << name << " " << to_string(variant);
    }
  }
}

TEST(StabilizedVectorField, DriftFollowsTheCriticallyDampedClosedForm) {
  // With S = G^T (G G^T)^-1 every component of g obeys g'' + 2 gamma g' + gamma^2 g = 0 along
  // the flow (eq. 2.60), so from (g0, g0') g(t) = (g0 + (g0' + gamma g0) t) e^(-gamma t).
  // RK4 at gamma h = 0.01 follows it to the integration error (measured 4e-8 of |g0| on the
  // slider-crank).
  const double gamma = 10.0;
  const Model model(make_mechanism("slider_crank"),
                    svf_settings(Method::kRk4, 1e-3, gamma, SvfVariant::kGgtInverse));
  State s = initial_state(model);
  s.q(0) += 2e-3;
  s.v(1) += 1e-2;
  const Invariants h0 = invariants_at(model.system(), s.t, s.q, s.v);
  ASSERT_GT(h0.g.lpNorm<Eigen::Infinity>(), 1e-4);
  Workspace ws(model);
  double worst = 0.0;
  for (int i = 0; i < 800; ++i) {
    const StepStatus st = step(model, s, ws);
    ASSERT_TRUE(st.ok());
    const Invariants h = invariants_at(model.system(), s.t, s.q, s.v);
    const Vec closed = ((h0.g + (h0.gdot + gamma * h0.g) * s.t) * std::exp(-gamma * s.t)).eval();
    worst = std::max(worst, (h.g - closed).lpNorm<Eigen::Infinity>());
  }
  EXPECT_LE(worst, 1e-7 * h0.g.lpNorm<Eigen::Infinity>());  // measured 4e-8
  // and it has decayed: e^(-8) (1 + ...) of the initial drift
  EXPECT_LE(invariants_at(model.system(), s.t, s.q, s.v).g.lpNorm<Eigen::Infinity>(),
            2e-2 * h0.g.lpNorm<Eigen::Infinity>());
}

// Maximum position and velocity drift over the first and the second half of a fixed-step run
struct HalfDrifts {
  double position[2] = {0.0, 0.0};
  double velocity[2] = {0.0, 0.0};
  std::uint32_t flags = 0;
};

HalfDrifts half_drifts(const char* mechanism, const Settings& settings, double t_end) {
  const Model model(make_mechanism(mechanism), settings);
  Workspace ws(model);
  State s = initial_state(model);
  HalfDrifts r;
  const long n = std::lround(t_end / settings.dt);
  for (long i = 0; i < n; ++i) {
    const StepStatus st = step(model, s, ws);
    r.flags |= st.flags;
    const int half = 2 * i < n ? 0 : 1;
    r.position[half] = std::max(r.position[half], st.position_drift);
    r.velocity[half] = std::max(r.velocity[half], st.velocity_drift);
  }
  return r;
}

TEST(StabilizedVectorField, KeepsClosedLoopDriftBoundedFarBelowTheUnstabilizedRun) {
  // slider-crank, RK4 at h = 2e-3 over 40 s: plain index reduction drifts without bound (the
  // double zero eigenvalue of g'' = 0, reference §1.3; measured |g| 4.1e-7 -> 1.6e-6 from the
  // first half to the second), while under the stabilized field (Thm 2.1: M asymptotically
  // stable) the drift stays at the integration error, the same in both halves (measured
  // |g| 2.6e-10 / 8.6e-10, |G v| 2.2e-9 / 2.7e-9 for S = G^T (G G^T)^-1 / G^T)
  const double dt = 2e-3;
  const double t_end = 40.0;
  const HalfDrifts none =
      half_drifts("slider_crank", settings_for(Method::kRk4, StabilizerKind::kNone, dt), t_end);
  EXPECT_GT(none.position[1], 2.0 * none.position[0]);  // it does grow
  for (const SvfVariant variant : {SvfVariant::kGgtInverse, SvfVariant::kGt}) {
    const HalfDrifts svf =
        half_drifts("slider_crank", svf_settings(Method::kRk4, dt, 5.0, variant), t_end);
    const std::string what(to_string(variant));
    EXPECT_EQ(svf.flags, 0u) << what;
    EXPECT_LE(svf.position[1], 1.05 * svf.position[0]) << what;
    EXPECT_LE(svf.velocity[1], 1.05 * svf.velocity[0]) << what;
    EXPECT_LE(svf.position[1], 2e-9) << what;
    EXPECT_LE(svf.velocity[1], 1e-8) << what;
    EXPECT_GT(none.position[1], 1e3 * svf.position[1]) << what;
    EXPECT_GT(none.velocity[1], 20.0 * svf.velocity[1]) << what;
  }
}

TEST(StabilizedVectorField, HoldsTheDriftBoundedWithEveryExplicitMethod) {
  // the term sits in the right-hand side, so every explicit method integrates it: one-step,
  // multistep (the Adams history holds the stabilized F) and the ODE midpoint rule. Slider-crank
  // at h = 2e-3 over 10 s: no flag, and the drift of the second half no larger than that of the
  // first (the level itself is each method's integration error; in the index-3 form (2.58) a
  // position error is removed through g' = -gamma g, so |G v| settles near gamma |g| plus the
  // method's own velocity error)
  for (const Method method : testing::kExplicitMethods) {
    const HalfDrifts svf =
        half_drifts("slider_crank", svf_settings(method, 2e-3, 5.0, SvfVariant::kGgtInverse), 10.0);
    const std::string what(to_string(method));
    EXPECT_EQ(svf.flags, 0u) << what;
    EXPECT_LE(svf.position[1], 1.05 * svf.position[0]) << what;
    EXPECT_LE(svf.velocity[1], 1.05 * svf.velocity[0]) << what;
  }
}

}  // namespace
}  // namespace rtmb
