// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Which loop rates a served model can run at (issue 15, point 4). A tick runs a whole number k
// of engine steps of dt, so the rates are 1 / (k dt); the server rounds k, so before this check
// `rtmb serve pendulum --rate 2000` (dt 1 ms) silently ran at 1000 Hz. Not real-time code.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace rtmb::app {

/// Empty when rate_hz is 1 / (k dt) for a whole k >= 1 (within 1e-9 relative); else the reason,
/// naming the nearest valid rates.
[[nodiscard]] inline std::string rate_mismatch(double rate_hz, double dt) {
  if (!(rate_hz > 0.0) || !(dt > 0.0)) return {};
  const double k = 1.0 / (rate_hz * dt);  // steps per tick
  const double k_round = std::max(1.0, std::round(k));
  if (std::abs(1.0 / (k_round * dt) - rate_hz) <= 1e-9 * rate_hz) return {};
  // the valid rates on either side: 1 / (k dt) for the whole k around the asked one
  const double k_low = std::max(1.0, std::floor(k));
  const double k_high = std::max(1.0, std::ceil(k));
  char buf[256];
  if (k_low == k_high) {
    std::snprintf(buf, sizeof buf,
                  "--rate %g Hz cannot be run with the model's dt %g s (a tick is a whole number "
                  "of steps); the highest valid rate is %g Hz",
                  rate_hz, dt, 1.0 / (k_low * dt));
  } else {
    std::snprintf(buf, sizeof buf,
                  "--rate %g Hz cannot be run with the model's dt %g s (a tick is a whole number "
                  "of steps); the nearest valid rates are %g Hz and %g Hz",
                  rate_hz, dt, 1.0 / (k_high * dt), 1.0 / (k_low * dt));
  }
  return buf;
}

}  // namespace rtmb::app
