// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// configs/andrews.yaml (Andrews' squeezing mechanism in body coordinates, 7 bodies, 10 revolute
// joints) against the built-in relative-coordinate `andrews` (engine/mechanisms/andrews.cpp,
// Hairer-Wanner data). The body poses are computed here from the relative angles by the
// absolute-coordinate formulas of Hoitink 2011 App. A.2 (reference/gsssss-hoitink2011.md §4.5),
// which the file's body-frame points do not use, so these tests check the file's geometry
// rather than restate it:
//   - the file's initial pose is the built-in's q0 mapped by those formulas;
//   - at arbitrary angles the mapped pose satisfies the seven joints that the relative
//     coordinates build in, the three E joints equal the built-in's loop closures, and kinetic
//     and potential energy agree;
//   - integrated, the crank angle beta (and every other relative angle) follows the built-in to
//     1e-8 rad over [0, 0.03] s, with both integrations shown converged by step halving.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/mechanisms/andrews_data.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/engine/mechanisms/mechanism_test_support.hpp"
#include "tests/support/model_lookup.hpp"

namespace rtmb {
namespace {

using testing::joint_index;
using testing::rk4_pstab;

// Hairer-Wanner data (reference/post-stabilization-chin1995.md §3.7), tb = 0.00916
using namespace detail::andrews_data;  // NOLINT(google-build-using-namespace)

std::string andrews_file() {
  return std::string(RTMB_SOURCE_DIR) + "/configs/andrews.yaml";
}

// Relative angles (beta, Theta, gamma, Phi, delta, Omega, epsilon) -> absolute body angles
std::array<double, 7> absolute_angles(const Vec& r) {
  return {r(0), r(0) + r(1), r(2), r(3) + r(4), r(4), r(5) + r(6), r(6)};
}

// Body coordinates (x_k, y_k, theta_k), k = 1..7, of the relative angles r: Hoitink's Cartesian
// constraints solved for the centres of mass.
Vec body_coordinates(const Vec& r) {
  const auto th = absolute_angles(r);
  const double b = th[0];
  const double t2 = th[1];
  const double g = th[2];
  const double p4 = th[3];
  const double d = th[4];
  const double o6 = th[5];
  const double e = th[6];
  Vec q(21);
  q.segment<3>(0) << kRa * std::cos(b), kRa * std::sin(b), b;
  q.segment<3>(3) << kRr * std::cos(b) - kDa * std::cos(t2), kRr * std::sin(b) - kDa * std::sin(t2),
      t2;
  q.segment<3>(6) << kXb + kSa * std::sin(g) + kSb * std::cos(g),
      kYb - kSa * std::cos(g) + kSb * std::sin(g), g;
  q.segment<3>(9) << kXa + kZt * std::cos(d) + (kE - kEa) * std::sin(p4),
      kYa + kZt * std::sin(d) - (kE - kEa) * std::cos(p4), p4;
  q.segment<3>(12) << kXa + kTa * std::cos(d) - kTb * std::sin(d),
      kYa + kTa * std::sin(d) + kTb * std::cos(d), d;
  q.segment<3>(15) << kXa + kU * std::sin(e) + (kZf - kFa) * std::cos(o6),
      kYa - kU * std::cos(e) + (kZf - kFa) * std::sin(o6), o6;
  q.segment<3>(18) << kXa + kUa * std::sin(e) - kUb * std::cos(e),
      kYa - kUa * std::cos(e) - kUb * std::sin(e), e;
  return q;
}

// The relative angles of body coordinates (the inverse map on the angles)
Vec relative_angles(const Vec& q) {
  Vec r(7);
  r << q(2), q(5) - q(2), q(8), q(11) - q(14), q(14), q(17) - q(20), q(20);
  return r;
}

// d/dr body_coordinates(r) by central differences
Mat body_jacobian(const Vec& r) {
  return test::central_differences(21, r, 1e-7, body_coordinates);
}

TEST(AndrewsBody, FilePoseIsTheBuiltInInitialStateInBodyCoordinates) {
  const ModelFile f = load_model_file(andrews_file());
  ASSERT_TRUE(f.bodies);
  EXPECT_TRUE(f.notes.empty()) << f.notes.front();  // consistent as written: nothing assembled
  const auto body = make_system(f);
  const auto ref = make_mechanism("andrews");
  ASSERT_EQ(body->n_q(), 21);
  ASSERT_EQ(body->n_lambda(), 20);
  State sb;
  State sr;
  body->initial_state(sb);
  ref->initial_state(sr);
  const double err = (sb.q - body_coordinates(sr.q)).lpNorm<Eigen::Infinity>();
  EXPECT_LE(err, 1e-16);
  EXPECT_EQ(sb.v.lpNorm<Eigen::Infinity>(), 0.0);
  Vec g(20);
  body->constraints(0.0, sb.q, g);
  EXPECT_LE(g.lpNorm<Eigen::Infinity>(), 1e-17);
  std::printf("andrews.yaml: |q0_file - map(q0_builtin)|_inf = %.3e m|rad, |g(q0)|_inf = %.3e m\n",
              err, g.lpNorm<Eigen::Infinity>());
}

TEST(AndrewsBody, GeometryAndEnergyMatchTheBuiltInAtArbitraryAngles) {
  const ModelFile f = load_model_file(andrews_file());
  const auto body = make_system(f);
  const auto ref = make_mechanism("andrews");
  const PlanarModelSpec& spec = *f.bodies;
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> angle(-3.0, 3.0);
  std::uniform_real_distribution<double> rate(-500.0, 500.0);
  double worst_joint = 0.0;
  double worst_loop = 0.0;
  double worst_energy = 0.0;
  double worst_potential = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    Vec r(7);
    Vec w(7);
    for (int k = 0; k < 7; ++k) {
      r(k) = angle(rng);
      w(k) = rate(rng);
    }
    const Vec q = body_coordinates(r);
    ASSERT_LE((relative_angles(q) - r).lpNorm<Eigen::Infinity>(), 1e-15);
    Vec g(20);
    body->constraints(0.0, q, g);
    Vec gr(6);
    ref->constraints(0.0, r, gr);
    // joints built into the relative coordinates hold exactly; E3, E4, E6 (point of K2 minus
    // point of K3/K4/K6) are the built-in's loop closures g1..g6 (E_K2 - (B + ...) etc.)
    for (std::size_t k = 0; k < spec.joints.size(); ++k) {
      const std::string& name = spec.joints[k].name;
      const Eigen::Vector2d gk = g.segment<2>(2 * static_cast<Eigen::Index>(k));
      if (name == "E3" || name == "E4" || name == "E6") {
        const int loop = name == "E3" ? 0 : (name == "E4" ? 2 : 4);
        worst_loop = std::max(worst_loop, (gk - gr.segment<2>(loop)).lpNorm<Eigen::Infinity>());
      } else {
        worst_joint = std::max(worst_joint, gk.lpNorm<Eigen::Infinity>());
      }
    }
    // T(q, J w) = 1/2 w^T M(r) w, and V(q) = V(r) (spring and drive potential)
    const Vec v = body_jacobian(r) * w;
    const Vec zero7 = Vec::Zero(7);
    const double v_body = body->energy(0.0, q, Vec::Zero(21), {});
    const double v_ref = ref->energy(0.0, r, zero7, {});
    const double t_body = body->energy(0.0, q, v, {}) - v_body;
    const double t_ref = ref->energy(0.0, r, w, {}) - v_ref;
    worst_energy = std::max(worst_energy, std::abs(t_body - t_ref) / std::abs(t_ref));
    worst_potential = std::max(worst_potential, std::abs(v_body - v_ref));
  }
  EXPECT_EQ(joint_index(spec, "E3"), 2);
  EXPECT_LE(worst_joint, 1e-16);  // a few ulp of the 0.07 m coordinates
  EXPECT_LE(worst_loop, 1e-16);
  EXPECT_LE(worst_energy, 1e-7);  // central differences of the map, h = 1e-7
  EXPECT_LE(worst_potential, 1e-12);
  std::printf(
      "andrews geometry at 20 random angle sets: pinned joints |g| %.2e m, E joints - loop "
      "closures %.2e m, kinetic energy rel. %.2e, potential %.2e J\n",
      worst_joint, worst_loop, worst_energy, worst_potential);
}

// The relative angles every `stride` steps over [0, t_end] at step dt; column j is t = j stride dt.
Mat history(const std::shared_ptr<const System>& sys,
            bool body_coordinates,
            double dt,
            int stride,
            double t_end) {
  const Model model(sys, rk4_pstab(dt));
  Workspace ws(model);
  State s = initial_state(model);
  const int n = static_cast<int>(std::lround(t_end / dt));
  Mat out(7, n / stride + 1);
  auto angles = [&](const State& st) { return body_coordinates ? relative_angles(st.q) : st.q; };
  out.col(0) = angles(s);
  for (int k = 1; k <= n; ++k) {
    const StepStatus st = step(model, s, ws);
    EXPECT_TRUE(st.ok());
    if (!st.ok()) break;
    if (k % stride == 0) out.col(k / stride) = angles(s);
  }
  return out;
}

TEST(AndrewsBody, ReproducesTheRelativeCoordinateAngleHistory) {
  const double t_end = 0.03;
  const double dt = 2e-6;
  const std::shared_ptr<const System> body = make_system(load_model_file(andrews_file()));
  const std::shared_ptr<const System> ref = make_mechanism("andrews");
  // compare every 1e-5 s; the step-halved runs sample the same instants
  const Mat hb = history(body, true, dt, 5, t_end);
  const Mat hr = history(ref, false, dt, 5, t_end);
  const Mat hb2 = history(body, true, dt / 2, 10, t_end);
  const Mat hr2 = history(ref, false, dt / 2, 10, t_end);
  ASSERT_EQ(hb.cols(), 3001);
  const double beta_diff = (hb.row(0) - hr.row(0)).lpNorm<Eigen::Infinity>();
  const double all_diff = (hb - hr).lpNorm<Eigen::Infinity>();
  const double body_halving = (hb - hb2).lpNorm<Eigen::Infinity>();
  const double ref_halving = (hr - hr2).lpNorm<Eigen::Infinity>();
  const double swept = hr.row(0).maxCoeff() - hr.row(0).minCoeff();
  EXPECT_GT(swept, 1.0);  // the crank really turns
  // integration error of each run (RK4: the dt run's error is ~16/15 of its distance to the
  // dt/2 run) far below the tolerance of the comparison
  EXPECT_LE(body_halving, 1e-10);
  EXPECT_LE(ref_halving, 1e-10);
  EXPECT_LE(beta_diff, 1e-8);
  EXPECT_LE(all_diff, 1e-8);
  std::printf(
      "andrews body vs relative over [0, %.2f] s, RK4+pstab dt = %.0e: max |beta_body - beta_ref| "
      "= %.3e rad, all seven angles %.3e rad; step halving: body %.3e, relative %.3e; beta "
      "swept %.3f rad (beta(T) = %.6f)\n",
      t_end, dt, beta_diff, all_diff, body_halving, ref_halving, swept, hr(0, hr.cols() - 1));
}

TEST(AndrewsBody, ConservesEnergyAtTheFilesStep) {
  // spring and constant drive torque are conservative (potential -mom theta1), no damping: with
  // the file's own settings (RK4 + PStab, dt = 5e-5) E stays at E0 relative to the kinetic
  // energy the drive pumps in
  const ModelFile f = load_model_file(andrews_file());
  const std::shared_ptr<const System> sys = make_system(f);
  const Model model(sys, f.settings);
  Workspace ws(model);
  State s = initial_state(model);
  const double e0 = sys->energy(0.0, s.q, s.v, {});
  double worst = 0.0;
  double kinetic = 0.0;
  const Vec zero = Vec::Zero(sys->n_v());
  for (int k = 0; k < 600; ++k) {  // 0.03 s
    ASSERT_TRUE(step(model, s, ws).ok());
    worst = std::max(worst, std::abs(sys->energy(s.t, s.q, s.v, {}) - e0));
    kinetic = std::max(kinetic, sys->energy(s.t, s.q, s.v, {}) - sys->energy(s.t, s.q, zero, {}));
  }
  EXPECT_GT(kinetic, 0.1);
  EXPECT_LE(worst / kinetic, 1e-6);
  std::printf("andrews.yaml at dt = 5e-5 over 0.03 s: max |E - E0| = %.3e J, max T = %.3f J\n",
              worst, kinetic);
}

}  // namespace
}  // namespace rtmb
