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

#include "rtmb/models/joint_space_tree.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/multibody/spatial_vector_algebra.hpp"

namespace rtmb {
namespace {

using spatial::cross_force;
using spatial::cross_motion;
using spatial::Mat6;
using spatial::skew;
using spatial::Vec6;

[[noreturn]] void refuse(const std::string& what) {
  throw std::invalid_argument("joint-space tree: " + what);
}

}  // namespace

int joint_space_coordinates(const JointSpaceSpec& spec) noexcept {
  int n = 0;
  for (const TreeJointSpec& j : spec.joints) n += j.type == TreeJointType::kFixed ? 0 : 1;
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
    parent_joint_[c] = static_cast<int>(j);
    parent_link_[c] = jt.parent;
    if (jt.type != TreeJointType::kFixed) {
      const double norm = jt.axis.norm();
      if (!(norm > 0.0)) refuse(who + "axis must be non-zero");
      unit_axis_[j] = jt.axis / norm;
      link_coordinate_[c] = k;
      coordinate_[j] = k++;
      link_of_coordinate_.push_back(jt.child);
    } else {
      unit_axis_[j] = Eigen::Vector3d::UnitZ();
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
  state_.resize(static_cast<std::size_t>(n_links));
  kinematics_q_ = Vec::Zero(n_q());
  validate_closures();
}

std::unique_ptr<const System> JointSpaceTree::for_simulation() const {
  return std::make_unique<JointSpaceTree>(spec_);
}

// World pose, motion subspace and spatial inertia of every link at q (RBDA §4.4 joint models,
// composed along the tree from the world).
void JointSpaceTree::kinematics(VecCRef q) const noexcept {
  // bit-equal q (a NaN never compares equal, so it is recomputed): state_ holds it already
  if (kinematics_valid_ && (q.array() == kinematics_q_.array()).all()) return;
  kinematics_q_ = q;
  kinematics_valid_ = true;
  for (int l : order_) {
    LinkState& s = state_[static_cast<std::size_t>(l)];
    const int j = parent_joint_[static_cast<std::size_t>(l)];
    const int p = parent_link_[static_cast<std::size_t>(l)];
    s.motion_subspace.setZero();
    if (j < 0) {
      s.rotation.setIdentity();
      s.origin.setZero();
    } else {
      const TreeJointSpec& jt = spec_.joints[static_cast<std::size_t>(j)];
      Eigen::Matrix3d parent_rotation = Eigen::Matrix3d::Identity();
      Eigen::Vector3d parent_origin = Eigen::Vector3d::Zero();
      if (p >= 0) {
        parent_rotation = state_[static_cast<std::size_t>(p)].rotation;
        parent_origin = state_[static_cast<std::size_t>(p)].origin;
      }
      const Eigen::Matrix3d joint_rotation = parent_rotation * jt.origin_rotation;
      const Eigen::Vector3d joint_origin = parent_origin + parent_rotation * jt.origin_xyz;
      const Eigen::Vector3d& axis = unit_axis_[static_cast<std::size_t>(j)];
      const Eigen::Vector3d a = joint_rotation * axis;
      const int k = coordinate_[static_cast<std::size_t>(j)];
      switch (jt.type) {
        case TreeJointType::kRevolute:
          s.rotation = joint_rotation * Eigen::AngleAxisd(q(k), axis).toRotationMatrix();
          s.origin = joint_origin;
          s.motion_subspace << a, joint_origin.cross(a);
          break;
        case TreeJointType::kPrismatic:
          s.rotation = joint_rotation;
          s.origin = joint_origin + a * q(k);
          s.motion_subspace << Eigen::Vector3d::Zero(), a;
          break;
        case TreeJointType::kFixed:
          s.rotation = joint_rotation;
          s.origin = joint_origin;
          break;
      }
    }
    const TreeLinkSpec& link = spec_.links[static_cast<std::size_t>(l)];
    s.com = s.origin + s.rotation * link.com;
    const Eigen::Matrix3d cx = skew(s.com);
    // RBDA eq. 2.63 at the world origin
    s.inertia.topLeftCorner<3, 3>() =
        s.rotation * link.inertia * s.rotation.transpose() + link.mass * cx * cx.transpose();
    s.inertia.topRightCorner<3, 3>() = link.mass * cx;
    s.inertia.bottomLeftCorner<3, 3>() = link.mass * cx.transpose();
    s.inertia.bottomRightCorner<3, 3>() = link.mass * Eigen::Matrix3d::Identity();
  }
}

// Composite-rigid-body algorithm, RBDA Table 6.2 in base coordinates (all X = 1):
//   I^c_i = I_i + sum over children I^c_c                      (RBDA eq. 6.11)
//   H_ii = S_i^T I^c_i S_i,  H_ij = H_ji = S_j^T I^c_i S_i for j an ancestor of i (eq. 6.12),
//   and H_ij = 0 when neither is an ancestor of the other.
void JointSpaceTree::mass(double /*t*/, VecCRef q, MatRef out_M) const noexcept {
  kinematics(q);
  for (LinkState& s : state_) s.composite = s.inertia;
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const int p = parent_link_[static_cast<std::size_t>(*it)];
    if (p >= 0) {
      state_[static_cast<std::size_t>(p)].composite +=
          state_[static_cast<std::size_t>(*it)].composite;
    }
  }
  out_M.setZero();
  for (int i = 0; i < n_v(); ++i) {
    const int li = link_of_coordinate_[static_cast<std::size_t>(i)];
    const LinkState& si = state_[static_cast<std::size_t>(li)];
    const Vec6 f = si.composite * si.motion_subspace;
    out_M(i, i) = si.motion_subspace.dot(f);
    for (int l = parent_link_[static_cast<std::size_t>(li)]; l >= 0;
         l = parent_link_[static_cast<std::size_t>(l)]) {
      const int j = link_coordinate_[static_cast<std::size_t>(l)];
      if (j < 0) continue;
      out_M(i, j) = state_[static_cast<std::size_t>(l)].motion_subspace.dot(f);
      out_M(j, i) = out_M(i, j);
    }
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
      const Vec6 joint_velocity = s.motion_subspace * v(k);
      s.velocity += joint_velocity;
      if (a != nullptr) {
        s.acceleration += s.motion_subspace * (*a)(k) + cross_motion(s.velocity, joint_velocity);
      } else {
        s.acceleration += cross_motion(s.velocity, joint_velocity);
      }
    }
  }
}

void JointSpaceTree::inverse_dynamics(VecCRef q,
                                      VecCRef v,
                                      VecCRef a,
                                      VecRef out_tau) const noexcept {
  kinematics(q);
  Vec6 base_acceleration;
  base_acceleration << Eigen::Vector3d::Zero(), -spec_.gravity;
  forward_pass(v, &a, base_acceleration);
  for (int l : order_) {
    LinkState& s = state_[static_cast<std::size_t>(l)];
    const Vec6 momentum = s.inertia * s.velocity;
    s.force = s.inertia * s.acceleration + cross_force(s.velocity, momentum);
  }
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const LinkState& s = state_[static_cast<std::size_t>(*it)];
    const int k = link_coordinate_[static_cast<std::size_t>(*it)];
    if (k >= 0) out_tau(k) = s.motion_subspace.dot(s.force);
    const int p = parent_link_[static_cast<std::size_t>(*it)];
    if (p >= 0) state_[static_cast<std::size_t>(p)].force += s.force;
  }
}

void JointSpaceTree::forces(
    double /*t*/, VecCRef q, VecCRef v, InputValues /*u*/, VecRef out_f) const noexcept {
  // M v' = tau - (C v + g): the bias is inverse dynamics at zero acceleration (RBDA §5.1). out_f
  // serves as the zero acceleration too: the forward pass reads it before the backward pass
  // writes the torques.
  out_f.setZero();
  inverse_dynamics(q, v, out_f, out_f);
  for (std::size_t j = 0; j < spec_.joints.size(); ++j) {
    const int k = coordinate_[j];
    if (k < 0) continue;
    const TreeJointSpec& jt = spec_.joints[j];
    out_f(k) = -out_f(k) - jt.damping * v(k) - jt.stiffness * (q(k) - jt.rest_position) + jt.effort;
  }
  add_spring_forces(out_f);
}

void JointSpaceTree::link_pose(VecCRef q,
                               int link,
                               Eigen::Matrix3d& rotation,
                               Eigen::Vector3d& origin) const noexcept {
  kinematics(q);
  rotation = state_[static_cast<std::size_t>(link)].rotation;
  origin = state_[static_cast<std::size_t>(link)].origin;
}

double JointSpaceTree::energy(double /*t*/,
                              VecCRef q,
                              VecCRef v,
                              InputValues /*u*/) const noexcept {
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
    if (k < 0) continue;
    const TreeJointSpec& jt = spec_.joints[j];
    const double stretch = q(k) - jt.rest_position;
    potential += 0.5 * jt.stiffness * stretch * stretch - jt.effort * q(k);
  }
  for (const TreePointSpringSpec& sp : spec_.springs) {
    const double stretch =
        (point_world(sp.link_b, sp.point_b) - point_world(sp.link_a, sp.point_a)).norm() -
        sp.rest_length;
    potential += 0.5 * sp.stiffness * stretch * stretch;
  }
  return kinetic + potential;
}

}  // namespace rtmb
