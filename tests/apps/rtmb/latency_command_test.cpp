// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb latency` as a user runs it: the JSON summary is complete and consistent, full emulated
// loss echoes nothing, a bad --impair string is refused, --compare measures every clock mode in
// one invocation, and --clock with --connect is refused.
// No timing assertions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>

#include "tests/support/run_binary.hpp"

namespace {

using rtmb::testing::CommandResult;
using rtmb::testing::json_number;
using rtmb::testing::json_value;
using rtmb::testing::run_rtmb;

TEST(LatencyCommand, JsonSummaryIsCompleteAndConsistent) {
  const CommandResult r = run_rtmb("latency --rate 200 --duration 1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string& j = r.last_line;
  ASSERT_EQ(j.front(), '{') << r.out;
  for (const char* key :
       {"rate_hz", "duration_s", "sent", "echoed", "lost", "reordered", "rtt_p50_us", "rtt_p90_us",
        "rtt_p99_us", "rtt_max_us", "floor_p50_us", "floor_p99_us", "floor_max_us", "ratio_p50"}) {
    EXPECT_FALSE(json_value(j, key).empty()) << key << " missing in " << j;
  }
  const double sent = json_number(j, "sent");
  const double echoed = json_number(j, "echoed");
  EXPECT_GT(sent, 0.0) << j;
  EXPECT_GT(echoed, 0.0) << j;
  EXPECT_EQ(echoed + json_number(j, "lost") + json_number(j, "replaced"), sent) << j;
  for (const char* prefix : {"rtt", "floor"}) {
    const std::string p(prefix);
    const double p50 = json_number(j, p + "_p50_us");
    const double p99 = json_number(j, p + "_p99_us");
    const double max = json_number(j, p + "_max_us");
    ASSERT_TRUE(std::isfinite(p50) && std::isfinite(p99) && std::isfinite(max)) << j;
    EXPECT_LE(p50, p99) << j;
    EXPECT_LE(p99, max) << j;
  }
  EXPECT_LE(json_number(j, "rtt_p50_us"), json_number(j, "rtt_p90_us")) << j;
  EXPECT_LE(json_number(j, "rtt_p90_us"), json_number(j, "rtt_p99_us")) << j;
  EXPECT_NE(r.out.find("input->state RTT"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("floor"), std::string::npos) << r.out;
}

TEST(LatencyCommand, FullLossEchoesNothing) {
  const CommandResult r = run_rtmb("latency --rate 200 --duration 0.5 --impair loss=1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string& j = r.last_line;
  EXPECT_GT(json_number(j, "sent"), 0.0) << j;
  EXPECT_EQ(json_number(j, "echoed"), 0.0) << j;
  EXPECT_EQ(json_number(j, "lost"), json_number(j, "sent")) << j;
}

// issue 15: loss=0.05 was reported as 33.6 % lost, counting inputs a newer one replaced in the
// same tick, and the emulated delay counted as the engine's share. The loss is applied once,
// device -> server (apps/rtmb/latency_measurement.cpp), so the lost fraction is a binomial with
// p = 0.05 over n = 2000 inputs: sigma = sqrt(p (1 - p) / n) = 0.49 %; the band is 4 sigma.
TEST(LatencyCommand, LossIsTheEmulatedLossAndTheDelayIsNotTheEngines) {
  const CommandResult r =
      run_rtmb("latency --rate 1000 --duration 2 --impair loss=0.05,delay=2 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string& j = r.last_line;
  const double sent = json_number(j, "sent");
  const double lost = json_number(j, "lost");
  ASSERT_EQ(sent, 2000.0) << j;
  const double sigma = std::sqrt(0.05 * 0.95 / sent);
  EXPECT_NEAR(lost / sent, 0.05, 4.0 * sigma) << j;
  // every input the emulation dropped is lost; what else is lost went missing on loopback
  EXPECT_GE(lost, json_number(j, "impair_dropped")) << j;
  EXPECT_EQ(json_number(j, "echoed") + lost + json_number(j, "replaced"), sent) << j;
  // the engine's share is the RTT less each input's own emulated 2 ms
  EXPECT_NEAR(json_number(j, "rtt_p50_us") - json_number(j, "engine_rtt_p50_us"), 2000.0, 1.0) << j;
}

TEST(LatencyCommand, BadImpairmentIsRefused) {
  for (const char* bad : {"delay=abc", "loss=2", "wobble=3", "delay", "delay=1,delay=2"}) {
    const CommandResult r = run_rtmb(std::string("latency --duration 0.1 --impair ") + bad);
    EXPECT_NE(r.exit_code, 0) << bad << ": " << r.out;
    EXPECT_NE(r.out.find("bad --impair"), std::string::npos) << bad << ": " << r.out;
  }
}

TEST(LatencyCommand, UnknownChannelIsRefused) {
  const CommandResult r = run_rtmb("latency --rate 100 --duration 0.1 --channel nope");
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("unknown input channel"), std::string::npos) << r.out;
}

TEST(LatencyCommand, CompareMeasuresEveryClockModeAgainstOneFloor) {
  const CommandResult r = run_rtmb("latency --rate 200 --duration 1 --compare --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string& j = r.last_line;
  for (const char* mode : {"wall", "phase_lock", "device"}) {
    const std::string m(mode);
    const double sent = json_number(j, m + "_sent");
    EXPECT_GT(sent, 0.0) << m << ": " << j;
    EXPECT_GT(json_number(j, m + "_echoed"), 0.0) << m << ": " << j;
    EXPECT_EQ(json_number(j, m + "_echoed") + json_number(j, m + "_lost") +
                  json_number(j, m + "_replaced"),
              sent)
        << j;
    EXPECT_LE(json_number(j, m + "_rtt_p50_us"), json_number(j, m + "_rtt_p99_us")) << j;
    // the server's side was measured in both modes (the in-process server's histograms)
    EXPECT_GE(json_number(j, m + "_server_input_wait_p50_us"), 0.0) << j;
  }
  EXPECT_TRUE(std::isfinite(json_number(j, "floor_p50_us"))) << j;
  for (const char* row : {"  wall ", "  phase-lock ", "  device ", "  floor "}) {
    EXPECT_NE(r.out.find(row), std::string::npos) << row << " row missing:\n" << r.out;
  }
}

TEST(LatencyCommand, ClockOptionsAreRefusedWithConnect) {
  const CommandResult r = run_rtmb("latency --connect 127.0.0.1:9 --clock phase-lock");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--clock, --input-margin-us, --spin-us, --server-cpu and --compare"),
            std::string::npos)
      << r.out;
  const CommandResult bad = run_rtmb("latency --clock sundial");
  EXPECT_NE(bad.exit_code, 0) << bad.out;
  EXPECT_NE(bad.out.find("--clock"), std::string::npos) << bad.out;
}

// --device-cpu / --server-cpu (issue 14): each end of both round trips on a CPU of its own;
// the placement is printed and in the JSON; a CPU the process cannot use is refused (exit 2)
// before anything is measured.
TEST(LatencyCommand, DeviceAndServerRunOnTheCpusAsked) {
  const int server_cpu = std::thread::hardware_concurrency() > 1 ? 1 : 0;
  const CommandResult r =
      run_rtmb("latency --rate 200 --duration 0.5 --clock device --device-cpu 0 --server-cpu " +
               std::to_string(server_cpu) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("placement: device and floor pinger on CPU 0, server and floor echo on "
                       "CPU " +
                       std::to_string(server_cpu)),
            std::string::npos)
      << r.out;
  EXPECT_EQ(json_number(r.last_line, "device_cpu"), 0.0) << r.last_line;
  EXPECT_EQ(json_number(r.last_line, "server_cpu"), server_cpu) << r.last_line;
  EXPECT_GT(json_number(r.last_line, "echoed"), 0.0) << r.last_line;
  const CommandResult bad = run_rtmb("latency --duration 0.5 --server-cpu 1023");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--server-cpu 1023: CPU 1023 is not available"), std::string::npos)
      << bad.out;
  EXPECT_EQ(bad.out.find("input->state RTT"), std::string::npos) << bad.out;
}

// --device-poll (issue 14): the device and the floor's pinger poll instead of sleeping; the
// report says which ends poll, and the JSON carries the flag. The round trip still completes
// (echoes come back and every input is accounted for) whether the server spins or sleeps.
TEST(LatencyCommand, DevicePollIsReportedAndTheRoundTripCompletes) {
  const int server_cpu = std::thread::hardware_concurrency() > 1 ? 1 : 0;
  const std::string place = " --device-cpu 0 --server-cpu " + std::to_string(server_cpu);
  const CommandResult spin = run_rtmb(
      "latency --rate 200 --duration 0.5 --clock device --spin-us 100 --device-poll --json" +
      place);
  ASSERT_EQ(spin.exit_code, 0) << spin.out;
  EXPECT_NE(spin.out.find("waiting: device and floor pinger poll; the server spins and the floor "
                          "echo polls"),
            std::string::npos)
      << spin.out;
  const std::string& j = spin.last_line;
  EXPECT_EQ(json_value(j, "device_poll"), "true") << j;
  EXPECT_GT(json_number(j, "echoed"), 0.0) << j;
  EXPECT_EQ(json_number(j, "echoed") + json_number(j, "lost") + json_number(j, "replaced"),
            json_number(j, "sent"))
      << j;
  EXPECT_TRUE(std::isfinite(json_number(j, "floor_p50_us"))) << j;

  const CommandResult sleep =
      run_rtmb("latency --rate 200 --duration 0.5 --device-poll --json" + place);
  ASSERT_EQ(sleep.exit_code, 0) << sleep.out;
  EXPECT_NE(sleep.out.find("the server and the floor echo sleep"), std::string::npos) << sleep.out;
  EXPECT_GT(json_number(sleep.last_line, "echoed"), 0.0) << sleep.last_line;
  const CommandResult plain = run_rtmb("latency --rate 200 --duration 0.2 --json");
  ASSERT_EQ(plain.exit_code, 0) << plain.out;
  EXPECT_EQ(json_value(plain.last_line, "device_poll"), "false") << plain.last_line;
  EXPECT_EQ(plain.out.find("waiting:"), std::string::npos) << plain.out;
}

// The in-process server ticks at the device's --rate (issue 14): the pendulum (dt 1 ms) at
// 200 Hz runs 5 steps per tick with its own dt; at 10 kHz (no whole number of 1 ms steps) one
// step of 1e-4 s per tick, so the input limit (4 x the loop rate) drops none of the inputs.
TEST(LatencyCommand, TheInProcessServerTicksAtTheDevicesRate) {
  const CommandResult slow = run_rtmb("latency --rate 200 --duration 0.2 --json");
  ASSERT_EQ(slow.exit_code, 0) << slow.out;
  EXPECT_EQ(json_number(slow.last_line, "server_rate_hz"), 200.0) << slow.last_line;
  EXPECT_EQ(json_number(slow.last_line, "server_dt_s"), 1e-3) << slow.last_line;
  EXPECT_NE(slow.out.find("server loop 200.0 Hz, engine step dt 0.001 s (5 per tick)"),
            std::string::npos)
      << slow.out;

  const CommandResult fast = run_rtmb("latency --rate 10000 --duration 0.3 --clock device --json");
  ASSERT_EQ(fast.exit_code, 0) << fast.out;
  const std::string& j = fast.last_line;
  EXPECT_EQ(json_number(j, "server_rate_hz"), 10000.0) << j;
  EXPECT_NEAR(json_number(j, "server_dt_s"), 1e-4, 1e-16) << j;
  // the rate limit would have refused 60 % of 3000 inputs; loopback loses none in practice,
  // the bound leaves room for a stalled test machine
  EXPECT_LT(json_number(j, "lost"), 0.05 * json_number(j, "sent")) << j;

  const CommandResult bad = run_rtmb("latency --rate 0.001 --duration 2000 --model andrews");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("more than 1e5 steps"), std::string::npos) << bad.out;
}

}  // namespace
