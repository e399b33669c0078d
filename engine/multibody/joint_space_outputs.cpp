// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Output channels of joint-space trees (include/rtmb/models/joint_space_outputs.hpp). Joint
// channels read the state directly (q is the joint coordinates); link channels are the tree's
// forward kinematics (JointSpaceTree::link_pose, point_position, point_velocity: a point x of a
// link moves at x' = v_O + w x x, RBDA eq. 2.28's point velocity of the link's spatial velocity);
// drift and energy are the System's own evaluations.
#include "rtmb/models/joint_space_outputs.hpp"

#include <Eigen/Geometry>
#include <array>
#include <stdexcept>

#include "engine/multibody/output_kinds.hpp"

namespace rtmb {

namespace {

// Component suffixes per JointSpaceOutputType, in declaration order (output_kinds.hpp).
constexpr std::array<std::string_view, 8> kSuffixes{
    "", "", "x y z", "vx vy vz", "x y z e0 e1 e2 e3", "", "", ""};
static_assert(static_cast<std::size_t>(JointSpaceOutputType::kEnergy) + 1 == kSuffixes.size());

}  // namespace

int output_components(JointSpaceOutputType type) noexcept {
  return detail::components_of(kSuffixes, type);
}

std::vector<std::string> output_suffixes(JointSpaceOutputType type) {
  return detail::suffixes_of(kSuffixes, type);
}

std::vector<std::string> default_output_units(JointSpaceOutputType type, bool prismatic) {
  switch (type) {
    case JointSpaceOutputType::kJointPosition:
      return {prismatic ? "m" : "rad"};
    case JointSpaceOutputType::kJointVelocity:
      return {prismatic ? "m/s" : "rad/s"};
    case JointSpaceOutputType::kPointPosition:
      return {"m", "m", "m"};
    case JointSpaceOutputType::kPointVelocity:
      return {"m/s", "m/s", "m/s"};
    case JointSpaceOutputType::kPose:
      return {"m", "m", "m", "1", "1", "1", "1"};
    case JointSpaceOutputType::kPositionDrift:
      return {"1"};  // rows mix metres, dot products and joint coordinates
    case JointSpaceOutputType::kVelocityDrift:
      return {"1/s"};
    case JointSpaceOutputType::kEnergy:
      return {"J"};
  }
  return {};
}

std::vector<std::pair<std::string, std::string>> output_channels(
    const std::vector<JointSpaceOutputSpec>& outputs) {
  return detail::scalar_channels(outputs);
}

JointSpaceOutputs::JointSpaceOutputs(const System& system,
                                     const JointSpaceTree& tree,
                                     std::vector<JointSpaceOutputSpec> outputs)
    : own_system_(system.for_simulation()),
      system_(own_system_ ? *own_system_ : system),
      own_tree_(tree.for_simulation()),
      tree_(dynamic_cast<const JointSpaceTree&>(*own_tree_)),
      outputs_(std::move(outputs)),
      g_(Vec::Zero(system.n_lambda())),
      G_(Mat::Zero(system.n_lambda(), system.n_v())) {
  const JointSpaceSpec& spec = tree.spec();
  const int n_links = static_cast<int>(spec.links.size());
  const int n_joints = static_cast<int>(spec.joints.size());
  for (JointSpaceOutputSpec& o : outputs_) {
    const std::string what = "output '" + o.name + "'";
    const bool joint_kind = o.type == JointSpaceOutputType::kJointPosition ||
                            o.type == JointSpaceOutputType::kJointVelocity;
    const bool link_kind = o.type == JointSpaceOutputType::kPointPosition ||
                           o.type == JointSpaceOutputType::kPointVelocity ||
                           o.type == JointSpaceOutputType::kPose;
    if (joint_kind && (o.joint < 0 || o.joint >= n_joints || tree.coordinate(o.joint) < 0)) {
      throw std::invalid_argument(what + ": needs a moving joint");
    }
    if (joint_kind &&
        tree_joint_coordinates(spec.joints[static_cast<std::size_t>(o.joint)].type) != 1) {
      throw std::invalid_argument(what + ": joint '" +
                                  spec.joints[static_cast<std::size_t>(o.joint)].name +
                                  "' is planar or floating: read its child link's pose instead");
    }
    if (link_kind && (o.link < 0 || o.link >= n_links)) {
      throw std::invalid_argument(what + ": needs a link");
    }
    if (o.units.empty()) {
      o.units = default_output_units(
          o.type, joint_kind && spec.joints[static_cast<std::size_t>(o.joint)].type ==
                                    TreeJointType::kPrismatic);
    }
    count_ += output_components(o.type);
  }
}

void JointSpaceOutputs::evaluate(const State& s,
                                 const Workspace& ws,
                                 std::span<double> out) noexcept {
  const InputValues u = input_values(ws);
  std::size_t k = 0;
  auto put3 = [&out, &k](const Eigen::Vector3d& x) {
    for (int c = 0; c < 3; ++c) out[k++] = x(c);
  };
  for (const JointSpaceOutputSpec& o : outputs_) {
    switch (o.type) {
      case JointSpaceOutputType::kJointPosition:
        out[k++] = s.q(tree_.coordinate(o.joint));
        break;
      case JointSpaceOutputType::kJointVelocity:
        out[k++] = s.v(tree_.coordinate(o.joint));
        break;
      case JointSpaceOutputType::kPointPosition:
        put3(tree_.point_position(s.q, o.link, o.point));
        break;
      case JointSpaceOutputType::kPointVelocity:
        put3(tree_.point_velocity(s.q, s.v, o.link, o.point));
        break;
      case JointSpaceOutputType::kPose: {
        Eigen::Matrix3d rotation;
        Eigen::Vector3d origin;
        tree_.link_pose(s.q, o.link, rotation, origin);
        put3(origin);
        Eigen::Quaterniond e(rotation);
        if (e.w() < 0.0) e.coeffs() = -e.coeffs();  // one sign: e0 >= 0
        out[k++] = e.w();
        out[k++] = e.x();
        out[k++] = e.y();
        out[k++] = e.z();
        break;
      }
      case JointSpaceOutputType::kPositionDrift:
        system_.constraints(s.t, s.q, g_);
        out[k++] = g_.size() > 0 ? g_.lpNorm<Eigen::Infinity>() : 0.0;
        break;
      case JointSpaceOutputType::kVelocityDrift:
        // scleronomic rows: g_t = 0, the velocity drift is G v
        system_.jacobian(s.t, s.q, G_);
        g_.noalias() = G_ * s.v;
        out[k++] = g_.size() > 0 ? g_.lpNorm<Eigen::Infinity>() : 0.0;
        break;
      case JointSpaceOutputType::kEnergy:
        out[k++] = system_.energy(s.t, s.q, s.v, u);
        break;
    }
  }
}

}  // namespace rtmb
