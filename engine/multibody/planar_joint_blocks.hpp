// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal: the per-joint blocks of a planar joint, shared by the dense evaluations
// (planar_multibody.cpp) and the sparse ones (planar_sparse.cpp), so that both scatter the very
// same numbers. Not installed.

#include <Eigen/Core>
#include <cmath>
#include <vector>

#include "rtmb/models/planar_multibody.hpp"

namespace rtmb::planar_detail {

/// The blocks of one joint at (q_i, q_j, v_i, v_j); rows beyond constraint_rows(type) are unused.
struct JointBlocks {
  Eigen::Vector3d g = Eigen::Vector3d::Zero();
  Eigen::Matrix3d gi = Eigen::Matrix3d::Zero();  ///< dg/dq_i
  Eigen::Matrix3d gj = Eigen::Matrix3d::Zero();  ///< dg/dq_j
  Eigen::Matrix3d hi = Eigen::Matrix3d::Zero();  ///< d(G v)/dq_i
  Eigen::Matrix3d hj = Eigen::Matrix3d::Zero();  ///< d(G v)/dq_j
};

/// cos and sin of a body angle th, the entries of A(th) = [c -s; s c].
struct Rotation {
  double c = 1.0;  ///< the ground (th = 0): cos 0 = 1 and sin 0 = 0 exactly
  double s = 0.0;
  static Rotation of(double th) noexcept { return {std::cos(th), std::sin(th)}; }
};

/// S x = (-x_y, x_x): the vector x turned by +90 degrees (S = dA/dth A^T).
inline Eigen::Vector2d perp(const Eigen::Vector2d& x) noexcept {
  return {-x.y(), x.x()};
}

/// A(th) s with cos and sin known: (c s_x - s s_y, s s_x + c s_y).
inline Eigen::Vector2d rotate(const Rotation& a, const Eigen::Vector2d& s) noexcept {
  return {a.c * s.x() - a.s * s.y(), a.s * s.x() + a.c * s.y()};
}

/// g, G_i, G_j, H_i, H_j of joint `jt` (equations in planar_joint_blocks.cpp), with A(th_i),
/// A(th_j) given (ri, rj: Rotation::of(qi.z()), Rotation::of(qj.z())). RT-safe.
void evaluate_joint(const PlanarJointSpec& jt,
                    const Eigen::Vector3d& qi,
                    const Eigen::Vector3d& qj,
                    const Rotation& ri,
                    const Rotation& rj,
                    const Eigen::Vector3d& vi,
                    const Eigen::Vector3d& vj,
                    JointBlocks& b) noexcept;

/// Row r of the blocks of g = n . (p_j - p_i), n = A(th_i) c the world image of a direction c
/// fixed in body i (a prismatic joint's normal row, a prismatic driver's displacement row, an
/// axial spring's coordinate), u_j = A(th_j) s_j and the points p_i, p_j given. RT-safe.
void direction_row(const Eigen::Vector2d& c,
                   int r,
                   const Rotation& ri,
                   const Eigen::Vector3d& qi,
                   const Eigen::Vector3d& qj,
                   const Eigen::Vector3d& vi,
                   const Eigen::Vector3d& vj,
                   const Eigen::Vector2d& uj,
                   const Eigen::Vector2d& pi,
                   const Eigen::Vector2d& pj,
                   JointBlocks& b) noexcept;

/// Only G_i, G_j (rows beyond constraint_rows(type) untouched), the same numbers evaluate_joint
/// writes: for revolute and fixed joints without computing g or H (the sparse G assembly runs 7
/// times per RK4 + PStab step). RT-safe.
void joint_jacobian(const PlanarJointSpec& jt,
                    const Eigen::Vector3d& qi,
                    const Eigen::Vector3d& qj,
                    const Rotation& ri,
                    const Rotation& rj,
                    JointBlocks& b) noexcept;

/// Where each body's coordinates start in q (and v, laid out alike):
/// PlanarMultibody::coordinate_offsets(). A body's reference coordinates (x, y, theta) come first
/// and any further (elastic) coordinates after them, so the rigid part of a joint or force reads
/// the same three numbers whatever the body's kind. RT-safe; a view, the offsets must outlive it.
class BodyLayout {
 public:
  explicit BodyLayout(const int* offsets) noexcept : offsets_(offsets) {}
  /// First coordinate of body b (b != kGround).
  [[nodiscard]] int offset(int b) const noexcept { return offsets_[b]; }
  /// q_b (or v_b) = (x, y, theta) of body b; the ground is at rest at the origin.
  [[nodiscard]] Eigen::Vector3d block(VecCRef x, int b) const noexcept {
    if (b == kGround) return Eigen::Vector3d::Zero();
    return x.segment<3>(offsets_[b]);
  }
  /// theta of body b (or its rate theta'); 0 for the ground.
  [[nodiscard]] double angle(VecCRef x, int b) const noexcept {
    return b == kGround ? 0.0 : x(offsets_[b] + 2);
  }

 private:
  const int* offsets_;
};

/// Writes joints' blocks of G into the CSC values of sparse_structure() (planar_sparse.cpp), given
/// each joint's six slots (PlanarMultibody::jacobian_slots_): a joint's rows are contiguous in each
/// of its bodies' columns, so each of the three columns is one short copy. Shared by
/// jacobian_values() and the fused evaluations so that all of them write the same numbers. RT-safe.
class JacobianScatter {
 public:
  explicit JacobianScatter(double* values) noexcept : dst_(values) {}

  /// The first `rows` rows of G_i and G_j (blocks of evaluate_joint or joint_jacobian).
  void blocks(const PlanarJointSpec& jt, const JointBlocks& b, const int* slots) const noexcept {
    const int rows = constraint_rows(jt.type);
    if (jt.body_i != kGround) block(b.gi, slots, rows);
    if (jt.body_j != kGround) block(b.gj, slots + 3, rows);
  }

  /// A revolute joint's G_i = [I, S u_i], G_j = -[I, S u_j] (S u = (-u_y, u_x)) written straight
  /// into its columns, u_i = A(th_i) s_i, u_j = A(th_j) s_j: the numbers of joint_jacobian,
  /// including the -0.0 off the diagonal of -I, without building the 3 x 3 blocks.
  void revolute(const PlanarJointSpec& jt,
                const Eigen::Vector2d& ui,
                const Eigen::Vector2d& uj,
                const int* slots) const noexcept {
    if (jt.body_i != kGround) revolute_block(1.0, ui, slots);
    if (jt.body_j != kGround) revolute_block(-1.0, uj, slots + 3);
  }

 private:
  void block(const Eigen::Matrix3d& m, const int* slots, int rows) const noexcept {
    for (int c = 0; c < 3; ++c) {
      double* col = dst_ + slots[c];
      for (int r = 0; r < rows; ++r) col[r] = m(r, c);
    }
  }

  void revolute_block(double sign, const Eigen::Vector2d& u, const int* slots) const noexcept {
    double* c0 = dst_ + slots[0];
    double* c1 = dst_ + slots[1];
    double* c2 = dst_ + slots[2];
    c0[0] = sign;
    c0[1] = sign * 0.0;
    c1[0] = sign * 0.0;
    c1[1] = sign;
    c2[0] = sign * -u.y();
    c2[1] = sign * u.x();
  }

  double* dst_;
};

/// A(th_b) of the bodies met in one pass over the joints, each computed once. Why: cos and sin
/// were 17 % of a chain step's instructions, and in joint order a chain meets body b twice in a
/// row (body_j of joint k, body_i of joint k + 1), so remembering the last two bodies halves the
/// calls without any per-body buffer. Any joint order stays correct (a miss just recomputes);
/// the values are those of Rotation::of, so results are bit-identical. RT-safe; one per pass
/// (a local, so that the const evaluation methods stay reentrant).
class RotationCache {
 public:
  explicit RotationCache(BodyLayout layout) noexcept : layout_(layout) {}
  Rotation get(VecCRef q, int b) noexcept {
    if (b == kGround) return {};
    if (body_[0] == b) return rot_[0];
    if (body_[1] == b) return rot_[1];
    const int older = next_;
    next_ ^= 1;
    body_[older] = b;
    rot_[older] = Rotation::of(layout_.angle(q, b));
    return rot_[older];
  }

 private:
  BodyLayout layout_;
  int body_[2] = {kGround, kGround};
  Rotation rot_[2];
  int next_ = 0;  ///< the slot to overwrite next (the less recently computed)
};

/// Number of coordinates of the spec's bodies, 3 per rigid body (planar_model_spec.cpp).
[[nodiscard]] int coordinate_count(const PlanarModelSpec& spec);
/// First coordinate of each body in q and v, in body order, then the total coordinate_count(spec)
/// (bodies.size() + 1 entries): body b holds coordinates offsets[b] .. offsets[b + 1] - 1.
[[nodiscard]] std::vector<int> coordinate_offsets(const PlanarModelSpec& spec);
/// Number of constraint rows of the spec's joints (planar_model_spec.cpp).
[[nodiscard]] int constraint_row_count(const PlanarModelSpec& spec);
/// The rows of those that are holonomic (all but the knife edges' and the no-slip rows).
[[nodiscard]] int holonomic_row_count(const PlanarModelSpec& spec);

/// The spec after validation: throws std::invalid_argument naming the element at fault
/// (planar_model_spec.cpp). Setup-only.
[[nodiscard]] PlanarModelSpec validated(PlanarModelSpec spec);

}  // namespace rtmb::planar_detail
