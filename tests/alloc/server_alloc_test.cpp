// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The server's simulation thread allocates nothing while clients subscribe and stream inputs
// (issue 3, acceptance 5; issue 14, acceptance 5: the simulation thread sends the states itself):
// 10^5 engine steps on the real clock with two clients at 1 kHz, a flood of garbage datagrams and
// a subscription that comes and goes, and a shorter run that also exercises the control
// commands; each in the three clock modes (wall, phase-lock, device).
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"
#include "rtmb/net/udp_socket.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/loopback_server.hpp"

namespace rtmb {
namespace {

using namespace std::chrono_literals;
using testing::SimThreadCounter;

// A client streams inputs and sends every control command; the simulation thread must not
// allocate, in the clock mode given (and with its spin: the device mode's spinning wait).
void expect_no_allocation_while_a_client_streams(ClockMode clock, std::int64_t spin_ns = 0) {
  ServerConfig config;
  config.model = "pendulum";
  config.clock = clock;
  config.spin_ns = spin_ns;
  Server server(config);
  SimThreadCounter counter;
  server.set_sim_thread_hook(&SimThreadCounter::hook, &counter);
  server.start();

  Client client;
  testing::say_hello_and_subscribe(client, server);
  const int received = testing::drive_at_1khz(client, 1000, [](int i) {  // about a second
    return std::array<InputSample, 2>{InputSample{0, 0.001 * i}, InputSample{1, -0.5}};
  });
  // wire version 2 (issue 15, acceptance 5): the inputs above were signed and each MAC was
  // checked on the simulation thread; a replayed and a forged one take the rejection paths too
  ASSERT_EQ(client.schema().version, kWireVersionAuthenticated);
  InputMessage old;
  old.header.sequence = 1;  // accepted about 1000 datagrams ago: outside the replay window
  old.sample_count = 1;
  old.samples[0] = InputSample{0, 0.5};
  std::array<std::byte, kMaxDatagramBytes> datagram{};
  const std::size_t size = client.encode_input_datagram(old, datagram);
  ASSERT_GT(size, 0u);
  client.send_datagram(std::span<const std::byte>(datagram.data(), size));
  datagram[size - 1] ^= std::byte{0x01};  // a tag bit flipped
  client.send_datagram(std::span<const std::byte>(datagram.data(), size));
  (void)client.request(R"({"command":"pause"})");
  (void)client.request(R"({"command":"step","count":10})");
  (void)client.request(R"({"command":"reset"})");
  (void)client.request(R"({"command":"start"})");
  // load swaps the whole model between two ticks: the simulation thread only moves pointers
  const std::string loaded = client.request(R"({"command":"load","model":"andrews"})");
  EXPECT_NE(loaded.find(R"("model":"andrews")"), std::string::npos) << loaded;
  std::this_thread::sleep_for(50ms);
  server.request_stop();
  server.join();

  ASSERT_TRUE(counter.done);
  EXPECT_GT(received, 0);
  EXPECT_GT(server.loop_counters().ticks, 100);
  EXPECT_GT(server.stats().inputs_queued, 0u);
  EXPECT_GT(server.stats().udp_in.accepted(), 0u);
  EXPECT_EQ(server.stats().udp_in.count(PacketStatus::kOutOfOrder), 1u);
  EXPECT_EQ(server.stats().udp_in.count(PacketStatus::kBadMac), 1u);
  EXPECT_EQ(counter.counts.allocations, 0u);
  EXPECT_EQ(counter.counts.deallocations, 0u);
  if (clock == ClockMode::kPhaseLock) {
    ASSERT_NE(server.phase_lock(), nullptr);
    EXPECT_GT(server.phase_lock()->counters().locked_ticks, 0);  // the lock did run
  }
  EXPECT_EQ(server.clock_mode(), clock);
}

TEST(ServerAlloc, SimulationThreadDoesNotAllocateWhileClientsStream) {
  expect_no_allocation_while_a_client_streams(ClockMode::kWall);
}

TEST(ServerAlloc, SimulationThreadDoesNotAllocateWhileClientsStreamWithPhaseLock) {
  expect_no_allocation_while_a_client_streams(ClockMode::kPhaseLock);
}

// Device mode: the simulation thread also waits on the socket (ppoll) and ticks on the inputs.
TEST(ServerAlloc, SimulationThreadDoesNotAllocateWhileClientsStreamWithDeviceClock) {
  expect_no_allocation_while_a_client_streams(ClockMode::kDevice);
}

// ... and spinning around each expected input (PeriodicInputWait, `--spin-us`)
TEST(ServerAlloc, SimulationThreadDoesNotAllocateWhileClientsStreamWithDeviceClockAndSpin) {
  expect_no_allocation_while_a_client_streams(ClockMode::kDevice, 200'000);
}

// One emulated device: 1 kHz inputs on every channel, reading states in between.
void stream_at_1khz(std::uint16_t tcp_port,
                    const std::atomic<bool>& stop,
                    std::atomic<int>& states,
                    std::atomic<int>& failures) {
  try {
    Client client;
    client.connect("127.0.0.1", tcp_port);
    const ClientSchema schema = client.hello();
    client.subscribe(1);
    std::vector<InputSample> samples(schema.inputs.size());
    StateMessage m;
    auto next = std::chrono::steady_clock::now();
    for (int i = 0; !stop.load(); ++i) {
      for (std::size_t c = 0; c < samples.size(); ++c) {
        samples[c] =
            InputSample{static_cast<std::uint16_t>(c), 1e-3 * ((i + static_cast<int>(c)) % 7)};
      }
      (void)client.send_input(samples);
      next += 1ms;
      while (client.receive_state_until(m, next)) ++states;
    }
  } catch (const std::exception&) {
    ++failures;
  }
}

// Garbage at about 5 kHz until stop: random bytes, half of them with a valid magic and version so
// they are checked further in.
void flood_garbage(std::uint16_t udp_port, const std::atomic<bool>& stop, std::atomic<int>& sent) {
  UdpSocket raw;
  raw.connect("127.0.0.1", udp_port);
  std::mt19937 rng(2024);
  std::array<std::byte, kMaxDatagramBytes + 8> garbage{};
  while (!stop.load()) {
    for (int k = 0; k < 5; ++k) {
      const std::size_t n = rng() % garbage.size();
      for (std::size_t b = 0; b < n; ++b) garbage[b] = static_cast<std::byte>(rng());
      if (k % 2 == 0 && n >= 8) {
        const std::array<unsigned char, 6> head{0x52, 0x54, 0x4D, 0x42, 0x01, 0x00};
        std::memcpy(garbage.data(), head.data(), head.size());
      }
      if (raw.send(std::span<const std::byte>(garbage.data(), n))) ++sent;
    }
    std::this_thread::sleep_for(1ms);
  }
}

// A subscription that comes and goes every few milliseconds: new subscriber tables for the
// simulation thread to take.
void churn_subscription(std::uint16_t tcp_port,
                        const std::atomic<bool>& stop,
                        std::atomic<int>& rounds,
                        std::atomic<int>& failures) {
  try {
    Client client;
    client.connect("127.0.0.1", tcp_port);
    (void)client.hello();
    while (!stop.load()) {
      client.subscribe(3);
      std::this_thread::sleep_for(5ms);
      if (!client.request(R"({"command":"unsubscribe"})").starts_with(R"({"ok":true)")) ++failures;
      std::this_thread::sleep_for(5ms);
      ++rounds;
    }
  } catch (const std::exception&) {
    ++failures;
  }
}

// Andrews' mechanism (dt = 5e-5 s) at a 1 kHz loop rate: 20 engine steps per tick, so 10^5
// steps take 5 s of real time (2.5 s in device mode, where each client's input runs a tick).
void expect_no_allocation_over_1e5_steps(ClockMode clock) {
  ServerConfig config;
  config.model = "andrews";
  config.rate_hz = 1000.0;
  config.clock = clock;
  // the garbage comes from the clients' address: a limit it cannot exhaust keeps the clients'
  // inputs flowing (the limit itself is tested in tests/net/server_test.cpp)
  config.max_input_rate_hz = 1e6;
  Server server(config);
  ASSERT_EQ(server.schema().substeps, 20);
  SimThreadCounter counter;
  server.set_sim_thread_hook(&SimThreadCounter::hook, &counter);
  server.start();

  std::atomic<bool> stop{false};
  std::atomic<int> states{0};
  std::atomic<int> failures{0};
  std::thread a(stream_at_1khz, server.tcp_port(), std::cref(stop), std::ref(states),
                std::ref(failures));
  std::thread b(stream_at_1khz, server.tcp_port(), std::cref(stop), std::ref(states),
                std::ref(failures));
  std::atomic<int> garbage{0};
  std::thread flood(flood_garbage, server.udp_port(), std::cref(stop), std::ref(garbage));
  std::atomic<int> rounds{0};
  std::thread churn(churn_subscription, server.tcp_port(), std::cref(stop), std::ref(rounds),
                    std::ref(failures));
  const auto limit = std::chrono::steady_clock::now() + 60s;  // a bound, not a timing check
  while (server.stats().step < 100'000 && std::chrono::steady_clock::now() < limit) {
    std::this_thread::sleep_for(50ms);
  }
  stop = true;
  a.join();
  b.join();
  flood.join();
  churn.join();
  server.request_stop();
  server.join();

  ASSERT_TRUE(counter.done);
  EXPECT_GE(server.stats().step, 100'000u);
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(states.load(), 1000);
  EXPECT_GT(server.stats().inputs_queued, 1000u);
  EXPECT_GT(garbage.load(), 1000);
  EXPECT_GT(server.stats().udp_in.rejected(), 1000u);  // the garbage reached the server
  EXPECT_GT(rounds.load(), 10);
  EXPECT_TRUE(server.stats().state_finite);
  EXPECT_EQ(counter.counts.allocations, 0u);
  EXPECT_EQ(counter.counts.deallocations, 0u);
  EXPECT_EQ(server.clock_mode(), clock);
}

TEST(ServerAlloc, NoAllocationOverOneHundredThousandStepsWithTwoClientsAt1kHz) {
  expect_no_allocation_over_1e5_steps(ClockMode::kWall);
}

TEST(ServerAlloc, NoAllocationOverOneHundredThousandStepsWithTwoClientsAt1kHzPhaseLock) {
  expect_no_allocation_over_1e5_steps(ClockMode::kPhaseLock);
}

TEST(ServerAlloc, NoAllocationOverOneHundredThousandStepsWithTwoClientsAt1kHzDeviceClock) {
  expect_no_allocation_over_1e5_steps(ClockMode::kDevice);
}

}  // namespace
}  // namespace rtmb
