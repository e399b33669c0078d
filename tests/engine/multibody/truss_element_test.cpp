// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Truss element (engine/multibody/truss_element.hpp): gradient against central differences of
// the energy, Hessian against central differences of the gradient, the energy against its closed
// forms, and the discrete gradient's defining property P . (r1 - r0) = V(r1) - V(r0) (Hoitink
// eq. 4.44) to round-off, with its limit the gradient at the midpoint.
#include "engine/multibody/truss_element.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "tests/engine/multibody/multibody_test_support.hpp"

namespace rtmb {
namespace {

using multibody_test::central_gradient;
using multibody_test::expect_near;
using multibody_test::fd_jacobian;

constexpr double kEps = std::numeric_limits<double>::epsilon();

Eigen::Vector3d random_vector(std::mt19937& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  return {u(rng), u(rng), u(rng)};
}

class TrussElementTest : public ::testing::TestWithParam<StrainMeasure> {
 protected:
  TrussElement element() const { return TrussElement{250.0, 1.3, GetParam()}; }
};

TEST_P(TrussElementTest, EnergyMatchesTheStrainClosedForm) {
  const TrussElement e = element();
  const Eigen::Vector3d r(0.9, -0.7, 0.4);
  const double l = r.norm();
  const double eps = GetParam() == StrainMeasure::kGreen
                         ? (l * l - e.rest * e.rest) / (2.0 * e.rest * e.rest)
                         : (l - e.rest) / e.rest;
  EXPECT_NEAR(e.energy(r), 0.5 * e.stiffness * e.rest * eps * eps, 1e-12);
  EXPECT_EQ(e.energy(Eigen::Vector3d(0.0, e.rest, 0.0)), 0.0);  // unstretched
}

TEST_P(TrussElementTest, GradientAndHessianMatchFiniteDifferences) {
  const TrussElement e = element();
  std::mt19937 rng(17);
  for (int k = 0; k < 20; ++k) {
    const Vec r = random_vector(rng, -1.5, 1.5);
    const auto energy = [&](const Vec& x) { return e.energy(Eigen::Vector3d(x)); };
    const auto gradient = [&](const Vec& x) { return Vec(e.gradient(Eigen::Vector3d(x))); };
    expect_near(Vec(e.gradient(Eigen::Vector3d(r))), central_gradient(energy, r), 1e-7,
                "dV/dr vs FD");
    expect_near(Mat(e.hessian(Eigen::Vector3d(r))), fd_jacobian(gradient, r), 1e-7,
                "d2V/dr2 vs FD");
  }
}

TEST_P(TrussElementTest, DiscreteGradientReproducesTheEnergyDifference) {
  const TrussElement e = element();
  std::mt19937 rng(4);
  for (int k = 0; k < 200; ++k) {
    const Eigen::Vector3d r0 = random_vector(rng, -2.0, 2.0);
    // large steps and tiny ones (the near-equal lengths where a quotient would cancel)
    const double scale = k % 2 == 0 ? 1.0 : 1e-9;
    const Eigen::Vector3d r1 = r0 + scale * random_vector(rng, -1.0, 1.0);
    const double dv = e.energy(r1) - e.energy(r0);
    const double work = e.discrete_gradient(r0, r1).dot(r1 - r0);
    // round-off of the two energies and of the product
    const double tol = 16.0 * kEps * (std::fabs(e.energy(r0)) + std::fabs(e.energy(r1)) + 1.0);
    EXPECT_NEAR(work, dv, tol) << "r0 = " << r0.transpose() << ", r1 = " << r1.transpose();
  }
}

TEST_P(TrussElementTest, DiscreteGradientTendsToTheMidpointGradient) {
  const TrussElement e = element();
  const Eigen::Vector3d r(0.4, 1.1, -0.3);
  expect_near(Vec(e.discrete_gradient(r, r)), Vec(e.gradient(r)), 1e-15, "P(r, r) = dV/dr");
  const Eigen::Vector3d dr(1e-6, -2e-6, 1.5e-6);
  // P(r - dr, r + dr) = dV/dr(r) + O(|dr|^2)
  expect_near(Vec(e.discrete_gradient(r - dr, r + dr)), Vec(e.gradient(r)), 1e-10,
              "P(r - dr, r + dr) vs dV/dr(r)");
}

INSTANTIATE_TEST_SUITE_P(Strains,
                         TrussElementTest,
                         ::testing::Values(StrainMeasure::kLinear, StrainMeasure::kGreen),
                         [](const ::testing::TestParamInfo<StrainMeasure>& p) {
                           return p.param == StrainMeasure::kGreen ? "Green" : "Linear";
                         });

}  // namespace
}  // namespace rtmb
