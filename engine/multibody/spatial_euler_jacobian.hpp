// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal: the derivative of a rotated body vector with respect to the Euler parameters, shared
// by the spatial joints (spatial_multibody.cpp) and the rolling disc (spatial_rolling_disc.cpp).
// Not installed.
//
// With A(e) = (e0^2 - eps.eps) I + 2 eps eps^T + 2 e0 eps~ (homogeneous quadratic in e; Haug
// 1989, ch. 6), B(e, s) = d(A(e) s)/de is linear in e and B(e, s) e' = B(e', s) e, so along a
// motion (A s)' = B(e, s) e' and d((A s)')/de = B(e', s) (docs/architecture.md, "Spatial bodies").

#include <Eigen/Core>

#include "engine/multibody/spatial_vector_algebra.hpp"

namespace rtmb::spatial_detail {

/// B(e, s) = d(A(e) s)/de = 2 [e0 s + eps x s,  (eps.s) I + eps s^T - s eps^T - e0 s~]. RT-safe.
inline Eigen::Matrix<double, 3, 4> dAs_de(const Eigen::Vector4d& e,
                                          const Eigen::Vector3d& s) noexcept {
  const double e0 = e(0);
  const Eigen::Vector3d eps = e.tail<3>();
  Eigen::Matrix<double, 3, 4> b;
  b.col(0) = 2.0 * (e0 * s + eps.cross(s));
  b.rightCols<3>() = 2.0 * (eps.dot(s) * Eigen::Matrix3d::Identity() + eps * s.transpose() -
                            s * eps.transpose() - e0 * spatial::skew(s));
  return b;
}

}  // namespace rtmb::spatial_detail
