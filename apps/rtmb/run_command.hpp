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
  /// The options that are Settings fields as they are (gamma1, gamma2, datol, projection_*,
  /// correction_mass_weighted, implicit.rho*, option, newton_*, modified_newton), bound to them
  /// directly; their defaults are Settings' own.
  Settings settings;
  std::string method = "rk4";
  std::string stabilizer = "pstab";
  double dt = 0.0;     ///< 0: the mechanism's default
  double t_end = 0.0;  ///< 0: the mechanism's default
  double rtol = 1e-6;
  double atol = 0.0;            ///< 0: rtol/10
  std::string solver = "auto";  ///< KKT solver: auto | dense | sparse
  /// svf: ggt_inverse | gt
  std::string svf_variant = "ggt_inverse";
  std::string csv;
  long every = 1;
  MechanismOptions mechanism;
  bool quiet = false;
  // implicit index-3 methods (gsssss, newmark, hht, wbz, genalpha, midpoint, ggl)
  bool stabilizer_given = false;  ///< --stabilizer on the command line (else none for implicit)
  std::string family = "v0";      ///< gsssss: u0 | v0
  bool newton_strict = false;     ///< Hoitink's pure absolute increment test (no round-off floor)
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
