// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb serve --rate` must be 1 / (k dt) (apps/rtmb/serve_rate.hpp, issue 15): the pendulum
// (dt 1 ms) at --rate 2000 used to run at 1000 Hz without a word. `--dt` sets the engine step
// (issue 14 point 6 serves configs/five_bar_haptic.yaml, dt 5e-4, at 10 kHz with --dt 1e-4).
#include "apps/rtmb/serve_rate.hpp"

#include <gtest/gtest.h>

#include "tests/support/run_binary.hpp"

namespace rtmb::app {
namespace {

using rtmb::testing::contains_all;
using rtmb::testing::run_rtmb;

TEST(ServeRate, WholeNumbersOfStepsPerTickAreValid) {
  for (const double rate : {1000.0, 500.0, 1000.0 / 3.0, 250.0, 1.0}) {
    EXPECT_EQ(rate_mismatch(rate, 1e-3), "") << rate;
  }
  EXPECT_EQ(rate_mismatch(20000.0, 5e-5), "");
  EXPECT_EQ(rate_mismatch(10000.0, 5e-5), "");
}

TEST(ServeRate, OtherRatesNameTheNearestValidOnes) {
  EXPECT_TRUE(contains_all(rate_mismatch(2000.0, 1e-3), {"the highest valid rate is 1000 Hz"}));
  // 1 / (300 * 1e-3) = 3.33 steps: 3 steps (333.333 Hz) or 4 (250 Hz)
  EXPECT_TRUE(contains_all(rate_mismatch(300.0, 1e-3),
                           {"the nearest valid rates are 250 Hz and 333.333 Hz"}));
}

TEST(ServeRate, ServeRefusesARateTheStepCannotDivideWithExit2) {
  const rtmb::testing::CommandResult r = run_rtmb("serve pendulum --rate 2000 --port 0");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(r.out, r.last_line + "\n");  // one line, before anything is served
  EXPECT_TRUE(contains_all(r.out, {"rtmb serve: --rate 2000 Hz cannot be run with the model's dt "
                                   "0.001 s",
                                   "the highest valid rate is 1000 Hz"}));
}

TEST(ServeRate, DtSetsTheEngineStepSoThatAFasterRateIsValid) {
  // the pendulum's dt of 1 ms cannot tick at 2000 Hz (above); at --dt 5e-4 it does, one step
  // per tick, and the closing report counts the steps of 2000 Hz
  const rtmb::testing::CommandResult r =
      run_rtmb("serve pendulum --dt 0.0005 --rate 2000 --duration 0.3 --port 0");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"pendulum (pendulum) at 2000.0 Hz", "closing report"}));
  const rtmb::testing::CommandResult odd = run_rtmb("serve pendulum --dt 0.0005 --rate 3000");
  EXPECT_EQ(odd.exit_code, 2) << odd.out;
  EXPECT_TRUE(
      contains_all(odd.out, {"with the model's dt 0.0005 s", "the highest valid rate is 2000 Hz"}));
}

TEST(ServeRate, ADtWithoutARealTimeTickIsRefusedWithExit2) {
  const rtmb::testing::CommandResult zero = run_rtmb("serve pendulum --dt 0");
  EXPECT_EQ(zero.exit_code, 2) << zero.out;
  EXPECT_TRUE(contains_all(zero.out, {"--dt: 0 is not positive"}));
  // 1 / dt Hz, a tick of 1e300 s: named, where the bank's "period_ns must be > 0" used to be
  const rtmb::testing::CommandResult huge = run_rtmb("serve pendulum --dt 1e300 --port 0");
  EXPECT_EQ(huge.exit_code, 2) << huge.out;
  EXPECT_TRUE(contains_all(huge.out, {"would tick every 1e+300 s", "at least once an hour"}));
}

}  // namespace
}  // namespace rtmb::app
