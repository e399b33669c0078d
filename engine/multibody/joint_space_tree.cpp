// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Joint-space tree dynamics (rtmb/models/joint_space_tree.hpp). Source: R. Featherstone, Rigid
// Body Dynamics Algorithms (Springer 2008), cited as "RBDA". Every spatial quantity is expressed
// in world Pluecker coordinates at the world origin, RBDA §5.3 ("the algorithm in base
// coordinates"): the coordinate transforms between link frames of Tables 5.1 and 6.2 become
// identities, and each link's spatial inertia and motion subspace are instead re-expressed in the
// world at every q. For a 7-joint arm this costs a little more arithmetic than link coordinates
// and keeps the recursions to sums.
//
// Conventions (RBDA §2.3-2.4): a motion vector is (omega, v_O), v_O the velocity of the body
// point at the world origin; a force vector is (n_O, f), n_O the moment about the origin.
//   motion cross product  v x m  = (w x m1,          w x m2 + vO x m1)   (RBDA eq. 2.31)
//   force cross product   v x* f = (w x f1 + vO x f2, w x f2)            (RBDA eq. 2.32)
//   spatial inertia of a body of mass m, centre of mass c, rotational inertia Ib about c (all in
//   world coordinates) at the origin (RBDA eq. 2.63):
//     I = [Ib + m cx cx^T, m cx; m cx^T, m 1]   with cx the cross-product matrix of c.
// Joint motion subspaces (RBDA Table 4.1, moved to the joint point p with unit world axis a):
//   revolute S = (a, p x a), prismatic S = (0, a). Both are fixed in the parent and in the child,
//   so S' = v_i x S (RBDA eq. 5.7 with the joint's velocity-product term c_J = 0).
// Multi-coordinate joints (RBDA Table 4.1's planar and 6-DoF joints, here with q' = v): R_J the
// joint frame's world rotation, p the child's world origin, t its translation in the joint frame.
//   planar    S = [(0, R_J u), (0, R_J w), (a, p x a)]  for q = (x, y, angle), t = x u + y w;
//   floating  S = [(0, R_J e_i) for i = x, y, z; (W_i, p x W_i) for i = 0..3] for
//             q = (t, e), with W = R_J 2 E(e) / (e.e) the world angular velocity per Euler-
//             parameter rate: omega = 2 E(e) e' in the joint frame for |e| = 1 (Haug 1989
//             eq. 6.3.x, E = [-e1 e0 -e3 e2; -e2 e3 e0 -e1; -e3 -e2 e1 e0]); the child's
//             rotation is R(e / |e|), so the factor 1 / (e.e) makes S the exact Jacobian of the
//             pose off the unit sphere too (E e = 0: scaling e turns nothing).
//   Their own coordinates move S (p moves with t; W with e), so RBDA eq. 5.8 keeps its
//   velocity-product term c_J = (d/dt S) q' with the parent frozen:
//     c_J = (c_w, (R_J t') x omega + p x c_w),  c_w = -2 (e.e') / (e.e) omega (floating; 0 for
//     planar), omega = the joint's relative angular velocity, because E(e') e' = 0.

#include "rtmb/models/joint_space_tree.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/multibody/articulated_solve.hpp"
#include "engine/multibody/spatial_vector_algebra.hpp"

namespace rtmb {
namespace {

using spatial::cross_force;
using spatial::cross_motion;
using spatial::Mat6;
using spatial::plane_basis;
using spatial::skew;
using spatial::Vec6;

[[noreturn]] void refuse(const std::string& what) {
  throw std::invalid_argument("joint-space tree: " + what);
}

// I^c_i = I_i + sum over children I^c_c (RBDA eq. 6.11), leaves first: `order` lists every link
// after its parent. A template so that the tree's private per-link state can be passed. RT-safe.
template <class LinkStates>
void accumulate_composite_inertias(LinkStates& state,
                                   const std::vector<int>& order,
                                   const std::vector<int>& parent) noexcept {
  for (auto& s : state) s.composite = s.inertia;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int p = parent[static_cast<std::size_t>(*it)];
    if (p >= 0) {
      state[static_cast<std::size_t>(p)].composite +=
          state[static_cast<std::size_t>(*it)].composite;
    }
  }
}

}  // namespace

int tree_joint_coordinates(TreeJointType type) noexcept {
  switch (type) {
    case TreeJointType::kRevolute:
    case TreeJointType::kPrismatic:
      return 1;
    case TreeJointType::kFixed:
      return 0;
    case TreeJointType::kPlanar:
      return 3;
    case TreeJointType::kFloating:
      return 7;
  }
  return 0;
}

int joint_space_coordinates(const JointSpaceSpec& spec) noexcept {
  int n = 0;
  for (const TreeJointSpec& j : spec.joints) n += tree_joint_coordinates(j.type);
  return n;
}

JointSpaceTree::JointSpaceTree(JointSpaceSpec spec)
    : System(joint_space_coordinates(spec),
             joint_space_coordinates(spec),
             joint_space_constraint_rows(spec)),
      spec_(std::move(spec)) {
  const int n_links = static_cast<int>(spec_.links.size());
  if (n_links == 0) refuse("no links");
  if (!spec_.gravity.allFinite()) refuse("gravity is not finite");
  for (const TreeLinkSpec& l : spec_.links) {
    if (!(l.mass >= 0.0) || !std::isfinite(l.mass)) {
      refuse("link '" + l.name + "': mass must be finite and >= 0");
    }
    if (!l.com.allFinite() || !l.inertia.allFinite()) {
      refuse("link '" + l.name + "': centre of mass and inertia must be finite");
    }
    const double scale = l.inertia.cwiseAbs().maxCoeff();
    if ((l.inertia - l.inertia.transpose()).cwiseAbs().maxCoeff() > 1e-12 * scale) {
      refuse("link '" + l.name + "': inertia is not symmetric");
    }
    const Eigen::Vector3d ev =
        Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(l.inertia, Eigen::EigenvaluesOnly)
            .eigenvalues();
    if (ev.minCoeff() < -1e-12 * scale) {
      refuse("link '" + l.name + "': inertia is not positive semi-definite");
    }
  }
  parent_link_.assign(static_cast<std::size_t>(n_links), -1);
  parent_joint_.assign(static_cast<std::size_t>(n_links), -1);
  link_coordinate_.assign(static_cast<std::size_t>(n_links), -1);
  coordinate_.assign(spec_.joints.size(), -1);
  unit_axis_.resize(spec_.joints.size());
  plane_axes_.resize(spec_.joints.size());
  joint_frame_.resize(spec_.joints.size());
  int k = 0;
  for (std::size_t j = 0; j < spec_.joints.size(); ++j) {
    const TreeJointSpec& jt = spec_.joints[j];
    const std::string who = "joint '" + jt.name + "': ";
    if (jt.child < 0 || jt.child >= n_links) refuse(who + "child link out of range");
    if (jt.parent < -1 || jt.parent >= n_links) refuse(who + "parent link out of range");
    if (jt.parent == jt.child) refuse(who + "parent and child are the same link");
    const auto c = static_cast<std::size_t>(jt.child);
    if (parent_joint_[c] >= 0) {
      refuse(who + "link '" + spec_.links[c].name + "' is already the child of joint '" +
             spec_.joints[static_cast<std::size_t>(parent_joint_[c])].name +
             "' (a tree gives each link one parent; close a loop with a closure instead)");
    }
    if (!jt.origin_xyz.allFinite() || !jt.origin_rotation.allFinite() || !jt.axis.allFinite() ||
        !std::isfinite(jt.damping) || !std::isfinite(jt.initial_position) ||
        !std::isfinite(jt.initial_velocity) || !std::isfinite(jt.stiffness) ||
        !std::isfinite(jt.rest_position) || !std::isfinite(jt.effort)) {
      refuse(who + "origin, axis, damping, stiffness, effort and initial values must be finite");
    }
    if (!(jt.damping >= 0.0)) refuse(who + "damping must be >= 0");
    if (!(jt.stiffness >= 0.0)) refuse(who + "stiffness must be >= 0");
    const int dofs = tree_joint_coordinates(jt.type);
    if (dofs > 1 && (jt.damping != 0.0 || jt.stiffness != 0.0 || jt.effort != 0.0 ||
                     jt.initial_position != 0.0 || jt.initial_velocity != 0.0)) {
      refuse(who + "a planar or floating joint takes no damping, stiffness, effort or initial " +
             "value (it starts at its joint frame at rest)");
    }
    parent_joint_[c] = static_cast<int>(j);
    parent_link_[c] = jt.parent;
    if (jt.type == TreeJointType::kFloating) {
      unit_axis_[j] = Eigen::Vector3d::UnitZ();  // unused: a floating joint has no axis
      floating_coordinate_.push_back(k);
    } else if (jt.type != TreeJointType::kFixed) {
      const double norm = jt.axis.norm();
      if (!(norm > 0.0)) refuse(who + "axis must be non-zero");
      unit_axis_[j] = jt.axis / norm;
      const auto basis = plane_basis(unit_axis_[j]);
      plane_axes_[j] = {basis[0], basis[1]};
    } else {
      unit_axis_[j] = Eigen::Vector3d::UnitZ();
    }
    JointFrame& frame = joint_frame_[j];
    const Eigen::Matrix3d turn = skew(unit_axis_[j]);
    frame.rotation = jt.origin_rotation;
    frame.turn_sin = jt.origin_rotation * turn;
    frame.turn_cos = frame.turn_sin * turn;
    frame.axis = jt.origin_rotation * unit_axis_[j];
    if (dofs > 0) {
      link_coordinate_[c] = k;
      coordinate_[j] = k;
      for (int i = 0; i < dofs; ++i) link_of_coordinate_.push_back(jt.child);
      k += dofs;
    }
  }
  // topological order: each link after its parent (depth-first from the links on the world);
  // a link never reached sits on a cycle of joints
  std::vector<std::vector<int>> children(static_cast<std::size_t>(n_links));
  std::vector<int> stack;
  for (int l = 0; l < n_links; ++l) {
    const int p = parent_link_[static_cast<std::size_t>(l)];
    if (p < 0) {
      stack.push_back(l);
    } else {
      children[static_cast<std::size_t>(p)].push_back(l);
    }
  }
  while (!stack.empty()) {
    const int l = stack.back();
    stack.pop_back();
    order_.push_back(l);
    for (int c : children[static_cast<std::size_t>(l)]) stack.push_back(c);
  }
  if (static_cast<int>(order_.size()) != n_links) {
    for (int l = 0; l < n_links; ++l) {
      if (std::find(order_.begin(), order_.end(), l) == order_.end()) {
        refuse("joint '" +
               spec_.joints[static_cast<std::size_t>(parent_joint_[static_cast<std::size_t>(l)])]
                   .name +
               "' is on a cycle of joints (a tree has none; close a loop with a closure instead)");
      }
    }
  }
  // the motion subspaces' unused entries (the columns beyond a joint's coordinates, the angular
  // half of a translation column) stay zero: kinematics() writes only the others
  state_.resize(static_cast<std::size_t>(n_links));
  for (std::size_t l = 0; l < state_.size(); ++l) {
    LinkState& s = state_[l];
    s.motion_subspace.setZero();
    s.inertia.setZero();
    s.inertia.bottomRightCorner<3, 3>() = spec_.links[l].mass * Eigen::Matrix3d::Identity();
    const int j = parent_joint_[l];
    if (j >= 0) {
      const TreeJointType type = spec_.joints[static_cast<std::size_t>(j)].type;
      s.dofs = tree_joint_coordinates(type);
      s.translations =
          type == TreeJointType::kPlanar ? 2 : (type == TreeJointType::kFloating ? 3 : 0);
      s.floating = type == TreeJointType::kFloating;
    }
  }
  kinematics_q_ = Vec::Zero(n_q());
  validate_closures();
  validate_inputs();
}

std::unique_ptr<const System> JointSpaceTree::for_simulation() const {
  return std::make_unique<JointSpaceTree>(spec_);
}

// World pose, motion subspace and spatial inertia of every link at q (RBDA §4.4 joint models,
// composed along the tree from the world).
void JointSpaceTree::kinematics(VecCRef q) const noexcept {
  // the same bits of q: state_ holds it already. Bitwise, as Andrews' trig memo: -0.0 and +0.0
  // have different sines, so == would hand one the other's poses
  if (kinematics_valid_ && std::memcmp(q.data(), kinematics_q_.data(),
                                       sizeof(double) * static_cast<std::size_t>(q.size())) == 0) {
    return;
  }
  kinematics_q_ = q;
  kinematics_valid_ = true;
  for (int l : order_) {
    LinkState& s = state_[static_cast<std::size_t>(l)];
    const int j = parent_joint_[static_cast<std::size_t>(l)];
    const int p = parent_link_[static_cast<std::size_t>(l)];
    // dofs, translations, floating and the subspaces' zero entries are fixed (constructor)
    if (j < 0) {
      s.rotation.setIdentity();
      s.origin.setZero();
    } else {
      const TreeJointSpec& jt = spec_.joints[static_cast<std::size_t>(j)];
      const JointFrame& frame = joint_frame_[static_cast<std::size_t>(j)];
      const int k = coordinate_[static_cast<std::size_t>(j)];
      // the joint frame in the world: R_p O at p_p + R_p o (a link on the world: O at o), and
      // its axis R_p O a
      Eigen::Vector3d joint_origin;
      Eigen::Vector3d a;
      const Eigen::Matrix3d* parent_rotation = nullptr;
      if (p >= 0) {
        const LinkState& sp = state_[static_cast<std::size_t>(p)];
        parent_rotation = &sp.rotation;
        joint_origin.noalias() = sp.rotation * jt.origin_xyz;
        joint_origin += sp.origin;
        a.noalias() = sp.rotation * frame.axis;
      } else {
        joint_origin = jt.origin_xyz;
        a = frame.axis;
      }
      // R_p times a joint-frame rotation E (R_p = 1 for a link on the world)
      const auto place = [&](const Eigen::Matrix3d& e) {
        if (parent_rotation != nullptr) {
          s.rotation.noalias() = *parent_rotation * e;
        } else {
          s.rotation = e;
        }
      };
      // O R(a, theta) by Rodrigues' formula (Murray, Li & Sastry 1994, eq. 2.14), in the
      // parent's frame
      const auto turned = [&frame](double theta) {
        const double sn = std::sin(theta);
        const double vers = 1.0 - std::cos(theta);
        Eigen::Matrix3d e = frame.rotation;
        e += sn * frame.turn_sin;
        e += vers * frame.turn_cos;
        return e;
      };
      switch (jt.type) {
        case TreeJointType::kRevolute:
          place(turned(q(k)));
          s.origin = joint_origin;
          s.motion_subspace.col(0) << a, joint_origin.cross(a);
          break;
        case TreeJointType::kPrismatic:
          place(frame.rotation);
          s.origin = joint_origin + a * q(k);
          s.motion_subspace.col(0).tail<3>() = a;
          break;
        case TreeJointType::kFixed:
          place(frame.rotation);
          s.origin = joint_origin;
          break;
        case TreeJointType::kPlanar: {
          place(frame.rotation);
          const Eigen::Matrix3d joint_rotation = s.rotation;
          const auto& plane = plane_axes_[static_cast<std::size_t>(j)];
          const Eigen::Vector3d u = joint_rotation * plane[0];
          const Eigen::Vector3d w = joint_rotation * plane[1];
          place(turned(q(k + 2)));
          s.origin = joint_origin + u * q(k) + w * q(k + 1);
          s.motion_subspace.col(0).tail<3>() = u;
          s.motion_subspace.col(1).tail<3>() = w;
          s.motion_subspace.col(2) << a, s.origin.cross(a);
          break;
        }
        case TreeJointType::kFloating: {
          place(frame.rotation);
          const Eigen::Matrix3d joint_rotation = s.rotation;
          s.quaternion = q.segment<4>(k + 3);
          double ee = s.quaternion.squaredNorm();
          // e = 0 has no rotation: read it as the identity (the normalization row is violated
          // by 1/2 there, which the stabilizers restore)
          const Eigen::Vector4d e = ee > 0.0 ? s.quaternion : Eigen::Vector4d::UnitX();
          ee = e.squaredNorm();
          const Eigen::Quaterniond turn(e(0) / std::sqrt(ee), e(1) / std::sqrt(ee),
                                        e(2) / std::sqrt(ee), e(3) / std::sqrt(ee));
          s.rotation = joint_rotation * turn.toRotationMatrix();
          s.origin = joint_origin + joint_rotation * q.segment<3>(k);
          Eigen::Matrix<double, 3, 4> E;  // Haug's E(e), omega = 2 E(e) e'
          E << -e(1), e(0), -e(3), e(2), -e(2), e(3), e(0), -e(1), -e(3), -e(2), e(1), e(0);
          const Eigen::Matrix<double, 3, 4> W = joint_rotation * E * (2.0 / ee);
          for (int i = 0; i < 3; ++i) {
            s.motion_subspace.col(i).tail<3>() = joint_rotation.col(i);
          }
          for (int i = 0; i < 4; ++i) {
            s.motion_subspace.col(3 + i) << W.col(i), s.origin.cross(W.col(i));
          }
          break;
        }
      }
    }
    const TreeLinkSpec& link = spec_.links[static_cast<std::size_t>(l)];
    s.com.noalias() = s.rotation * link.com;
    s.com += s.origin;
    // RBDA eq. 2.63 at the world origin, I = [R Ib R^T + m cx cx^T, m cx; m cx^T, m 1], with
    // cx cx^T = |c|^2 1 - c c^T; the constant m 1 block was written once (constructor)
    const double m = link.mass;
    Eigen::Matrix3d turned_inertia;
    {
      Eigen::Matrix3d ri;
      ri.noalias() = s.rotation * link.inertia;
      turned_inertia.noalias() = ri * s.rotation.transpose();
    }
    turned_inertia.noalias() -= (m * s.com) * s.com.transpose();
    turned_inertia.diagonal().array() += m * s.com.squaredNorm();
    s.inertia.topLeftCorner<3, 3>() = turned_inertia;
    const Eigen::Matrix3d mcx = skew(m * s.com);
    s.inertia.topRightCorner<3, 3>() = mcx;
    s.inertia.bottomLeftCorner<3, 3>() = mcx.transpose();
  }
}

// Composite-rigid-body algorithm, RBDA Table 6.2 in base coordinates (all X = 1):
//   I^c_i = I_i + sum over children I^c_c                      (RBDA eq. 6.11)
//   H_ii = S_i^T I^c_i S_i,  H_ij = H_ji = S_j^T I^c_i S_i for j an ancestor of i (eq. 6.12),
//   and H_ij = 0 when neither is an ancestor of the other.
void JointSpaceTree::mass(double /*t*/, VecCRef q, MatRef out_M) const noexcept {
  kinematics(q);
  accumulate_composite_inertias(state_, order_, parent_link_);
  out_M.setZero();
  for (int i = 0; i < n_v(); ++i) {
    const int li = link_of_coordinate_[static_cast<std::size_t>(i)];
    const LinkState& si = state_[static_cast<std::size_t>(li)];
    const int ki = link_coordinate_[static_cast<std::size_t>(li)];
    const Vec6 f = si.composite * si.motion_subspace.col(i - ki);
    for (int c = 0; c <= i - ki; ++c) {  // the joint's own block
      out_M(i, ki + c) = si.motion_subspace.col(c).dot(f);
      out_M(ki + c, i) = out_M(i, ki + c);
    }
    for (int l = parent_link_[static_cast<std::size_t>(li)]; l >= 0;
         l = parent_link_[static_cast<std::size_t>(l)]) {
      const int j = link_coordinate_[static_cast<std::size_t>(l)];
      if (j < 0) continue;
      const LinkState& sl = state_[static_cast<std::size_t>(l)];
      for (int c = 0; c < sl.dofs; ++c) {
        out_M(i, j + c) = sl.motion_subspace.col(c).dot(f);
        out_M(j + c, i) = out_M(i, j + c);
      }
    }
  }
  // A floating joint's block is singular along e (E(e) e = 0). As for the spatial bodies
  // (engine/multibody/spatial_multibody.cpp, "Mass matrix") we add c e e^T: its force
  // c e (e . e'') lies in the span of the normalization row [0, e^T], whose multiplier absorbs it,
  // so the motion is unchanged. c = trace(block) / 3, the mean of its three non-zero eigenvalues,
  // keeps the block's scale.
  for (int k : floating_coordinate_) {
    const LinkState& s =
        state_[static_cast<std::size_t>(link_of_coordinate_[static_cast<std::size_t>(k)])];
    const double c = out_M.block<4, 4>(k + 3, k + 3).trace() / 3.0;
    out_M.block<4, 4>(k + 3, k + 3) += c * s.quaternion * s.quaternion.transpose();
  }
}

// Recursive Newton-Euler, RBDA Table 5.1 in base coordinates. Gravity enters as a fictitious
// acceleration of the base, a_0 = -a_g (RBDA §5.3), so the result includes g(q).
//   v_i = v_p + S_i q'_i                                              (RBDA eq. 5.7)
//   a_i = a_p + S_i q''_i + v_i x S_i q'_i                            (RBDA eq. 5.8, c_J = 0)
//   f_i = I_i a_i + v_i x* I_i v_i                                    (RBDA eq. 5.9)
//   tau_i = S_i^T f_i,  f_p += f_i                                    (RBDA eqs. 5.10, 5.11)
void JointSpaceTree::forward_pass(VecCRef v,
                                  const VecCRef* a,
                                  const Vec6& base_acceleration) const noexcept {
  for (int l : order_) {
    LinkState& s = state_[static_cast<std::size_t>(l)];
    const int p = parent_link_[static_cast<std::size_t>(l)];
    const int k = link_coordinate_[static_cast<std::size_t>(l)];
    if (p >= 0) {
      s.velocity = state_[static_cast<std::size_t>(p)].velocity;
      s.acceleration = state_[static_cast<std::size_t>(p)].acceleration;
    } else {
      s.velocity.setZero();
      s.acceleration = base_acceleration;
    }
    if (k >= 0) {
      Vec6 joint_velocity = Vec6::Zero();
      for (int c = 0; c < s.dofs; ++c) joint_velocity += s.motion_subspace.col(c) * v(k + c);
      s.velocity += joint_velocity;
      if (a != nullptr) {
        Vec6 joint_acceleration = Vec6::Zero();
        for (int c = 0; c < s.dofs; ++c) {
          joint_acceleration += s.motion_subspace.col(c) * (*a)(k + c);
        }
        s.acceleration += joint_acceleration + cross_motion(s.velocity, joint_velocity);
      } else {
        s.acceleration += cross_motion(s.velocity, joint_velocity);
      }
      if (s.dofs > 1) s.acceleration += joint_bias(s, v, k);
    }
  }
}

Vec6 JointSpaceTree::joint_bias(const LinkState& s, VecCRef v, int k) const noexcept {
  Eigen::Vector3d translation_rate = Eigen::Vector3d::Zero();  // R_J t'
  Eigen::Vector3d omega = Eigen::Vector3d::Zero();             // relative angular velocity
  for (int c = 0; c < s.translations; ++c) {
    translation_rate += s.motion_subspace.col(c).tail<3>() * v(k + c);
  }
  for (int c = s.translations; c < s.dofs; ++c) {
    omega += s.motion_subspace.col(c).head<3>() * v(k + c);
  }
  Eigen::Vector3d c_w = Eigen::Vector3d::Zero();
  if (s.floating) {
    const double ee = s.quaternion.squaredNorm();
    if (ee > 0.0) c_w = -2.0 * s.quaternion.dot(v.segment<4>(k + 3)) / ee * omega;
  }
  Vec6 bias;
  bias << c_w, translation_rate.cross(omega) + s.origin.cross(c_w);
  return bias;
}

void JointSpaceTree::inverse_dynamics(VecCRef q,
                                      VecCRef v,
                                      VecCRef a,
                                      VecRef out_tau) const noexcept {
  newton_euler(q, v, &a, out_tau);
}

void JointSpaceTree::newton_euler(VecCRef q,
                                  VecCRef v,
                                  const VecCRef* a,
                                  VecRef out_tau) const noexcept {
  kinematics(q);
  Vec6 base_acceleration;
  base_acceleration << Eigen::Vector3d::Zero(), -spec_.gravity;
  forward_pass(v, a, base_acceleration);
  for (int l : order_) {
    LinkState& s = state_[static_cast<std::size_t>(l)];
    const Vec6 momentum = s.inertia * s.velocity;
    s.force = s.inertia * s.acceleration + cross_force(s.velocity, momentum);
  }
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const LinkState& s = state_[static_cast<std::size_t>(*it)];
    const int k = link_coordinate_[static_cast<std::size_t>(*it)];
    for (int c = 0; c < s.dofs; ++c) out_tau(k + c) = s.motion_subspace.col(c).dot(s.force);
    const int p = parent_link_[static_cast<std::size_t>(*it)];
    if (p >= 0) state_[static_cast<std::size_t>(p)].force += s.force;
  }
}

void JointSpaceTree::forces(
    double /*t*/, VecCRef q, VecCRef v, InputValues u, VecRef out_f) const noexcept {
  // M v' = tau - (C v + g): the bias is inverse dynamics at zero acceleration (RBDA §5.1)
  newton_euler(q, v, nullptr, out_f);
  out_f = -out_f;
  for (std::size_t j = 0; j < spec_.joints.size(); ++j) {
    const int k = coordinate_[j];
    const TreeJointSpec& jt = spec_.joints[j];
    if (tree_joint_coordinates(jt.type) != 1) continue;  // the others have no damper or spring
    out_f(k) = out_f(k) - jt.damping * v(k) - jt.stiffness * (q(k) - jt.rest_position) + jt.effort;
  }
  add_spring_forces(out_f);
  add_input_forces(u, out_f);  // couplings and joint-force channels (joint_space_coupling.cpp)
}

void JointSpaceTree::link_pose(VecCRef q,
                               int link,
                               Eigen::Matrix3d& rotation,
                               Eigen::Vector3d& origin) const noexcept {
  kinematics(q);
  rotation = state_[static_cast<std::size_t>(link)].rotation;
  origin = state_[static_cast<std::size_t>(link)].origin;
}

Vec6 JointSpaceTree::spatial_momentum(VecCRef q, VecCRef v) const noexcept {
  kinematics(q);
  link_velocities(v);
  Vec6 h = Vec6::Zero();
  for (const LinkState& s : state_) h += s.inertia * s.velocity;
  return h;
}

Eigen::Vector3d JointSpaceTree::centre_of_mass(VecCRef q, double& total_mass) const noexcept {
  kinematics(q);
  Eigen::Vector3d moment = Eigen::Vector3d::Zero();
  total_mass = 0.0;
  for (std::size_t l = 0; l < state_.size(); ++l) {
    total_mass += spec_.links[l].mass;
    moment += spec_.links[l].mass * state_[l].com;
  }
  return total_mass > 0.0 ? Eigen::Vector3d(moment / total_mass) : Eigen::Vector3d::Zero();
}

double JointSpaceTree::energy(double /*t*/, VecCRef q, VecCRef v, InputValues u) const noexcept {
  kinematics(q);
  link_velocities(v);  // their accelerations are not needed, but cost only a cross product
  double kinetic = 0.0;
  double potential = 0.0;
  for (int l : order_) {
    const LinkState& s = state_[static_cast<std::size_t>(l)];
    kinetic += 0.5 * s.velocity.dot(s.inertia * s.velocity);  // RBDA eq. 2.67
    potential -= spec_.links[static_cast<std::size_t>(l)].mass * spec_.gravity.dot(s.com);
  }
  for (std::size_t j = 0; j < spec_.joints.size(); ++j) {
    const int k = coordinate_[j];
    const TreeJointSpec& jt = spec_.joints[j];
    if (tree_joint_coordinates(jt.type) != 1) continue;
    const double stretch = q(k) - jt.rest_position;
    potential += 0.5 * jt.stiffness * stretch * stretch - jt.effort * q(k);
  }
  for (const TreePointSpringSpec& sp : spec_.springs) {
    const double stretch =
        (point_world(sp.link_b, sp.point_b) - point_world(sp.link_a, sp.point_a)).norm() -
        sp.rest_length;
    potential += 0.5 * sp.stiffness * stretch * stretch;
  }
  return kinetic + potential + coupling_potential(u);
}

// ---- the articulated factorization of M(q) (issue 19) -----------------------------------------

namespace {

// MassFactor of a joint-space tree: the links' inertias and subspaces at q from the tree's
// kinematics (one memo with mass() and forces()), then ArticulatedSolve's O(n) passes.
class JointSpaceMassFactor final : public MassFactor {
 public:
  JointSpaceMassFactor(const JointSpaceTree& tree, std::unique_ptr<ArticulatedSolve> solve)
      : tree_(tree), solve_(std::move(solve)) {}
  bool factor(double /*t*/, VecCRef q) noexcept override {
    tree_.articulated_inputs(q, *solve_);
    return solve_->factor();
  }
  void solve(VecRef x) noexcept override { solve_->solve(x); }

 private:
  const JointSpaceTree& tree_;
  std::unique_ptr<ArticulatedSolve> solve_;
};

}  // namespace

std::unique_ptr<MassFactor> JointSpaceTree::mass_factor() const {
  return std::make_unique<JointSpaceMassFactor>(*this, articulated_solve());
}

std::unique_ptr<ArticulatedSolve> JointSpaceTree::articulated_solve() const {
  std::vector<int> dofs(spec_.links.size(), 0);
  for (std::size_t l = 0; l < spec_.links.size(); ++l) {
    const int j = parent_joint_[l];
    if (j >= 0) dofs[l] = tree_joint_coordinates(spec_.joints[static_cast<std::size_t>(j)].type);
  }
  return std::make_unique<ArticulatedSolve>(order_, parent_link_, link_coordinate_, std::move(dofs),
                                            n_v());
}

void JointSpaceTree::articulated_inputs(VecCRef q, ArticulatedSolve& out) const noexcept {
  kinematics(q);
  for (std::size_t l = 0; l < state_.size(); ++l) {
    ArticulatedSolve::Link& link = out.link(static_cast<int>(l));
    link.inertia = state_[l].inertia;
    link.motion_subspace = state_[l].motion_subspace;  // zero beyond dofs (kinematics)
  }
  if (floating_coordinate_.empty()) return;
  // a floating joint's block of M carries c e e^T besides S^T I^c S (mass() above), with c one
  // third of the trace of S_e^T I^c S_e over its four Euler-parameter columns: the composite
  // inertias as in mass(), O(n)
  accumulate_composite_inertias(state_, order_, parent_link_);
  for (int k : floating_coordinate_) {
    const int l = link_of_coordinate_[static_cast<std::size_t>(k)];
    const LinkState& s = state_[static_cast<std::size_t>(l)];
    double trace = 0.0;
    for (int c = 3; c < 7; ++c) {
      trace += s.motion_subspace.col(c).dot(s.composite * s.motion_subspace.col(c));
    }
    out.link(l).joint_inertia.bottomRightCorner<4, 4>() =
        (trace / 3.0) * s.quaternion * s.quaternion.transpose();
  }
}

}  // namespace rtmb
