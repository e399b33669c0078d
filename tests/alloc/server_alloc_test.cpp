// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The server's simulation thread allocates nothing while a client subscribes and streams inputs
// (issue 3, acceptance 5, shortened: about a second of real time rather than 10^5 steps, so the
// test stays quick; the runtime's own 10^5-step check is in runtime_alloc_test.cpp).
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <optional>
#include <thread>

#include "rtmb/client.hpp"
#include "rtmb/server.hpp"
#include "tests/support/alloc_counter.hpp"

namespace rtmb {
namespace {

using namespace std::chrono_literals;
using testing::AllocationCounts;
using testing::AllocationScope;

// Counts the simulation thread's heap calls from just before the loop to just after it.
struct SimThreadCounter {
  std::optional<AllocationScope> scope;
  AllocationCounts counts;
  bool done = false;

  static void hook(void* context, bool begin) {
    auto* self = static_cast<SimThreadCounter*>(context);
    if (begin) {
      self->scope.emplace();
    } else {
      self->counts = self->scope->counts();
      self->scope.reset();
      self->done = true;
    }
  }
};

TEST(ServerAlloc, SimulationThreadDoesNotAllocateWhileClientsStream) {
  ServerConfig config;
  config.model = "pendulum";
  Server server(config);
  SimThreadCounter counter;
  server.set_sim_thread_hook(&SimThreadCounter::hook, &counter);
  server.start();

  Client client;
  client.connect("127.0.0.1", server.tcp_port());
  (void)client.hello();
  client.subscribe(1);
  StateMessage m;
  int received = 0;
  for (int i = 0; i < 1000; ++i) {  // about 1 kHz for about a second
    const std::array<InputSample, 2> samples{InputSample{0, 0.001 * i}, InputSample{1, -0.5}};
    (void)client.send_input(samples);
    if (client.receive_state(m, 20ms)) ++received;
    std::this_thread::sleep_for(1ms);
  }
  (void)client.request(R"({"command":"pause"})");
  (void)client.request(R"({"command":"step","count":10})");
  (void)client.request(R"({"command":"reset"})");
  (void)client.request(R"({"command":"start"})");
  std::this_thread::sleep_for(50ms);
  server.request_stop();
  server.join();

  ASSERT_TRUE(counter.done);
  EXPECT_GT(received, 0);
  EXPECT_GT(server.loop_counters().ticks, 100);
  EXPECT_GT(server.stats().inputs_queued, 0u);
  EXPECT_EQ(counter.counts.allocations, 0u);
  EXPECT_EQ(counter.counts.deallocations, 0u);
}

}  // namespace
}  // namespace rtmb
