// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "rtmb/adaptive_dopri5.hpp"
#include "rtmb/model.hpp"
#include "rtmb/models/mechanisms.hpp"

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
  std::string solver = "auto";  ///< KKT solver: auto | dense | sparse
  std::string csv;
  long every = 1;
  MechanismOptions mechanism;
  bool quiet = false;
  // implicit index-3 methods (gsssss, newmark, hht, wbz, genalpha, midpoint, ggl)
  bool stabilizer_given = false;  ///< --stabilizer on the command line (else none for implicit)
  std::string family = "v0";      ///< gsssss: u0 | v0
  double rho1 = 1.0;              ///< gsssss: spectral radii, 0 <= rho3 <= rho1 <= rho2 <= 1
  double rho2 = 1.0;
  double rho3 = 0.0;
  double rho_inf = 0.8;  ///< hht, wbz, genalpha
  int option = 2;        ///< constraint-force option 1..4 (Hoitink eq. 3.8-3.11)
  double newton_tolerance = 1e-8;
  int newton_max_iterations = 100;
  bool modified_newton = false;
  bool newton_strict = false;  ///< Hoitink's pure absolute increment test (no round-off floor)
  /// Options given on the command line (e.g. "--dt"): with a model file they override its
  /// settings, the others keep the file's values.
  std::vector<std::string> given;
};

/// Registers `run` on the app; the callback stores its exit code in *exit_code.
void add_run_command(CLI::App& app, RunOptions& options, int* exit_code);

/// Runs the offline job; prints progress on stderr, a summary and a final JSON line on stdout.
/// Returns the process exit code (0 ok, 2 bad input, 3 the integration failed).
int run_offline(const RunOptions& options);

}  // namespace rtmb::app
