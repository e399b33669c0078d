// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Triangular force pulse (engine/multibody/pulse_element.hpp): with s = (t - start)/duration the
// shape is 1 - |2 s - 1| on (0, 1) and 0 elsewhere.
#include "engine/multibody/pulse_element.hpp"

#include <cmath>

namespace rtmb {

Eigen::Vector3d PulseElement::force(double t) const noexcept {
  const double s = (t - start) / duration;
  if (!(s > 0.0 && s < 1.0)) return Eigen::Vector3d::Zero();
  return (1.0 - std::fabs(2.0 * s - 1.0)) * peak;
}

}  // namespace rtmb
