// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "rtmb/adaptive.hpp"
#include "rtmb/mechanisms.hpp"
#include "rtmb/model.hpp"

namespace rtmb::app {

/// Options of `rtmb run`.
struct RunOptions {
  std::string model;
  std::string method = "rk4";
  std::string stabilizer = "pstab";
  double gamma1 = 0.0;
  double gamma2 = 0.0;
  double dt = 0.0;     ///< 0: the mechanism's default
  double t_end = 0.0;  ///< 0: the mechanism's default
  double rtol = 1e-6;
  double atol = 0.0;  ///< 0: rtol/10
  double datol = 0.0;
  double projection_tolerance = 1e-12;
  int projection_max_iterations = 20;
  bool correction_mass_weighted = false;
  std::string csv;
  long every = 1;
  MechanismOptions mechanism;
  bool quiet = false;
};

/// Registers `run` on the app; the callback stores its exit code in *exit_code.
void add_run_command(CLI::App& app, RunOptions& options, int* exit_code);

/// Runs the offline job; prints progress on stderr, a summary and a final JSON line on stdout.
/// Returns the process exit code (0 ok, 2 bad input, 3 the integration failed).
int run_offline(const RunOptions& options);

}  // namespace rtmb::app
