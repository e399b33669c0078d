// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Registering an rtmb subcommand: its name, its one-paragraph description for --help, and what it
// runs (not real-time code).

#include <CLI/CLI.hpp>
#include <string>

#include "apps/rtmb/number_checks.hpp"

namespace rtmb::app {

/// Adds subcommand `name` to app; when it is given, run() runs after parsing and its result is
/// stored in *exit_code. Returns the subcommand, for its options.
template <class Run>
CLI::App* add_subcommand(CLI::App& app,
                         const std::string& name,
                         const std::string& description,
                         int* exit_code,
                         Run run) {
  CLI::App* cmd = app.add_subcommand(name, description);
  cmd->callback([exit_code, run] { *exit_code = run(); });
  return cmd;
}

}  // namespace rtmb::app
