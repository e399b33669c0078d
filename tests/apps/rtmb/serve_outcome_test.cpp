// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// How `rtmb serve` ends (apps/rtmb/serve_outcome.hpp, issue 15): a halted loop exits 3 with the
// reason on stderr; more than 1 % overruns warn once with the rate the median tick allows. The
// counters are made up, so nothing here depends on the machine's speed; the command-line test
// below checks that serve uses it.
#include "apps/rtmb/serve_outcome.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/run_binary.hpp"
#include "tests/support/text_files.hpp"

namespace rtmb::app {
namespace {

using rtmb::testing::contains_all;
using ::testing::internal::CaptureStderr;
using ::testing::internal::GetCapturedStderr;

HistogramSummary median_of(std::int64_t p50_ns) {
  HistogramSummary h;
  h.p50 = p50_ns;
  return h;
}

TEST(ServeOutcome, AHaltedLoopExits3WithTheReasonAndTheRateThatFits) {
  LoopCounters c;
  c.ticks = 40;
  c.overruns = 2;
  CaptureStderr();
  const int code = report_serve_outcome(StopReason::kHalted, c, median_of(100'000), 20000.0, 2);
  const std::string err = GetCapturedStderr();
  EXPECT_EQ(code, 3);
  // a 100 us median tick fits 1e9 / 1e5 = 10000 Hz
  EXPECT_TRUE(contains_all(err, {"halted: 2 overruns in a row (--overrun halt --halt-after 2)",
                                 "after 40 ticks at 20000 Hz", "100.0 us of a 50.0 us period",
                                 "at most ~10000 Hz fits"}));
}

TEST(ServeOutcome, MoreThanOnePercentOverrunsWarnOnceWithTheAllowedRate) {
  LoopCounters c;
  c.ticks = 60000;
  c.overruns = 1744;  // the andrews run: 2.9 %
  CaptureStderr();
  const int code =
      report_serve_outcome(StopReason::kStopRequested, c, median_of(62'500), 20000.0, 3);
  const std::string err = GetCapturedStderr();
  EXPECT_EQ(code, 0);
  EXPECT_TRUE(contains_all(err, {"warning: 2.9 % of the ticks overran their deadline (1744 of "
                                 "60000) at 20000 Hz",
                                 "median tick (62.5 us) allows at most ~16000 Hz"}));
  EXPECT_EQ(err.find("warning", err.find("warning") + 1), std::string::npos) << err;  // once
}

TEST(ServeOutcome, OnePercentOrLessSaysNothing) {
  LoopCounters c;
  c.ticks = 10000;
  c.overruns = 100;  // exactly 1 %
  CaptureStderr();
  EXPECT_EQ(report_serve_outcome(StopReason::kStopRequested, c, median_of(10'000), 1000.0, 3), 0);
  EXPECT_EQ(GetCapturedStderr(), "");
}

// The binary: the issue's `rtmb serve andrews --overrun halt --halt-after 1` exited 0 silently.
// Whether andrews overruns at its default 20 kHz depends on the machine, so the test runs it at
// dt = 1e-7 s, a 100 ns period that no step (microseconds of work) can meet on any machine: the
// first tick overruns, and one overrun in a row halts the loop.
TEST(ServeOutcome, ServeHaltedByOverrunHaltExits3WithTheReason) {
  const std::string model = rtmb::testing::write_temp_file(
      "andrews_10mhz.yaml",
      "mechanism: andrews\nintegration:\n  method: rk4\n  stabilizer: pstab\n  dt: 1.0e-7\n");
  const rtmb::testing::CommandResult r = rtmb::testing::run_rtmb(
      "serve " + model + " --overrun halt --halt-after 1 --duration 3 --port 0 --priority 0");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"rtmb serve: halted: 1 overruns in a row (--overrun halt "
                                   "--halt-after 1)",
                                   "at 10000000 Hz", "of a 0.1 us period", "Hz fits"}))
      << r.out;
}

}  // namespace
}  // namespace rtmb::app
