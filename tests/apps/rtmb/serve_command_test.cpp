// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb serve` as a user runs it: a short run with a closing report, the clock modes, and a wrong
// model name.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>

#include "tests/support/run_binary.hpp"
#include "tests/support/text_files.hpp"

namespace {

using rtmb::testing::CommandResult;
using rtmb::testing::contains_all;

CommandResult run_serve(const std::string& args) {
  return rtmb::testing::run_rtmb("serve " + args);
}

/// What the demo client reports at the end: "demo client: N inputs sent, M states received".
struct DemoCounts {
  unsigned long long sent = 0;
  unsigned long long received = 0;
};

std::optional<DemoCounts> demo_counts(const std::string& out) {
  DemoCounts c;
  if (!rtmb::testing::scan_after(
          out, "demo client: ", "demo client: %llu inputs sent, %llu states received", &c.sent,
          &c.received)) {
    return std::nullopt;
  }
  return c;
}

/// The number printed after `label` (e.g. "drift in the stream (max): position "), if present.
std::optional<double> number_after(const std::string& out, const std::string& label) {
  double value = 0.0;
  if (!rtmb::testing::scan_after(out, label, (label + "%lf").c_str(), &value)) return std::nullopt;
  return value;
}

/// `rtmb serve configs/NAME.yaml --duration 1 --demo --port 0`: it ends well, names its model,
/// and the demo client's states arrive.
CommandResult serve_config_with_demo(const std::string& name) {
  const std::string file = std::string(RTMB_SOURCE_DIR) + "/configs/" + name + ".yaml";
  const CommandResult r = run_serve(file + " --duration 1 --demo --port 0");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains_all(r.out, {name}));
  const std::optional<DemoCounts> demo = demo_counts(r.out);
  EXPECT_TRUE(demo) << r.out;
  EXPECT_GT(demo.value_or(DemoCounts{}).received, 10u);
  return r;
}

constexpr const char* kStreamDrift = "drift in the stream (max): position ";

TEST(ServeCommand, ShortRunPrintsClosingReport) {
  const CommandResult r = run_serve("pendulum --duration 1 --port 0");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains_all(
      r.out, {"closing report", "compute", "p99", "overruns", "drift", "udp in: received"}));
  EXPECT_TRUE(contains_all(r.out, {"clock wall", "closing report (pendulum, clock wall"})) << r.out;
  EXPECT_EQ(r.out.find("phase-lock:"), std::string::npos) << r.out;
}

// Clock mode phase-lock (issue 14): the demo device's inputs lock the loop's phase; the report
// says so with the margin asked for. Counts only: how close the wait comes is a measurement.
TEST(ServeCommand, PhaseLockWithTheDemoClientLocksOnItsInputs) {
  const CommandResult r =
      run_serve("pendulum --duration 1 --port 0 --demo --clock phase-lock --input-margin-us 50");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"clock phase-lock", "phase-lock: margin 50 us", "in->tick"}))
      << r.out;
  const std::optional<double> locked = number_after(r.out, "phase-lock: margin 50 us, locked ");
  ASSERT_TRUE(locked) << r.out;
  EXPECT_GT(*locked, 0.0) << r.out;
  const std::optional<DemoCounts> demo = demo_counts(r.out);
  ASSERT_TRUE(demo) << r.out;
  EXPECT_GT(demo->received, 10u);
}

TEST(ServeCommand, DeviceClockServes) {
  // without a client the device loop ticks on the wall clock (DeviceLockstep's kFree)
  const CommandResult r = run_serve("pendulum --duration 1 --port 0 --clock device");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("closing report (pendulum, clock device"), std::string::npos) << r.out;
}

TEST(ServeCommand, InputMarginAboveHalfThePeriodIsRefused) {
  const CommandResult r = run_serve(
      "pendulum --rate 1000 --duration 1 --port 0 --clock phase-lock "
      "--input-margin-us 600");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("input margin 600 us must be in [0, half the tick period = 500 us]"),
            std::string::npos)
      << r.out;
}

TEST(ServeCommand, ModelFileClockKeyIsUsedAndTheOptionOverridesIt) {
  const std::string path = rtmb::testing::write_temp_file(
      "rtmb_clock_model.yaml", "mechanism: pendulum\nserve:\n  clock: phase-lock\n");
  const CommandResult by_file = run_serve(path + " --duration 1 --port 0");
  EXPECT_EQ(by_file.exit_code, 0) << by_file.out;
  EXPECT_TRUE(contains_all(by_file.out, {"clock phase-lock", "phase-lock: margin 30 us"}))
      << by_file.out;
  const CommandResult by_option = run_serve(path + " --duration 1 --port 0 --clock wall");
  EXPECT_EQ(by_option.exit_code, 0) << by_option.out;
  EXPECT_NE(by_option.out.find("clock wall"), std::string::npos) << by_option.out;
}

// What `make run` does: the default model file with the demo client, closing report with the
// demo's end-to-end latency; the physics in it must hold (the loop stays closed).
TEST(ServeCommand, DefaultModelWithDemoClientReportsLatencyAndDrift) {
  const CommandResult r = run_serve("--duration 2 --demo --port 0");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"slider_crank", "configs/default.yaml"}));
  EXPECT_NE(r.out.find("clock phase-lock"), std::string::npos) << r.out;  // --demo's default
  const std::optional<DemoCounts> demo = demo_counts(r.out);
  ASSERT_TRUE(demo) << r.out;
  EXPECT_EQ(r.out.find("error:", r.out.find("demo client: ")), std::string::npos) << r.out;
  EXPECT_GT(demo->sent, 100u);
  EXPECT_GT(demo->received, 100u);
  EXPECT_TRUE(contains_all(r.out, {"end-to-end input->state"}));
  const std::optional<double> position_drift = number_after(r.out, kStreamDrift);
  ASSERT_TRUE(position_drift) << r.out;
  EXPECT_LE(*position_drift, 1e-10);  // PStab keeps the slider-crank's loop closed
}

// configs/five_bar.yaml (issue 4): named channels; the demo client drives channel 0, the left
// motor, and the pantograph's five-joint loop stays closed in the stream
TEST(ServeCommand, FiveBarPantographServesItsNamedChannels) {
  const CommandResult r = serve_config_with_demo("five_bar");
  const std::optional<double> position_drift = number_after(r.out, kStreamDrift);
  ASSERT_TRUE(position_drift) << r.out;
  EXPECT_LE(*position_drift, 1e-10);
}

// configs/arm6.yaml (issue 4): the spatial arm serves its named channels (coupling targets in,
// tip outputs out); the demo client drives channel 0, the target's x
TEST(ServeCommand, Arm6ServesItsSpatialNamedChannels) {
  const CommandResult r = serve_config_with_demo("arm6");
  const DemoCounts demo = demo_counts(r.out).value_or(DemoCounts{});
  const std::optional<double> position_drift =
      number_after(r.out, "constraint drift at the end: position ");
  ASSERT_TRUE(position_drift) << r.out;
  std::printf("arm6 serve: %llu inputs sent, %llu states received, end drift %.3g\n", demo.sent,
              demo.received, *position_drift);
  EXPECT_LE(*position_drift, 1e-8);  // PStab keeps the joints and |e| = 1
}

TEST(ServeCommand, BadModelFileNamesFileLineAndKey) {
  const std::string path = rtmb::testing::write_temp_file(
      "rtmb_bad_model.yaml", "mechanism: pendulum\nintegration:\n  dtt: 0.001\n");
  const CommandResult r = run_serve(path + " --duration 1 --port 0");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find(path + ":3:3: key 'integration.dtt': unknown key"), std::string::npos)
      << r.out;
}

TEST(ServeCommand, UnknownModelListsValidOnes) {
  const CommandResult r = run_serve("no_such_model --duration 1 --port 0");
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"unknown model", "pendulum", "double_pendulum"}));
}

}  // namespace
