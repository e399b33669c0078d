// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb compare --out` with shell and gnuplot metacharacters in the path (issue 15, security):
// gnuplot runs without a shell and its script does not quote the path, so nothing in the name is
// executed, and the plots land in the folder of that odd name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/support/run_binary.hpp"

namespace {

namespace fs = std::filesystem;
using rtmb::testing::run_rtmb;

TEST(CompareCommandSecurity, OutPathWithQuotesRunsNothingAndStillWritesThePlots) {
  const fs::path tmp =
      fs::path(::testing::TempDir()) / ("rtmb_compare_inject_" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const std::string pwned = (tmp / "PWNED").string();
  // a shell's way out of a quoted string, and gnuplot's own (its `system` command); the run
  // harness's shell passes each inside double quotes literally
  const std::string shell_out = (tmp / ("x';touch " + pwned + ";'")).string();
  const std::string gnuplot_out = (tmp / ("y';system \\\"touch " + pwned + "\\\";'")).string();
  for (const std::string& out : {shell_out, gnuplot_out}) {
    const auto r =
        run_rtmb("compare pendulum --methods rk4:pstab --t-end 0.05 --out \"" + out + "\"");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_FALSE(fs::exists(pwned)) << out << "\n" << r.out;
  }
  EXPECT_TRUE(fs::exists(fs::path(shell_out) / "drift.png"));
  EXPECT_TRUE(fs::exists(fs::path(shell_out) / "energy.png"));
  fs::remove_all(tmp);
}

}  // namespace
