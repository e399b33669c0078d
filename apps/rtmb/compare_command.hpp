// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace rtmb::app {

/// Options of `rtmb compare`.
struct CompareOptions {
  std::string model;
  std::string methods;  ///< comma-separated METHOD:STABILIZER pairs; empty: the default set
  double t_end = 0.0;   ///< 0: the mechanism's default
  double dt = 0.0;      ///< 0: the mechanism's default
  std::string out = "compare-out";
};

/// Registers `compare` on the app; the callback stores its exit code in *exit_code.
void add_compare_command(CLI::App& app, CompareOptions& options, int* exit_code);

/// Runs every combination, writes compare.md, compare.csv, drift.png and energy.png (gnuplot)
/// into options.out. Returns 0, 2 (bad input) or 4 (plots could not be made).
int run_compare(const CompareOptions& options);

}  // namespace rtmb::app
