// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// `rtmb serve`: the real-time server (rtmb::Server) on a model file or a built-in mechanism until
// Ctrl-C or --duration, with a status line on stderr about once a second and a closing report on
// stdout. --demo adds a local device emulator (apps/rtmb/demo_client.hpp): what `make run` does.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace rtmb::app {

struct ServeOptions {
  std::string model;        ///< model file (.yaml) or built-in name; empty: configs/default.yaml
  double rate_hz = 0.0;     ///< 0: the model's 1/dt
  double dt = 0.0;          ///< engine step [s]; 0: the model's
  double duration_s = 0.0;  ///< 0: until interrupted
  std::string bind = "127.0.0.1";
  int port = 0;  ///< TCP control port, and the UDP port when non-zero; 0: chosen by the OS
  std::string token;
  std::string tls_cert;   ///< TLS on the control channel: certificate chain (PEM); empty: plain
  std::string tls_key;    ///< and its private key (PEM)
  std::string models;     ///< `load` reads model files only under this folder; empty: the served
                          ///< file's folder (none for a built-in)
  bool insecure = false;  ///< allow a non-loopback --bind without --token (warned every minute)
  bool paused = false;
  bool demo = false;             ///< run the local demo client against the server
  int priority = 80;             ///< SCHED_FIFO priority of the simulation thread (0: leave it)
  int cpu = -1;                  ///< pin the simulation thread to this CPU (-1: do not)
  double spin_us = 0.0;          ///< wake this early and spin to each deadline [us]
  std::string overrun = "skip";  ///< skip | catchup | degrade | halt
  int halt_after = 3;            ///< halt: consecutive overruns
  int view_port = -1;            ///< live browser view on this HTTP port (0: any); -1: off
  std::string web_dir;           ///< the view's page files; empty: the build tree's web/
  double view_rate_hz = 60.0;    ///< the view's frames per second (ViewConfig::frame_rate_hz)
  std::string record;            ///< record inputs and the state hash into this file; empty: off
  std::string solver;            ///< KKT solver auto | dense | sparse; empty: the model file's
  /// wall | phase-lock | device; empty: the model file's serve.clock, else phase-lock with
  /// --demo and wall without
  std::string clock;
  int input_margin_us = -1;  ///< phase-lock's input -> tick wait [us]; -1: the model file's, 30
};

void add_serve_command(CLI::App& app, ServeOptions& options, int* exit_code);

int serve(const ServeOptions& options);

}  // namespace rtmb::app
