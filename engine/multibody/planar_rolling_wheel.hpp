// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal: the planar rolling wheel (PlanarJointType::kRollingContact and kRollingNoSlip, model
// files' `rolling_wheel`; issue 16), a holonomic and a nonholonomic row of a body model
// (rtmb/system.hpp "Nonholonomic rows"). Not installed.
//
// A wheel, body j with its centre at body point s and radius r, rolls on a fixed line through the
// world point o with unit direction t, on the line's left: n = S t (S the quarter turn) points
// from the line to the centre c = r_j + u, u = A(th_j) s. The contact point is P = c - r n, and
// the wheel's material point there moves with c' + th' S (P - c) = c' - r th' S n = c' + r th' t
// (S n = S S t = -t). Rolling without slip is that velocity being zero:
//   along n:  n . c' = 0, the derivative of the holonomic contact row
//             g = n . (c - o) - r = 0                                          (kRollingContact)
//   along t:  t . c' + r th' = 0, a velocity row A v + a = 0 with a = 0         (kRollingNoSlip)
// Sign: th counter-clockwise, so a wheel rolling towards +t turns clockwise (th' = -(t . c') / r).
// For s = 0 the no-slip row is integrable (t . c + r th = const); it is stated and stabilized as a
// velocity row all the same (the general planar rolling row of Chin 1995 eq. 3.72: PStab's
// velocity pass only, eq. 3.75), which is what the issue asks of it.
//
// With c' = r_j' + th' S u and d(S u)/dth = S S u = -u, the blocks on body j (G_i = H_i = 0 on the
// ground) for a unit vector w (w = n: contact, w = t: no slip) are
//     G_j = [w^T, w . (S u) + k r]      (k = 0 contact, k = 1 no slip)
//     H_j = d(G v)/dq_j = [0, 0, -th' w . u]
//     L   = H_j v_j = -th'^2 w . u       (g_t = 0 for both: the line does not move, so
//                                        L = g_qq(v, v) and d/dt(A v + a) - A v' alike)
// and g = n . (c - o) - r (contact), 0 (no slip).

#include "engine/multibody/planar_joint_blocks.hpp"
#include "rtmb/models/planar_multibody.hpp"

namespace rtmb::planar_detail {

/// Row 0 of a rolling wheel row's blocks (above), jt.type kRollingContact or kRollingNoSlip:
/// g, G_j, H_j; G_i, H_i stay zero (the ground). qj, vj: the wheel's q and v; rj = A(th_j).
/// RT-safe.
void rolling_wheel_row(const PlanarJointSpec& jt,
                       const Eigen::Vector3d& qj,
                       const Rotation& rj,
                       const Eigen::Vector3d& vj,
                       JointBlocks& b) noexcept;

}  // namespace rtmb::planar_detail
