// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal: the state a `haptic_force` output keeps between ticks (issue 7; the planar and the
// joint-space output evaluators both use it). Not installed.
//
// Each tick the device position is the coupling's target p*; its velocity is the difference of
// two ticks' targets over their time step, and the force the device renders is minus the
// coupling's force on its body (Newton's third law on the spring), passed through the coupling's
// ForceOutputFilter (rtmb/models/force_output_filter.hpp). A state time that does not advance is
// a new run (SimulationRunner reset): the filter starts over.

#include <Eigen/Core>

#include "rtmb/models/force_output_filter.hpp"

namespace rtmb::detail {

struct HapticOutputTrack {
  ForceOutputFilter filter;
  double last_t = 0.0;
  Eigen::Vector3d last_target = Eigen::Vector3d::Zero();
  bool have_last = false;

  /// The filtered force for the state time t, the coupling's force on its body and its target
  /// (planar models pass z = 0). RT-safe.
  ForceOutput update(double t,
                     const Eigen::Vector3d& coupling_force,
                     const Eigen::Vector3d& target) noexcept {
    if (have_last && !(t > last_t)) {
      filter.reset();
      have_last = false;
    }
    const double dt = have_last ? t - last_t : 0.0;
    const Eigen::Vector3d velocity =
        dt > 0.0 ? Eigen::Vector3d((target - last_target) / dt) : Eigen::Vector3d::Zero();
    const ForceOutput f = filter.filter(-coupling_force, target, velocity, dt);
    last_t = t;
    last_target = target;
    have_last = true;
    return f;
  }
};

}  // namespace rtmb::detail
