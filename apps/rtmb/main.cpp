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

int main(int argc, char** argv) {
  CLI::App app{
      "rtmb - real-time constrained multibody engine.\n"
      "Simulates q' = v, M(q) v' = f - G(q)^T lambda, g(q) = 0 with drift stabilization."};
  app.set_version_flag("--version", "rtmb 0.1.0");
  app.require_subcommand(1);
  app.failure_message(CLI::FailureMessage::help);

  int exit_code = 0;
  rtmb::app::RunOptions run_options;
  rtmb::app::add_run_command(app, run_options, &exit_code);
  rtmb::app::ServeOptions serve_options;
  rtmb::app::add_serve_command(app, serve_options, &exit_code);
  rtmb::app::LatencyOptions latency_options;
  rtmb::app::add_latency_command(app, latency_options, &exit_code);
  rtmb::app::CompareOptions compare_options;
  rtmb::app::add_compare_command(app, compare_options, &exit_code);
  rtmb::app::GenOptions gen_options;
  rtmb::app::add_gen_command(app, gen_options, &exit_code);
  rtmb::app::ReplayOptions replay_options;
  rtmb::app::add_replay_command(app, replay_options, &exit_code);
  rtmb::app::HapticSimOptions haptic_sim_options;
  rtmb::app::add_haptic_sim_command(app, haptic_sim_options, &exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return exit_code;
}
