// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb run` as a user runs it: exit codes, messages, and the JSON summary line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <string>

#include "tests/support/run_binary.hpp"
#include "tests/support/text_files.hpp"

namespace {

using Result = rtmb::testing::CommandResult;
using rtmb::testing::json_number;
using rtmb::testing::run_rtmb;

std::string json_string(const std::string& json, const std::string& key) {
  const std::regex re("\"" + key + "\":\"([^\"]*)\"");
  std::smatch m;
  return std::regex_search(json, m, re) ? m[1].str() : std::string("<missing>");
}

TEST(RunCommand, AndrewsRk4PStabSummaryIsJsonWithRequiredFields) {
  const Result r = run_rtmb("run andrews --method rk4 --stabilizer pstab --t-end 0.003 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string& j = r.last_line;
  ASSERT_EQ(j.front(), '{');
  ASSERT_EQ(j.back(), '}');
  for (const char* key :
       {"model", "method", "stabilizer", "t", "steps", "rhs_evals", "max_position_drift",
        "max_velocity_drift", "energy_start", "energy_end", "q", "v", "wall_s"}) {
    EXPECT_NE(j.find(std::string("\"") + key + "\":"), std::string::npos) << key << " in " << j;
  }
  EXPECT_EQ(json_string(j, "model"), "andrews");
  EXPECT_EQ(json_string(j, "method"), "rk4");
  EXPECT_EQ(json_string(j, "stabilizer"), "pstab");
  EXPECT_NEAR(json_number(j, "t"), 0.003, 1e-12);
  // default Andrews step 5e-5: 60 steps of 4 RHS evaluations each
  EXPECT_EQ(json_number(j, "steps"), 60);
  EXPECT_EQ(json_number(j, "rhs_evals"), 240);
  EXPECT_LT(json_number(j, "max_position_drift"), 1e-10);
}

TEST(RunCommand, Dopri5ReportsHairerCounters) {
  const Result r = run_rtmb("run robot_parabola --method dopri5 --rtol 1e-4 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const double nstep = json_number(r.last_line, "nstep");
  EXPECT_GT(nstep, 10);
  EXPECT_EQ(json_number(r.last_line, "nfcn"), 6 * nstep + 2);
}

TEST(RunCommand, UnknownModelFailsAndListsValidModels) {
  const Result r = run_rtmb("run no_such_model");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("no_such_model"), std::string::npos) << r.out;
  for (const char* name : {"pendulum", "double_pendulum", "slider_crank", "andrews",
                           "robot_parabola", "robot_sine", "chain"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name << " missing in: " << r.out;
  }
}

TEST(RunCommand, UnknownMethodFailsAndListsValidMethods) {
  const Result r = run_rtmb("run pendulum --method leapfrog");
  EXPECT_NE(r.exit_code, 0);
  for (const char* name : {"euler", "heun", "rk4", "dopri5"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name << " missing in: " << r.out;
  }
}

TEST(RunCommand, UnknownOptionFailsWithOneLineNamingItAndWhereTheOptionsAre) {
  // issue 15: a parse error is bad input (2) with one line, not CLI11's 109 and the whole help
  const Result r = run_rtmb("run pendulum --frobnicate 3");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(r.out, r.last_line + "\n");
  EXPECT_NE(r.out.find("--frobnicate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rtmb COMMAND --help"), std::string::npos) << r.out;
}

TEST(RunCommand, BaumgarteWithoutGainsIsRejected) {
  const Result r = run_rtmb("run pendulum --stabilizer baumgarte");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--gamma1"), std::string::npos) << r.out;
}

TEST(RunCommand, SvfWithoutGammaIsRejected) {
  const Result r = run_rtmb("run slider_crank --stabilizer svf");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--gamma"), std::string::npos) << r.out;
}

TEST(RunCommand, SvfRunsWithBothDirectionsAndHoldsTheLoopClosed) {
  // Chin's stabilized vector field (eq. 2.58) on the slider-crank: the drift stays at the
  // integration error of RK4 at dt = 1e-3 over 2 s, and the summary names the stabilizer
  for (const char* variant : {"ggt_inverse", "gt"}) {
    const Result r =
        run_rtmb(std::string("run slider_crank --stabilizer svf --gamma 5 --svf-variant ") +
                 variant + " --t-end 2 --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(json_string(r.last_line, "stabilizer"), "svf") << variant;
    // measured 1.6e-11 (ggt_inverse), 2.6e-11 (gt); none: 2.8e-10
    EXPECT_LE(json_number(r.last_line, "max_position_drift"), 1e-10) << variant << r.last_line;
  }
}

TEST(RunCommand, CsvTraceHasHeaderAndRows) {
  const std::string path = ::testing::TempDir() + "rtmb_run_trace.csv";
  const Result r = run_rtmb("run pendulum --t-end 0.1 --dt 0.01 --every 2 --quiet --csv " + path);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "t,q0,q1,v0,v1,position_drift,velocity_drift,energy");
  int rows = 0;
  for (std::string line; std::getline(in, line);) ++rows;
  EXPECT_EQ(rows, 1 + 5 + 1);  // initial row, every 2nd of 10 steps, final row
}

TEST(RunCommand, OmegaSelectsTheRobotPathFrequency) {
  // the two frequencies end in clearly different states (Chin Figs 4.19-4.20 vs Table 4.7)
  const Result slow = run_rtmb("run robot_sine --omega 0.5 --t-end 2 --quiet");
  const Result fast = run_rtmb("run robot_sine --omega 1 --t-end 2 --quiet");
  ASSERT_EQ(slow.exit_code, 0) << slow.out;
  ASSERT_EQ(fast.exit_code, 0) << fast.out;
  const auto first_q = [](const std::string& j) {
    const std::size_t at = j.find("\"q\":[");
    return std::stod(j.substr(at + 5));
  };
  EXPECT_GT(std::abs(first_q(slow.last_line) - first_q(fast.last_line)), 1e-2);
  const Result bad = run_rtmb("run robot_sine --omega -1");
  EXPECT_NE(bad.exit_code, 0);
}

TEST(RunCommand, ChainLoopRunsClosed) {
  const Result r = run_rtmb("run chain --n 6 --loop --t-end 0.5 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_LT(json_number(r.last_line, "max_position_drift"), 1e-12);
}

}  // namespace

namespace {

TEST(RunCommand, MidpointReproducesHoitinkTable42FromTheCommandLine) {
  // V0(1,1,0) option 2 on the double pendulum, dt 0.01, 10 s: Hoitink prints 2998 iterations
  const Result r = run_rtmb(
      "run double_pendulum --method midpoint --dt 0.01 --t-end 10 --newton-strict --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(json_string(r.last_line, "stabilizer"), "none");  // chosen for implicit methods
  EXPECT_NEAR(json_number(r.last_line, "newton_iterations"), 2998.0, 0.02 * 2998.0);
  EXPECT_LT(json_number(r.last_line, "max_position_drift"), 1e-10);
  EXPECT_NEAR(json_number(r.last_line, "energy_end"), -10.0, 1e-9);
}

TEST(RunCommand, NewmarkFailsWithNotConverged) {
  // Hoitink Table 4.1: U0(1,1,0) on the double pendulum fails after ~4 s (exit code 3)
  const Result r =
      run_rtmb("run double_pendulum --method newmark --dt 0.01 --t-end 10 --newton-strict --quiet");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_EQ(json_string(r.last_line, "flags"), "not_converged");
  EXPECT_GT(json_number(r.last_line, "t"), 4.0);
  EXPECT_LT(json_number(r.last_line, "t"), 6.0);
}

TEST(RunCommand, ImplicitMethodWithAStabilizerIsRejected) {
  const Result r = run_rtmb("run pendulum --method ggl --stabilizer pstab");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("stabilizer none"), std::string::npos) << r.out;
}

// A model file: its integration settings apply, options given on the command line override
// them, and the body-coordinate slider-crank keeps its loop closed.
TEST(RunCommand, ModelFileSettingsApplyAndOptionsOverrideThem) {
  const std::string dir = std::string(RTMB_SOURCE_DIR) + "/configs/";
  Result r = run_rtmb("run " + dir + "slider_crank_body.yaml --t-end 0.5 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(json_string(r.last_line, "model"), "slider_crank_body");
  EXPECT_EQ(json_string(r.last_line, "method"), "rk4");
  EXPECT_EQ(json_number(r.last_line, "dt"), 0.001);
  EXPECT_EQ(json_number(r.last_line, "steps"), 500);
  EXPECT_LE(json_number(r.last_line, "max_position_drift"), 1e-10);

  r = run_rtmb("run " + dir + "default.yaml --dt 0.0005 --method heun --t-end 0.5 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(json_string(r.last_line, "model"), "slider_crank");
  EXPECT_EQ(json_string(r.last_line, "method"), "heun");
  EXPECT_EQ(json_string(r.last_line, "stabilizer"), "pstab");  // from the file
  EXPECT_EQ(json_number(r.last_line, "dt"), 0.0005);
  EXPECT_EQ(json_number(r.last_line, "steps"), 1000);
}

TEST(RunCommand, BadModelFileNamesFileLineAndKey) {
  const std::string path = rtmb::testing::write_temp_file(
      "rtmb_run_bad.yaml", "mechanism: pendulum\nintegration:\n  dt: -1\n");
  const Result r = run_rtmb("run " + path + " --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find(path + ":3:7: key 'integration.dt': must be > 0"), std::string::npos)
      << r.out;
}

}  // namespace
