// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Safety of the force sent back to a haptic device (issue 7). A coupling force computed by the
// simulation at 1 kHz goes to a device a person holds; whatever the simulation does (a stiff
// contact, a large step, a stale input), the force that leaves must be bounded, smooth and
// passive. ForceOutputFilter applies, per output sample, in this order:
//
//  1. engage ramp: nothing is sent until the raw force has been small (|F| <= engage_force) once,
//     so a device that connects while the coupling is stretched is not kicked; from then on the
//     output is scaled by a ramp rising linearly from 0 to 1 over engage_ramp_s;
//  2. magnitude clamp: |F| <= max_force, direction kept (F scaled, not clipped per axis, so the
//     user feels the same direction);
//  3. rate limit: |F_k - F_{k-1}| <= max_rate * dt, the change scaled along its own direction;
//  4. passivity observer / controller (after Hannaford & Ryu, IEEE TRO 18(1) 2002, the
//     time-domain PO/PC). The observer integrates the energy the device port has received from
//     the force actually sent, exactly for a force held over each sample period (zero-order
//     hold): E_k = E_{k-1} + F_{k-1} . (p_k - p_{k-1}), with p the device position; E > 0 means
//     the simulation has delivered net energy (active). The controller predicts the next
//     period's work F_k . v_k dt and, when E_k + F_k . v_k dt + margin > 0, adds a damping force
//     -alpha v_k with alpha = (E_k + F_k . v_k dt + margin) / (|v_k|^2 dt), so that the coming
//     period dissipates the excess. alpha is capped at max_damping: a sampled damper above about
//     m_device / dt is itself unstable (measured: without the cap the controller blows a stiff
//     wall up; tests/engine/multibody/force_output_filter_test.cpp). The prediction uses v_k, so E
//     can rise above zero for a sample or two before the damping pulls it back; the margin keeps
//     the long-run total below zero;
//  5. the clamp again (the damping force must not push the output past max_force); the observer
//     always integrates the force actually sent.
// Every stage is optional and reported in ForceOutputFlags. Allocation-free, fixed size (up to 3
// components): usable on the simulation thread.

#include <Eigen/Core>
#include <cstdint>

namespace rtmb {

struct ForceSafetyConfig {
  double max_force = 0.0;         ///< clamp of |F| [N]; 0: off
  double max_rate = 0.0;          ///< limit of |dF/dt| [N/s]; 0: off
  double engage_force = 0.0;      ///< engage when |F_raw| <= this [N]; 0: engaged at once
  double engage_ramp_s = 0.0;     ///< ramp from 0 to full force after engaging [s]; 0: none
  bool passivity = false;         ///< passivity observer and controller on
  double max_damping = 0.0;       ///< cap of the controller's damping [N s/m], > 0 when passivity
  double passivity_margin = 0.0;  ///< energy the controller keeps in reserve [J], >= 0
};

enum class ForceOutputFlag : std::uint32_t {
  kWaiting = 1u << 0,      ///< not engaged yet: output zero
  kRamping = 1u << 1,      ///< engage ramp below 1
  kClamped = 1u << 2,      ///< the magnitude clamp acted
  kRateLimited = 1u << 3,  ///< the rate limit acted
  kDamping = 1u << 4,      ///< the passivity controller added damping
};

/// What the filter did to one sample.
struct ForceOutput {
  Eigen::Vector3d force = Eigen::Vector3d::Zero();  ///< force to send [N]
  std::uint32_t flags = 0;                          ///< OR of ForceOutputFlag
  double observed_energy = 0.0;  ///< E after this sample [J] (<= 0 with the controller on)
  double damping = 0.0;          ///< alpha of this sample [N s/m]
};

class ForceOutputFilter {
 public:
  explicit ForceOutputFilter(const ForceSafetyConfig& config = {});

  /// One sample: the raw coupling force on the device `raw` [N], the device position [m] and
  /// velocity [m/s] at this sample, and the sample period dt [s] > 0. The returned force is held
  /// until the next sample. RT-safe.
  ForceOutput filter(const Eigen::Vector3d& raw,
                     const Eigen::Vector3d& position,
                     const Eigen::Vector3d& velocity,
                     double dt) noexcept;

  /// Back to the state after construction (not engaged, E = 0, last force 0). RT-safe.
  void reset() noexcept;

  [[nodiscard]] const ForceSafetyConfig& config() const noexcept { return config_; }
  [[nodiscard]] double observed_energy() const noexcept { return energy_; }
  [[nodiscard]] bool engaged() const noexcept { return engaged_; }

 private:
  ForceSafetyConfig config_;
  bool engaged_ = false;
  double ramp_ = 0.0;  ///< engage ramp factor in [0, 1]
  double energy_ = 0.0;
  Eigen::Vector3d last_ = Eigen::Vector3d::Zero();      ///< last rate-limited force
  Eigen::Vector3d sent_ = Eigen::Vector3d::Zero();      ///< last force sent
  Eigen::Vector3d position_ = Eigen::Vector3d::Zero();  ///< device position at the last sample
  bool have_position_ = false;
};

}  // namespace rtmb
