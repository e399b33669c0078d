// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb run --solver` and `rtmb serve --solver` (Settings::solver): the resolved solver is in
// the JSON line, sparse and dense runs of a body model end in the same state, and a sparse
// request the model cannot run exits 2 with the reason before the first step.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "tests/support/run_binary.hpp"

namespace {

using rtmb::testing::run_rtmb;

std::string json_field(const std::string& json, const std::string& key) {
  const std::regex re("\"" + key + "\":(\"[^\"]*\"|\\[[^\\]]*\\]|[^,}]*)");
  std::smatch m;
  return std::regex_search(json, m, re) ? m[1].str() : std::string("<missing>");
}

const std::string kFourBar = std::string(RTMB_SOURCE_DIR) + "/configs/four_bar.yaml";

TEST(SolverOption, RunReportsTheResolvedSolver) {
  const auto sparse = run_rtmb("run " + kFourBar + " --solver sparse --t-end 0.2 --quiet");
  const auto dense = run_rtmb("run " + kFourBar + " --solver dense --t-end 0.2 --quiet");
  const auto automatic = run_rtmb("run " + kFourBar + " --t-end 0.2 --quiet");
  ASSERT_EQ(sparse.exit_code, 0) << sparse.out;
  ASSERT_EQ(dense.exit_code, 0) << dense.out;
  ASSERT_EQ(automatic.exit_code, 0) << automatic.out;
  EXPECT_EQ(json_field(sparse.last_line, "solver"), "\"sparse\"");
  EXPECT_EQ(json_field(dense.last_line, "solver"), "\"dense\"");
  EXPECT_EQ(json_field(automatic.last_line, "solver"), "\"sparse\"");  // body model, pstab
  // 200 steps of RK4 + PStab: the printed (%.17g) states agree to roundoff
  const std::string qs = json_field(sparse.last_line, "q");
  const std::string qd = json_field(dense.last_line, "q");
  ASSERT_NE(qs, "<missing>");
  std::regex num("-?[0-9.]+(e[-+]?[0-9]+)?");
  auto is = std::sregex_iterator(qs.begin(), qs.end(), num);
  auto id = std::sregex_iterator(qd.begin(), qd.end(), num);
  int n = 0;
  for (; is != std::sregex_iterator() && id != std::sregex_iterator(); ++is, ++id, ++n) {
    EXPECT_NEAR(std::stod(is->str()), std::stod(id->str()), 1e-12);
  }
  EXPECT_EQ(n, 9);
  // a built-in mechanism has no sparse structure: auto is dense
  const auto andrews = run_rtmb("run andrews --t-end 0.001 --quiet");
  ASSERT_EQ(andrews.exit_code, 0) << andrews.out;
  EXPECT_EQ(json_field(andrews.last_line, "solver"), "\"dense\"");
}

TEST(SolverOption, AdaptiveDopri5RunsOnTheSparsePath) {
  // the adaptive DOPRI5 has its own Dynamics and stabilizer (engine/integrate/adaptive_dopri5.cpp)
  const std::string args = " --method dopri5 --rtol 1e-8 --t-end 1 --quiet";
  const auto sparse = run_rtmb("run " + kFourBar + args + " --solver sparse");
  const auto dense = run_rtmb("run " + kFourBar + args + " --solver dense");
  ASSERT_EQ(sparse.exit_code, 0) << sparse.out;
  ASSERT_EQ(dense.exit_code, 0) << dense.out;
  EXPECT_EQ(json_field(sparse.last_line, "solver"), "\"sparse\"");
  // same accepted/rejected steps: the error estimates differ by roundoff only
  EXPECT_EQ(json_field(sparse.last_line, "nstep"), json_field(dense.last_line, "nstep"));
  EXPECT_EQ(json_field(sparse.last_line, "nfcn"), json_field(dense.last_line, "nfcn"));
  EXPECT_LT(std::stod(json_field(sparse.last_line, "max_position_drift")), 1e-12);
}

TEST(SolverOption, SparseWhereUnsupportedExitsTwoWithTheReason) {
  auto r = run_rtmb("run andrews --solver sparse --t-end 0.001");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("solver sparse"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no sparse structure"), std::string::npos) << r.out;
  r = run_rtmb("run " + kFourBar + " --solver sparse --stabilizer sfull --t-end 0.001");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("stabilizer sfull has no sparse path"), std::string::npos) << r.out;
  r = run_rtmb("run " + kFourBar + " --solver fast");
  EXPECT_NE(r.exit_code, 0) << r.out;
  r = run_rtmb("serve andrews --solver sparse --duration 0.1 --priority 0");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("no sparse structure"), std::string::npos) << r.out;
}

TEST(SolverOption, ServeRunsASparseBodyModel) {
  const auto r =
      run_rtmb("serve " + kFourBar + " --solver sparse --duration 0.3 --priority 0 --port 0");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

}  // namespace
