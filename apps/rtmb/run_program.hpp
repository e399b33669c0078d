// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Runs an external program (gnuplot for `rtmb compare`) without a shell (issue 15): the program
// is found on PATH by posix_spawnp and gets its arguments as a vector, so that no byte of a path
// or a name the user gave is ever parsed by /bin/sh. The child's stdin is /dev/null and its
// stdout goes to our stderr, so our stdout stays the command's own report.

#include <filesystem>
#include <string>
#include <vector>

namespace rtmb::app {

/// argv as the NUL-terminated array of pointers that exec and posix_spawn take; the pointers
/// point into argv, which must outlive them.
[[nodiscard]] std::vector<char*> c_argv(std::vector<std::string>& argv);

/// Starts argv[0] (looked up on PATH) with the arguments argv in working directory cwd and waits
/// for it. Returns its exit status, or -1 when it could not be started (not installed, cwd
/// missing) or ended by a signal. Setup-only: forks a process.
int run_program(std::vector<std::string> argv, const std::filesystem::path& cwd);

}  // namespace rtmb::app
