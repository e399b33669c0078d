// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The live view's mouse spring (net/mouse_spring.hpp, issue 20 point 4) runs on the server's
// simulation thread: grabbing a body, moving the target every few milliseconds, releasing (the
// ramp to zero) and a reset during a drag allocate nothing there.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "rtmb/models/model_file.hpp"
#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/loopback_server.hpp"

namespace rtmb {
namespace {

using namespace std::chrono_literals;
using testing::SimThreadCounter;

TEST(MouseSpringAlloc, SimulationThreadDoesNotAllocateWhileABodyIsDragged) {
  ServerConfig config;
  config.model_file = load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/pendulum_body.yaml");
  Server server(config);
  SimThreadCounter counter;
  server.set_sim_thread_hook(&SimThreadCounter::hook, &counter);
  server.start();

  Client client;
  testing::say_hello_and_subscribe(client, server);
  const auto drag = [&](double x) {
    const std::string reply =
        client.request(R"({"command":"drag","body":"link","px":0.5,"py":0,"x":)" +
                       std::to_string(x) + R"(,"y":0.2})");
    EXPECT_EQ(reply.rfind(R"({"ok":true)", 0), 0u) << reply;
  };
  for (int i = 0; i < 50; ++i) {  // 0.25 s of a moving cursor
    drag(0.5 + 0.004 * i);
    std::this_thread::sleep_for(5ms);
  }
  // the spring did pull (the simulation thread published its force)
  EXPECT_TRUE(testing::eventually([&] {
    const ServerStats st = server.stats();
    return st.drag.active && st.drag.force[0] != 0.0;
  }));
  EXPECT_EQ(client.request(R"({"command":"drag"})").rfind(R"({"ok":true)", 0), 0u);
  std::this_thread::sleep_for(100ms);  // the release ramp
  drag(0.3);
  (void)client.request(R"({"command":"reset"})");  // drops the drag
  drag(0.3);
  std::this_thread::sleep_for(100ms);
  server.request_stop();
  server.join();

  ASSERT_TRUE(counter.done);
  EXPECT_GT(server.loop_counters().ticks, 300);
  EXPECT_EQ(counter.counts.allocations, 0u);
  EXPECT_EQ(counter.counts.deallocations, 0u);
}

}  // namespace
}  // namespace rtmb
