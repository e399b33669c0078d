// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The haptic output through the server (issue 7, acceptance 2): hello announces the haptic_force
// channels, and clamp, rate limit and engage ramp each act on the force in the state datagrams.
// The server runs paused and is stepped one tick at a time after each device position arrives
// over UDP, so every datagram is one known filter sample. A free puck (1 kg, no gravity) at the
// origin coupled at 1000 N/m: the device at x pulls with 1000 (p - x) N (minus the force on the
// puck).
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "rtmb/models/force_output_filter.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"
#include "tests/support/loopback_server.hpp"

namespace rtmb {
namespace {

using namespace std::chrono_literals;

using testing::connect_and_hello;
using testing::eventually;

struct Sample {
  double fx = 0.0;     ///< streamed device force x [N]
  double flags = 0.0;  ///< streamed filter flags
  double raw = 0.0;    ///< minus the coupling force on the puck, x [N]
};

// Serves the puck with `safety` on its coupling (target starting at start_x), then for each
// device position: send it, step one tick, read that tick's datagram.
std::vector<Sample> drive(const std::string& safety,
                          double start_x,
                          const std::vector<double>& device_x) {
  ServerConfig config;
  config.bind_address = "127.0.0.1";
  config.start_running = false;
  config.model_file =
      parse_model_file(R"(name: puck
bodies:
  - {name: puck, mass: 1, inertia: 0.01, pose: [0, 0, 0]}
forces:
  - {name: coupling, type: coupling, body: puck, stiffness: 1000, target: [)" +
                           std::to_string(start_x) + R"(, 0], safety: )" + safety + R"(}
integration: {method: rk4, stabilizer: none, dt: 0.001}
inputs:
  channels:
    - {name: target_x, drive: {type: coupling, element: coupling, axis: x}}
    - {name: target_y, drive: {type: coupling, element: coupling, axis: y}}
outputs:
  channels:
    - {name: device, kind: haptic_force, element: coupling}
    - {name: raw, kind: coupling_force, element: coupling}
)",
                       "puck.yaml");
  Server server(config);
  server.start();
  Client client;
  const ClientSchema schema = connect_and_hello(client, server);
  EXPECT_EQ(schema.outputs,
            (std::vector<std::string>{"device.fx", "device.fy", "device.flags", "device.energy",
                                      "device.damping", "raw.fx", "raw.fy"}));
  EXPECT_EQ(schema.output_units[3], "J");
  client.subscribe(1);
  StateMessage m;
  EXPECT_TRUE(client.receive_state(m, 2000ms));  // the paused initial state
  std::vector<Sample> out;
  for (std::size_t i = 0; i < device_x.size(); ++i) {
    const std::array<InputSample, 2> position{InputSample{0, device_x[i]}, InputSample{1, 0.0}};
    (void)client.send_input(position);
    EXPECT_TRUE(eventually([&] { return server.stats().inputs_queued == 2 * (i + 1); }));
    EXPECT_EQ(client.request(R"({"command":"step","count":1})"), R"({"ok":true,"command":"step"})");
    do {
      EXPECT_TRUE(client.receive_state(m, 2000ms));
    } while (m.header.step < i + 1);
    EXPECT_EQ(m.header.step, i + 1);
    out.push_back(Sample{m.channels[0], m.channels[2], -m.channels[5]});
  }
  server.request_stop();
  server.join();
  return out;
}

bool has(double flags, ForceOutputFlag f) {
  return (static_cast<std::uint32_t>(flags) & static_cast<std::uint32_t>(f)) != 0;
}

TEST(HapticServer, ClampActsOnTheStreamedForce) {
  // device 50 mm to the right: raw -50 N, streamed -8 N
  const std::vector<Sample> s = drive("{max_force: 8}", 0.0, {0.05, 0.05, 0.0});
  std::printf("clamp through the server: raw %.3f N -> streamed %.3f N\n", s[0].raw, s[0].fx);
  EXPECT_LT(s[0].raw, -45.0);
  EXPECT_DOUBLE_EQ(s[0].fx, -8.0);
  EXPECT_TRUE(has(s[0].flags, ForceOutputFlag::kClamped));
  EXPECT_DOUBLE_EQ(s[1].fx, -8.0);
  // back at the puck (it moved < 2 mm): below the clamp, streamed = raw
  EXPECT_FALSE(has(s[2].flags, ForceOutputFlag::kClamped));
  EXPECT_DOUBLE_EQ(s[2].fx, s[2].raw);
}

TEST(HapticServer, RateLimitActsOnTheStreamedForce) {
  // a 10 mm step: raw about -10 N at once, streamed -1.5 N per 1 ms tick
  const std::vector<Sample> s =
      drive("{max_rate: 1500}", 0.0, {0.0, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01});
  for (std::size_t i = 1; i < s.size(); ++i) {
    std::printf("rate limit through the server: tick %zu raw %.4f N streamed %.4f N\n", i, s[i].raw,
                s[i].fx);
    const double change = std::abs(s[i].fx - s[i - 1].fx);
    EXPECT_LE(change, 1.5 + 1e-12) << i;
  }
  EXPECT_NEAR(s[1].fx, -1.5, 1e-12);
  EXPECT_TRUE(has(s[1].flags, ForceOutputFlag::kRateLimited));
  EXPECT_NEAR(s[6].fx, -9.0, 1e-12);
  // the ramp caught up with raw by tick 8 (raw about -9.97 N): no longer limited
  EXPECT_FALSE(has(s[8].flags, ForceOutputFlag::kRateLimited));
  EXPECT_DOUBLE_EQ(s[8].fx, s[8].raw);
}

TEST(HapticServer, EngageRampActsOnTheStreamedForce) {
  // the target starts 30 mm from the puck (raw 30 N): nothing is sent while the device stays
  // there; the device comes to the puck (raw < 1 N): engaged; then 5 mm away: the output is
  // the ramp (1 ms / 5 ms per tick) times raw
  const std::vector<Sample> s = drive("{engage_force: 1, engage_ramp: 0.005}", 0.03,
                                      {0.03, 0.03, 0.0, 0.005, 0.005, 0.005, 0.005, 0.005});
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(s[static_cast<std::size_t>(i)].fx, 0.0);
    EXPECT_TRUE(has(s[static_cast<std::size_t>(i)].flags, ForceOutputFlag::kWaiting));
    EXPECT_GT(std::abs(s[static_cast<std::size_t>(i)].raw), 25.0);
  }
  EXPECT_FALSE(has(s[2].flags, ForceOutputFlag::kWaiting));
  for (std::size_t i = 3; i < s.size(); ++i) {
    const double ramp = std::min(1.0, static_cast<double>(i - 1) * 0.2);
    std::printf("engage ramp through the server: tick %zu raw %.4f N streamed %.4f N (ramp %.1f)\n",
                i, s[i].raw, s[i].fx, ramp);
    EXPECT_NEAR(s[i].fx, ramp * s[i].raw, 1e-12) << i;
    EXPECT_EQ(has(s[i].flags, ForceOutputFlag::kRamping), ramp < 1.0) << i;
  }
}

}  // namespace
}  // namespace rtmb
