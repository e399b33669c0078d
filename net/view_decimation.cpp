// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "net/view_decimation.hpp"

#include <algorithm>
#include <cmath>

namespace rtmb {

int view_decimation(double timer_hz, double page_fps, int current) noexcept {
  if (!(std::isfinite(timer_hz) && timer_hz > 0.0 && std::isfinite(page_fps) && page_fps > 0.0)) {
    return current;
  }
  const double k = std::ceil(0.9 * timer_hz / page_fps);
  return static_cast<int>(std::clamp(k, 1.0, static_cast<double>(kMaxViewDecimation)));
}

}  // namespace rtmb
