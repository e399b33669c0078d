// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Virtual couplings and named input channels of a joint-space tree
// (rtmb/models/joint_space_tree.hpp; issue 19 acceptance 6: a haptic device coupled to the WAM's
// end effector). Featherstone, Rigid Body Dynamics Algorithms (Springer 2008), is cited as
// "RBDA"; the spatial conventions are those of joint_space_tree.cpp.
//
// A coupling pulls the world point p(q) of a link towards the target p* with the force
// F = -k (p - p*) - c p' (engine/multibody/virtual_coupling.hpp, the planar models' coupling).
// By virtual work its generalized force is tau = J_p(q)^T F, J_p = dp/dq: a point fixed in link i
// moves at p' = v_O + w x p with (w, v_O) = sum_k S_k q'_k over the coordinates k on the path
// from the world to i (RBDA eq. 5.7), so column k of J_p is S_k,lin + S_k,ang x p, zero for the
// coordinates off that path. tau is accumulated up the path from the link to the world, O(depth)
// and allocation-free (JointSpaceTree::add_point_jacobian, the closures' point rows). The spring
// part is conservative with potential k |p(q) - p*|^2 / 2 (energy()), so tau_spring =
// -dV/dq, which tests/engine/multibody/joint_space_coupling_test.cpp checks by central differences.
// The implicit methods differentiate forces() by finite differences (System::force_jacobians'
// documented fallback, as for the rest of the tree's forces), so the coupling needs nothing there.
//
// Named channels (System::n_inputs, docs/model-format.md "URDF robots"): a joint-force channel
// adds its value (clamped to +-limit when limit > 0) to its coordinate's generalized force; a
// coupling channel replaces one axis of the coupling's target.

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/multibody/virtual_coupling.hpp"
#include "rtmb/models/joint_space_tree.hpp"

namespace rtmb {
namespace {

using Vec3 = Eigen::Vector3d;

[[noreturn]] void refuse_coupling(const std::string& what) {
  throw std::invalid_argument("joint-space tree: " + what);
}

}  // namespace

void JointSpaceTree::validate_inputs() {
  const int n_links = static_cast<int>(spec_.links.size());
  const int n_couplings = static_cast<int>(spec_.couplings.size());
  for (const TreeCouplingSpec& c : spec_.couplings) {
    const std::string who = "coupling '" + c.name + "': ";
    if (c.link < 0 || c.link >= n_links) refuse_coupling(who + "link out of range");
    if (!c.point.allFinite() || !c.target.allFinite()) {
      refuse_coupling(who + "point and target must be finite");
    }
    if (!(c.stiffness >= 0.0) || !(c.damping >= 0.0) || !std::isfinite(c.stiffness) ||
        !std::isfinite(c.damping)) {
      refuse_coupling(who + "stiffness and damping must be finite and >= 0");
    }
  }
  target_channel_.assign(spec_.couplings.size(), {-1, -1, -1});
  for (std::size_t i = 0; i < spec_.inputs.size(); ++i) {
    const TreeInputSpec& in = spec_.inputs[i];
    const std::string who = "input '" + in.name + "': ";
    if (!std::isfinite(in.initial)) refuse_coupling(who + "initial value must be finite");
    if (in.type == TreeInputType::kJointForce) {
      const bool joint_ok =
          in.joint >= 0 && in.joint < static_cast<int>(spec_.joints.size()) &&
          tree_joint_coordinates(spec_.joints[static_cast<std::size_t>(in.joint)].type) == 1;
      if (!joint_ok) refuse_coupling(who + "needs a revolute or prismatic joint");
      if (!(in.limit >= 0.0) || !std::isfinite(in.limit))
        refuse_coupling(who + "limit must be >= 0");
      continue;
    }
    if (in.element < 0 || in.element >= n_couplings) refuse_coupling(who + "needs a coupling");
    const auto axis = static_cast<std::size_t>(static_cast<int>(in.type) -
                                               static_cast<int>(TreeInputType::kCouplingX));
    int& slot = target_channel_[static_cast<std::size_t>(in.element)][axis];
    if (slot >= 0) {
      refuse_coupling(who + "the same target axis as input '" +
                      spec_.inputs[static_cast<std::size_t>(slot)].name + "'");
    }
    slot = static_cast<int>(i);
  }
}

Vec3 JointSpaceTree::coupling_target(std::size_t k, InputValues u) const noexcept {
  Vec3 target = spec_.couplings[k].target;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const int c = target_channel_[k][axis];
    if (c >= 0) target(static_cast<Eigen::Index>(axis)) = input(u, static_cast<std::size_t>(c));
  }
  return target;
}

Vec3 JointSpaceTree::coupling_force(std::size_t k,
                                    VecCRef q,
                                    VecCRef v,
                                    InputValues u) const noexcept {
  const TreeCouplingSpec& c = spec_.couplings[k];
  kinematics(q);
  link_velocities(v);
  const Attachment at = point_attachment(c.link, c.point);
  return detail::virtual_coupling_force<Vec3>(c.stiffness, c.damping, at.value,
                                              coupling_target(k, u), at.rate);
}

void JointSpaceTree::coupling_jacobian(std::size_t k, VecCRef q, MatRef out_J) const noexcept {
  const TreeCouplingSpec& c = spec_.couplings[k];
  kinematics(q);
  out_J.setZero();
  const Vec3 p = point_world(c.link, c.point);
  for (int r = 0; r < 3; ++r) add_point_jacobian(c.link, p, Vec3::Unit(r), out_J.row(r));
}

void JointSpaceTree::add_input_forces(InputValues u, VecRef out_f) const noexcept {
  for (std::size_t k = 0; k < spec_.couplings.size(); ++k) {
    const TreeCouplingSpec& c = spec_.couplings[k];
    const Attachment at = point_attachment(c.link, c.point);  // link velocities: forces()' RNEA
    const Vec3 f = detail::virtual_coupling_force<Vec3>(c.stiffness, c.damping, at.value,
                                                        coupling_target(k, u), at.rate);
    add_point_jacobian(c.link, at.value, f, out_f.transpose());  // tau += J_p^T F
  }
  for (std::size_t i = 0; i < spec_.inputs.size(); ++i) {
    const TreeInputSpec& in = spec_.inputs[i];
    if (in.type != TreeInputType::kJointForce) continue;
    double value = input(u, i);
    if (in.limit > 0.0) value = std::clamp(value, -in.limit, in.limit);
    out_f(coordinate_[static_cast<std::size_t>(in.joint)]) += value;
  }
}

double JointSpaceTree::coupling_potential(InputValues u) const noexcept {
  double potential = 0.0;
  for (std::size_t k = 0; k < spec_.couplings.size(); ++k) {
    const TreeCouplingSpec& c = spec_.couplings[k];
    potential +=
        0.5 * c.stiffness * (point_world(c.link, c.point) - coupling_target(k, u)).squaredNorm();
  }
  return potential;
}

}  // namespace rtmb
