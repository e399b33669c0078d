// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb serve` as a user runs it: a short run with a closing report, and a wrong model name.
#include <gtest/gtest.h>

#include <cstdio>
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

// What `make run` does: the default model file with the demo client, closing report with the
// demo's end-to-end latency; the physics in it must hold (the loop stays closed).
TEST(ServeCommand, DefaultModelWithDemoClientReportsLatencyAndDrift) {
  const CommandResult r = run_serve("--duration 2 --demo --port 0");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("slider_crank"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("configs/default.yaml"), std::string::npos) << r.out;
  const std::size_t demo = r.out.find("demo client: ");
  ASSERT_NE(demo, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("error:", demo), std::string::npos) << r.out;
  unsigned long long sent = 0, received = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + demo, "demo client: %llu inputs sent, %llu states received",
                        &sent, &received),
            2)
      << r.out;
  EXPECT_GT(sent, 100u);
  EXPECT_GT(received, 100u);
  EXPECT_NE(r.out.find("end-to-end input->state"), std::string::npos) << r.out;
  const std::size_t drift = r.out.find("drift in the stream (max): position ");
  ASSERT_NE(drift, std::string::npos) << r.out;
  double position_drift = 1.0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + drift, "drift in the stream (max): position %lf",
                        &position_drift),
            1);
  EXPECT_LE(position_drift, 1e-10);  // PStab keeps the slider-crank's loop closed
}

// configs/five_bar.yaml (issue 4): named channels; the demo client drives channel 0, the left
// motor, and the pantograph's five-joint loop stays closed in the stream
TEST(ServeCommand, FiveBarPantographServesItsNamedChannels) {
  const std::string file = std::string(RTMB_SOURCE_DIR) + "/configs/five_bar.yaml";
  const CommandResult r = run_serve(file + " --duration 1 --demo --port 0");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("five_bar"), std::string::npos) << r.out;
  const std::size_t demo = r.out.find("demo client: ");
  ASSERT_NE(demo, std::string::npos) << r.out;
  unsigned long long sent = 0, received = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + demo, "demo client: %llu inputs sent, %llu states received",
                        &sent, &received),
            2)
      << r.out;
  EXPECT_GT(received, 10u);
  const std::size_t drift = r.out.find("drift in the stream (max): position ");
  ASSERT_NE(drift, std::string::npos) << r.out;
  double position_drift = 1.0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + drift, "drift in the stream (max): position %lf",
                        &position_drift),
            1);
  EXPECT_LE(position_drift, 1e-10);
}

// configs/arm6.yaml (issue 4): the spatial arm serves its named channels (coupling targets in,
// tip outputs out); the demo client drives channel 0, the target's x
TEST(ServeCommand, Arm6ServesItsSpatialNamedChannels) {
  const std::string file = std::string(RTMB_SOURCE_DIR) + "/configs/arm6.yaml";
  const CommandResult r = run_serve(file + " --duration 1 --demo --port 0");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("arm6"), std::string::npos) << r.out;
  const std::size_t demo = r.out.find("demo client: ");
  ASSERT_NE(demo, std::string::npos) << r.out;
  unsigned long long sent = 0, received = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + demo, "demo client: %llu inputs sent, %llu states received",
                        &sent, &received),
            2)
      << r.out;
  EXPECT_GT(received, 10u);
  const std::size_t end = r.out.find("constraint drift at the end: position ");
  ASSERT_NE(end, std::string::npos) << r.out;
  double position_drift = 1.0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + end, "constraint drift at the end: position %lf",
                        &position_drift),
            1);
  std::printf("arm6 serve: %llu inputs sent, %llu states received, end drift %.3g\n", sent,
              received, position_drift);
  EXPECT_LE(position_drift, 1e-8);  // PStab keeps the joints and |e| = 1
}

TEST(ServeCommand, BadModelFileNamesFileLineAndKey) {
  const std::string path = ::testing::TempDir() + "rtmb_bad_model.yaml";
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("mechanism: pendulum\nintegration:\n  dtt: 0.001\n", f);
  std::fclose(f);
  const CommandResult r = run_serve(path + " --duration 1 --port 0");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find(path + ":3:3: key 'integration.dtt': unknown key"), std::string::npos)
      << r.out;
}

TEST(ServeCommand, UnknownModelListsValidOnes) {
  const CommandResult r = run_serve("no_such_model --duration 1 --port 0");
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("unknown model"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pendulum"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("double_pendulum"), std::string::npos) << r.out;
}

}  // namespace
