// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// `rtmb latency`: emulates a device against `rtmb serve` (an in-process server on 127.0.0.1, or
// --connect HOST:PORT) and measures the input -> state round trip from the latency echo
// (docs/protocol.md), then, in the same run, the raw UDP ping-pong floor on loopback, so the
// engine's share of the round trip is visible. Table on stdout; --json adds one JSON object as
// the last line. The in-process server ticks at the device's --rate. --clock picks its clock
// mode (docs/architecture.md "Clock modes"); --compare measures every mode one after the other,
// then the floor, and prints one table. --device-cpu / --server-cpu place the two ends on CPUs of
// their own, the floor's two ends likewise, so that both round trips cross between the same two
// CPUs; --device-poll makes the device a polling servo loop, as a haptic device's own controller
// is.

#include <CLI/CLI.hpp>
#include <string>

#include "apps/rtmb/tls_client_options.hpp"

namespace rtmb::app {

struct LatencyOptions {
  std::string model = "pendulum";  ///< model of the in-process server
  std::string connect;             ///< HOST:PORT of a running server; empty: in-process server
  TlsClientArgs tls;               ///< --connect over TLS (--tls, --tls-ca, --tls-fingerprint)
  double rate_hz = 1000.0;         ///< inputs per second [Hz]
  double duration_s = 10.0;        ///< how long inputs are sent [s]
  std::string channel;             ///< input channel name or index; empty: the first one
  std::string impair;              ///< "delay=MS,jitter=MS,loss=P" (any subset); empty: none
  std::string clock = "wall";      ///< clock mode of the in-process server
  long input_margin_us = -1;       ///< phase-lock margin [us]; < 0: the server's default (30)
  double spin_us = 0.0;            ///< in-process server: wake this early and spin [us]
  bool compare = false;            ///< every clock mode in one invocation, then one table
  /// CPU placement (-1: the scheduler's choice): the emulated device, and the floor's pinger, on
  /// device_cpu; the in-process server's threads, and the floor's echo thread, on server_cpu
  int device_cpu = -1;
  int server_cpu = -1;
  /// the emulated device and the floor's pinger wait by polling, never sleeping (a servo loop on
  /// a core of its own); the floor's echo polls too when the server spins (spin_us > 0)
  bool device_poll = false;
  bool json = false;
};

void add_latency_command(CLI::App& app, LatencyOptions& options, int* exit_code);

int latency(const LatencyOptions& options);

}  // namespace rtmb::app
