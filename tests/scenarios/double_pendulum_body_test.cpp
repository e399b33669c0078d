// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// configs/double_pendulum_body.yaml (two point masses on distance joints) against the built-in
// `double_pendulum` (redundant coordinates with massless bar angles, Hoitink 2011 §4.1): the bar
// angles and the mass positions agree to 1e-8 over 1 s, each run converged (step halving), and
// the body model's energy is the built-in's E0 = -10 J.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <string>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/support/model_lookup.hpp"

namespace rtmb {
namespace {

using testing::rk4_pstab;

// (x1, y1, theta1, x2, y2, theta2) of the built-in from body coordinates (mass1, mass2)
Vec builtin_coordinates(const Vec& q) {
  const double x1 = q(0);
  const double y1 = q(1);
  const double x2 = q(3);
  const double y2 = q(4);
  Vec out(6);
  out << x1, y1, std::atan2(x1, -y1), x2, y2, std::atan2(x2 - x1, -(y2 - y1));
  return out;
}

// max over the run of |body - builtin| (angles compared modulo 2 pi), sampled every `stride`
// steps, and the final states
struct Comparison {
  double angles = 0.0;
  double positions = 0.0;
  Mat body_history;
  Mat builtin_history;
};

Comparison compare(double dt, int stride, double t_end) {
  const std::string path = std::string(RTMB_SOURCE_DIR) + "/configs/double_pendulum_body.yaml";
  const Model body(std::shared_ptr<const System>(make_system(load_model_file(path))),
                   rk4_pstab(dt));
  const Model ref(make_mechanism("double_pendulum"), rk4_pstab(dt));
  Workspace wb(body);
  Workspace wr(ref);
  State sb = initial_state(body);
  State sr = initial_state(ref);
  const int n = static_cast<int>(std::lround(t_end / dt));
  Comparison c;
  c.body_history.resize(6, n / stride + 1);
  c.builtin_history.resize(6, n / stride + 1);
  c.body_history.col(0) = builtin_coordinates(sb.q);
  c.builtin_history.col(0) = sr.q;
  for (int k = 1; k <= n; ++k) {
    EXPECT_TRUE(step(body, sb, wb).ok());
    EXPECT_TRUE(step(ref, sr, wr).ok());
    const Vec qb = builtin_coordinates(sb.q);
    for (const int i : {2, 5}) {
      c.angles =
          std::max(c.angles, std::abs(std::remainder(qb(i) - sr.q(i), 2.0 * std::numbers::pi)));
    }
    for (const int i : {0, 1, 3, 4}) c.positions = std::max(c.positions, std::abs(qb(i) - sr.q(i)));
    if (k % stride == 0) {
      c.body_history.col(k / stride) = qb;
      c.builtin_history.col(k / stride) = sr.q;
    }
  }
  return c;
}

double angle_distance(const Mat& a, const Mat& b) {
  double worst = 0.0;
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    for (const int i : {2, 5}) {
      worst = std::max(worst, std::abs(std::remainder(a(i, j) - b(i, j), 2.0 * std::numbers::pi)));
    }
  }
  return worst;
}

TEST(DoublePendulumBody, ReproducesTheBuiltInAnglesOverOneSecond) {
  const double dt = 1e-4;
  const Comparison c = compare(dt, 1, 1.0);
  const Comparison half = compare(dt / 2, 2, 1.0);
  const double body_halving = angle_distance(c.body_history, half.body_history);
  const double ref_halving = angle_distance(c.builtin_history, half.builtin_history);
  const double swing = c.builtin_history.row(2).maxCoeff() - c.builtin_history.row(2).minCoeff();
  EXPECT_GT(swing, 1.0);  // bar 1 really swings
  EXPECT_LE(body_halving, 1e-10);
  EXPECT_LE(ref_halving, 1e-10);
  EXPECT_LE(c.angles, 1e-8);
  EXPECT_LE(c.positions, 1e-8);
  std::printf(
      "double pendulum body vs built-in, 1 s RK4+pstab dt = 1e-4: max angle difference %.3e rad, "
      "position %.3e m; step halving: body %.3e, built-in %.3e; theta1 swing %.3f rad\n",
      c.angles, c.positions, body_halving, ref_halving, swing);
}

TEST(DoublePendulumBody, EnergyIsTheBuiltInsE0) {
  const ModelFile f =
      load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/double_pendulum_body.yaml");
  EXPECT_TRUE(f.notes.empty());  // consistent as written
  const auto body = make_system(f);
  const auto ref = make_mechanism("double_pendulum");
  State sb;
  State sr;
  body->initial_state(sb);
  ref->initial_state(sr);
  EXPECT_NEAR(ref->energy(0.0, sr.q, sr.v), -10.0, 1e-14);
  EXPECT_NEAR(body->energy(0.0, sb.q, sb.v), -10.0, 1e-14);
  EXPECT_LE((builtin_coordinates(sb.q) - sr.q).lpNorm<Eigen::Infinity>(), 1e-15);
}

}  // namespace
}  // namespace rtmb
