// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal: the spatial rolling disc (SpatialJointType::kDiscContact and kDiscNoSlip, model
// files' `rolling_disc`; issue 16), a holonomic and two nonholonomic rows of a spatial body model
// (rtmb/system.hpp "Nonholonomic rows"). Not installed.
//
// A thin disc of radius R, body j with q_j = (x, e), its centre at the body origin x and its
// symmetry axis a' in the body frame, rolls without slip on the fixed plane through p0 with unit
// normal n (Chin 1995 §4.6; reference post-stabilization-chin1995.md §3.11, whose Euler-angle
// form is the built-in `rolling_disc`). With a = A(e) a' the world axis and k = n . a:
//   * the contact point is the rim point furthest down the normal, c = x + R u, where u is -n
//     projected onto the disc plane and normalised: w = n - k a, u = -w / |w|;
//   * contact (holonomic): the centre's height above the plane is R |w| = R sqrt(1 - k^2) on
//     |e| = 1 (n . u = -(1 - k^2) / |w|), so the row is
//         g = n . (x - p0) + h(k) = 0,   h(k) = -R sqrt(1 - k^2);
//   * no slip (nonholonomic, Chin eq. 3.72): the disc's material point at c moves with
//     x' + omega x (R u), omega = 2 E(e) e' (world); its components along the plane's tangents
//     t1, t2 (spatial::plane_basis(n)) vanish:
//         A v + a = T (x' + R omega x u) = 0,   T = [t1^T; t2^T],   a = 0.
//     Its normal component is the contact row's derivative (n . u' = n . (omega x u): u moves in
//     the body along a x u, and n . (a x u) = 0), so the three rows are the whole no-slip
//     condition.
//
// The blocks on the disc's 7 columns (the plane is the ground: nothing on body i), with
// kappa = dk/de = n^T B(e, a') and B(e, s) = d(A(e) s)/de (spatial_euler_jacobian.hpp):
//   contact:  G = [n^T, h'(k) kappa],  h'(k) = R k / sqrt(1 - k^2)
//             H = d(G v)/dq = [0, h''(k) (kappa e') kappa + h'(k) n^T B(e', a')],
//                 h''(k) = R / (1 - k^2)^(3/2)   (d(kappa e')/de = n^T B(e', a'))
//             L = H v (g_t = 0)
//   no slip:  G = A = [T, -2 R T u~ E(e)]   (omega x u = -u~ omega)
//             H = d(A v)/dq = [0, R T (2 u~ E(e') + omega~ U)],   U = du/de
//                 (d(E(e) e')/de = -E(e'): E(e) e' = -E(e') e, E linear)
//                 U = (I - u u^T)(a n^T + k I) B(e, a') / |w|   (dw = -(a n^T + k I) da)
//             L = d/dt(A v) - A v' = H v = R T (omega x u'),  u' = U e'   (E(e') e' = 0)
// The contact row is the exact g above for any e; on |e| = 1 it is n . (c - p0). The rows are
// singular where the disc lies flat (k = +-1: |w| = 0, no lowest rim point), as the Euler-angle
// form is (theta = pi/2); the model file refuses a disc that starts flat.

#include <Eigen/Core>

#include "rtmb/models/spatial_multibody.hpp"

namespace rtmb::spatial_detail {

/// A rolling disc entry's rows on its disc's 7 columns (r, e); rows beyond its count are zero.
struct DiscRows {
  Eigen::Vector2d g = Eigen::Vector2d::Zero();
  Eigen::Matrix<double, 2, 7> G = Eigen::Matrix<double, 2, 7>::Zero();
  Eigen::Matrix<double, 2, 7> H = Eigen::Matrix<double, 2, 7>::Zero();
};

/// The rows (above) of `jt` (kDiscContact: row 0; kDiscNoSlip: rows 0 and 1) at the disc's
/// position x, Euler parameters e and their rate ed; jt.axis_i is the unit plane normal,
/// jt.point_i the plane point, jt.axis_j the unit disc axis. RT-safe.
void rolling_disc_rows(const SpatialJointSpec& jt,
                       const Eigen::Vector3d& x,
                       const Eigen::Vector4d& e,
                       const Eigen::Vector4d& ed,
                       DiscRows& out) noexcept;

}  // namespace rtmb::spatial_detail
