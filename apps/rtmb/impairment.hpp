// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The network impairment `rtmb latency --impair` emulates on the device side (delay, jitter,
// loss; apps/rtmb/latency_measurement.cpp applies it) and its parser.

#include <string>

namespace rtmb::app {

/// Parsed --impair.
struct Impairment {
  double delay_ms = 0.0;   ///< mean extra delay [ms], >= 0
  double jitter_ms = 0.0;  ///< half-width of the uniform jitter [ms], >= 0
  double loss = 0.0;       ///< drop probability [-], in [0, 1]
  [[nodiscard]] bool active() const { return delay_ms > 0.0 || jitter_ms > 0.0 || loss > 0.0; }
};

/// Parses "delay=MS,jitter=MS,loss=P" (any subset, each key once). Throws std::invalid_argument.
Impairment parse_impairment(const std::string& text);

}  // namespace rtmb::app
