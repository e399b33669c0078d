// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb: command-line front end. Subcommands live in their own files (run_command.cpp, ...).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/rtmb/compare_command.hpp"
#include "apps/rtmb/gen_command.hpp"
#include "apps/rtmb/haptic_sim_command.hpp"
#include "apps/rtmb/latency_command.hpp"
#include "apps/rtmb/number_checks.hpp"
#include "apps/rtmb/replay_command.hpp"
#include "apps/rtmb/run_command.hpp"
#include "apps/rtmb/serve_command.hpp"
#include "apps/rtmb/sweep_command.hpp"

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

/// Levenshtein distance between a and b (insertions, deletions and substitutions cost 1).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

/// When the first argument is neither an option nor a subcommand: the one-line reason, naming
/// the nearest subcommand by edit distance. Empty when the first argument is fine. CLI11 itself
/// would only say "A subcommand is required", which hides the typo.
std::string unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return {};
  const std::string given = argv[1];
  std::string nearest;
  std::size_t best = std::string::npos;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == given) return {};
    const std::size_t d = edit_distance(given, sub->get_name());
    if (d < best) {
      best = d;
      nearest = sub->get_name();
    }
  }
  return "unknown subcommand '" + given + "' (did you mean " + nearest + "?)";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "rtmb - real-time constrained multibody engine.\n"
      "Simulates q' = v, M(q) v' = f - G(q)^T lambda, g(q) = 0 with drift stabilization."};
  app.set_version_flag("--version", "rtmb 0.1.0");
  app.require_subcommand(1);

  int exit_code = 0;
  using namespace rtmb::app;
  add_commands(app, &exit_code, &add_run_command, &add_serve_command, &add_latency_command,
               &add_compare_command, &add_gen_command, &add_replay_command, &add_haptic_sim_command,
               &add_sweep_command);

  rtmb::app::check_finite_numbers(app);

  // bad input exits 2 with a one-line reason (README "Exit codes"), not CLI11's own codes
  // (105, 106, 109, ...) and not the whole help text; --help and --version still exit 0
  if (const std::string why = unknown_subcommand(app, argc, argv); !why.empty()) {
    std::fprintf(stderr, "rtmb: %s; 'rtmb --help' lists them\n", why.c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "rtmb: %s; 'rtmb --help' or 'rtmb COMMAND --help' lists the options\n",
                 e.what());
    return 2;
  }
  return exit_code;
}
