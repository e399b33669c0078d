// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Output channels of joint-space trees (issue 19; docs/model-format.md, "URDF robots"), named in
// the robot's own words: a joint's position and velocity by joint name, a link point's world
// position and velocity and a link frame's pose by link name, the constraint drift of the loop
// closures, and the energy. One JointSpaceOutputSpec is one or more scalar channels
// ("<name>.<component>").

#include <Eigen/Core>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/outputs.hpp"

namespace rtmb {

enum class JointSpaceOutputType {
  kJointPosition,  ///< q of a moving joint [rad | m]
  kJointVelocity,  ///< q' [rad/s | m/s]
  kPointPosition,  ///< world (x, y, z) of a point of a link [m]
  kPointVelocity,  ///< its velocity (vx, vy, vz) [m/s]
  kPose,           ///< the link frame: origin (x, y, z) [m] and unit quaternion (e0, e1, e2, e3)
  kPositionDrift,  ///< ||g||inf of the closures' rows
  kVelocityDrift,  ///< ||G v||inf
  kEnergy,         ///< T + V [J] (JointSpaceTree::energy)
};

struct JointSpaceOutputSpec {
  std::string name;
  JointSpaceOutputType type = JointSpaceOutputType::kJointPosition;
  int joint = -1;                                   ///< joint outputs: index into spec.joints
  int link = -1;                                    ///< link outputs: index into spec.links
  Eigen::Vector3d point = Eigen::Vector3d::Zero();  ///< point outputs: link frame [m]
  std::vector<std::string> units;                   ///< one per component
};

/// Number of scalar components of an output type.
[[nodiscard]] int output_components(JointSpaceOutputType type) noexcept;
/// Component suffixes, e.g. {"x", "y", "z"}; empty for single-component outputs.
[[nodiscard]] std::vector<std::string> output_suffixes(JointSpaceOutputType type);
/// Default units per component (a joint's by its type: rad or m).
[[nodiscard]] std::vector<std::string> default_output_units(JointSpaceOutputType type,
                                                            bool prismatic = false);
/// The scalar channels (name, unit) in schema order. Setup-only.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> output_channels(
    const std::vector<JointSpaceOutputSpec>& outputs);

/// Evaluates JointSpaceOutputSpecs on a JointSpaceTree; drift and energy on `system` (the tree,
/// or the tree with its redundant rows removed). Construction validates (std::invalid_argument)
/// and makes the evaluator's own instance of the tree (its kinematics scratch), so evaluate()
/// writes nothing shared and allocates nothing.
class JointSpaceOutputs final : public OutputEvaluator {
 public:
  JointSpaceOutputs(const System& system,
                    const JointSpaceTree& tree,
                    std::vector<JointSpaceOutputSpec> outputs);

  [[nodiscard]] int count() const noexcept override { return count_; }
  void evaluate(const State& s, const Workspace& ws, std::span<double> out) noexcept override;

 private:
  std::unique_ptr<const System> own_system_;  // the System's per-simulation instance, or null
  const System& system_;
  std::unique_ptr<const System> own_tree_;
  const JointSpaceTree& tree_;
  std::vector<JointSpaceOutputSpec> outputs_;
  int count_ = 0;
  Vec g_;
  Mat G_;
};

}  // namespace rtmb
