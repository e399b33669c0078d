// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "rtmb/system.hpp"

#include <limits>

namespace rtmb {

void System::constraint_rate(double /*t*/, VecCRef /*q*/, VecRef out_gt) const noexcept {
  out_gt.setZero();
}

double System::energy(double /*t*/, VecCRef /*q*/, VecCRef /*v*/) const noexcept {
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace rtmb
