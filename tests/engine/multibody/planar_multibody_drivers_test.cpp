// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Drivers (prescribed joint motion, rtmb/models/planar_multibody.hpp) and their time functions
// (rtmb/models/time_function.hpp):
//   - every time function's f' and f'' against central differences of f (and of f'), the
//     table's spline through its points with zero end slopes and a continuous f'';
//   - the rheonomic rows against finite differences in t and q: g_t = dg/dt, G = dg/dq,
//     d(G v + g_t)/dq, and L = g_tt + 2 g_tq v + g_qq(v, v) as d/ds (G v + g_t) and as
//     d^2/ds^2 g along (t + s, q + s v) (Chin 1995 §1.1);
//   - a slider-crank whose crank is driven at constant speed (configs/slider_crank_driven.yaml)
//     follows f(t) to 1e-10 rad and its slider the closed form x = r cos th + sqrt(l^2 -
//     r^2 sin^2 th); a slider driven along a slanted axis follows its sine.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/models/time_function.hpp"
#include "rtmb/step.hpp"
#include "tests/support/model_lookup.hpp"
#include "tests/support/planar_test_models.hpp"

namespace rtmb {
namespace {

using testing::body_index;
using testing::rk4_pstab;
using testing::test_body;

// ---- time functions -------------------------------------------------------------------------

struct NamedFunction {
  const char* name;
  TimeFunction f;
  std::vector<double> at;  // sample times away from kinks (ramp start, table ends)
};

std::vector<NamedFunction> functions() {
  return {
      {"constant", TimeFunction::constant(0.7), {-1.0, 0.0, 2.5}},
      {"ramp", TimeFunction::ramp(0.3, 0.5, -2.0), {0.1, 0.9, 3.0}},
      {"sine", TimeFunction::sine(0.4, 1.5, 0.3, -0.2), {0.0, 0.13, 0.71, 2.2}},
      {"polynomial", TimeFunction::polynomial({0.5, -1.0, 0.25, 0.8, -0.1}), {-0.7, 0.0, 0.4, 1.9}},
      {"table",
       TimeFunction::table({0.0, 0.3, 0.5, 1.2, 2.0}, {0.0, 0.4, 0.1, -0.6, 0.2}),
       {0.05, 0.29, 0.31, 0.77, 1.5, 1.95}},
  };
}

TEST(TimeFunction, DerivativesMatchCentralDifferences) {
  const double h = 1e-5;
  for (const NamedFunction& nf : functions()) {
    for (const double t : nf.at) {
      const TimeValue v = nf.f.evaluate(t);
      const TimeValue p = nf.f.evaluate(t + h);
      const TimeValue m = nf.f.evaluate(t - h);
      const double df_fd = (p.f - m.f) / (2.0 * h);
      const double ddf_fd = (p.df - m.df) / (2.0 * h);
      const double ddf_fd2 = (p.f - 2.0 * v.f + m.f) / (h * h);
      // truncation ~h^2 |f'''| / 6 ~ 1e-10 |f'''|: tolerances relative to the derivative's size
      EXPECT_NEAR(v.df, df_fd, 1e-8 * (1.0 + std::abs(v.df))) << nf.name << " t = " << t;
      EXPECT_NEAR(v.ddf, ddf_fd, 1e-8 * (1.0 + std::abs(v.ddf))) << nf.name << " t = " << t;
      EXPECT_NEAR(v.ddf, ddf_fd2, 1e-4 * (1.0 + std::abs(v.ddf))) << nf.name << " t = " << t;
    }
  }
}

TEST(TimeFunction, ClosedFormsHold) {
  // values against the defining formulas, evaluated here independently
  const double t = 0.83;
  EXPECT_DOUBLE_EQ(TimeFunction::constant(0.7).evaluate(t).f, 0.7);
  EXPECT_DOUBLE_EQ(TimeFunction::ramp(0.3, 0.5, -2.0).evaluate(t).f, 0.3 - 2.0 * (t - 0.5));
  EXPECT_DOUBLE_EQ(TimeFunction::ramp(0.3, 0.5, -2.0).evaluate(0.2).f, 0.3);
  EXPECT_EQ(TimeFunction::ramp(0.3, 0.5, -2.0).evaluate(0.2).df, 0.0);
  const double w = 2.0 * std::numbers::pi * 1.5;
  EXPECT_NEAR(TimeFunction::sine(0.4, 1.5, 0.3, -0.2).evaluate(t).f,
              -0.2 + 0.4 * std::sin(w * t + 0.3), 1e-15);
  const TimeValue p = TimeFunction::polynomial({0.5, -1.0, 0.25, 0.8, -0.1}).evaluate(t);
  EXPECT_NEAR(p.f, 0.5 - t + 0.25 * t * t + 0.8 * t * t * t - 0.1 * t * t * t * t, 1e-15);
  EXPECT_NEAR(p.df, -1.0 + 0.5 * t + 2.4 * t * t - 0.4 * t * t * t, 1e-15);
  EXPECT_NEAR(p.ddf, 0.5 + 4.8 * t - 1.2 * t * t, 1e-14);
}

TEST(TimeFunction, TableSplineInterpolatesWithZeroEndSlopesAndContinuousCurvature) {
  const std::vector<double> ts{0.0, 0.3, 0.5, 1.2, 2.0};
  const std::vector<double> ys{0.0, 0.4, 0.1, -0.6, 0.2};
  const TimeFunction f = TimeFunction::table(ts, ys);
  const double e = 1e-9;
  for (std::size_t k = 0; k < ts.size(); ++k) {
    EXPECT_NEAR(f.evaluate(ts[k]).f, ys[k], 1e-15) << k;
    // f, f', f'' continuous across every knot (left and right limits agree)
    const TimeValue l = f.evaluate(ts[k] - e);
    const TimeValue r = f.evaluate(ts[k] + e);
    EXPECT_NEAR(l.f, r.f, 1e-8) << k;
    EXPECT_NEAR(l.df, r.df, 1e-7) << k;
    if (k > 0 && k + 1 < ts.size()) {
      EXPECT_NEAR(l.ddf, r.ddf, 1e-6) << k;
    }
  }
  // clamped ends: f' -> 0 from inside, held outside
  EXPECT_NEAR(f.evaluate(ts.front() + e).df, 0.0, 1e-7);
  EXPECT_NEAR(f.evaluate(ts.back() - e).df, 0.0, 1e-7);
  const TimeValue before = f.evaluate(-1.0);
  const TimeValue after = f.evaluate(5.0);
  EXPECT_EQ(before.f, ys.front());
  EXPECT_EQ(after.f, ys.back());
  EXPECT_EQ(before.df, 0.0);
  EXPECT_EQ(after.ddf, 0.0);
  // two points: the cubic with zero end slopes is the smoothstep y0 + (y1 - y0)(3s^2 - 2s^3)
  const TimeFunction step = TimeFunction::table({1.0, 3.0}, {2.0, 5.0});
  const double s = 0.3;
  EXPECT_NEAR(step.evaluate(1.0 + 2.0 * s).f, 2.0 + 3.0 * (3.0 * s * s - 2.0 * s * s * s), 1e-14);
}

TEST(TimeFunction, InvalidParametersAreRefused) {
  EXPECT_THROW((void)TimeFunction::table({0.0}, {1.0}), std::invalid_argument);
  EXPECT_THROW((void)TimeFunction::table({0.0, 0.0}, {1.0, 2.0}), std::invalid_argument);
  EXPECT_THROW((void)TimeFunction::table({0.0, 1.0}, {1.0}), std::invalid_argument);
  EXPECT_THROW((void)TimeFunction::polynomial({}), std::invalid_argument);
  EXPECT_THROW((void)TimeFunction::constant(std::nan("")), std::invalid_argument);
}

// ---- driver rows ----------------------------------------------------------------------------

PlanarJointSpec joint(
    const std::string& name, PlanarJointType type, int i, int j, TimeFunction motion = {}) {
  return testing::test_joint(name, type, i, j, {0.3, -0.2}, {-0.4, 0.15}, std::move(motion));
}

// Every driver type body-to-ground and body-to-body, each with a different time function.
PlanarModelSpec driven_rig() {
  PlanarModelSpec s;
  s.bodies = {test_body("a", 1.5, 0.2), test_body("b", 0.7, 0.05), test_body("c", 0.4, 0.02)};
  s.joints = {
      joint("ra", PlanarJointType::kRevoluteDriver, kGround, 0,
            TimeFunction::sine(0.4, 1.5, 0.3, -0.2)),
      joint("pb", PlanarJointType::kPrismaticDriver, 0, 1,
            TimeFunction::table({0.0, 0.3, 0.5, 1.2, 2.0}, {0.0, 0.4, 0.1, -0.6, 0.2})),
      joint("rc", PlanarJointType::kRevoluteDriver, 1, 2,
            TimeFunction::polynomial({0.5, -1.0, 0.25, 0.8})),
      joint("pg", PlanarJointType::kPrismaticDriver, kGround, 2, TimeFunction::ramp(0.1, 0.2, 3.0)),
  };
  return s;
}

TEST(Drivers, RheonomicRowsMatchFiniteDifferencesInTimeAndPosition) {
  const PlanarMultibody sys(driven_rig());
  ASSERT_EQ(sys.n_lambda(), 4);
  const int n = sys.n_q();
  const int nl = sys.n_lambda();
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  const double h = 1e-6;
  double worst = 0.0;
  auto track = [&worst](const Mat& a, const Mat& b, double tol, const std::string& what) {
    const double err = (a - b).lpNorm<Eigen::Infinity>() / (1.0 + b.lpNorm<Eigen::Infinity>());
    worst = std::max(worst, err / tol);
    EXPECT_LE(err, tol) << what << "\n" << a << "\nvs\n" << b;
  };
  for (const double t : {0.1, 0.77, 1.6}) {
    Vec q(n);
    Vec v(n);
    for (int k = 0; k < n; ++k) {
      q(k) = u(rng);
      v(k) = u(rng);
    }
    auto g_of = [&](double tt, const Vec& qq) {
      Vec g(nl);
      sys.constraints(tt, qq, g);
      return g;
    };
    auto rate_of = [&](double tt, const Vec& qq) {  // G(q) v + g_t(t)
      Mat G(nl, n);
      Vec gt(nl);
      sys.jacobian(tt, qq, G);
      sys.constraint_rate(tt, qq, gt);
      return Vec(G * v + gt);
    };
    // g_t = dg/dt
    Vec gt(nl);
    sys.constraint_rate(t, q, gt);
    track(gt, (g_of(t + h, q) - g_of(t - h, q)) / (2.0 * h), 1e-8, "g_t");
    EXPECT_GT(gt.lpNorm<Eigen::Infinity>(), 0.1);  // the drivers really move here
    // G = dg/dq and H = d(G v + g_t)/dq
    Mat G(nl, n);
    Mat H(nl, n);
    sys.jacobian(t, q, G);
    sys.velocity_constraint_jacobian(t, q, v, H);
    Mat G_fd(nl, n);
    Mat H_fd(nl, n);
    for (int k = 0; k < n; ++k) {
      Vec qp = q;
      Vec qm = q;
      qp(k) += h;
      qm(k) -= h;
      G_fd.col(k) = (g_of(t, qp) - g_of(t, qm)) / (2.0 * h);
      H_fd.col(k) = (rate_of(t, qp) - rate_of(t, qm)) / (2.0 * h);
    }
    track(G, G_fd, 1e-8, "G");
    track(H, H_fd, 1e-8, "H");
    // L = d/ds (G v + g_t) along (t + s, q + s v): g_tt + 2 g_tq v + g_qq(v, v)
    Vec L(nl);
    sys.curvature(t, q, v, L);
    track(L, (rate_of(t + h, q + h * v) - rate_of(t - h, q - h * v)) / (2.0 * h), 1e-7, "L");
    // ... and the second difference of g along the same path
    const double h2 = 1e-4;
    const Vec g2 =
        (g_of(t + h2, q + h2 * v) - 2.0 * g_of(t, q) + g_of(t - h2, q - h2 * v)) / (h2 * h2);
    track(L, g2, 1e-5, "L vs d2g/ds2");
  }
  std::printf("drivers: worst FD mismatch / tolerance = %.3f\n", worst);
}

TEST(Drivers, DriverCoordinatesAreTheRelativeAngleAndTheAxialDisplacement) {
  // independent of the Jacobians: place the bodies so that the coordinate is known
  PlanarModelSpec s;
  s.bodies = {test_body("a", 1, 1), test_body("b", 1, 1)};
  s.joints = {joint("r", PlanarJointType::kRevoluteDriver, 0, 1, TimeFunction::constant(0.0)),
              joint("p", PlanarJointType::kPrismaticDriver, 0, 1, TimeFunction::constant(0.0))};
  const PlanarMultibody sys(s);
  const double th_a = 0.7;
  const double th_b = -0.4;
  const Eigen::Rotation2Dd Ra(th_a);
  const Eigen::Rotation2Dd Rb(th_b);
  const Eigen::Vector2d ra(0.2, -0.1);
  const Eigen::Vector2d axis = Eigen::Vector2d(0.6, 0.8);
  const double slide = 0.37;
  const Eigen::Vector2d normal_offset = 0.05 * (Ra * Eigen::Vector2d(-0.8, 0.6));
  const Eigen::Vector2d pj = ra + Ra * s.joints[1].point_i + slide * (Ra * axis) + normal_offset;
  const Eigen::Vector2d rb = pj - Rb * s.joints[1].point_j;
  Vec q(6);
  q << ra, th_a, rb, th_b;
  Vec g(2);
  sys.constraints(0.0, q, g);
  EXPECT_NEAR(g(0), th_b - th_a, 1e-15);
  EXPECT_NEAR(g(1), slide, 1e-15);  // the offset along the normal does not count
}

// ---- driven mechanisms ----------------------------------------------------------------------

// RK4 at dt = 1e-3 with `stabilizer`: the driven mechanisms run with PStab and without one.
Settings rk4_with(StabilizerKind stabilizer) {
  Settings settings = rk4_pstab(1e-3);
  settings.stabilizer = stabilizer;
  return settings;
}

TEST(Drivers, DrivenSliderCrankFollowsTheRampAndTheClosedFormSlider) {
  const ModelFile f =
      load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/slider_crank_driven.yaml");
  ASSERT_TRUE(f.bodies);
  const PlanarModelSpec& spec = *f.bodies;
  ASSERT_EQ(spec.joints.size(), 5u);
  EXPECT_EQ(spec.joints[1].name, "crank_pivot.driver");
  EXPECT_EQ(spec.joints[1].type, PlanarJointType::kRevoluteDriver);
  const int crank = body_index(spec, "crank");
  const int slider = body_index(spec, "slider");
  const double r = 0.3;  // crank pin radius [m] (the file's crank_pin point)
  const double l = 0.5;  // rod length between the pins [m]
  const auto sys = std::shared_ptr<const System>(make_system(f));
  // with PStab the driver row and the loop are re-imposed every step; with no stabilizer the
  // motion is the integrated index-1 solution, right only with the right g_t = -f' and L
  for (const StabilizerKind stab : {StabilizerKind::kPStab, StabilizerKind::kNone}) {
    const Model model(sys, rk4_with(stab));
    Workspace ws(model);
    State s = initial_state(model);
    // the loader made the initial velocity consistent with the driver: theta' = omega
    const TimeValue f0 = spec.joints[1].motion.evaluate(0.0);
    EXPECT_NEAR(s.v(3 * crank + 2), f0.df, 1e-12);
    double worst_theta = 0.0;
    double worst_x = 0.0;
    double worst_dx = 0.0;
    double worst_omega = 0.0;
    for (int k = 0; k < 2000; ++k) {  // 2 s: two crank turns at 2 pi rad/s
      ASSERT_TRUE(step(model, s, ws).ok());
      // closed forms at the prescribed angle f(t): x = r cos f + sqrt(l^2 - r^2 sin^2 f) and
      // x' = (-r sin f - r^2 sin f cos f / sqrt(l^2 - r^2 sin^2 f)) f'
      const TimeValue fv = spec.joints[1].motion.evaluate(s.t);
      const double sn = std::sin(fv.f);
      const double cs = std::cos(fv.f);
      const double root = std::sqrt(l * l - r * r * sn * sn);
      const double x = r * cs + root;
      const double dx = (-r * sn - r * r * sn * cs / root) * fv.df;
      worst_theta = std::max(worst_theta, std::abs(s.q(3 * crank + 2) - fv.f));
      worst_omega = std::max(worst_omega, std::abs(s.v(3 * crank + 2) - fv.df));
      worst_x = std::max(worst_x, std::abs(s.q(3 * slider) - x));
      worst_dx = std::max(worst_dx, std::abs(s.v(3 * slider) - dx));
    }
    EXPECT_NEAR(s.t, 2.0, 1e-12);
    EXPECT_GT(s.q(3 * crank + 2) - f0.f, 12.0);  // it turned twice
    const bool stabilized = stab == StabilizerKind::kPStab;
    EXPECT_LE(worst_theta, 1e-10);
    EXPECT_LE(worst_omega, 1e-10);
    EXPECT_LE(worst_x, stabilized ? 1e-10 : 1e-8);
    EXPECT_LE(worst_dx, stabilized ? 1e-9 : 1e-8);
    std::printf(
        "driven slider-crank, %s, 2 s at dt = 1e-3: max |theta - f(t)| = %.3e rad, |theta' - f'| "
        "= %.3e rad/s, slider |x - closed form| = %.3e m, |x' - closed form| = %.3e m/s\n",
        std::string(to_string(stab)).c_str(), worst_theta, worst_omega, worst_x, worst_dx);
  }
}

TEST(Drivers, ImplicitIndexThreeMethodsHonourTheDriver) {
  // the implicit methods impose g(t_{n+1}, q_{n+1}) = 0 themselves (engine/implicit/): with the
  // driver the crank is at f(t) and the slider at its closed form after every step
  const ModelFile f =
      load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/slider_crank_driven.yaml");
  const PlanarModelSpec& spec = *f.bodies;
  const int crank = body_index(spec, "crank");
  const int slider = body_index(spec, "slider");
  const auto sys = std::shared_ptr<const System>(make_system(f));
  for (const Method method : {Method::kMidpoint, Method::kGgl}) {
    Settings settings;
    settings.method = method;
    settings.stabilizer = StabilizerKind::kNone;
    settings.dt = 1e-3;
    const Model model(sys, settings);
    Workspace ws(model);
    State s = initial_state(model);
    double worst = 0.0;
    for (int k = 0; k < 500; ++k) {
      ASSERT_TRUE(step(model, s, ws).ok());
      const double th = spec.joints[1].motion.evaluate(s.t).f;
      const double x = 0.3 * std::cos(th) + std::sqrt(0.25 - 0.09 * std::sin(th) * std::sin(th));
      worst = std::max(worst, std::abs(s.q(3 * crank + 2) - th));
      worst = std::max(worst, std::abs(s.q(3 * slider) - x));
    }
    EXPECT_LE(worst, 1e-9) << to_string(method);
    std::printf("driven slider-crank, %s: max |theta - f|, |x - closed form| = %.3e\n",
                std::string(to_string(method)).c_str(), worst);
  }
}

TEST(Drivers, SliderDrivenAlongASlantedAxisFollowsItsSine) {
  const std::string text =
      "bodies:\n"
      "  - {name: s, mass: 2, inertia: 0.1, pose: [0.1, 0.2, 0.3]}\n"
      "joints:\n"
      "  - name: guide\n"
      "    type: prismatic\n"
      "    body_i: ground\n"
      "    point_i: [0.1, 0.2]\n"
      "    body_j: s\n"
      "    axis: [0.6, 0.8]\n"
      "    angle: 0.3\n"
      "    driver: {type: sine, amplitude: 0.25, frequency: 2, phase: 0.5, offset: 0.1}\n"
      "forces:\n"
      "  - {type: gravity, vector: [0, -9.81]}\n";
  const ModelFile f = parse_model_file(text, "slant.yaml");
  EXPECT_FALSE(f.notes.empty());  // the pose and velocity were assembled onto the driver
  const auto sys = std::shared_ptr<const System>(make_system(f));
  // without a stabilizer the driven motion comes from integrating the index-1 equations alone,
  // so it is only right if g_t and L (with g_tt = -f'') are
  for (const StabilizerKind stab : {StabilizerKind::kPStab, StabilizerKind::kNone}) {
    const Model model(sys, rk4_with(stab));
    Workspace ws(model);
    State s = initial_state(model);
    const Eigen::Vector2d a(0.6, 0.8);
    const Eigen::Vector2d p0(0.1, 0.2);
    double worst_p = 0.0;
    double worst_v = 0.0;
    for (int k = 0; k < 1000; ++k) {
      ASSERT_TRUE(step(model, s, ws).ok());
      const double w = 2.0 * std::numbers::pi * 2.0;
      const double x = 0.1 + 0.25 * std::sin(w * s.t + 0.5);
      const double dx = 0.25 * w * std::cos(w * s.t + 0.5);
      worst_p = std::max(worst_p, (s.q.head<2>() - (p0 + x * a)).lpNorm<Eigen::Infinity>());
      worst_v = std::max(worst_v, (s.v.head<2>() - dx * a).lpNorm<Eigen::Infinity>());
      EXPECT_NEAR(s.q(2), 0.3, 1e-12);
    }
    const bool stabilized = stab == StabilizerKind::kPStab;
    EXPECT_LE(worst_p, stabilized ? 1e-10 : 1e-9);
    EXPECT_LE(worst_v, stabilized ? 1e-9 : 1e-9);
    std::printf(
        "sine-driven slider on axis (0.6, 0.8), %s: max position error %.3e m, velocity %.3e m/s\n",
        std::string(to_string(stab)).c_str(), worst_p, worst_v);
  }
}

}  // namespace
}  // namespace rtmb
