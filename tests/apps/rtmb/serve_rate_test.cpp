// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb serve --rate` must be 1 / (k dt) (apps/rtmb/serve_rate.hpp, issue 15): the pendulum
// (dt 1 ms) at --rate 2000 used to run at 1000 Hz without a word.
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

}  // namespace
}  // namespace rtmb::app
