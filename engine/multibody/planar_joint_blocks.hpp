// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal: the per-joint blocks of a planar joint, shared by the dense evaluations
// (planar_multibody.cpp) and the sparse ones (planar_sparse.cpp), so that both scatter the very
// same numbers. Not installed.

#include <Eigen/Core>

#include "rtmb/multibody.hpp"

namespace rtmb::planar_detail {

/// The blocks of one joint at (q_i, q_j, v_i, v_j); rows beyond constraint_rows(type) are unused.
struct JointBlocks {
  Eigen::Vector3d g = Eigen::Vector3d::Zero();
  Eigen::Matrix3d gi = Eigen::Matrix3d::Zero();  ///< dg/dq_i
  Eigen::Matrix3d gj = Eigen::Matrix3d::Zero();  ///< dg/dq_j
  Eigen::Matrix3d hi = Eigen::Matrix3d::Zero();  ///< d(G v)/dq_i
  Eigen::Matrix3d hj = Eigen::Matrix3d::Zero();  ///< d(G v)/dq_j
};

/// g, G_i, G_j, H_i, H_j of joint `jt` (equations in planar_multibody.cpp). RT-safe.
void evaluate_joint(const PlanarJointSpec& jt,
                    const Eigen::Vector3d& qi,
                    const Eigen::Vector3d& qj,
                    const Eigen::Vector3d& vi,
                    const Eigen::Vector3d& vj,
                    JointBlocks& b) noexcept;

/// q_b (or v_b) of body b; the ground is at rest at the origin. RT-safe.
inline Eigen::Vector3d body_block(VecCRef x, int b) noexcept {
  if (b == kGround) return Eigen::Vector3d::Zero();
  return x.segment<3>(3 * b);
}

}  // namespace rtmb::planar_detail
