// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb serve` and the network it listens on (issue 15, security): beyond loopback a token is
// required, or an explicit --insecure that warns; loopback needs nothing. `load`'s folder is
// --models (tests/net/server_load_permission_test.cpp covers the replies themselves).
#include <gtest/gtest.h>

#include <string>

#include "tests/support/run_binary.hpp"

namespace {

using rtmb::testing::CommandResult;
using rtmb::testing::contains_all;
using rtmb::testing::run_rtmb;

// the lines of out that are not empty
int line_count(const std::string& out) {
  int lines = 0;
  bool text = false;
  for (const char c : out) {
    if (c == '\n') {
      lines += text ? 1 : 0;
      text = false;
    } else {
      text = true;
    }
  }
  return lines + (text ? 1 : 0);
}

TEST(ServeCommandSecurity, NonLoopbackBindWithoutTokenIsRefusedAtStart) {
  const CommandResult r = run_rtmb("serve pendulum --bind 0.0.0.0 --port 0 --duration 5");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(line_count(r.out), 1) << r.out;
  EXPECT_TRUE(
      contains_all(r.out, {"rtmb serve: ", "0.0.0.0", "not loopback", "--token", "--insecure"}));
  EXPECT_EQ(r.out.find("closing report"), std::string::npos) << r.out;
}

TEST(ServeCommandSecurity, InsecureAllowsItAndWarns) {
  const CommandResult r =
      run_rtmb("serve pendulum --bind 0.0.0.0 --port 0 --duration 0.3 --insecure");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains_all(
      r.out, {"INSECURE: serving 0.0.0.0 (not loopback) without a token", "closing report"}));
}

TEST(ServeCommandSecurity, NonLoopbackBindWithTokenServesWithoutWarning) {
  const CommandResult r =
      run_rtmb("serve pendulum --bind 0.0.0.0 --port 0 --duration 0.3 --token s3cret");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"closing report"}));
  EXPECT_EQ(r.out.find("INSECURE"), std::string::npos) << r.out;
}

TEST(ServeCommandSecurity, LoopbackAddressesNeedNothing) {
  for (const char* bind : {"127.0.0.1", "127.0.0.2", "localhost"}) {
    const CommandResult r =
        run_rtmb(std::string("serve pendulum --port 0 --duration 0.3 --bind ") + bind);
    EXPECT_EQ(r.exit_code, 0) << bind << ":\n" << r.out;
    EXPECT_TRUE(contains_all(r.out, {"closing report"}));
    EXPECT_EQ(r.out.find("INSECURE"), std::string::npos) << r.out;
  }
}

TEST(ServeCommandSecurity, ModelsMustBeAnExistingFolder) {
  const CommandResult r =
      run_rtmb("serve pendulum --port 0 --duration 0.3 --models /no/such/folder");
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"--models"}));
  const CommandResult ok =
      run_rtmb(std::string("serve pendulum --port 0 --duration 0.3 --models ") + RTMB_SOURCE_DIR +
               "/configs");
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
}

TEST(ServeCommandSecurity, HelpNamesTheOptions) {
  const CommandResult r = run_rtmb("serve --help");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"--bind", "--token", "--insecure", "--models"}));
}

}  // namespace
