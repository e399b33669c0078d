// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// `rtmb gen chain --n N [--loop]`: writes a model file (docs/model-format.md, bodies and joints)
// of a planar N-link chain to stdout, for scaling studies: `rtmb gen chain --n 100 > chain.yaml`.

#include <CLI/CLI.hpp>
#include <string>

namespace rtmb::app {

struct GenOptions {
  int links = 10;        ///< N, number of links
  bool loop = false;     ///< pin the tip to the ground (closed loop)
  bool spatial = false;  ///< spatial bodies on spherical joints (dimension: spatial)
};

void add_gen_command(CLI::App& app, GenOptions& options, int* exit_code);

/// Writes the chain's model file to stdout. Returns the exit code (0, or 2 for bad options).
int generate_chain(const GenOptions& options);

}  // namespace rtmb::app
