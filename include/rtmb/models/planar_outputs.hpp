// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Output channels of planar body models (docs/model-format.md, "Output channels"): body poses
// and velocities, body points, joint coordinates, joint reaction forces, coupling forces, drift,
// energy and beam deflections. One PlanarOutputSpec is one or more scalar channels
// ("<name>.<component>").

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/outputs.hpp"

namespace rtmb {

enum class PlanarOutputType {
  kPose,           ///< body (x, y, theta) [m, m, rad]
  kVelocity,       ///< body (x', y', theta') [m/s, m/s, rad/s]
  kPointPosition,  ///< world (x, y) of a body point [m]
  kPointVelocity,  ///< its velocity (x', y') [m/s]
  kJointPosition,  ///< revolute: theta_j - theta_i [rad]; prismatic: slide along the axis [m]
  kJointVelocity,  ///< its rate [rad/s | m/s]
  kReaction,       ///< force the joint exerts on body_j (fx, fy, world) and its moment tz about
                   ///< the joint point [N, N, N m], from the multipliers at the streamed state
  kCouplingForce,  ///< force of a coupling element on its body (fx, fy, world) [N]
  kPositionDrift,  ///< ||g||inf [m | rad]
  kVelocityDrift,  ///< ||G v + g_t||inf [m/s | rad/s]
  kEnergy,         ///< T + V [J] (System::energy)
  /// The force a haptic device should render for coupling `element` (issue 7): the raw force
  /// on the device is minus the coupling force on the body, passed through a ForceOutputFilter
  /// with the element's `safety` once per evaluation (once per tick). Components: the filtered
  /// force (fx, fy) [N], the filter's flags (ForceOutputFlag bits, as a number), the passivity
  /// observer's energy [J] (> 0: the simulation has given the device net energy) and the
  /// controller's damping [N s/m]. Device position = the coupling target (the channels the
  /// device writes), velocity = its difference over the time between two evaluations.
  kHapticForce,
  /// Local linearization of coupling `element` for device-side rendering (issue 7): the
  /// coupling point's effective inverse mass W = J_p (M^-1 - M^-1 G^T (G M^-1 G^T)^-1 G M^-1)
  /// J_p^T (2x2, symmetric: xx, xy, yy) [1/kg] and the coupling's stiffness k [N/m] and
  /// damping c [N s/m]. W comes from two KKT solves K [x; mu] = [J_p^T e; 0], e = e_x, e_y.
  kCouplingLinearization,
  /// A beam body's elastic displacement at abscissa `station` of its axis, in its body frame:
  /// (u, v) = S(x) q_f, axial and transverse [m] (Chin 1995 eq. 3.57; the deflection of §5's
  /// deformable slider-crank is v at midspan).
  kBeamDeflection,
};

/// One named output.
struct PlanarOutputSpec {
  std::string name;
  PlanarOutputType type = PlanarOutputType::kPose;
  int body = kGround;                               ///< pose, velocity, point outputs
  Eigen::Vector2d point = Eigen::Vector2d::Zero();  ///< point outputs: body frame [m]; on a
                                                    ///< beam (x, 0), 0 <= x <= L
  double station = 0.0;                             ///< beam deflection: abscissa x [m]
  int joint = -1;                                   ///< joint outputs: index into joints
  int element = -1;                                 ///< coupling force: index into forces
  std::vector<std::string> units;                   ///< one per component
};

/// Number of scalar components of an output type (pose 3, point 2, joint 1, reaction 3, ...).
[[nodiscard]] int output_components(PlanarOutputType type) noexcept;
/// Component suffixes, e.g. {"x", "y", "theta"}; empty for single-component outputs.
[[nodiscard]] std::vector<std::string> output_suffixes(PlanarOutputType type);
/// Default units per component for an output of `type` on `spec` (joint kind decides rad or m).
[[nodiscard]] std::vector<std::string> default_output_units(const PlanarOutputSpec& out,
                                                            const PlanarModelSpec& spec);
/// The scalar channels (name, unit) in schema order: "<name>.<suffix>" or "<name>". Setup-only.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> output_channels(
    const std::vector<PlanarOutputSpec>& outputs);

/// Evaluates PlanarOutputSpecs on a PlanarMultibody. Reactions come from a KKT solve of its own
/// (Dynamics, no Baumgarte terms) at the streamed (t, q, v) with the workspace's applied force,
/// done only when a reaction output exists. Construction validates (std::invalid_argument) and
/// preallocates; evaluate() is allocation-free. kHapticForce outputs make the evaluator stateful
/// (the filter's engage state, last force, observed energy): evaluate() must be called once per
/// tick, in time order; a state time that does not advance (a reset to t = 0) resets the filter.
class PlanarOutputs final : public OutputEvaluator {
 public:
  PlanarOutputs(const PlanarMultibody& system, std::vector<PlanarOutputSpec> outputs);
  ~PlanarOutputs() override;

  [[nodiscard]] int count() const noexcept override { return count_; }
  void evaluate(const State& s, const Workspace& ws, std::span<double> out) noexcept override;

 private:
  struct Buffers;
  const PlanarMultibody& system_;
  std::vector<PlanarOutputSpec> outputs_;
  int count_ = 0;
  bool needs_kkt_ = false;  ///< a kCouplingLinearization output exists
  bool kkt_ok_ = false;     ///< the last KKT factorization succeeded
  bool needs_lambda_ = false;
  bool needs_drift_ = false;
  std::unique_ptr<Buffers> buf_;
};

}  // namespace rtmb
