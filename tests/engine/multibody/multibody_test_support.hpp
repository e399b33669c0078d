// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Test-only helpers for the body models (planar_multibody_test.cpp, spatial_multibody_test.cpp):
// central finite differences, a matrix comparison that prints both sides, random (inconsistent)
// states and the check of a System's constraint derivatives G, H = d(G v)/dq and L against
// finite differences of its own g. Written independently of engine/ so the tests cross-check it.

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "rtmb/models/spatial_multibody.hpp"
#include "rtmb/system.hpp"
#include "rtmb/types.hpp"

namespace rtmb::multibody_test {

inline constexpr double kFdStep = 1e-6;

/// d fun / dx by central differences of step h (one coordinate of x moved at a time).
inline Mat fd_jacobian(const std::function<Vec(const Vec&)>& fun,
                       const Vec& x,
                       double h = kFdStep) {
  Mat J(fun(x).size(), x.size());
  Vec y = x;
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    y(k) = x(k) + h;
    const Vec forward = fun(y);
    y(k) = x(k) - h;
    J.col(k) = (forward - fun(y)) / (2.0 * h);
    y(k) = x(k);
  }
  return J;
}

/// |a - b|inf <= tol (1 + |b|inf), printing both on failure.
inline void expect_near(const Mat& a, const Mat& b, double tol, const std::string& what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  const double err = (a - b).lpNorm<Eigen::Infinity>();
  EXPECT_LE(err, tol * (1.0 + b.lpNorm<Eigen::Infinity>())) << what << "\n" << a << "\nvs\n" << b;
}

struct Sample {
  Vec q;
  Vec v;
};

/// Fills q and v (of equal size) with draws of u from rng, alternately: q(0), v(0), q(1), ...
inline void draw_state(std::mt19937& rng,
                       std::uniform_real_distribution<double>& u,
                       Vec& q,
                       Vec& v) {
  for (Eigen::Index k = 0; k < q.size(); ++k) {
    q(k) = u(rng);
    v(k) = u(rng);
  }
}

/// q and v of size n, every entry uniform in [-range, range] (mt19937 seeded with seed).
inline Sample random_state(int n, unsigned seed, double range) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-range, range);
  Sample s{Vec(n), Vec(n)};
  draw_state(rng, u, s.q, s.v);
  return s;
}

/// At the random state (seed, range): G vs dg/dq, H = d(G v)/dq vs the difference quotient of
/// G(q) v, L vs d/dt (G(q) v) along q' = v and vs d^2/dt^2 g(q + t v), and g_t = 0 (scleronomic).
inline void check_constraint_derivatives(const System& sys, unsigned seed, double range) {
  const Sample s = random_state(sys.n_q(), seed, range);
  const int nl = sys.n_lambda();
  const int n = sys.n_q();
  auto g_of = [&](const Vec& q) {
    Vec g(nl);
    sys.constraints(0.0, q, g);
    return g;
  };
  auto gv_of = [&](const Vec& q) {
    Mat G(nl, n);
    sys.jacobian(0.0, q, G);
    return Vec(G * s.v);
  };
  Mat G(nl, n);
  sys.jacobian(0.0, s.q, G);
  expect_near(G, fd_jacobian(g_of, s.q), 1e-7, "G vs dg/dq");

  Mat H(nl, n);
  sys.velocity_constraint_jacobian(0.0, s.q, s.v, H);
  expect_near(H, fd_jacobian(gv_of, s.q), 1e-7, "d(Gv)/dq vs FD");

  // L = d/dt (G(q(t)) v) at fixed v along q(t) = q + t v
  Vec L(nl);
  sys.curvature(0.0, s.q, s.v, L);
  const Vec L_fd = (gv_of(s.q + kFdStep * s.v) - gv_of(s.q - kFdStep * s.v)) / (2.0 * kFdStep);
  expect_near(L, L_fd, 1e-7, "L vs d/dt(G v)");

  // ... and d^2/dt^2 g(q + t v) = L for the straight path (second difference)
  const double h2 = 1e-4;
  const Vec g2 = (g_of(s.q + h2 * s.v) - 2.0 * g_of(s.q) + g_of(s.q - h2 * s.v)) / (h2 * h2);
  expect_near(L, g2, 1e-5, "L vs d2g/dt2");

  Vec gt(nl);
  sys.constraint_rate(0.0, s.q, gt);
  EXPECT_EQ(gt.lpNorm<Eigen::Infinity>(), 0.0);
}

/// At the random state (seed, range) and an acceleration a drawn the same way: the System
/// provides K = d(M(q) a)/dq (System::inertia_jacobian), it equals central differences of
/// M(q) a, and it is not zero (so the comparison can fail).
inline void check_inertia_jacobian(const System& sys, unsigned seed, double range) {
  const Sample s = random_state(sys.n_q(), seed, range);
  const Vec a = 40.0 * random_state(sys.n_q(), seed + 1u, range).v;
  const int n = sys.n_v();
  Mat K = Mat::Constant(n, n, 99.0);
  ASSERT_TRUE(sys.inertia_jacobian(0.0, s.q, a, K));
  const Mat K_fd = fd_jacobian(
      [&](const Vec& q) {
        Mat M(n, n);
        sys.mass(0.0, q, M);
        return Vec(M * a);
      },
      s.q);
  expect_near(K, K_fd, 1e-8, "d(M a)/dq vs FD");
  EXPECT_GT(K_fd.lpNorm<Eigen::Infinity>(), 1e-6 * a.lpNorm<Eigen::Infinity>());
}

/// The gradient of a scalar function by central differences of step h.
inline Vec central_gradient(const std::function<double(const Vec&)>& fun,
                            const Vec& x,
                            double h = kFdStep) {
  const auto as_vector = [&fun](const Vec& y) { return Vec(Vec::Constant(1, fun(y))); };
  return fd_jacobian(as_vector, x, h).row(0).transpose();
}

/// The energy of a run, step by step: its largest deviation from the start and whether it
/// never rose (by more than 1e-12 J: a damped model only loses energy).
struct EnergyTrace {
  explicit EnergyTrace(double e0) : start(e0), last(e0) {}
  void add(double e) {
    worst = std::max(worst, std::abs(e - start));
    monotone = monotone && e <= last + 1e-12;
    last = e;
  }
  double start;
  double last;
  double worst = 0.0;  ///< max |E - E0|
  bool monotone = true;
};

/// The dense KKT matrix [M G^T; G 0] of M a + G^T lambda = f, G a = -L.
inline Mat kkt_matrix(const Mat& M, const Mat& G) {
  const Eigen::Index n = M.rows();
  const Eigen::Index m = G.rows();
  Mat K = Mat::Zero(n + m, n + m);
  K.topLeftCorner(n, n) = M;
  K.topRightCorner(n, m) = G.transpose();
  K.bottomLeftCorner(m, n) = G;
  return K;
}

/// Its right-hand side [f; -L].
inline Vec kkt_rhs(const Vec& f, const Vec& L) {
  Vec rhs(f.size() + L.size());
  rhs << f, -L;
  return rhs;
}

/// Every SpatialJointType in declaration order, for tests parameterized over them.
inline std::vector<SpatialJointType> all_spatial_joint_types() {
  std::vector<SpatialJointType> out;
  for (int k = 0; k <= static_cast<int>(SpatialJointType::kPlanar); ++k) {
    out.push_back(static_cast<SpatialJointType>(k));
  }
  return out;
}

/// A joint type's name as the name of a parameterized test.
inline std::string joint_type_name(const ::testing::TestParamInfo<SpatialJointType>& p) {
  return std::string(to_string(p.param));
}

}  // namespace rtmb::multibody_test
