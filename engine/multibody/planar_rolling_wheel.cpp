// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The rolling wheel's rows (equations in planar_rolling_wheel.hpp).
#include "engine/multibody/planar_rolling_wheel.hpp"

namespace rtmb::planar_detail {

void rolling_wheel_row(const PlanarJointSpec& jt,
                       const Eigen::Vector3d& qj,
                       const Rotation& rj,
                       const Eigen::Vector3d& vj,
                       JointBlocks& b) noexcept {
  // t the line's direction (body_i = ground: axis is in the world frame), n = S t
  const Eigen::Vector2d& t = jt.axis;
  const Eigen::Vector2d n(-t.y(), t.x());
  const bool contact = jt.type == PlanarJointType::kRollingContact;
  const Eigen::Vector2d w = contact ? n : t;
  const Eigen::Vector2d u = rotate(rj, jt.point_j);
  const Eigen::Vector2d su(-u.y(), u.x());
  b.g(0) = contact ? n.dot(qj.head<2>() + u - jt.point_i) - jt.radius : 0.0;
  b.gj(0, 0) = w.x();
  b.gj(0, 1) = w.y();
  b.gj(0, 2) = w.dot(su) + (contact ? 0.0 : jt.radius);
  b.hj(0, 2) = -vj.z() * w.dot(u);
}

}  // namespace rtmb::planar_detail
