// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Output channels of joint-space trees (issue 19; docs/model-format.md, "URDF robots"), named in
// the robot's own words: a joint's position and velocity by joint name, a link point's world
// position and velocity and a link frame's pose by link name, the constraint drift of the loop
// closures, the energy, and a coupling's force, the force a haptic device renders and the
// coupling's linearization (as the planar models', rtmb/models/planar_outputs.hpp). One
// JointSpaceOutputSpec is one or more scalar channels
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
  kCouplingForce,  ///< force F of coupling `element` on its link (fx, fy, fz), world [N]
  /// The force a haptic device renders for coupling `element` (PlanarOutputType::kHapticForce
  /// in 3D): -F through a ForceOutputFilter with the coupling's safety, once per evaluation.
  /// Components: the filtered force (fx, fy, fz) [N], the filter's flags, the passivity
  /// observer's energy [J] and the controller's damping [N s/m]. Device position = the target,
  /// velocity = its difference over the time between two evaluations.
  kHapticForce,
  /// The coupling point's effective inverse mass W = J_p (M^-1 - M^-1 G^T (G M^-1 G^T)^-1 G
  /// M^-1) J_p^T (3x3, symmetric: xx, xy, xz, yy, yz, zz) [1/kg] from three KKT solves
  /// K [x; mu] = [J_p^T e; 0], and the coupling's k [N/m] and c [N s/m].
  kCouplingLinearization,
};

/// The kinds that read a coupling (JointSpaceOutputSpec::element).
[[nodiscard]] constexpr bool is_coupling_output(JointSpaceOutputType type) noexcept {
  return type == JointSpaceOutputType::kCouplingForce ||
         type == JointSpaceOutputType::kHapticForce ||
         type == JointSpaceOutputType::kCouplingLinearization;
}

struct JointSpaceOutputSpec {
  std::string name;
  JointSpaceOutputType type = JointSpaceOutputType::kJointPosition;
  int joint = -1;                                   ///< joint outputs: index into spec.joints
  int link = -1;                                    ///< link outputs: index into spec.links
  Eigen::Vector3d point = Eigen::Vector3d::Zero();  ///< point outputs: link frame [m]
  int element = -1;                                 ///< coupling outputs: index into couplings
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
/// writes nothing shared and allocates nothing. kHapticForce outputs make the evaluator stateful
/// (the filter's state): evaluate() once per tick, in time order; a state time that does not
/// advance (a reset to t = 0) resets the filter.
class JointSpaceOutputs final : public OutputEvaluator {
 public:
  JointSpaceOutputs(const System& system,
                    const JointSpaceTree& tree,
                    std::vector<JointSpaceOutputSpec> outputs);
  ~JointSpaceOutputs() override;

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
  struct Coupling;  // the haptic filters and the linearization's KKT solve (when needed)
  std::unique_ptr<Coupling> coupling_;
};

}  // namespace rtmb
