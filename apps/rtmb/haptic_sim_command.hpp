// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// `rtmb haptic-sim`: emulates a haptic device against `rtmb serve` (an in-process server on
// 127.0.0.1 for a model file, or --connect HOST:PORT) and reports what its user would feel:
// force smoothness and passivity (issue 7). The device is a point mass in the plane integrated at
// --inner-hz (>= 10 kHz) in emulated time, pushed by a hand (a spring-damper to a hand position
// that moves from the start to --press and oscillates there) and by the force the server
// streams, held between samples. At every device sample (--rate, >= 1 kHz) the device sends its
// position to the coupling target channels and takes the newest streamed force.
//
// Both sides run on the wall clock: on a loaded machine samples go without a new state (counted,
// "stale") and the force is held longer, which costs passivity margin; the deterministic check of
// the same loop is tests/engine/multibody/planar_outputs_haptic_coupling_test.cpp
// (HapticVirtualWall).
//
// Reports: samples, states received, max |dF| per sample [N], RMS of dF/dt [N/s], the work the
// rendered force did on the device [J] (exact for the held force: sum F_k . (x_{k+1} - x_k); > 0
// means the simulation returned energy), the server's passivity observer [J], the furthest the
// device went along the press direction. Exit 0 for a good run, 1 for a broken one (no force
// stream, a non-finite value, the device leaving 1 m of its start, or work above --max-work),
// 2 for bad arguments or a connection failure.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "apps/rtmb/tls_client_options.hpp"

namespace rtmb::app {

struct HapticSimOptions {
  std::string model;                      ///< model file of the in-process server
  std::string connect;                    ///< HOST:PORT of a running server; empty: in-process
  TlsClientArgs tls;                      ///< --connect over TLS (--tls, --tls-ca, ...)
  double rate_hz = 1000.0;                ///< device samples per second [Hz]
  double inner_hz = 10000.0;              ///< device integration rate [Hz], a multiple of rate_hz
  double duration_s = 10.0;               ///< emulated contact time [s]
  double device_mass = 0.1;               ///< [kg]
  double hand_stiffness = 300.0;          ///< [N/m]
  double hand_damping = 3.0;              ///< [N s/m]
  std::vector<double> start{-0.02, 0.0};  ///< device and hand start [m]
  std::vector<double> press{0.01, 0.0};   ///< mean hand position after the approach [m]
  double approach_s = 0.5;                ///< hand moves start -> press in this time [s]
  double amplitude = 0.005;               ///< hand oscillation along the press direction [m]
  double frequency = 2.0;                 ///< [Hz]
  std::string force = "device";           ///< haptic_force output name
  std::string x_channel = "target_x";     ///< input channel of the device x
  std::string y_channel = "target_y";     ///< input channel of the device y ("" : none)
  double max_work = 1e-3;                 ///< broken run above this work on the device [J]
  bool json = false;
  std::string record;  ///< in-process server: record the session (rtmb serve --record)
};

void add_haptic_sim_command(CLI::App& app, HapticSimOptions& options, int* exit_code);

int haptic_sim(const HapticSimOptions& options);

}  // namespace rtmb::app
