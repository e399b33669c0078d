// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb sweep` (apps/rtmb/sweep_command.hpp): hands its arguments to the Python sweep.
#include "apps/rtmb/sweep_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "apps/rtmb/run_program.hpp"

// Set by apps/CMakeLists.txt: the interpreter the rtmb module is built for, and the directory
// that holds the package in the build tree. An installed package (cmake --install into
// /usr/local) is found by that interpreter without PYTHONPATH.
#ifndef RTMB_SWEEP_PYTHON
#define RTMB_SWEEP_PYTHON "/usr/bin/python3"
#endif
#ifndef RTMB_SWEEP_PYTHONPATH
#define RTMB_SWEEP_PYTHONPATH ""
#endif

namespace rtmb::app {

void add_sweep_command(CLI::App& app, SweepOptions& o, int* exit_code) {
  CLI::App* sweep = app.add_subcommand(
      "sweep",
      "Parameter sweep on Dask: one offline run per parameter set, one CSV row each "
      "(python3 -m rtmb.sweep_cli; 'rtmb sweep --help' explains the options).");
  // every argument, --help included, is the Python module's to parse
  sweep->set_help_flag();
  sweep->prefix_command();
  sweep->allow_extras();
  sweep->callback([sweep, &o, exit_code] {
    o.args = sweep->remaining();
    *exit_code = run_sweep(o);
  });
}

int run_sweep(const SweepOptions& options) {
  std::string pythonpath = RTMB_SWEEP_PYTHONPATH;
  if (const char* old = std::getenv("PYTHONPATH"); old != nullptr && *old != '\0') {
    pythonpath = pythonpath.empty() ? old : pythonpath + ":" + old;
  }
  if (!pythonpath.empty() && ::setenv("PYTHONPATH", pythonpath.c_str(), 1) != 0) {
    std::fprintf(stderr, "rtmb sweep: cannot set PYTHONPATH: %s\n", std::strerror(errno));
    return 2;
  }
  std::vector<std::string> argv{RTMB_SWEEP_PYTHON, "-m", "rtmb.sweep_cli"};
  argv.insert(argv.end(), options.args.begin(), options.args.end());
  const std::vector<char*> args = c_argv(argv);
  // exec, not spawn: the sweep's stdout (the CSV with --out -), stderr (progress), signals
  // (Ctrl-C) and exit code are the command's own
  ::execv(args[0], args.data());
  std::fprintf(stderr,
               "rtmb sweep: cannot start %s: %s (the sweep needs Python 3 with the rtmb "
               "package, pandas and dask.distributed)\n",
               args[0], std::strerror(errno));
  return 2;
}

}  // namespace rtmb::app
