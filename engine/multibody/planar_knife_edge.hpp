// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal: the planar knife edge (PlanarJointType::kKnifeEdge, model files' `knife_edge`; issue
// 16), one nonholonomic row of a body model (rtmb/system.hpp "Nonholonomic rows"). Not installed.
//
// A blade at point s of body i (body frame) slides along its edge, the unit direction e in the
// body frame, and cannot move across it. With u = A(th) s the point's arm, S the quarter turn and
// n = A(th) S e the edge's world normal, the row is (a velocity constraint, Chin 1995 eq. 3.72)
//
//     A v + a = n . p' = n . (r' + th' S u) = 0,   a = 0 (the ground does not move).
//
// Per the System contract (rtmb/system.hpp) the row's blocks, on body i only, are
//     g   = 0                                (no position-level residual)
//     G_i = A_i = [n^T, n . (S u)] = [n^T, e . s]      ((A S e).(A S s) = e . s: constant)
//     g_t = a = 0
//     H_i = d(A v)/dq_i = [0, 0, (S n) . r']  (dn/dth = S n; d/dth of th' n.(S u) is
//                                            th' ((S n).(S u) + n.(S S u)) = th' (n.u - n.u) = 0)
//     L   = d/dt(A v + a) - A v' = H_i v_i = th' (S n) . r'.
// Without a torque and with the blade at the centre of mass (s = 0) the body keeps th' and its
// speed along the edge (the constraint force is across the edge and has no moment): the sled
// turns on a circle. With s = (b, 0), e = (1, 0) it is the Chaplygin sleigh (Neimark and Fufaev,
// "Dynamics of Nonholonomic Systems", ch. II), whose closed form tests/engine/multibody/
// planar_knife_edge_test.cpp checks.

#include "engine/multibody/planar_joint_blocks.hpp"
#include "rtmb/models/planar_multibody.hpp"

namespace rtmb::planar_detail {

/// Row 0 of a knife edge's blocks (above): g = 0, G_i, H_i; G_j, H_j stay zero (the ground).
/// `ri` is A(th_i), vi = v_i. RT-safe.
void knife_edge_row(const PlanarJointSpec& jt,
                    const Rotation& ri,
                    const Eigen::Vector3d& vi,
                    JointBlocks& b) noexcept;

}  // namespace rtmb::planar_detail
