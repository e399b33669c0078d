// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "apps/rtmb/gen_command.hpp"

#include <cstdio>

#include "apps/rtmb/subcommand.hpp"
#include "rtmb/models/chain_models.hpp"

namespace rtmb::app {

void add_gen_command(CLI::App& app, GenOptions& o, int* exit_code) {
  CLI::App* gen = app.add_subcommand("gen", "Generate model files for scaling studies (stdout).");
  CLI::App* chain = add_subcommand(
      *gen, "chain",
      "Planar chain of N uniform links (0.5 m, 1 kg) on revolute joints under gravity, hung from "
      "the origin in a zigzag; --loop pins the tip where it starts.",
      exit_code, [&o] { return generate_chain(o); });
  chain->add_option("--n", o.links, "Number of links N")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  chain->add_flag("--loop", o.loop, "Pin the tip to the ground (closed loop, N >= 3)");
  chain->add_flag("--spatial", o.spatial,
                  "Spatial bodies (dimension: spatial) on spherical joints, zigzagging out of "
                  "the vertical plane");
  CLI::App* beam = add_subcommand(
      *gen, "beam",
      "Simply supported planar beam of N elements (10 m; particles with trusses and bending "
      "elements, each end pinned by two rods), moving in its first mode, no gravity.",
      exit_code, [&o] { return generate_beam(o); });
  beam->add_option("--n", o.elements, "Number of elements N (N + 1 particles)")
      ->capture_default_str()
      ->check(CLI::Range(2, 100000));
  gen->require_subcommand(1);
}

int generate_chain(const GenOptions& o) {
  if (o.loop && o.links < 3) {
    std::fprintf(stderr, "rtmb gen chain: --loop needs --n >= 3 (got %d)\n", o.links);
    return 2;
  }
  std::fputs(chain_model_yaml(o.links, o.loop, o.spatial).c_str(), stdout);
  return 0;
}

int generate_beam(const GenOptions& o) {
  std::fputs(beam_model_yaml(o.elements).c_str(), stdout);
  return 0;
}

}  // namespace rtmb::app
