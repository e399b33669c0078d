// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb gen chain`: the generated model file loads, runs with its loop closed and conserves
// energy (no damping in the chain), planar and spatial (--spatial), and bad options are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "tests/support/run_binary.hpp"

namespace {

using rtmb::testing::CommandResult;
using rtmb::testing::run_rtmb;

double json_number(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return std::nan("");
  return std::stod(json.substr(at + key.size() + 3));
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

void generate(const std::string& args, const std::string& path) {
  const CommandResult r = run_rtmb("gen chain " + args + " > " + path);
  ASSERT_EQ(r.exit_code, 0) << r.out;
}

TEST(GenCommand, ClosedChainRunsWithItsLoopClosedAndConservesEnergy) {
  const std::string path = ::testing::TempDir() + "rtmb_gen_chain_loop.yaml";
  generate("--n 12 --loop", path);
  std::FILE* f = std::fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string text(1 << 16, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  EXPECT_EQ(count(text, "{name: link"), 12u);
  EXPECT_EQ(count(text, "type: revolute"), 13u);  // 12 pivots + the tip pin

  const CommandResult r = run_rtmb("run " + path + " --t-end 0.5 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.last_line.find("\"model\":\"chain_loop_12\""), std::string::npos) << r.last_line;
  EXPECT_EQ(json_number(r.last_line, "steps"), 500);
  EXPECT_LE(json_number(r.last_line, "max_position_drift"), 1e-10);
  const double e0 = json_number(r.last_line, "energy_start");
  const double e1 = json_number(r.last_line, "energy_end");
  EXPECT_LE(std::abs(e1 - e0), 1e-5 * std::abs(e0));
}

TEST(GenCommand, OpenChainRuns) {
  const std::string path = ::testing::TempDir() + "rtmb_gen_chain_open.yaml";
  generate("--n 20", path);
  const CommandResult r = run_rtmb("run " + path + " --t-end 0.2 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_LE(json_number(r.last_line, "max_position_drift"), 1e-10);
  const double e0 = json_number(r.last_line, "energy_start");
  EXPECT_LE(std::abs(json_number(r.last_line, "energy_end") - e0), 1e-7 * std::abs(e0));
}

TEST(GenCommand, BadOptionsAreRefused) {
  CommandResult r = run_rtmb("gen chain --n 2 --loop");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--loop needs --n >= 3"), std::string::npos) << r.out;
  r = run_rtmb("gen chain --n 2 --loop --spatial");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--loop needs --n >= 3"), std::string::npos) << r.out;
}

TEST(GenCommand, SpatialClosedChainRunsWithItsLoopClosedAndConservesEnergy) {
  const std::string path = ::testing::TempDir() + "rtmb_gen_chain_spatial_loop.yaml";
  generate("--n 12 --spatial --loop", path);
  std::FILE* f = std::fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string text(1 << 16, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  EXPECT_EQ(count(text, "dimension: spatial"), 1u);
  EXPECT_EQ(count(text, "{name: link"), 12u);
  EXPECT_EQ(count(text, "type: spherical"), 13u);  // 12 pivots + the tip pin

  const CommandResult r = run_rtmb("run " + path + " --t-end 0.5 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.last_line.find("\"model\":\"chain_loop_spatial_12\""), std::string::npos)
      << r.last_line;
  EXPECT_EQ(json_number(r.last_line, "steps"), 500);
  EXPECT_LE(json_number(r.last_line, "max_position_drift"), 1e-10);
  const double e0 = json_number(r.last_line, "energy_start");
  const double e1 = json_number(r.last_line, "energy_end");
  EXPECT_LE(std::abs(e1 - e0), 1e-5 * std::abs(e0));
  std::printf("spatial loop chain: drift %.3e, E %.10f -> %.10f J\n",
              json_number(r.last_line, "max_position_drift"), e0, e1);
}

TEST(GenCommand, SpatialOpenChainRuns) {
  const std::string path = ::testing::TempDir() + "rtmb_gen_chain_spatial_open.yaml";
  generate("--n 20 --spatial", path);
  const CommandResult r = run_rtmb("run " + path + " --t-end 0.2 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_LE(json_number(r.last_line, "max_position_drift"), 1e-10);
  const double e0 = json_number(r.last_line, "energy_start");
  EXPECT_LE(std::abs(json_number(r.last_line, "energy_end") - e0), 1e-7 * std::abs(e0));
}

}  // namespace
