// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb: command-line front end. Subcommands live in their own files (run_command.cpp, ...).
#include <CLI/CLI.hpp>
#include <cstdio>

#include "apps/rtmb/compare_command.hpp"
#include "apps/rtmb/gen_command.hpp"
#include "apps/rtmb/haptic_sim_command.hpp"
#include "apps/rtmb/latency_command.hpp"
#include "apps/rtmb/replay_command.hpp"
#include "apps/rtmb/run_command.hpp"
#include "apps/rtmb/serve_command.hpp"

namespace {

/// The options of one subcommand. The parser binds them by reference, so they live as long as
/// the program (one per options type).
template <class Options>
Options& options_of() {
  static Options options;
  return options;
}

/// Registers every subcommand `add(app, its options, exit_code)`.
template <class... Options>
void add_commands(CLI::App& app, int* exit_code, void (*... add)(CLI::App&, Options&, int*)) {
  (add(app, options_of<Options>(), exit_code), ...);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "rtmb - real-time constrained multibody engine.\n"
      "Simulates q' = v, M(q) v' = f - G(q)^T lambda, g(q) = 0 with drift stabilization."};
  app.set_version_flag("--version", "rtmb 0.1.0");
  app.require_subcommand(1);
  app.failure_message(CLI::FailureMessage::help);

  int exit_code = 0;
  using namespace rtmb::app;
  add_commands(app, &exit_code, &add_run_command, &add_serve_command, &add_latency_command,
               &add_compare_command, &add_gen_command, &add_replay_command,
               &add_haptic_sim_command);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return exit_code;
}
