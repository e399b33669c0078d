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
      // a time before the last one refills nothing and takes nothing back: arrival times are
      // kernel CLOCK_REALTIME stamps mapped to the loop's clock by an offset estimated once per
      // batch (net/input_receiver.cpp), so consecutive batches may step back by that estimate's
      // error (a CI run under load lost 3 of a 10-token burst when it was a single pair of reads)
      const std::int64_t elapsed = std::max<std::int64_t>(0, now_ns - last_ns);
      tokens = std::min(burst, tokens + static_cast<double>(elapsed) * 1e-9 * rate);
    }
    last_ns = std::max(last_ns, now_ns);
    if (tokens < 1.0) return false;
    tokens -= 1.0;
    return true;
  }
};

}  // namespace rtmb
