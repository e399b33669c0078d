// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The `report` control command of a device client (docs/protocol.md "Commands"; issue 20): the
// round trips it measured over an interval, which the server hands to the live view's round-trip
// chart. Sent by the `--demo` device and by `rtmb latency` once a second.

#include <string>
#include <vector>

namespace rtmb::app {

/// The `report` command line for the round trips of one interval [us], non-empty (reorders
/// them): p50 and p99 as the values at ranks floor(q (n - 1)), and the sample count.
std::string round_trip_report_line(std::vector<double>& rtt_us);

}  // namespace rtmb::app
