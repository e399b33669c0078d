// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Bending element (engine/multibody/bending_element.hpp; Hoitink 2011 §4.2.2, reference
// gsssss-hoitink2011.md §4.3): the energy against C_b cot^2(alpha/2)/2, the straight element
// unloaded, gradient and Hessian against central differences, and the corrected discrete gradient
// (eq. 4.45 with P6) reproducing V(r') - V(r) to round-off, with the midpoint gradient as its
// limit.
#include "engine/multibody/bending_element.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "tests/engine/multibody/multibody_test_support.hpp"

namespace rtmb {
namespace {

using multibody_test::central_gradient;
using multibody_test::expect_near;
using multibody_test::fd_jacobian;

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kCb = 3.5;

// r1 and r2 of lengths l1, l2 at the angle alpha, in the plane spanned by e and f (orthonormal)
struct Pair {
  Eigen::Vector3d r1;
  Eigen::Vector3d r2;
};

Pair at_angle(
    double l1, double l2, double alpha, const Eigen::Vector3d& e, const Eigen::Vector3d& f) {
  return {l1 * e, l2 * (std::cos(alpha) * e + std::sin(alpha) * f)};
}

// a random bent pair: lengths in [0.5, 1.5], angle in [0.4, pi - 0.05], random orientation
Pair random_pair(std::mt19937& rng) {
  std::uniform_real_distribution<double> len(0.5, 1.5);
  std::uniform_real_distribution<double> ang(0.4, std::numbers::pi - 0.05);
  std::normal_distribution<double> n(0.0, 1.0);
  Eigen::Vector3d e(n(rng), n(rng), n(rng));
  e.normalize();
  Eigen::Vector3d f(n(rng), n(rng), n(rng));
  f = (f - f.dot(e) * e).normalized();
  return at_angle(len(rng), len(rng), ang(rng), e, f);
}

Vec stack(const Pair& p) {
  Vec x(6);
  x << p.r1, p.r2;
  return x;
}

Pair unstack(const Vec& x) {
  return {x.head<3>(), x.tail<3>()};
}

TEST(BendingElement, EnergyIsHalfCbCotangentSquaredOfHalfTheAngle) {
  const BendingElement b{kCb};
  const Eigen::Vector3d e = Eigen::Vector3d::UnitX();
  const Eigen::Vector3d f = Eigen::Vector3d(0.0, 0.6, 0.8);
  for (double alpha : {0.3, 1.0, 2.0, 2.9}) {
    const Pair p = at_angle(0.7, 1.9, alpha, e, f);
    const double cot = 1.0 / std::tan(alpha / 2.0);
    EXPECT_NEAR(b.energy(p.r1, p.r2), 0.5 * kCb * cot * cot, 1e-12) << "alpha = " << alpha;
  }
}

TEST(BendingElement, StraightElementIsUnloaded) {
  const BendingElement b{kCb};
  const Eigen::Vector3d r1(0.6, -0.8, 0.0);
  const Eigen::Vector3d r2 = -2.5 * r1;  // alpha = pi
  EXPECT_NEAR(b.energy(r1, r2), 0.0, 1e-15);
  const BendingGradient g = b.gradient(r1, r2);
  EXPECT_LE(g.d1.norm() + g.d2.norm(), 1e-14);
}

TEST(BendingElement, GradientAndHessianMatchFiniteDifferences) {
  const BendingElement b{kCb};
  std::mt19937 rng(23);
  const auto energy = [&](const Vec& x) {
    const Pair p = unstack(x);
    return b.energy(p.r1, p.r2);
  };
  const auto gradient = [&](const Vec& x) {
    const Pair p = unstack(x);
    const BendingGradient g = b.gradient(p.r1, p.r2);
    Vec out(6);
    out << g.d1, g.d2;
    return out;
  };
  for (int k = 0; k < 20; ++k) {
    const Vec x = stack(random_pair(rng));
    expect_near(gradient(x), central_gradient(energy, x), 1e-7, "dV/dr vs FD");
    const Pair p = unstack(x);
    expect_near(Mat(b.hessian(p.r1, p.r2)), fd_jacobian(gradient, x), 1e-6, "d2V/dr2 vs FD");
  }
}

TEST(BendingElement, DiscreteGradientReproducesTheEnergyDifference) {
  const BendingElement b{kCb};
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int checked = 0;
  for (int k = 0; k < 200; ++k) {
    const Pair p0 = random_pair(rng);
    // a large or a tiny step (where the printed quotients would need their fallback)
    const double scale = k % 2 == 0 ? 0.2 : 1e-9;
    Pair p1 = p0;
    for (int i = 0; i < 3; ++i) {
      p1.r1(i) += scale * u(rng);
      p1.r2(i) += scale * u(rng);
    }
    const double v0 = b.energy(p0.r1, p0.r2);
    const double v1 = b.energy(p1.r1, p1.r2);
    const BendingGradient g = b.discrete_gradient(p0.r1, p0.r2, p1.r1, p1.r2);
    const double work = g.d1.dot(p1.r1 - p0.r1) + g.d2.dot(p1.r2 - p0.r2);
    EXPECT_NEAR(work, v1 - v0, 64.0 * kEps * (v0 + v1 + 1.0)) << "k = " << k;
    ++checked;
  }
  EXPECT_EQ(checked, 200);
}

TEST(BendingElement, DiscreteGradientWithEqualEndsIsTheGradient) {
  const BendingElement b{kCb};
  std::mt19937 rng(9);
  const Pair p = random_pair(rng);
  const BendingGradient d = b.discrete_gradient(p.r1, p.r2, p.r1, p.r2);
  const BendingGradient g = b.gradient(p.r1, p.r2);
  EXPECT_LE((d.d1 - g.d1).norm() + (d.d2 - g.d2).norm(), 1e-13 * (g.d1.norm() + g.d2.norm()));
}

}  // namespace
}  // namespace rtmb
