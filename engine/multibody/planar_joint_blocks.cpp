// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The per-joint blocks g, G_i, G_j, H_i, H_j of a planar joint (planar_joint_blocks.hpp), shared
// by the dense evaluations (planar_multibody.cpp) and the sparse ones (planar_sparse.cpp). Notation
// as in planar_multibody.cpp: a point s of body b is at p = r + u, u = A(th) s, S the quarter turn,
// dp/dq_b = [I, S u], p' = r' + w S u, d(p')/dq_b = [0, -w u], w = th'; H = d(G v)/dq.
#include "engine/multibody/planar_joint_blocks.hpp"

#include <Eigen/Core>

#include "engine/multibody/planar_knife_edge.hpp"
#include "engine/multibody/planar_rolling_wheel.hpp"
#include "rtmb/models/planar_multibody.hpp"

namespace rtmb {

using planar_detail::JointBlocks;
using planar_detail::perp;
using planar_detail::rotate;
using planar_detail::Rotation;

namespace {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;

}  // namespace

// Row r of the blocks of g = n . (p_j - p_i), n = A_i c the world image of a direction c fixed
// in body i (the prismatic joint's normal row and the prismatic driver's displacement row). With
// w = r_j + u_j - r_i (= d + u_i) and dn/dth_i = S n:
//   dg/dq_i = [-n^T, (S n).w],  dg/dq_j = [n^T, n.(S u_j)]
//   G v = n.(r_j' - r_i') + w_j n.(S u_j) + w_i (S n).w, differentiated:
//   H_i = [-w_i (S n)^T, (S n).(r_j' - r_i') + w_j n.u_j - w_i n.w]
//   H_j = [ w_i (S n)^T, (w_i - w_j) n.u_j]
void planar_detail::direction_row(const Vec2& c,
                                  int r,
                                  const Rotation& ri,
                                  const Vec3& qi,
                                  const Vec3& qj,
                                  const Vec3& vi,
                                  const Vec3& vj,
                                  const Vec2& uj,
                                  const Vec2& pi,
                                  const Vec2& pj,
                                  JointBlocks& b) noexcept {
  const double wi = vi.z();
  const double wj = vj.z();
  const Vec2 n = rotate(ri, c);
  const Vec2 sn = perp(n);
  const Vec2 w = qj.head<2>() + uj - qi.head<2>();
  const Vec2 dr = vj.head<2>() - vi.head<2>();
  b.g(r) = n.dot(pj - pi);
  b.gi.block<1, 2>(r, 0) = -n.transpose();
  b.gi(r, 2) = sn.dot(w);
  b.gj.block<1, 2>(r, 0) = n.transpose();
  b.gj(r, 2) = n.dot(perp(uj));
  b.hi.block<1, 2>(r, 0) = -wi * sn.transpose();
  b.hi(r, 2) = sn.dot(dr) + wj * n.dot(uj) - wi * n.dot(w);
  b.hj.block<1, 2>(r, 0) = wi * sn.transpose();
  b.hj(r, 2) = (wi - wj) * n.dot(uj);
}

void planar_detail::evaluate_joint(const PlanarJointSpec& jt,
                                   const Vec3& qi,
                                   const Vec3& qj,
                                   const Rotation& ri,
                                   const Rotation& rj,
                                   const Vec3& vi,
                                   const Vec3& vj,
                                   JointBlocks& b) noexcept {
  b = JointBlocks{};
  const Vec2 ui = rotate(ri, jt.point_i);
  const Vec2 uj = rotate(rj, jt.point_j);
  const double wi = vi.z();
  const double wj = vj.z();
  const Vec2 pi = qi.head<2>() + ui;
  const Vec2 pj = qj.head<2>() + uj;
  const Vec2 dpi = vi.head<2>() + wi * perp(ui);  // p_i'
  const Vec2 dpj = vj.head<2>() + wj * perp(uj);  // p_j'
  switch (jt.type) {
    case PlanarJointType::kRevolute:
    case PlanarJointType::kFixed: {
      // g = p_i - p_j (2 rows): G_i = [I, S u_i], G_j = -[I, S u_j];
      // H_i = [0, -w_i u_i], H_j = [0, w_j u_j]
      b.g.head<2>() = pi - pj;
      b.gi.block<2, 2>(0, 0).setIdentity();
      b.gi.block<2, 1>(0, 2) = perp(ui);
      b.gj.block<2, 2>(0, 0) = -Eigen::Matrix2d::Identity();
      b.gj.block<2, 1>(0, 2) = -perp(uj);
      b.hi.block<2, 1>(0, 2) = -wi * ui;
      b.hj.block<2, 1>(0, 2) = wj * uj;
      if (jt.type == PlanarJointType::kFixed) {
        // g_3 = th_j - th_i - angle: linear, H = 0
        b.g(2) = qj.z() - qi.z() - jt.angle;
        b.gi(2, 2) = -1.0;
        b.gj(2, 2) = 1.0;
      }
      break;
    }
    case PlanarJointType::kPrismatic:
      // g_1 = n . (p_j - p_i) with n = A_i S axis, the world normal of the axis: p_j stays on the
      // line through p_i along the axis; g_2 = th_j - th_i - angle keeps the bodies from turning
      // relative to each other.
      direction_row(perp(jt.axis), 0, ri, qi, qj, vi, vj, uj, pi, pj, b);
      b.g(1) = qj.z() - qi.z() - jt.angle;
      b.gi(1, 2) = -1.0;
      b.gj(1, 2) = 1.0;
      break;
    case PlanarJointType::kRevoluteDriver:
      // g = th_j - th_i (- f(t), subtracted by the caller): linear, H = 0
      b.g(0) = qj.z() - qi.z();
      b.gi(0, 2) = -1.0;
      b.gj(0, 2) = 1.0;
      break;
    case PlanarJointType::kPrismaticDriver:
      // g = a_w . (p_j - p_i) (- f(t), subtracted by the caller): the displacement along the
      // world axis a_w = A_i axis
      direction_row(jt.axis, 0, ri, qi, qj, vi, vj, uj, pi, pj, b);
      break;
    case PlanarJointType::kDistance: {
      // g = (d.d - l^2) / (2 l), d = p_j - p_i: equals |d| - l to first order and has units of
      // length, but is smooth even at d = 0. G v = d.d'/l, so
      //   G_i = -[d^T, d.(S u_i)]/l,  G_j = [d^T, d.(S u_j)]/l
      //   H_i = [-d'^T, -d'.(S u_i) + w_i d.u_i]/l,  H_j = [d'^T, d'.(S u_j) - w_j d.u_j]/l
      const double l = jt.length;
      const Vec2 d = pj - pi;
      const Vec2 dd = dpj - dpi;
      b.g(0) = (d.squaredNorm() - l * l) / (2.0 * l);
      b.gi.block<1, 2>(0, 0) = -d.transpose() / l;
      b.gi(0, 2) = -d.dot(perp(ui)) / l;
      b.gj.block<1, 2>(0, 0) = d.transpose() / l;
      b.gj(0, 2) = d.dot(perp(uj)) / l;
      b.hi.block<1, 2>(0, 0) = -dd.transpose() / l;
      b.hi(0, 2) = (-dd.dot(perp(ui)) + wi * d.dot(ui)) / l;
      b.hj.block<1, 2>(0, 0) = dd.transpose() / l;
      b.hj(0, 2) = (dd.dot(perp(uj)) - wj * d.dot(uj)) / l;
      break;
    }
    case PlanarJointType::kKnifeEdge:  // planar_knife_edge.hpp (g = 0, H v = L: a = 0)
      planar_detail::knife_edge_row(jt, ri, vi, b);
      break;
    case PlanarJointType::kRollingContact:  // planar_rolling_wheel.hpp
    case PlanarJointType::kRollingNoSlip:
      planar_detail::rolling_wheel_row(jt, qj, rj, vj, b);
      break;
  }
}

void planar_detail::joint_jacobian(const PlanarJointSpec& jt,
                                   const Vec3& qi,
                                   const Vec3& qj,
                                   const Rotation& ri,
                                   const Rotation& rj,
                                   JointBlocks& b) noexcept {
  switch (jt.type) {
    case PlanarJointType::kRevolute:
    case PlanarJointType::kFixed:
      // G_i = [I, S u_i], G_j = -[I, S u_j] (and the angle row [0 0 -1], [0 0 1] of a fixed
      // joint), as in evaluate_joint: the same products, so the same bits
      b.gi.block<2, 2>(0, 0).setIdentity();
      b.gi.block<2, 1>(0, 2) = perp(rotate(ri, jt.point_i));
      b.gj.block<2, 2>(0, 0) = -Eigen::Matrix2d::Identity();
      b.gj.block<2, 1>(0, 2) = -perp(rotate(rj, jt.point_j));
      if (jt.type == PlanarJointType::kFixed) {
        b.gi.row(2) << 0.0, 0.0, -1.0;
        b.gj.row(2) << 0.0, 0.0, 1.0;
      }
      break;
    default: {
      // the rarer joints: G does not depend on v, so the full evaluation at v = 0 gives it
      const Vec3 zero = Vec3::Zero();
      evaluate_joint(jt, qi, qj, ri, rj, zero, zero, b);
      break;
    }
  }
}

}  // namespace rtmb
