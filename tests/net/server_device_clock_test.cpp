// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The server in clock mode device (issue 14): each admitted input datagram runs one tick at once
// and its state comes back with the echo. The loop runs at 10 Hz, so a wall tick comes at most
// every 100 ms and, once the client's inputs run the loop, none at all (stale_after is 300 ms,
// and the client's inputs come as fast as the states return): the steps between consecutive
// echoes count the ticks exactly.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <vector>

#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"
#include "tests/support/loopback_server.hpp"

namespace rtmb {
namespace {

// Waits for the state that echoes input `sequence`; false after the timeout.
bool receive_echo(Client& client, std::uint64_t sequence, StateMessage& m) {
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (client.receive_state_until(m, limit)) {
    if ((m.header.flags & static_cast<std::uint16_t>(WireFlag::kEchoValid)) != 0 &&
        m.echo.sequence == sequence) {
      return true;
    }
  }
  return false;
}

// The pendulum on loopback at 10 Hz in clock mode device.
ServerConfig device_config() {
  ServerConfig config = testing::loopback_config();
  config.rate_hz = 10.0;
  config.clock = ClockMode::kDevice;
  return config;
}

TEST(ServerDeviceClock, EachInputRunsOneTickAndGetsItsStateAtOnce) {
  Server server(device_config());
  EXPECT_EQ(server.clock_mode(), ClockMode::kDevice);
  const std::uint64_t substeps = static_cast<std::uint64_t>(server.schema().substeps);
  server.start();
  Client client;
  testing::say_hello_and_subscribe(client, server);

  // the first input locks the loop on; it may be absorbed by the wall tick just run (if it
  // comes less than half a period after it), and then its data goes with the next input's tick
  const std::array<InputSample, 1> sample{InputSample{0, 0.01}};
  (void)client.send_input(sample);
  constexpr int kInputs = 20;
  std::vector<std::uint64_t> steps;
  StateMessage m;
  for (int i = 0; i < kInputs; ++i) {
    const MessageHeader sent = client.send_input(sample);
    ASSERT_TRUE(receive_echo(client, sent.sequence, m)) << "input " << i;
    steps.push_back(m.header.step);
  }
  server.request_stop();
  server.join();

  // locked on: every input is exactly one tick
  for (int i = 1; i < kInputs; ++i) {
    EXPECT_EQ(steps[static_cast<std::size_t>(i)] - steps[static_cast<std::size_t>(i - 1)], substeps)
        << "input " << i;
  }
  EXPECT_EQ(server.stop_reason(), StopReason::kStopRequested);
  EXPECT_GE(server.loop_counters().ticks, kInputs - 1);
}

// Inputs sent back to back, without waiting for their states, may reach the loop in one
// wake-up (always under a sanitizer, often on a loaded machine): each still runs its own tick
// with its own data and comes back in its own echo, one tick after the other (before, one tick
// per input ran, but each applied everything read in the wake, and the earlier inputs' echoes
// were lost).
TEST(ServerDeviceClock, InputsSentBackToBackEachGetTheirOwnTickAndEcho) {
  Server server(device_config());
  const std::uint64_t substeps = static_cast<std::uint64_t>(server.schema().substeps);
  server.start();
  Client client;
  testing::say_hello_and_subscribe(client, server);

  // lock on as above: the first input may be absorbed by a wall tick, the second is not
  const std::array<InputSample, 1> sample{InputSample{0, 0.01}};
  (void)client.send_input(sample);
  StateMessage m;
  ASSERT_TRUE(receive_echo(client, client.send_input(sample).sequence, m));

  constexpr int kBurst = 6;
  std::array<std::uint64_t, kBurst> sequences{};
  for (int i = 0; i < kBurst; ++i) {
    sequences[static_cast<std::size_t>(i)] = client.send_input(sample).sequence;
  }
  std::array<std::uint64_t, kBurst> steps{};
  for (int i = 0; i < kBurst; ++i) {
    ASSERT_TRUE(receive_echo(client, sequences[static_cast<std::size_t>(i)], m)) << "input " << i;
    steps[static_cast<std::size_t>(i)] = m.header.step;
    EXPECT_EQ(m.echo.applied_step, m.header.step - substeps + 1) << "input " << i;
  }
  server.request_stop();
  server.join();
  for (int i = 1; i < kBurst; ++i) {
    EXPECT_EQ(steps[static_cast<std::size_t>(i)] - steps[static_cast<std::size_t>(i - 1)], substeps)
        << "input " << i;
  }
}

}  // namespace
}  // namespace rtmb
