// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The two measurements of `rtmb latency` (apps/rtmb/latency_command.hpp): the engine round trip
// of an emulated device against a server, and the raw UDP ping-pong floor on loopback.

#include <cstddef>
#include <cstdint>
#include <string>

#include "apps/rtmb/app_common.hpp"
#include "apps/rtmb/impairment.hpp"
#include "rtmb/net/client.hpp"

namespace rtmb::app {

using RttSummary = Percentiles;  // round trips [us]

/// What the engine run measured.
struct EngineResult {
  std::uint64_t sent = 0;        ///< inputs the device created (dropped by --impair included)
  std::uint64_t echoed = 0;      ///< inputs named by at least one echo
  std::uint64_t reordered = 0;   ///< state datagrams rejected as out of order or duplicate
  std::uint64_t state_gaps = 0;  ///< state sequence numbers skipped (lost state datagrams)
  std::uint64_t states = 0;      ///< state datagrams accepted
  /// Inputs the --impair emulation dropped (each input is dropped at most once, on its way to
  /// the server; the state stream is not impaired).
  std::uint64_t impair_dropped = 0;
  RttSummary rtt;  ///< input -> state, the emulated delay included
  /// rtt less each input's own emulated delay: the engine's and the loopback's share, what the
  /// floor compares with (issue 15: the delay was counted as the engine's)
  RttSummary engine_rtt;
};

/// The emulated device: sends inputs to `channel` at rate_hz for duration_s, through the
/// impairment, while a thread reads the state stream of `client` (said hello, subscribed).
/// device_poll: the device waits by polling, never sleeping (latency_measurement.cpp, "Busy
/// polling").
EngineResult run_engine(Client& client,
                        const std::string& host,
                        std::uint16_t channel,
                        double rate_hz,
                        double duration_s,
                        const Impairment& imp,
                        bool device_poll = false);

/// The raw floor: `count` UDP ping-pongs at rate_hz on loopback with datagrams of `size` bytes.
/// The pinger is the calling thread; echo_cpu >= 0 pins the echo thread to that CPU (throws
/// std::runtime_error when it cannot be pinned). pinger_poll / echo_poll: that end waits by
/// polling, never sleeping.
RttSummary run_floor(double rate_hz,
                     std::uint64_t count,
                     std::size_t size,
                     int echo_cpu = -1,
                     bool pinger_poll = false,
                     bool echo_poll = false);

}  // namespace rtmb::app
