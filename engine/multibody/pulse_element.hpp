// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Triangular force pulse on a point (issue 17; Hoitink 2011 §4.2.2, the thin beam is "initially at
// rest, with a triangular force pulse applied over the first 0.5 seconds", reference
// gsssss-hoitink2011.md §4.3). The force has a fixed direction and grows linearly from zero at
// `start` to `peak` at start + duration/2, then falls linearly back to zero at start + duration:
//     F(t) = peak (1 - |2 (t - start)/duration - 1|)  on [start, start + duration],  0 elsewhere.
// A symmetric triangle is continuous in t (no jump at either end), so a second-order method keeps
// its order through the pulse (only the two kinks at the apex and the end are non-smooth). The
// impulse is peak duration / 2. It depends on time only: no potential, no position Jacobian.
// RT-safe.

#include <Eigen/Core>

namespace rtmb {

struct PulseElement {
  Eigen::Vector3d peak = Eigen::Vector3d::Zero();  ///< force at the apex [N]
  double start = 0.0;                              ///< [s]
  double duration = 1.0;                           ///< [s], > 0

  /// F(t) [N].
  [[nodiscard]] Eigen::Vector3d force(double t) const noexcept;
};

}  // namespace rtmb
