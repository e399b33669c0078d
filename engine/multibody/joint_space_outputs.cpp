// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Output channels of joint-space trees (include/rtmb/models/joint_space_outputs.hpp). Joint
// channels read the state directly (q is the joint coordinates); link channels are the tree's
// forward kinematics (JointSpaceTree::link_pose, point_position, point_velocity: a point x of a
// link moves at x' = v_O + w x x, RBDA eq. 2.28's point velocity of the link's spatial velocity);
// drift and energy are the System's own evaluations. Coupling outputs (issue 19 acceptance 6)
// are the planar models' in 3D (engine/multibody/planar_outputs.cpp): the force
// JointSpaceTree::coupling_force, the haptic force through the coupling's ForceOutputFilter, and
// the effective inverse mass W = J_p X of the coupling point, X the velocity part of the KKT
// solves K [X; mu] = [J_p^T; 0] (block elimination: X = (M^-1 - M^-1 G^T S^-1 G M^-1) J_p^T,
// S = G M^-1 G^T), J_p = JointSpaceTree::coupling_jacobian. Without constraint rows W =
// J_p M^-1 J_p^T, the inverse of the point's operational-space inertia Lambda (Khatib, IEEE J.
// Robotics and Automation 3(1) 1987).
#include "rtmb/models/joint_space_outputs.hpp"

#include <Eigen/Geometry>
#include <array>
#include <limits>
#include <optional>
#include <stdexcept>

#include "engine/kkt/kkt_backend.hpp"
#include "engine/multibody/haptic_output_track.hpp"
#include "engine/multibody/output_kinds.hpp"
#include "rtmb/models/force_output_filter.hpp"

namespace rtmb {

namespace {

// Component suffixes per JointSpaceOutputType, in declaration order (output_kinds.hpp).
constexpr std::array<std::string_view, 11> kJointSpaceSuffixes{
    "",
    "",
    "x y z",
    "vx vy vz",
    "x y z e0 e1 e2 e3",
    "",
    "",
    "",
    "fx fy fz",
    "fx fy fz flags energy damping",
    "w_xx w_xy w_xz w_yy w_yz w_zz stiffness damping"};
static_assert(static_cast<std::size_t>(JointSpaceOutputType::kCouplingLinearization) + 1 ==
              kJointSpaceSuffixes.size());

}  // namespace

int output_components(JointSpaceOutputType type) noexcept {
  return detail::components_of(kJointSpaceSuffixes, type);
}

std::vector<std::string> output_suffixes(JointSpaceOutputType type) {
  return detail::suffixes_of(kJointSpaceSuffixes, type);
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
    case JointSpaceOutputType::kCouplingForce:
      return {"N", "N", "N"};
    case JointSpaceOutputType::kHapticForce:
      return {"N", "N", "N", "1", "J", "N*s/m"};
    case JointSpaceOutputType::kCouplingLinearization:
      return {"1/kg", "1/kg", "1/kg", "1/kg", "1/kg", "1/kg", "N/m", "N*s/m"};
  }
  return {};
}

std::vector<std::pair<std::string, std::string>> output_channels(
    const std::vector<JointSpaceOutputSpec>& outputs) {
  return detail::scalar_channels(outputs);
}

// Scratch of the coupling outputs, sized once.
struct JointSpaceOutputs::Coupling {
  // per output spec (index into outputs_): the haptic filter and its last sample
  std::vector<std::optional<detail::HapticOutputTrack>> haptic;
  std::optional<KktBackend> kkt;  // linearization: K [x; mu] = [J_p^T e; 0]
  Mat jacobian;                   // J_p, 3 x n_v
  Vec rhs;
  Vec zero_lambda;
  Vec x;
  Vec mu;
};

JointSpaceOutputs::~JointSpaceOutputs() = default;

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
    if (is_coupling_output(o.type) &&
        (o.element < 0 || o.element >= static_cast<int>(spec.couplings.size()))) {
      throw std::invalid_argument(what + ": needs a coupling");
    }
    if (o.units.empty()) {
      o.units = default_output_units(
          o.type, joint_kind && spec.joints[static_cast<std::size_t>(o.joint)].type ==
                                    TreeJointType::kPrismatic);
    }
    count_ += output_components(o.type);
  }
  coupling_ = std::make_unique<Coupling>();
  Coupling& c = *coupling_;
  c.haptic.resize(outputs_.size());
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    const JointSpaceOutputSpec& o = outputs_[i];
    if (o.type == JointSpaceOutputType::kCouplingLinearization && !c.kkt) {
      c.kkt.emplace(system_, KktSolver::kDense);
      c.jacobian = Mat::Zero(3, system.n_v());
      c.rhs = Vec::Zero(system.n_v());
      c.x = Vec::Zero(system.n_v());
      c.zero_lambda = Vec::Zero(system.n_lambda());
      c.mu = Vec::Zero(system.n_lambda());
    }
    if (o.type != JointSpaceOutputType::kHapticForce) continue;
    const TreeCouplingSpec& e = spec.couplings[static_cast<std::size_t>(o.element)];
    try {
      c.haptic[i].emplace(detail::HapticOutputTrack{ForceOutputFilter(e.safety)});
    } catch (const std::invalid_argument& err) {
      throw std::invalid_argument("output '" + o.name + "': coupling '" + e.name +
                                  "': " + err.what());
    }
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
  bool kkt_loaded = false;
  bool kkt_ok = false;
  for (std::size_t i_out = 0; i_out < outputs_.size(); ++i_out) {
    const JointSpaceOutputSpec& o = outputs_[i_out];
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
      case JointSpaceOutputType::kCouplingForce:
        put3(tree_.coupling_force(static_cast<std::size_t>(o.element), s.q, s.v, u));
        break;
      case JointSpaceOutputType::kHapticForce: {
        const auto e = static_cast<std::size_t>(o.element);
        const ForceOutput f = coupling_->haptic[i_out]->update(
            s.t, tree_.coupling_force(e, s.q, s.v, u), tree_.coupling_target(e, u));
        put3(f.force);
        out[k++] = static_cast<double>(f.flags);
        out[k++] = f.observed_energy;
        out[k++] = f.damping;
        break;
      }
      case JointSpaceOutputType::kCouplingLinearization: {
        Coupling& c = *coupling_;
        const auto e = static_cast<std::size_t>(o.element);
        if (!kkt_loaded) {
          c.kkt->load(s.t, s.q);
          kkt_ok = c.kkt->factor();
          kkt_loaded = true;
        }
        tree_.coupling_jacobian(e, s.q, c.jacobian);
        Eigen::Matrix3d w;
        for (int col = 0; col < 3; ++col) {
          c.rhs = c.jacobian.row(col).transpose();
          c.kkt->solve(c.rhs, c.zero_lambda, c.x, c.mu);
          for (int row = 0; row < 3; ++row) w(row, col) = c.jacobian.row(row).dot(c.x);
        }
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const TreeCouplingSpec& spec = tree_.spec().couplings[e];
        for (int row = 0; row < 3; ++row) {
          for (int col = row; col < 3; ++col) {
            out[k++] = kkt_ok ? 0.5 * (w(row, col) + w(col, row)) : nan;
          }
        }
        out[k++] = spec.stiffness;
        out[k++] = spec.damping;
        break;
      }
    }
  }
}

}  // namespace rtmb
