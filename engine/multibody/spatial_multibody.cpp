// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Spatial multibody System with Euler parameters (include/rtmb/models/spatial_multibody.hpp).
//
// Notation (docs/architecture.md, "Spatial bodies"; Haug 1989 ch. 6 and 11). Body b has
// q_b = (r, e), e = (e0, eps). A point with body-frame coordinates s is at p = r + A(e) s, where
// A(e) = (e0^2 - eps.eps) I + 2 eps eps^T + 2 e0 eps~ is homogeneous quadratic in e (the rotation
// matrix when |e| = 1). Its derivative
//     B(e, s) = d(A(e) s)/de = 2 [e0 s + eps x s,  (eps.s) I + eps s^T - s eps^T - e0 s~]
// is linear in e, and B(e, s) e' = B(e', s) e (A is a quadratic form), so along a motion
//     p' = r' + B(e, s) e',   d(p')/dq = [0, B(e', s)],   p'' = r'' + B(e, s) e'' + B(e', s) e'.
// A body-fixed vector a = A(e) a' works the same without r.
//
// Every joint row is one of: a component of a difference of points (spherical), a dot product
// x.y of two such quantities (Haug's dot-1 and dot-2 constraints), or the distance (d.d - l^2)
// / (2l). With X = dx/dq and Y = dy/dq over the 14 coordinates (q_i, q_j) of the joint's bodies,
//     g = x.y,  G = y^T X + x^T Y,
//     H = d(G v)/dq = x'^T Y + y^T X'_q + y'^T X + x^T Y'_q     (X'_q = d(X v)/dq),
// and, the constraints being scleronomic, the remainder of d^2 g/dt^2 = G v' + L is L = H v.
// Each joint evaluates fixed-size blocks (up to 6 rows x 14 columns) on the stack; the System
// scatters them into its rows and the 7 columns of each body. Nothing allocates after
// construction.
//
// Mass matrix. T = m r'.r'/2 + omega'.J' omega'/2 with omega' = 2 L(e) e', so
// T = m r'.r'/2 + 2 e'^T L^T J' L e' and M_b = diag(m I, 4 L^T J' L). Since L e = 0 this block is
// singular along e; we add c e e^T (c = 4 trace(J')/3) so that M is positive definite. This
// changes only the normalization multiplier, not the motion: the normalization row (e^T e - 1)/2
// has Jacobian [0, e^T] and acceleration equation e^T e'' = -e'.e', so the added inertia force
// c e (e^T e'') = -c (e'.e') e lies in that row's span and is absorbed by its multiplier
// (lambda_n -> lambda_n + c e'.e'); accelerations and joint multipliers are unchanged
// (tests/engine/multibody/spatial_multibody_test.cpp proves it with a dense KKT solve).
//
// Forces. With L(e) e' = -L(e') e and L(e') e' = 0, Lagrange's equations for this T read
// d/dt dT/de' - dT/de = 4 L^T J' L e'' - 8 L(e')^T J' L(e') e = Q_e - (G^T lambda)_e (the
// Euler-parameter form of Haug 1989, ch. 11; checked in the test by finite differences of T), so
// the gyroscopic term on the right-hand side is f_e = 8 L(e')^T J' L(e') e. A world force F at body
// point s has the generalized force (F, B(e, s)^T F) (= -grad of V = -F.p, exact off the manifold
// too), a world torque n gives Q_e = 2 E^T n, a body-frame torque n' gives Q_e = 2 L^T n' (virtual
// power n.omega with omega = 2 E e', omega' = 2 L e').
#include "rtmb/models/spatial_multibody.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "engine/multibody/spatial_euler_jacobian.hpp"
#include "engine/multibody/spatial_model_spec.hpp"
#include "engine/multibody/spatial_rolling_disc.hpp"
#include "rtmb/state.hpp"

namespace rtmb {
namespace {

using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Mat3 = Eigen::Matrix3d;
using Mat34 = Eigen::Matrix<double, 3, 4>;
using Mat3x14 = Eigen::Matrix<double, 3, 14>;
using Row14 = Eigen::Matrix<double, 1, 14>;
using Vec14 = Eigen::Matrix<double, 14, 1>;
using Mat7 = Eigen::Matrix<double, 7, 7>;

constexpr int kMaxRows = 6;

using spatial::skew;

using spatial_detail::dAs_de;  // B(e, s) = d(A(e) s)/de (see the file comment)

// The pose and velocity of one joint body; the ground is at rest at the origin with e = (1,0,0,0)
struct BodyView {
  Vec3 r = Vec3::Zero();
  Vec4 e{1.0, 0.0, 0.0, 0.0};
  Vec3 rd = Vec3::Zero();
  Vec4 ed = Vec4::Zero();
  int col = 0;  // 0 for body i, 7 for body j in the joint's 14 columns
};

BodyView view(VecCRef q, VecCRef v, int b, int col) noexcept {
  BodyView w;
  w.col = col;
  if (b == kGround) return w;
  w.r = q.segment<3>(7 * b);
  w.e = q.segment<4>(7 * b + 3);
  w.rd = v.segment<3>(7 * b);
  w.ed = v.segment<4>(7 * b + 3);
  return w;
}

// A vector-valued function x(q) of the joint's 14 coordinates with X = dx/dq, x' = X v and
// X'_q = d(X v)/dq.
struct Quantity {
  Vec3 x = Vec3::Zero();
  Mat3x14 X = Mat3x14::Zero();
  Vec3 xd = Vec3::Zero();
  Mat3x14 Xdq = Mat3x14::Zero();
};

Quantity body_vector(const BodyView& b, const Vec3& a) noexcept {
  Quantity out;
  const Mat34 B = dAs_de(b.e, a);
  out.x = rotation(b.e) * a;
  out.X.block<3, 4>(0, b.col + 3) = B;
  out.xd = B * b.ed;
  out.Xdq.block<3, 4>(0, b.col + 3) = dAs_de(b.ed, a);
  return out;
}

Quantity body_point(const BodyView& b, const Vec3& s) noexcept {
  Quantity out = body_vector(b, s);
  out.x += b.r;
  out.X.block<3, 3>(0, b.col).setIdentity();
  out.xd += b.rd;
  return out;
}

Quantity minus(const Quantity& a, const Quantity& b) noexcept {
  Quantity out;
  out.x = a.x - b.x;
  out.X = a.X - b.X;
  out.xd = a.xd - b.xd;
  out.Xdq = a.Xdq - b.Xdq;
  return out;
}

// The blocks of one joint over the 14 columns (q_i, q_j); rows beyond its count are unused.
struct SpatialJointBlocks {
  Eigen::Matrix<double, kMaxRows, 1> g;
  Eigen::Matrix<double, kMaxRows, 14> G;
  Eigen::Matrix<double, kMaxRows, 14> H;
};

void dot_row(const Quantity& x, const Quantity& y, int row, SpatialJointBlocks& b) noexcept {
  // g = x.y, G = y^T X + x^T Y, H = x'^T Y + y^T X'_q + y'^T X + x^T Y'_q
  b.g(row) = x.x.dot(y.x);
  b.G.row(row) = y.x.transpose() * x.X + x.x.transpose() * y.X;
  b.H.row(row) = x.xd.transpose() * y.X + y.x.transpose() * x.Xdq + y.xd.transpose() * x.X +
                 x.x.transpose() * y.Xdq;
}

void vector_rows(const Quantity& d, int row, SpatialJointBlocks& b) noexcept {
  b.g.segment<3>(row) = d.x;
  b.G.middleRows<3>(row) = d.X;
  b.H.middleRows<3>(row) = d.Xdq;
}

void evaluate_joint(const SpatialJointSpec& jt,
                    const BodyView& bi,
                    const BodyView& bj,
                    SpatialJointBlocks& b) noexcept {
  b.g.setZero();
  b.G.setZero();
  b.H.setZero();
  const Quantity pi = body_point(bi, jt.point_i);
  const Quantity pj = body_point(bj, jt.point_j);
  const Vec3 hi_axis = jt.axis_i.cross(jt.ref_i);
  switch (jt.type) {
    case SpatialJointType::kSpherical:
      vector_rows(minus(pi, pj), 0, b);
      break;
    case SpatialJointType::kRevolute: {
      // p_i = p_j, and axis_j normal to both references of i: the axes stay parallel
      vector_rows(minus(pi, pj), 0, b);
      const Quantity aj = body_vector(bj, jt.axis_j);
      dot_row(body_vector(bi, jt.ref_i), aj, 3, b);
      dot_row(body_vector(bi, hi_axis), aj, 4, b);
      break;
    }
    case SpatialJointType::kUniversal:
      vector_rows(minus(pi, pj), 0, b);
      dot_row(body_vector(bi, jt.axis_i), body_vector(bj, jt.axis_j), 3, b);
      break;
    case SpatialJointType::kCylindrical:
    case SpatialJointType::kPrismatic: {
      // axes parallel (2 rows) and d = p_j - p_i along the axis of i (2 rows); prismatic also
      // keeps ref_j normal to h_i = axis_i x ref_i: no twist
      const Quantity fi = body_vector(bi, jt.ref_i);
      const Quantity hi = body_vector(bi, hi_axis);
      const Quantity aj = body_vector(bj, jt.axis_j);
      const Quantity d = minus(pj, pi);
      dot_row(fi, aj, 0, b);
      dot_row(hi, aj, 1, b);
      dot_row(fi, d, 2, b);
      dot_row(hi, d, 3, b);
      if (jt.type == SpatialJointType::kPrismatic) dot_row(hi, body_vector(bj, jt.ref_j), 4, b);
      break;
    }
    case SpatialJointType::kFixed: {
      vector_rows(minus(pi, pj), 0, b);
      const Quantity hi = body_vector(bi, hi_axis);
      const Quantity aj = body_vector(bj, jt.axis_j);
      dot_row(body_vector(bi, jt.ref_i), aj, 3, b);
      dot_row(hi, aj, 4, b);
      dot_row(hi, body_vector(bj, jt.ref_j), 5, b);
      break;
    }
    case SpatialJointType::kDistance: {
      // g = (d.d - l^2) / (2 l): |d| - l to first order, smooth at d = 0
      const Quantity d = minus(pj, pi);
      dot_row(d, d, 0, b);
      const double l = jt.length;
      b.g(0) = (b.g(0) - l * l) / (2.0 * l);
      b.G.row(0) /= 2.0 * l;
      b.H.row(0) /= 2.0 * l;
      break;
    }
    case SpatialJointType::kPlanar: {
      // d = p_j - p_i normal to axis_i, and axis_j parallel to axis_i
      const Quantity aj = body_vector(bj, jt.axis_j);
      dot_row(body_vector(bi, jt.axis_i), minus(pj, pi), 0, b);
      dot_row(body_vector(bi, jt.ref_i), aj, 1, b);
      dot_row(body_vector(bi, hi_axis), aj, 2, b);
      break;
    }
    case SpatialJointType::kDiscContact:
    case SpatialJointType::kDiscNoSlip: {
      // spatial_rolling_disc.hpp: the plane is the ground (body i), the disc body j
      spatial_detail::DiscRows d;
      spatial_detail::rolling_disc_rows(jt, bj.r, bj.e, bj.ed, d);
      const int rows = constraint_rows(jt.type);
      b.g.head(rows) = d.g.head(rows);
      b.G.block(0, 7, rows, 7) = d.G.topRows(rows);
      b.H.block(0, 7, rows, 7) = d.H.topRows(rows);
      break;
    }
  }
}

Vec14 joint_velocity(const BodyView& bi, const BodyView& bj) noexcept {
  Vec14 v;
  v << bi.rd, bi.ed, bj.rd, bj.ed;
  return v;
}

// Relative rotation angle of a revolute joint about its axis and its rate: phi = atan2(h_i.f_j,
// f_i.f_j) with f the reference vectors (world) and h_i = a_i x f_i; phi' = a_i.(omega_j -
// omega_i).
struct JointAngle {
  double phi = 0.0;
  double rate = 0.0;
  Vec3 axis = Vec3::Zero();  // a_i, world
};

Vec3 world_omega(const BodyView& b) noexcept {
  return 2.0 * euler_e(b.e) * b.ed;
}

JointAngle revolute_angle(const SpatialJointSpec& jt, const BodyView& bi, const BodyView& bj) {
  JointAngle out;
  const Mat3 Ai = rotation(bi.e);
  const Vec3 fi = Ai * jt.ref_i;
  const Vec3 hi = Ai * jt.axis_i.cross(jt.ref_i);
  const Vec3 fj = rotation(bj.e) * jt.ref_j;
  out.phi = std::atan2(hi.dot(fj), fi.dot(fj));
  out.axis = Ai * jt.axis_i;
  out.rate = out.axis.dot(world_omega(bj) - world_omega(bi));
  return out;
}

// The layout G and Gv_q = d(G v)/dq share. G: w = q and each joint's G block; Gv_q: w = v and each
// joint's H block. Per body the normalization row [0, w_e^T] (d(e.e)/de = 2 e^T, halved), then
// every joint's block on its two bodies' 7 columns from its first row rows_at[k].
void joint_matrix(const SpatialModelSpec& spec,
                  const std::vector<int>& rows_at,
                  VecCRef q,
                  VecCRef w,
                  Eigen::Matrix<double, kMaxRows, 14> SpatialJointBlocks::*block,
                  MatRef out) noexcept {
  out.setZero();
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    const Eigen::Index k = 7 * static_cast<Eigen::Index>(b);
    out.block<1, 4>(static_cast<Eigen::Index>(b), k + 3) = w.segment<4>(k + 3).transpose();
  }
  SpatialJointBlocks blk;
  for (std::size_t k = 0; k < spec.joints.size(); ++k) {
    const SpatialJointSpec& jt = spec.joints[k];
    const int rows = constraint_rows(jt.type);
    evaluate_joint(jt, view(q, w, jt.body_i, 0), view(q, w, jt.body_j, 7), blk);
    if (jt.body_i != kGround) {
      out.block(rows_at[k], 7 * jt.body_i, rows, 7) = (blk.*block).topLeftCorner(rows, 7);
    }
    if (jt.body_j != kGround) {
      out.block(rows_at[k], 7 * jt.body_j, rows, 7) = (blk.*block).topRightCorner(rows, 7);
    }
  }
}

// L = H v per joint (g_t = 0) and d^2/dt^2 (e.e - 1)/2 = e.e'' + e'.e' per body, whose e'.e' is
// L's normalization row; per_joint(k, rows, blk) also sees each joint's blocks (the fused
// evaluation scatters their G).
template <class PerJoint>
void curvature_rows(const SpatialModelSpec& spec,
                    const std::vector<int>& rows_at,
                    VecCRef q,
                    VecCRef v,
                    VecRef out_L,
                    PerJoint per_joint) noexcept {
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    out_L(static_cast<Eigen::Index>(b)) =
        v.segment<4>(7 * static_cast<Eigen::Index>(b) + 3).squaredNorm();
  }
  SpatialJointBlocks blk;
  for (std::size_t k = 0; k < spec.joints.size(); ++k) {
    const SpatialJointSpec& jt = spec.joints[k];
    const int rows = constraint_rows(jt.type);
    const BodyView bi = view(q, v, jt.body_i, 0);
    const BodyView bj = view(q, v, jt.body_j, 7);
    evaluate_joint(jt, bi, bj, blk);
    per_joint(k, rows, blk);
    const Eigen::Matrix<double, kMaxRows, 1> l = blk.H * joint_velocity(bi, bj);
    out_L.segment(rows_at[k], rows) = l.head(rows);
  }
}

}  // namespace

Eigen::Matrix<double, 3, 4> euler_e(const Eigen::Vector4d& e) noexcept {
  Mat34 m;
  m.col(0) = -e.tail<3>();
  m.rightCols<3>() = skew(e.tail<3>()) + e(0) * Mat3::Identity();
  return m;
}

Eigen::Matrix<double, 3, 4> euler_l(const Eigen::Vector4d& e) noexcept {
  Mat34 m;
  m.col(0) = -e.tail<3>();
  m.rightCols<3>() = -skew(e.tail<3>()) + e(0) * Mat3::Identity();
  return m;
}

Eigen::Matrix3d rotation(const Eigen::Vector4d& e) noexcept {
  const Vec3 eps = e.tail<3>();
  return (e(0) * e(0) - eps.squaredNorm()) * Mat3::Identity() + 2.0 * eps * eps.transpose() +
         2.0 * e(0) * skew(eps);
}

SpatialMultibody::SpatialMultibody(SpatialModelSpec spec)
    : System(7 * static_cast<int>(spec.bodies.size()),
             7 * static_cast<int>(spec.bodies.size()),
             spatial_detail::constraint_row_count(spec),
             spatial_detail::constraint_row_count(spec) -
                 spatial_detail::nonholonomic_row_count(spec)),
      spec_(spatial_detail::validated(std::move(spec))) {
  const int nb = static_cast<int>(spec_.bodies.size());
  int row = nb;
  for (const SpatialJointSpec& j : spec_.joints) {
    rows_.push_back(row);
    row += constraint_rows(j.type);
  }
  for (const SpatialBodySpec& b : spec_.bodies) c_.push_back(4.0 * b.inertia.trace() / 3.0);

  // sparse structure: M block diagonal (7 x 7 lower triangle per body); G: normalization row b
  // on e_b's 4 columns, each joint's rows on all 7 columns of each of its bodies
  mass_pattern_.rows = mass_pattern_.cols = n_v();
  mass_pattern_.outer.push_back(0);
  for (int b = 0; b < nb; ++b) {
    for (int c = 0; c < 7; ++c) {
      for (int r = c; r < 7; ++r) mass_pattern_.inner.push_back(7 * b + r);
      mass_pattern_.outer.push_back(mass_pattern_.nonzeros());
    }
  }
  std::vector<std::vector<int>> col_rows(static_cast<std::size_t>(n_v()));
  for (int b = 0; b < nb; ++b) {
    for (int c = 3; c < 7; ++c) col_rows[static_cast<std::size_t>(7 * b + c)].push_back(b);
  }
  for (std::size_t k = 0; k < spec_.joints.size(); ++k) {
    const SpatialJointSpec& j = spec_.joints[k];
    for (const int body : {j.body_i, j.body_j}) {
      if (body == kGround) continue;
      for (int c = 0; c < 7; ++c) {
        for (int r = 0; r < constraint_rows(j.type); ++r) {
          col_rows[static_cast<std::size_t>(7 * body + c)].push_back(rows_[k] + r);
        }
      }
    }
  }
  jacobian_pattern_.rows = n_lambda();
  jacobian_pattern_.cols = n_v();
  jacobian_pattern_.outer.push_back(0);
  // slot of (row, col): position in the column's sorted row list, offset by the column start
  auto slot = [&](int r, int col) {
    const std::vector<int>& rows = col_rows[static_cast<std::size_t>(col)];
    const auto it = std::lower_bound(rows.begin(), rows.end(), r);
    return jacobian_pattern_.outer[static_cast<std::size_t>(col)] +
           static_cast<int>(it - rows.begin());
  };
  for (std::vector<int>& rows : col_rows) {
    std::sort(rows.begin(), rows.end());
    jacobian_pattern_.inner.insert(jacobian_pattern_.inner.end(), rows.begin(), rows.end());
    jacobian_pattern_.outer.push_back(jacobian_pattern_.nonzeros());
  }
  target_channels_.assign(spec_.forces.size(), {-1, -1, -1});
  for (std::size_t i = 0; i < spec_.inputs.size(); ++i) {
    const SpatialInputSpec& in = spec_.inputs[i];
    if (in.type == SpatialInputType::kCouplingX || in.type == SpatialInputType::kCouplingY ||
        in.type == SpatialInputType::kCouplingZ) {
      const auto axis = static_cast<std::size_t>(static_cast<int>(in.type) -
                                                 static_cast<int>(SpatialInputType::kCouplingX));
      target_channels_[static_cast<std::size_t>(in.element)][axis] = static_cast<int>(i);
    }
  }
  for (int b = 0; b < nb; ++b) {
    for (int c = 3; c < 7; ++c) norm_slots_.push_back(slot(b, 7 * b + c));
  }
  for (std::size_t k = 0; k < spec_.joints.size(); ++k) {
    const SpatialJointSpec& j = spec_.joints[k];
    joint_slot_base_.push_back(static_cast<int>(joint_slots_.size()));
    for (int r = 0; r < constraint_rows(j.type); ++r) {
      for (int c = 0; c < 14; ++c) {
        const int body = c < 7 ? j.body_i : j.body_j;
        joint_slots_.push_back(body == kGround ? -1 : slot(rows_[k] + r, 7 * body + c % 7));
      }
    }
  }
}

Eigen::Vector3d SpatialMultibody::coupling_target(std::size_t k, InputValues u) const noexcept {
  Vec3 target = spec_.forces[k].vector;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const int c = target_channels_[k][axis];
    if (c >= 0) target(static_cast<Eigen::Index>(axis)) = input(u, static_cast<std::size_t>(c));
  }
  return target;
}

Eigen::Vector3d SpatialMultibody::point_position(int b, const Vec3& s, VecCRef q) const noexcept {
  const BodyView w = view(q, q, b, 0);
  return w.r + rotation(w.e) * s;
}

Eigen::Vector3d SpatialMultibody::point_velocity(int b,
                                                 const Vec3& s,
                                                 VecCRef q,
                                                 VecCRef v) const noexcept {
  // p' = r' + B(e, s) e' (file comment)
  const BodyView w = view(q, v, b, 0);
  return w.rd + dAs_de(w.e, s) * w.ed;
}

std::array<double, 2> SpatialMultibody::revolute_coordinate(std::size_t k,
                                                            VecCRef q,
                                                            VecCRef v) const noexcept {
  const SpatialJointSpec& jt = spec_.joints[k];
  const JointAngle a = revolute_angle(jt, view(q, v, jt.body_i, 0), view(q, v, jt.body_j, 7));
  return {a.phi, a.rate};
}

Eigen::Vector3d SpatialMultibody::coupling_force(std::size_t k,
                                                 VecCRef q,
                                                 VecCRef v,
                                                 InputValues u) const noexcept {
  // F = -k (p - p*) - c p': the target is a position only (no target velocity is streamed), so
  // the damper acts on the absolute point velocity, a dissipative term towards rest
  const SpatialForceSpec& f = spec_.forces[k];
  return -f.stiffness * (point_position(f.body_i, f.point_i, q) - coupling_target(k, u)) -
         f.damping * point_velocity(f.body_i, f.point_i, q, v);
}

void SpatialMultibody::initial_state(State& out) const {
  // e' = E^T omega / 2: the e' with omega = 2 E e' and e^T e' = 0 (E E^T = I, E e = 0 for |e| = 1)
  out = State(n_q(), n_v());
  for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
    const SpatialBodySpec& body = spec_.bodies[b];
    const Eigen::Index k = 7 * static_cast<Eigen::Index>(b);
    out.q.segment<3>(k) = body.position;
    out.q.segment<4>(k + 3) = body.orientation;
    out.v.segment<3>(k) = body.velocity;
    out.v.segment<4>(k + 3) = 0.5 * euler_e(body.orientation).transpose() * body.angular_velocity;
  }
}

void SpatialMultibody::physical_mass_block(std::size_t b,
                                           VecCRef q,
                                           Eigen::Ref<Mat7> out) const noexcept {
  const SpatialBodySpec& body = spec_.bodies[b];
  const Mat34 L = euler_l(q.segment<4>(7 * static_cast<Eigen::Index>(b) + 3));
  out.setZero();
  out.topLeftCorner<3, 3>() = body.mass * Mat3::Identity();
  out.bottomRightCorner<4, 4>() = 4.0 * L.transpose() * body.inertia * L;
}

void SpatialMultibody::mass_block(std::size_t b, VecCRef q, Mat7& out) const noexcept {
  // M_b = diag(m I, 4 L^T J' L + c e e^T), made exactly symmetric (the product 4 L^T J' L is
  // symmetric only to round-off), so the sparse lower triangle equals the dense matrix bit for bit
  physical_mass_block(b, q, out);
  const Vec4 e = q.segment<4>(7 * static_cast<Eigen::Index>(b) + 3);
  out.bottomRightCorner<4, 4>() += c_[b] * e * e.transpose();
  for (int c = 1; c < 7; ++c) {
    for (int r = 0; r < c; ++r) out(r, c) = out(c, r);
  }
}

void SpatialMultibody::mass(double /*t*/, VecCRef q, MatRef out_M) const noexcept {
  // M_b = diag(m I, 4 L^T J' L + c e e^T); see the file comment for why c e e^T is harmless
  out_M.setZero();
  Mat7 block;
  for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
    mass_block(b, q, block);
    out_M.block<7, 7>(7 * static_cast<Eigen::Index>(b), 7 * static_cast<Eigen::Index>(b)) = block;
  }
}

void SpatialMultibody::forces(
    double /*t*/, VecCRef q, VecCRef v, InputValues channels, VecRef out_f) const noexcept {
  out_f.setZero();
  // world force F at body point s: (F, B(e, s)^T F)
  auto add_force = [&out_f, &q](int b, const Vec3& force, const Vec3& s) {
    if (b == kGround) return;
    out_f.segment<3>(7 * b) += force;
    out_f.segment<4>(7 * b + 3) += dAs_de(q.segment<4>(7 * b + 3), s).transpose() * force;
  };
  // world torque n: Q_e = 2 E^T n
  auto add_torque = [&out_f, &q](int b, const Vec3& torque) {
    if (b == kGround) return;
    out_f.segment<4>(7 * b + 3) += 2.0 * euler_e(q.segment<4>(7 * b + 3)).transpose() * torque;
  };

  // gyroscopic term 8 L(e')^T J' L(e') e of Lagrange's equations
  for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
    const Eigen::Index k = 7 * static_cast<Eigen::Index>(b);
    const Mat34 Ld = euler_l(v.segment<4>(k + 3));
    out_f.segment<4>(k + 3) +=
        8.0 * Ld.transpose() * spec_.bodies[b].inertia * Ld * q.segment<4>(k + 3);
  }
  for (std::size_t k = 0; k < spec_.forces.size(); ++k) {
    const SpatialForceSpec& f = spec_.forces[k];
    switch (f.type) {
      case SpatialForceType::kGravity:
        for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
          out_f.segment<3>(7 * static_cast<Eigen::Index>(b)) += spec_.bodies[b].mass * f.vector;
        }
        break;
      case SpatialForceType::kSpringDamper: {
        // d = p_j - p_i, l = |d|, u = d/l, l' = u.d'; tension T = k (l - l0) + c l' - F_act pulls
        // the points together: +T u on p_i, -T u on p_j (nothing at l = 0, direction undefined)
        const Quantity pi = body_point(view(q, v, f.body_i, 0), f.point_i);
        const Quantity pj = body_point(view(q, v, f.body_j, 7), f.point_j);
        const Vec3 d = pj.x - pi.x;
        const double l = d.norm();
        if (!(l > 0.0)) break;
        const Vec3 u = d / l;
        const double tension =
            f.stiffness * (l - f.rest) + f.damping * u.dot(pj.xd - pi.xd) - f.actuator;
        add_force(f.body_i, tension * u, f.point_i);
        add_force(f.body_j, -tension * u, f.point_j);
        break;
      }
      case SpatialForceType::kForce: {
        const Vec3 force =
            f.body_frame ? Vec3(rotation(q.segment<4>(7 * f.body_i + 3)) * f.vector) : f.vector;
        add_force(f.body_i, force, f.point_i);
        break;
      }
      case SpatialForceType::kTorque:
        if (f.body_frame) {
          out_f.segment<4>(7 * f.body_i + 3) +=
              2.0 * euler_l(q.segment<4>(7 * f.body_i + 3)).transpose() * f.vector;
        } else {
          add_torque(f.body_i, f.vector);
        }
        break;
      case SpatialForceType::kRotationalSpring: {
        // torque tau = -(k (phi - rest) + c phi') about the joint axis on j, +tau on i
        const SpatialJointSpec& jt = spec_.joints[static_cast<std::size_t>(f.joint)];
        const JointAngle a = revolute_angle(jt, view(q, v, jt.body_i, 0), view(q, v, jt.body_j, 7));
        const double tau = -(f.stiffness * (a.phi - f.rest) + f.damping * a.rate);
        add_torque(jt.body_j, tau * a.axis);
        add_torque(jt.body_i, -tau * a.axis);
        break;
      }
      case SpatialForceType::kCoupling:
        add_force(f.body_i, coupling_force(k, q, v, channels), f.point_i);
        break;
    }
  }
  // named input channels at the held values u: a force u d at a body point, a world torque u d,
  // a motor torque u a_i on body_j and -u a_i on body_i (a_i = A_i axis_i, the joint axis);
  // couplings read their targets above
  for (std::size_t i = 0; i < spec_.inputs.size(); ++i) {
    const SpatialInputSpec& in = spec_.inputs[i];
    const double u = input(channels, i);
    switch (in.type) {
      case SpatialInputType::kForce:
        add_force(in.body, u * in.direction, in.point);
        break;
      case SpatialInputType::kTorque:
        add_torque(in.body, u * in.direction);
        break;
      case SpatialInputType::kMotor: {
        const SpatialJointSpec& jt = spec_.joints[static_cast<std::size_t>(in.joint)];
        const Vec3 axis = rotation(view(q, v, jt.body_i, 0).e) * jt.axis_i;
        const double tau = std::clamp(u, -in.limit, in.limit);
        add_torque(jt.body_j, tau * axis);
        add_torque(jt.body_i, -tau * axis);
        break;
      }
      case SpatialInputType::kCouplingX:
      case SpatialInputType::kCouplingY:
      case SpatialInputType::kCouplingZ:
        break;
    }
  }
}

void SpatialMultibody::normalization_residuals(VecCRef q, VecRef out_g) const noexcept {
  // row b: (e_b . e_b - 1) / 2, the Euler-parameter normalization of body b
  for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
    out_g(static_cast<Eigen::Index>(b)) =
        0.5 * (q.segment<4>(7 * static_cast<Eigen::Index>(b) + 3).squaredNorm() - 1.0);
  }
}

void SpatialMultibody::constraints(double /*t*/, VecCRef q, VecRef out_g) const noexcept {
  normalization_residuals(q, out_g);
  SpatialJointBlocks blk;
  for (std::size_t k = 0; k < spec_.joints.size(); ++k) {
    const SpatialJointSpec& jt = spec_.joints[k];
    evaluate_joint(jt, view(q, q, jt.body_i, 0), view(q, q, jt.body_j, 7), blk);
    out_g.segment(rows_[k], constraint_rows(jt.type)) = blk.g.head(constraint_rows(jt.type));
  }
}

void SpatialMultibody::jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept {
  // normalization row: [0, e^T]; joints: their blocks on each body's 7 columns
  joint_matrix(spec_, rows_, q, q, &SpatialJointBlocks::G, out_G);
}

void SpatialMultibody::curvature(double /*t*/, VecCRef q, VecCRef v, VecRef out_L) const noexcept {
  // L = H v (g_t = 0); normalization: d^2/dt^2 (e.e - 1)/2 = e.e'' + e'.e'
  curvature_rows(spec_, rows_, q, v, out_L, [](std::size_t, int, const SpatialJointBlocks&) {});
}

void SpatialMultibody::velocity_constraint_jacobian(double /*t*/,
                                                    VecCRef q,
                                                    VecCRef v,
                                                    MatRef out_Gv_q) const noexcept {
  joint_matrix(spec_, rows_, q, v, &SpatialJointBlocks::H, out_Gv_q);
}

bool SpatialMultibody::sparse_structure(SparsePattern& mass_lower, SparsePattern& jacobian) const {
  mass_lower = mass_pattern_;
  jacobian = jacobian_pattern_;
  return true;
}

void SpatialMultibody::mass_values(double /*t*/, VecCRef q, std::span<double> out) const noexcept {
  Mat7 block;
  std::size_t idx = 0;
  for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
    mass_block(b, q, block);
    for (int c = 0; c < 7; ++c) {
      for (int r = c; r < 7; ++r) out[idx++] = block(r, c);
    }
  }
}

namespace {

// The normalization rows' values of G, [0, e^T] per body (4 slots per body).
void scatter_normalization(const std::vector<int>& norm_slots, VecCRef q, double* out) noexcept {
  for (std::size_t b = 0; 4 * b < norm_slots.size(); ++b) {
    for (int c = 0; c < 4; ++c) {
      out[norm_slots[4 * b + static_cast<std::size_t>(c)]] =
          q(7 * static_cast<Eigen::Index>(b) + 3 + c);
    }
  }
}

// A joint's rows of G (its 14 columns) into their slots; -1: a ground column.
void scatter_joint(const int* slots,
                   int rows,
                   const SpatialJointBlocks& blk,
                   double* out) noexcept {
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < 14; ++c) {
      const int s = slots[14 * r + c];
      if (s >= 0) out[s] = blk.G(r, c);
    }
  }
}

}  // namespace

void SpatialMultibody::jacobian_values(double /*t*/,
                                       VecCRef q,
                                       std::span<double> out) const noexcept {
  scatter_normalization(norm_slots_, q, out.data());
  SpatialJointBlocks blk;
  for (std::size_t k = 0; k < spec_.joints.size(); ++k) {
    const SpatialJointSpec& jt = spec_.joints[k];
    evaluate_joint(jt, view(q, q, jt.body_i, 0), view(q, q, jt.body_j, 7), blk);
    scatter_joint(joint_slots_.data() + joint_slot_base_[k], constraint_rows(jt.type), blk,
                  out.data());
  }
}

// The fused evaluations (System::jacobian_values_and_curvature / _and_constraints): one
// evaluate_joint per joint gives G with g or with H (its rotation matrices and the point and
// vector quantities are the shared work) instead of one per evaluation. Bit-identical to the
// separate calls: constraints() and jacobian_values() evaluate at the same view (q, q), and the
// G of evaluate_joint does not depend on the velocity part of the views (X = dx/dq of each
// Quantity is built from q alone), so the G of the curvature's view (q, v) is the same.

void SpatialMultibody::jacobian_values_and_curvature(double /*t*/,
                                                     VecCRef q,
                                                     VecCRef v,
                                                     std::span<double> out_jacobian,
                                                     VecRef out_L) const noexcept {
  scatter_normalization(norm_slots_, q, out_jacobian.data());
  curvature_rows(spec_, rows_, q, v, out_L,
                 [this, &out_jacobian](std::size_t k, int rows, const SpatialJointBlocks& blk) {
                   scatter_joint(joint_slots_.data() + joint_slot_base_[k], rows, blk,
                                 out_jacobian.data());
                 });
}

void SpatialMultibody::jacobian_values_and_constraints(double /*t*/,
                                                       VecCRef q,
                                                       std::span<double> out_jacobian,
                                                       VecRef out_g) const noexcept {
  scatter_normalization(norm_slots_, q, out_jacobian.data());
  normalization_residuals(q, out_g);
  SpatialJointBlocks blk;
  for (std::size_t k = 0; k < spec_.joints.size(); ++k) {
    const SpatialJointSpec& jt = spec_.joints[k];
    const int rows = constraint_rows(jt.type);
    evaluate_joint(jt, view(q, q, jt.body_i, 0), view(q, q, jt.body_j, 7), blk);
    scatter_joint(joint_slots_.data() + joint_slot_base_[k], rows, blk, out_jacobian.data());
    out_g.segment(rows_[k], rows) = blk.g.head(rows);
  }
}

double SpatialMultibody::energy(double /*t*/,
                                VecCRef q,
                                VecCRef v,
                                InputValues channels) const noexcept {
  // T = sum m r'.r'/2 + omega'.J' omega'/2 (omega' = 2 L e'); V: gravity -m g.r, TSDA
  // k (l - l0)^2/2 - F_act l, world point force -F.p, rotational spring k (phi - rest)^2/2
  double en = 0.0;
  for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
    const Eigen::Index k = 7 * static_cast<Eigen::Index>(b);
    const Vec3 w = 2.0 * euler_l(q.segment<4>(k + 3)) * v.segment<4>(k + 3);
    en += 0.5 * (spec_.bodies[b].mass * v.segment<3>(k).squaredNorm() +
                 w.dot(spec_.bodies[b].inertia * w));
  }
  for (std::size_t k = 0; k < spec_.forces.size(); ++k) {
    const SpatialForceSpec& f = spec_.forces[k];
    switch (f.type) {
      case SpatialForceType::kGravity:
        for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
          en -= spec_.bodies[b].mass * f.vector.dot(q.segment<3>(7 * static_cast<Eigen::Index>(b)));
        }
        break;
      case SpatialForceType::kSpringDamper: {
        const Vec3 pi = view(q, v, f.body_i, 0).r + rotation(view(q, v, f.body_i, 0).e) * f.point_i;
        const Vec3 pj = view(q, v, f.body_j, 7).r + rotation(view(q, v, f.body_j, 7).e) * f.point_j;
        const double l = (pj - pi).norm();
        en += 0.5 * f.stiffness * (l - f.rest) * (l - f.rest) - f.actuator * l;
        break;
      }
      case SpatialForceType::kForce:
        if (!f.body_frame) {
          const BodyView b = view(q, v, f.body_i, 0);
          en -= f.vector.dot(b.r + rotation(b.e) * f.point_i);
        }
        break;
      case SpatialForceType::kTorque:
        break;
      case SpatialForceType::kRotationalSpring: {
        const SpatialJointSpec& jt = spec_.joints[static_cast<std::size_t>(f.joint)];
        const double phi =
            revolute_angle(jt, view(q, v, jt.body_i, 0), view(q, v, jt.body_j, 7)).phi - f.rest;
        en += 0.5 * f.stiffness * phi * phi;
        break;
      }
      case SpatialForceType::kCoupling:
        // k |p - p*|^2 / 2 relative to the current target (the input's work is external)
        en += 0.5 * f.stiffness *
              (point_position(f.body_i, f.point_i, q) - coupling_target(k, channels)).squaredNorm();
        break;
    }
  }
  return en;
}

}  // namespace rtmb
