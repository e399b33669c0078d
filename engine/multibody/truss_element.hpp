// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Axial (truss) element between two points: its energy, the gradient and Hessian of that energy,
// and its discrete gradient for energy-consistent time stepping (Hoitink 2011 §4.2.1-§4.2.2 and
// eq. 4.44; reference gsssss-hoitink2011.md §1.8, §4.2, §4.3). Everything is written in the
// element vector r = x_j - x_i of length l = |r| (3-vectors; a planar model sets z = 0): the force
// on point j is -dV/dr, on point i +dV/dr.
//
// Energy V = EA l0 eps^2 / 2 with the strain
//   linear: eps = (l - l0) / l0,            V = (EA / l0) (l - l0)^2 / 2  (Hoitink §4.2.2's
//           V_axial = kappa (l - l0)^2 / 2 with kappa = EA / l0);
//   Green:  eps = (l^2 - l0^2) / (2 l0^2)   (Hoitink §4.2.1, the four-mass trusses; reference
//           §4.2 "V = EA l0 eps^2 / 2 with eps = (l^2 - l0^2)/(2 l0^2)").
// RT-safe: fixed-size Eigen values only.

#include <Eigen/Core>

#include "rtmb/models/strain_measure.hpp"

namespace rtmb {

struct TrussElement {
  double stiffness = 0.0;  ///< EA [N]
  double rest = 1.0;       ///< natural length l0 [m], > 0
  StrainMeasure strain = StrainMeasure::kGreen;

  /// V(r) [J].
  [[nodiscard]] double energy(const Eigen::Vector3d& r) const noexcept;
  /// dV/dr: the force on point i (point j gets its negative) [N].
  [[nodiscard]] Eigen::Vector3d gradient(const Eigen::Vector3d& r) const noexcept;
  /// d^2V/dr^2 [N/m].
  [[nodiscard]] Eigen::Matrix3d hessian(const Eigen::Vector3d& r) const noexcept;
  /// Discrete gradient P of V between r0 (t_n) and r1 (t_{n+1}): P . (r1 - r0) = V(r1) - V(r0)
  /// up to round-off, P -> dV/dr at the midpoint as r1 -> r0, and P = c (r0 + r1) / 2 along the
  /// midpoint chord (Hoitink eq. 4.44, LaBudde-Greenspan).
  [[nodiscard]] Eigen::Vector3d discrete_gradient(const Eigen::Vector3d& r0,
                                                  const Eigen::Vector3d& r1) const noexcept;
};

}  // namespace rtmb
