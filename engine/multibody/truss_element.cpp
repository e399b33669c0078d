// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Truss element (engine/multibody/truss_element.hpp). With V a function of l only,
//   dV/dr = V'(l) r / l,   d^2V/dr^2 = V''(l) r r^T / l^2 + (V'(l) / l) (I - r r^T / l^2),
// and the discrete gradient of Hoitink eq. 4.44 (LaBudde-Greenspan),
//   P = [V(l1) - V(l0)] / (l1 - l0) * (r1 + r0) / (l1 + l0),
// which satisfies P . (r1 - r0) = V(l1) - V(l0) because (r1 + r0).(r1 - r0) = l1^2 - l0^2.
// Both strain measures make V a polynomial in l, so the divided difference has a closed form that
// never divides by l1 - l0 (no cancellation, and no switch to the midpoint derivative when the
// length does not change, the fallback Hoitink needs for a general V, reference §4.3):
//   linear: V = k (l - L)^2 / 2, k = EA/L:  [V]/[l] = k ((l1 + l0)/2 - L)
//   Green:  V = EA L e^2 / 2, e = (l^2 - L^2)/(2 L^2): [V]/[l] = EA L (e1 + e0)/2 (l1 + l0)/(2 L^2)
// so P = EA (e0 + e1)/2 (r0 + r1)/(2 L): the "average strain" truss of Hoitink §2.1.5 (seed eq. 2.9
// as corrected in reference P3, e~ = (e_n + e_{n+1})/2 at W1 = 1/2), which is the same vector.
#include "engine/multibody/truss_element.hpp"

#include <cmath>

namespace rtmb {

namespace {

double green_strain(double l2, double rest) noexcept {
  return (l2 - rest * rest) / (2.0 * rest * rest);
}

}  // namespace

double TrussElement::energy(const Eigen::Vector3d& r) const noexcept {
  if (strain == StrainMeasure::kGreen) {
    const double e = green_strain(r.squaredNorm(), rest);
    return 0.5 * stiffness * rest * e * e;
  }
  const double dl = r.norm() - rest;
  return 0.5 * (stiffness / rest) * dl * dl;
}

Eigen::Vector3d TrussElement::gradient(const Eigen::Vector3d& r) const noexcept {
  if (strain == StrainMeasure::kGreen) {
    // dV/dr = EA L e de/dr, de/dr = r / L^2
    return (stiffness / rest) * green_strain(r.squaredNorm(), rest) * r;
  }
  const double l = r.norm();
  return (stiffness / rest) * (l - rest) / l * r;
}

Eigen::Matrix3d TrussElement::hessian(const Eigen::Vector3d& r) const noexcept {
  const double k = stiffness / rest;
  if (strain == StrainMeasure::kGreen) {
    // d/dr of (EA/L) e r = (EA/L) (e I + r r^T / L^2)
    return k * (green_strain(r.squaredNorm(), rest) * Eigen::Matrix3d::Identity() +
                r * r.transpose() / (rest * rest));
  }
  const double l = r.norm();
  const Eigen::Vector3d n = r / l;
  // V'' = k, V'/l = k (l - L)/l
  return k * (n * n.transpose()) +
         k * (l - rest) / l * (Eigen::Matrix3d::Identity() - n * n.transpose());
}

Eigen::Vector3d TrussElement::discrete_gradient(const Eigen::Vector3d& r0,
                                                const Eigen::Vector3d& r1) const noexcept {
  const Eigen::Vector3d sum = r0 + r1;
  if (strain == StrainMeasure::kGreen) {
    const double e_mean =
        0.5 * (green_strain(r0.squaredNorm(), rest) + green_strain(r1.squaredNorm(), rest));
    return (stiffness / rest) * e_mean * (0.5 * sum);
  }
  const double l0 = r0.norm();
  const double l1 = r1.norm();
  const double slope = (stiffness / rest) * (0.5 * (l0 + l1) - rest);  // [V]/[l], exact
  return slope / (l0 + l1) * sum;
}

}  // namespace rtmb
