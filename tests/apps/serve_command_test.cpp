// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb serve` as a user runs it: a short run with a closing report, and a wrong model name.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

struct ServeResult {
  int exit_code = -1;
  std::string out;  // stdout and stderr, interleaved
};

ServeResult run_serve(const std::string& args) {
  const std::string cmd = std::string(RTMB_BINARY) + " serve " + args + " 2>&1";
  ServeResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), pipe) != nullptr) r.out += buf.data();
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(ServeCommand, ShortRunPrintsClosingReport) {
  const ServeResult r = run_serve("pendulum --duration 1 --port 0");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("closing report"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("compute"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("p99"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("overruns"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("drift"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("udp in: received"), std::string::npos) << r.out;
}

TEST(ServeCommand, UnknownModelListsValidOnes) {
  const ServeResult r = run_serve("no_such_model --duration 1 --port 0");
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("unknown model"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pendulum"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("double_pendulum"), std::string::npos) << r.out;
}

}  // namespace
