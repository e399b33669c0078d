// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// `rtmb replay FILE`: re-runs a record of `rtmb serve --record FILE` offline and checks that the
// state history is reproduced bit for bit (docs/record-format.md). Exit 0: identical; 1: the
// states differ (or entries were lost while recording); 2: the file or model cannot be used; 3:
// the file was cut (a crash) and every checkpoint before the cut is identical.

#include <CLI/CLI.hpp>
#include <string>

namespace rtmb::app {

struct ReplayOptions {
  std::string file;
  bool quiet = false;  ///< no progress line
};

void add_replay_command(CLI::App& app, ReplayOptions& options, int* exit_code);

int replay_record(const ReplayOptions& options);

}  // namespace rtmb::app
