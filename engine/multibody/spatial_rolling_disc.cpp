// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The spatial rolling disc's rows (equations in spatial_rolling_disc.hpp).
#include "engine/multibody/spatial_rolling_disc.hpp"

#include <cmath>

#include "engine/multibody/spatial_euler_jacobian.hpp"
#include "engine/multibody/spatial_vector_algebra.hpp"

namespace rtmb::spatial_detail {

void rolling_disc_rows(const SpatialJointSpec& jt,
                       const Eigen::Vector3d& x,
                       const Eigen::Vector4d& e,
                       const Eigen::Vector4d& ed,
                       DiscRows& out) noexcept {
  using Mat3 = Eigen::Matrix3d;
  using Mat34 = Eigen::Matrix<double, 3, 4>;
  out.g.setZero();
  out.G.setZero();
  out.H.setZero();
  const Eigen::Vector3d& n = jt.axis_i;
  const double radius = jt.radius;
  const Mat34 da = dAs_de(e, jt.axis_j);  // da/de
  const Eigen::Vector3d a = rotation(e) * jt.axis_j;
  const double k = n.dot(a);
  if (jt.type == SpatialJointType::kDiscContact) {
    // g = n . (x - p0) + h(k), h = -R sqrt(1 - k^2)
    const double s2 = 1.0 - k * k;
    const double s = std::sqrt(s2);
    const Eigen::RowVector4d kappa = n.transpose() * da;  // dk/de
    const double h1 = radius * k / s;                     // h'(k)
    const double h2 = radius / (s2 * s);                  // h''(k)
    out.g(0) = n.dot(x - jt.point_i) - radius * s;
    out.G.block<1, 3>(0, 0) = n.transpose();
    out.G.block<1, 4>(0, 3) = h1 * kappa;
    out.H.block<1, 4>(0, 3) =
        h2 * kappa.dot(ed) * kappa + h1 * n.transpose() * dAs_de(ed, jt.axis_j);
    return;
  }
  // no slip: A = T [I, -2 R u~ E(e)], H = [0, R T (2 u~ E(e') + omega~ U)]
  const Eigen::Vector3d w = n - k * a;
  const double wn = w.norm();
  const Eigen::Vector3d u = -w / wn;
  const Mat34 du =
      (Mat3::Identity() - u * u.transpose()) * (a * n.transpose() + k * Mat3::Identity()) * da / wn;
  const Mat34 E = euler_e(e);
  const Eigen::Vector3d omega = 2.0 * E * ed;
  const auto basis = spatial::plane_basis(n);
  Eigen::Matrix<double, 2, 3> T;
  T.row(0) = basis[0].transpose();
  T.row(1) = basis[1].transpose();
  const Mat3 u_skew = spatial::skew(u);
  out.G.leftCols<3>() = T;
  out.G.rightCols<4>() = -2.0 * radius * T * u_skew * E;
  out.H.rightCols<4>() = radius * T * (2.0 * u_skew * euler_e(ed) + spatial::skew(omega) * du);
}

}  // namespace rtmb::spatial_detail
