// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The knife edge's row (equations in planar_knife_edge.hpp).
#include "engine/multibody/planar_knife_edge.hpp"

namespace rtmb::planar_detail {

void knife_edge_row(const PlanarJointSpec& jt,
                    const Rotation& ri,
                    const Eigen::Vector3d& vi,
                    JointBlocks& b) noexcept {
  // n = A(th) S e, u = A(th) s; S x = (-x_y, x_x)
  const Eigen::Vector2d e_perp(-jt.axis.y(), jt.axis.x());
  const Eigen::Vector2d n = rotate(ri, e_perp);
  const Eigen::Vector2d sn(-n.y(), n.x());
  const Eigen::Vector2d u = rotate(ri, jt.point_i);
  const Eigen::Vector2d su(-u.y(), u.x());
  b.g(0) = 0.0;  // a velocity constraint has no position residual (rtmb/system.hpp)
  b.gi(0, 0) = n.x();
  b.gi(0, 1) = n.y();
  b.gi(0, 2) = n.dot(su);
  b.hi(0, 2) = sn.dot(vi.head<2>());
}

}  // namespace rtmb::planar_detail
