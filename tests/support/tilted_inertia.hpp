// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// A rigid body's inertia about its centre of mass that is not diagonal in the link frame: the
// principal moments (a, b, c) turned by `tilt` about a fixed skew axis, R diag(a, b, c) R^T.
// The joint-space tests use it so that no product of inertia is zero by accident.

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace rtmb::testing {

inline Eigen::Matrix3d tilted_inertia(double a, double b, double c, double tilt) {
  const Eigen::Matrix3d r =
      Eigen::AngleAxisd(tilt, Eigen::Vector3d(1.0, 2.0, 0.5).normalized()).toRotationMatrix();
  return r * Eigen::Vector3d(a, b, c).asDiagonal() * r.transpose();
}

}  // namespace rtmb::testing
