// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// `rtmb sweep MODEL --set KEY=A:B:N --t-end T --out FILE`: a parameter sweep on Dask (issue 18).
// The sweep is Python (python/rtmb/sweeps.py, on pandas and dask.distributed), so this subcommand
// only replaces the process with `python3 -m rtmb.sweep_cli ARGS...` (no shell), with the build
// tree's python/ directory first on PYTHONPATH; that module parses the arguments and its --help
// explains them.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace rtmb::app {

struct SweepOptions {
  std::vector<std::string> args;  ///< everything after `sweep`, passed on unchanged
};

void add_sweep_command(CLI::App& app, SweepOptions& options, int* exit_code);

/// Executes the Python sweep with args; returns only when it could not be started (exit code 2,
/// after a message on stderr).
int run_sweep(const SweepOptions& options);

}  // namespace rtmb::app
