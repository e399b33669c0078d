// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <algorithm>
#include <cstdint>

namespace rtmb {

// A token bucket: up to `burst` events at once, `rate` per second on average.
struct TokenBucket {
  double tokens = 0.0;
  std::int64_t last_ns = 0;
  bool started = false;

  bool take(double rate, double burst, std::int64_t now_ns) noexcept {
    if (!started) {
      started = true;
      tokens = burst;
    } else {
      tokens = std::min(burst, tokens + static_cast<double>(now_ns - last_ns) * 1e-9 * rate);
    }
    last_ns = now_ns;
    if (tokens < 1.0) return false;
    tokens -= 1.0;
    return true;
  }
};

}  // namespace rtmb
