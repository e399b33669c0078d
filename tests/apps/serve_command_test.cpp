// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb serve` as a user runs it: a short run with a closing report, and a wrong model name.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/run_binary.hpp"

namespace {

using rtmb::testing::CommandResult;

CommandResult run_serve(const std::string& args) {
  return rtmb::testing::run_rtmb("serve " + args);
}

TEST(ServeCommand, ShortRunPrintsClosingReport) {
  const CommandResult r = run_serve("pendulum --duration 1 --port 0");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("closing report"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("compute"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("p99"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("overruns"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("drift"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("udp in: received"), std::string::npos) << r.out;
}

TEST(ServeCommand, UnknownModelListsValidOnes) {
  const CommandResult r = run_serve("no_such_model --duration 1 --port 0");
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("unknown model"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pendulum"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("double_pendulum"), std::string::npos) << r.out;
}

}  // namespace
