// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Three-point bending element of Hoitink 2011 §4.2.2 (Armero & Romero's thin beam; reference
// gsssss-hoitink2011.md §4.3): points a, b and the vertex c, with r1 = x_a - x_c, r2 = x_b - x_c,
// psi = r1 . r2, nu = l1 l2 (l_k = |r_k|) and the potential
//     V(psi, nu) = C_b (nu + psi) / (nu - psi) / 2  =  C_b cot^2(alpha / 2) / 2,
// alpha the angle between r1 and r2: zero when the three points are in line (alpha = pi), growing
// without bound as the element folds (alpha -> 0). Gradients are with respect to (r1, r2); the
// forces on the points are -d1 on a, -d2 on b and d1 + d2 on c. RT-safe.

#include <Eigen/Core>

namespace rtmb {

/// dV/dr1 and dV/dr2 (or a discrete gradient in the same layout).
struct BendingGradient {
  Eigen::Vector3d d1 = Eigen::Vector3d::Zero();
  Eigen::Vector3d d2 = Eigen::Vector3d::Zero();
};

struct BendingElement {
  double stiffness = 0.0;  ///< C_b [J]

  /// V(r1, r2) [J].
  [[nodiscard]] double energy(const Eigen::Vector3d& r1, const Eigen::Vector3d& r2) const noexcept;
  [[nodiscard]] BendingGradient gradient(const Eigen::Vector3d& r1,
                                         const Eigen::Vector3d& r2) const noexcept;
  /// d^2V / d(r1, r2)^2, 6 x 6 (r1 first).
  [[nodiscard]] Eigen::Matrix<double, 6, 6> hessian(const Eigen::Vector3d& r1,
                                                    const Eigen::Vector3d& r2) const noexcept;
  /// Discrete gradient between (r1, r2) at t_n (suffix 0) and t_{n+1} (suffix 1): Hoitink
  /// eq. 4.45 with the nu-term numerator of reference P6, so that
  /// d1 . (r1_1 - r1_0) + d2 . (r2_1 - r2_0) = V_1 - V_0 up to round-off.
  [[nodiscard]] BendingGradient discrete_gradient(const Eigen::Vector3d& r1_0,
                                                  const Eigen::Vector3d& r2_0,
                                                  const Eigen::Vector3d& r1_1,
                                                  const Eigen::Vector3d& r2_1) const noexcept;
};

}  // namespace rtmb
