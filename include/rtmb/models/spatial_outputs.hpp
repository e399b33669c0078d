// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Output channels of spatial body models (issue 4; docs/model-format.md, "Spatial channels"):
// body position, orientation (Euler parameters), linear and angular velocity, a body point's
// position and velocity, a revolute joint's angle and rate, a coupling force, drift and energy.
// One SpatialOutputSpec is one or more scalar channels ("<name>.<component>").

#include <Eigen/Core>
#include <string>
#include <utility>
#include <vector>

#include "rtmb/models/spatial_multibody.hpp"
#include "rtmb/outputs.hpp"

namespace rtmb {

enum class SpatialOutputType {
  kPosition,         ///< centre of mass (x, y, z), world [m]
  kOrientation,      ///< Euler parameters (e0, e1, e2, e3) [-]
  kVelocity,         ///< centre-of-mass velocity (vx, vy, vz), world [m/s]
  kAngularVelocity,  ///< omega = 2 E(e) e' (wx, wy, wz), world [rad/s]
  kPointPosition,    ///< world (x, y, z) of a body point [m]
  kPointVelocity,    ///< its velocity (vx, vy, vz) [m/s]
  kJointPosition,    ///< revolute joint angle phi = atan2(h_i.f_j, f_i.f_j) [rad]
  kJointVelocity,    ///< its rate a_i.(omega_j - omega_i) [rad/s]
  kCouplingForce,    ///< force of a coupling element on its body (fx, fy, fz), world [N]
  kPositionDrift,    ///< ||g||inf (joints and normalization rows)
  kVelocityDrift,    ///< ||G v||inf
  kEnergy,           ///< T + V [J] (SpatialMultibody::energy)
};

struct SpatialOutputSpec {
  std::string name;
  SpatialOutputType type = SpatialOutputType::kPosition;
  int body = kGround;                               ///< body and point outputs
  Eigen::Vector3d point = Eigen::Vector3d::Zero();  ///< point outputs: body frame [m]
  int joint = -1;                                   ///< joint outputs: a revolute joint
  int element = -1;                                 ///< coupling force: a kCoupling element
  std::vector<std::string> units;                   ///< one per component
};

/// Number of scalar components of an output type.
[[nodiscard]] int output_components(SpatialOutputType type) noexcept;
/// Component suffixes, e.g. {"x", "y", "z"}; empty for single-component outputs.
[[nodiscard]] std::vector<std::string> output_suffixes(SpatialOutputType type);
/// Default units per component.
[[nodiscard]] std::vector<std::string> default_output_units(SpatialOutputType type);
/// The scalar channels (name, unit) in schema order. Setup-only.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> output_channels(
    const std::vector<SpatialOutputSpec>& outputs);

/// Evaluates SpatialOutputSpecs on a SpatialMultibody. Construction validates
/// (std::invalid_argument) and preallocates; evaluate() is allocation-free.
class SpatialOutputs final : public OutputEvaluator {
 public:
  SpatialOutputs(const SpatialMultibody& system, std::vector<SpatialOutputSpec> outputs);

  [[nodiscard]] int count() const noexcept override { return count_; }
  void evaluate(const State& s, const Workspace& ws, std::span<double> out) noexcept override;

 private:
  const SpatialMultibody& system_;
  std::vector<SpatialOutputSpec> outputs_;
  int count_ = 0;
  Vec g_;
  Mat G_;
};

}  // namespace rtmb
