// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Spatial (6-D) vector algebra of the joint-space tree and its closures (joint_space_tree.cpp,
// joint_space_closures.cpp), in R. Featherstone, Rigid Body Dynamics Algorithms (Springer 2008),
// "RBDA", §2.3-2.4: a motion vector is (omega, v_O), a force vector (n_O, f), both in world
// Pluecker coordinates at the world origin. Internal to engine/multibody.

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <array>

namespace rtmb::spatial {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;

/// The cross-product matrix of x: skew(x) y = x x y.
inline Eigen::Matrix3d skew(const Eigen::Vector3d& x) {
  Eigen::Matrix3d m;
  m << 0.0, -x.z(), x.y(), x.z(), 0.0, -x.x(), -x.y(), x.x(), 0.0;
  return m;
}

/// Motion cross product v x m = (w x m1, w x m2 + vO x m1) (RBDA eq. 2.31).
inline Vec6 cross_motion(const Vec6& v, const Vec6& m) {
  Vec6 r;
  r.head<3>() = v.head<3>().cross(m.head<3>());
  r.tail<3>() = v.head<3>().cross(m.tail<3>()) + v.tail<3>().cross(m.head<3>());
  return r;
}

/// Force cross product v x* f = (w x f1 + vO x f2, w x f2) (RBDA eq. 2.32).
inline Vec6 cross_force(const Vec6& v, const Vec6& f) {
  Vec6 r;
  r.head<3>() = v.head<3>().cross(f.head<3>()) + v.tail<3>().cross(f.tail<3>());
  r.tail<3>() = v.head<3>().cross(f.tail<3>());
  return r;
}

/// Two unit vectors spanning the plane normal to the unit vector n, and n: the coordinate axis
/// least aligned with n made orthogonal to it (so n = z gives x and y), then n x e1.
inline std::array<Eigen::Vector3d, 3> plane_basis(const Eigen::Vector3d& n) {
  int least = 0;
  n.cwiseAbs().minCoeff(&least);
  Eigen::Vector3d e1 = Eigen::Vector3d::Unit(least);
  e1 = (e1 - e1.dot(n) * n).normalized();
  return {e1, n.cross(e1), n};
}

}  // namespace rtmb::spatial
