// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Bad command lines (issue 15, point 4): every parse error exits 2 (README "Exit codes") with a
// one-line reason on stderr, not CLI11's own codes and not the whole help; NaN, infinities and a
// step that takes no step are refused; --help and --version still exit 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/run_binary.hpp"

namespace {

using rtmb::testing::CommandResult;
using rtmb::testing::contains_all;
using rtmb::testing::run_rtmb;

/// The run exited 2 and printed exactly one line.
::testing::AssertionResult bad_input_in_one_line(const CommandResult& r) {
  if (r.exit_code != 2) {
    return ::testing::AssertionFailure() << "exit " << r.exit_code << ", not 2:\n" << r.out;
  }
  if (r.out != r.last_line + "\n") {
    return ::testing::AssertionFailure() << "more than one line:\n" << r.out;
  }
  return ::testing::AssertionSuccess();
}

TEST(CommandLineErrors, UnknownSubcommandNamesTheNearestOne) {
  const CommandResult r = run_rtmb("rnu pendulum");
  EXPECT_TRUE(bad_input_in_one_line(r));
  EXPECT_TRUE(contains_all(r.out, {"unknown subcommand 'rnu' (did you mean run?)"}));
  const CommandResult r2 = run_rtmb("replya x.rec");
  EXPECT_TRUE(bad_input_in_one_line(r2));
  EXPECT_TRUE(contains_all(r2.out, {"unknown subcommand 'replya' (did you mean replay?)"}));
}

TEST(CommandLineErrors, MissingSubcommandIsOneLine) {
  const CommandResult r = run_rtmb("");
  EXPECT_TRUE(bad_input_in_one_line(r));
  EXPECT_TRUE(contains_all(r.out, {"subcommand is required"}));
}

TEST(CommandLineErrors, MissingArgumentAndBadChoiceExit2) {
  EXPECT_TRUE(bad_input_in_one_line(run_rtmb("run")));
  const CommandResult r = run_rtmb("run pendulum --solver fastest");
  EXPECT_TRUE(bad_input_in_one_line(r));
  EXPECT_TRUE(contains_all(r.out, {"--solver", "fastest"}));
}

TEST(CommandLineErrors, NanAndInfinityAreRefusedNotReplacedByDefaults) {
  // before issue 15, --dt nan and --t-end nan ran with the model's defaults and exit 0
  for (const char* args : {"run pendulum --dt nan", "run pendulum --t-end nan",
                           "run pendulum --dt inf", "run pendulum --t-end -inf"}) {
    const CommandResult r = run_rtmb(args);
    EXPECT_TRUE(bad_input_in_one_line(r)) << args;
    EXPECT_TRUE(contains_all(r.out, {"is not a finite number"})) << args;
  }
}

TEST(CommandLineErrors, EveryFloatingPointOptionOfEverySubcommandRefusesNan) {
  // options without a range check of their own get the finite check too (main.cpp)
  for (const char* args :
       {"run pendulum --rho1 nan", "run pendulum --omega nan", "serve pendulum --duration nan",
        "serve pendulum --rate inf", "latency --rate nan", "latency --duration nan",
        "compare pendulum --dt nan", "haptic-sim pendulum --duration nan"}) {
    const CommandResult r = run_rtmb(args);
    EXPECT_TRUE(bad_input_in_one_line(r)) << args;
    EXPECT_TRUE(contains_all(r.out, {"is not a finite number"})) << args;
  }
}

TEST(CommandLineErrors, RangeMessagesAreShort) {
  // CLI::PositiveNumber printed DBL_MAX with std::to_string: 309 digits
  const CommandResult r = run_rtmb("run pendulum --dt -1");
  EXPECT_TRUE(bad_input_in_one_line(r));
  EXPECT_TRUE(contains_all(r.out, {"--dt: -1 is not positive"}));
  EXPECT_LT(r.out.size(), 200u) << r.out;
  const CommandResult r2 = run_rtmb("run pendulum --gamma1 -0.5");
  EXPECT_TRUE(bad_input_in_one_line(r2));
  EXPECT_TRUE(contains_all(r2.out, {"--gamma1: -0.5 is not non-negative"}));
}

TEST(CommandLineErrors, AStepLongerThanTheRunIsRefused) {
  // --dt 1e308 took 0 steps and reported "ok": true
  const CommandResult r = run_rtmb("run pendulum --dt 1e308");
  EXPECT_TRUE(bad_input_in_one_line(r));
  EXPECT_TRUE(contains_all(r.out, {"--dt 1e+308 s is longer than the run", "no step"}));
  const CommandResult r2 = run_rtmb("run pendulum --dt 0.5 --t-end 0.1");
  EXPECT_TRUE(bad_input_in_one_line(r2));
}

TEST(CommandLineErrors, HelpAndVersionStillExit0) {
  const CommandResult help = run_rtmb("--help");
  EXPECT_EQ(help.exit_code, 0) << help.out;
  EXPECT_TRUE(contains_all(help.out, {"run", "serve", "replay"}));
  const CommandResult run_help = run_rtmb("run --help");
  EXPECT_EQ(run_help.exit_code, 0) << run_help.out;
  EXPECT_TRUE(contains_all(run_help.out, {"--dt", "--t-end"}));
  const CommandResult version = run_rtmb("--version");
  EXPECT_EQ(version.exit_code, 0) << version.out;
  EXPECT_TRUE(contains_all(version.out, {"rtmb 0.1.0"}));
}

TEST(CommandLineErrors, ImplicitNewtonFailureHintsAtTheNewtonToleranceNotAtDt) {
  // a smaller --dt fails sooner for an index-3 method and a stabilizer is refused (issue 15).
  // --newton-strict: with the default round-off floor the four-bar's change point (t = 0.53) no
  // longer stops Newton (issue 16, tests/scenarios/parallel_cranks_test.cpp); Hoitink's pure
  // increment test still fails there, so the failure path keeps a realistic trigger
  const CommandResult r = run_rtmb("run four_bar --method midpoint --newton-strict --quiet");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"not_converged", "try a looser --newton-tol (now 1e-08)",
                                   "more --newton-iter (now 100)"}));
  EXPECT_EQ(r.out.find("smaller --dt"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("a stabilizer"), std::string::npos) << r.out;
  EXPECT_EQ(r.last_line.front(), '{') << r.out;  // the JSON line stays last

  // and the hint is right: the looser tolerance runs the same mechanism 10x further
  const CommandResult looser =
      run_rtmb("run four_bar --method midpoint --newton-tol 1e-6 --newton-strict --quiet");
  EXPECT_GT(rtmb::testing::json_number(looser.last_line, "t"),
            10.0 * rtmb::testing::json_number(r.last_line, "t"))
      << looser.out;
}

TEST(CommandLineErrors, ExplicitFailureKeepsTheDtAndStabilizerHint) {
  const CommandResult r =
      run_rtmb("run andrews --method euler --stabilizer none --dt 0.001 --t-end 0.05 --quiet");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"non_finite", "try a smaller --dt or a stabilizer"}));
}

TEST(CommandLineErrors, CompareRefusesAnInvalidCombinationBeforeCreatingItsFolder) {
  // issue 15: midpoint:pstab aborted (exit 134) and left an empty folder
  const std::string dir = ::testing::TempDir() + "rtmb_compare_refused";
  std::filesystem::remove_all(dir);
  const CommandResult r = run_rtmb("compare four_bar --methods midpoint:pstab --out " + dir);
  EXPECT_TRUE(bad_input_in_one_line(r));
  EXPECT_TRUE(contains_all(r.out, {"midpoint:pstab", "use stabilizer none"}));
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
