// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb gen chain`: the generated model file loads, runs with its loop closed and conserves
// energy (no damping in the chain), planar and spatial (--spatial), and bad options are refused;
// `rtmb gen beam`: the particle beam loads and runs on the sparse path with its pins held.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <utility>

#include "tests/support/run_binary.hpp"
#include "tests/support/text_files.hpp"

namespace {

using rtmb::testing::CommandResult;
using rtmb::testing::json_number;
using rtmb::testing::run_rtmb;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// `rtmb gen MODEL ARGS > path`; with `text`, reads the file back into it.
void generate(const std::string& args,
              const std::string& path,
              std::string* text = nullptr,
              const std::string& model = "chain") {
  const CommandResult r = run_rtmb("gen " + model + " " + args + " > " + path);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  if (text == nullptr) return;
  *text = rtmb::testing::read_text(path);
  ASSERT_FALSE(text->empty()) << path;
}

/// `rtmb run` of a generated chain for t_end seconds: it ends well with the constraints kept
/// (position drift <= 1e-10) and the energy kept to `energy_tolerance` (relative: no damping).
CommandResult run_generated(const std::string& path, const char* t_end, double energy_tolerance) {
  const CommandResult r = run_rtmb("run " + path + " --t-end " + t_end + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_LE(json_number(r.last_line, "max_position_drift"), 1e-10);
  const double e0 = json_number(r.last_line, "energy_start");
  EXPECT_LE(std::abs(json_number(r.last_line, "energy_end") - e0), energy_tolerance * std::abs(e0));
  return r;
}

/// `rtmb gen chain ARGS --n 12 --loop` into `file`: the text has `expected` occurrences of each
/// given line part, and `rtmb run` keeps the loop closed and the energy (0.5 s, 500 steps) under
/// the model name `model`. Returns the run's summary line.
std::string check_closed_chain(const std::string& args,
                               const std::string& file,
                               std::initializer_list<std::pair<const char*, std::size_t>> expected,
                               const std::string& model) {
  const std::string path = ::testing::TempDir() + file;
  std::string text;
  generate(args + " --n 12 --loop", path, &text);
  for (const auto& [part, n] : expected) EXPECT_EQ(count(text, part), n) << part;
  const CommandResult r = run_generated(path, "0.5", 1e-5);
  EXPECT_NE(r.last_line.find("\"model\":\"" + model + "\""), std::string::npos) << r.last_line;
  EXPECT_EQ(json_number(r.last_line, "steps"), 500);
  return r.last_line;
}

TEST(GenCommand, ClosedChainRunsWithItsLoopClosedAndConservesEnergy) {
  // 12 pivots + the tip pin
  (void)check_closed_chain("", "rtmb_gen_chain_loop.yaml",
                           {{"{name: link", 12u}, {"type: revolute", 13u}}, "chain_loop_12");
}

TEST(GenCommand, OpenChainRuns) {
  const std::string path = ::testing::TempDir() + "rtmb_gen_chain_open.yaml";
  generate("--n 20", path);
  (void)run_generated(path, "0.2", 1e-7);
}

TEST(GenCommand, BadOptionsAreRefused) {
  for (const char* dimension : {"", " --spatial"}) {
    const CommandResult r = run_rtmb(std::string("gen chain --n 2 --loop") + dimension);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("--loop needs --n >= 3"), std::string::npos) << r.out;
  }
}

TEST(GenCommand, SpatialClosedChainRunsWithItsLoopClosedAndConservesEnergy) {
  // 12 pivots + the tip pin
  const std::string summary = check_closed_chain(
      "--spatial", "rtmb_gen_chain_spatial_loop.yaml",
      {{"dimension: spatial", 1u}, {"{name: link", 12u}, {"type: spherical", 13u}},
      "chain_loop_spatial_12");
  std::printf("spatial loop chain: drift %.3e, E %.10f -> %.10f J\n",
              json_number(summary, "max_position_drift"), json_number(summary, "energy_start"),
              json_number(summary, "energy_end"));
}

TEST(GenCommand, SpatialOpenChainRuns) {
  const std::string path = ::testing::TempDir() + "rtmb_gen_chain_spatial_open.yaml";
  generate("--n 20 --spatial", path);
  (void)run_generated(path, "0.2", 1e-7);
}

TEST(GenCommand, BeamRunsOnTheSparsePathWithItsPinsHeldAndConservesEnergy) {
  // 20 elements: 21 particles, 20 trusses, 19 bending elements, two pins of two rods each; no
  // damping and no gravity, so RK4 + PStab keeps T + V (its error at dt = 1 ms is far below 1e-6)
  const std::string path = ::testing::TempDir() + "rtmb_gen_beam.yaml";
  std::string text;
  generate("--n 20", path, &text, "beam");
  EXPECT_EQ(count(text, ", mass: "), 21u);  // particles
  EXPECT_EQ(count(text, "{name: axial"), 20u);
  EXPECT_EQ(count(text, "{name: bend"), 19u);
  EXPECT_EQ(count(text, "{name: pin"), 4u);
  const CommandResult r = run_generated(path, "0.5", 1e-6);
  EXPECT_NE(r.last_line.find("\"solver\":\"sparse\""), std::string::npos) << r.last_line;
  EXPECT_NE(run_rtmb("gen beam --n 1").exit_code, 0);  // CLI range: N >= 2
}

}  // namespace
