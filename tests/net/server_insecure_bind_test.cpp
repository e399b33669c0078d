// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb::Server on a non-loopback address (issue 15, security): refused without a token unless
// ServerConfig::insecure, which logs a warning at start and then periodically from the network
// thread (counted in ServerStats::insecure_warnings; the text is checked by
// tests/apps/rtmb/serve_command_security_test.cpp). The period is shortened here so that the test
// sees several warnings.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "rtmb/net/server.hpp"
#include "tests/support/loopback_server.hpp"

namespace rtmb {
namespace {

using testing::eventually;
using testing::loopback_config;

TEST(ServerInsecureBind, NonLoopbackWithoutTokenIsRefused) {
  ServerConfig config = loopback_config();
  config.bind_address = "0.0.0.0";
  try {
    Server server(config);
    FAIL() << "a server on 0.0.0.0 without a token was built";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--token"), std::string::npos) << what;
    EXPECT_NE(what.find("--insecure"), std::string::npos) << what;
  }
}

TEST(ServerInsecureBind, LoopbackOrATokenNeedsNoWarning) {
  for (const char* bind : {"127.0.0.1", "127.0.0.2", "0.0.0.0"}) {
    ServerConfig config = loopback_config();
    config.bind_address = bind;
    if (std::string(bind) == "0.0.0.0") config.token = "s3cret";
    config.insecure_warning_period_ns = 1'000'000;
    Server server(config);
    server.start();
    const std::uint64_t before = server.stats().step;
    EXPECT_TRUE(eventually([&] { return server.stats().step > before + 20; }));
    server.request_stop();
    server.join();
    EXPECT_EQ(server.stats().insecure_warnings, 0u) << bind;
  }
}

TEST(ServerInsecureBind, InsecureWarnsAtStartAndThenPeriodically) {
  ServerConfig config = loopback_config();
  config.bind_address = "0.0.0.0";
  config.insecure = true;
  config.insecure_warning_period_ns = 20'000'000;
  Server server(config);
  server.start();
  EXPECT_TRUE(eventually([&] { return server.stats().insecure_warnings >= 3; }));
  server.request_stop();
  server.join();
}

}  // namespace
}  // namespace rtmb
