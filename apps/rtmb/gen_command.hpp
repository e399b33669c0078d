// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// `rtmb gen chain --n N [--loop]`: writes a model file (docs/model-format.md, bodies and joints)
// of a planar N-link chain to stdout, for scaling studies: `rtmb gen chain --n 100 > chain.yaml`;
// `rtmb gen beam --n N` the particle beam of N elements (chain_models.hpp).

#include <CLI/CLI.hpp>
#include <string>

namespace rtmb::app {

struct GenOptions {
  int links = 10;        ///< N, number of links
  bool loop = false;     ///< pin the tip to the ground (closed loop)
  bool spatial = false;  ///< spatial bodies on spherical joints (dimension: spatial)
  int elements = 200;    ///< beam: number of elements N
};

void add_gen_command(CLI::App& app, GenOptions& options, int* exit_code);

/// Writes the chain's model file to stdout. Returns the exit code (0, or 2 for bad options).
int generate_chain(const GenOptions& options);

/// Writes the beam's model file (`rtmb gen beam --n N`) to stdout. Returns the exit code (0).
int generate_beam(const GenOptions& options);

}  // namespace rtmb::app
