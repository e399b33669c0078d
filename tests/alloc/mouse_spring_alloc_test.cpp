// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The live view's mouse spring (net/mouse_spring.hpp, issue 20 point 4) runs on the server's
// simulation thread: grabbing a body (a rigid one, and a beam), moving the target every few
// milliseconds, releasing (the ramp to zero) and a reset during a drag allocate nothing there.
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

// Drags `body` of the model file at body point (px, 0) with the cursor moving along x from x0;
// the loop must have ticked more than min_ticks times.
void expect_drag_allocates_nothing(
    const std::string& file, const std::string& body, double px, double x0, int min_ticks) {
  ServerConfig config;
  config.model_file = load_model_file(std::string(RTMB_SOURCE_DIR) + "/" + file);
  Server server(config);
  SimThreadCounter counter;
  server.set_sim_thread_hook(&SimThreadCounter::hook, &counter);
  server.start();

  Client client;
  testing::say_hello_and_subscribe(client, server);
  const auto drag = [&](double x) {
    const std::string reply =
        client.request(R"({"command":"drag","body":")" + body + R"(","px":)" + std::to_string(px) +
                       R"(,"py":0,"x":)" + std::to_string(x) + R"(,"y":0.2})");
    EXPECT_EQ(reply.rfind(R"({"ok":true)", 0), 0u) << reply;
  };
  for (int i = 0; i < 50; ++i) {  // 0.25 s of a moving cursor
    drag(x0 + 0.004 * i);
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
  EXPECT_GT(server.loop_counters().ticks, min_ticks);
  EXPECT_EQ(counter.counts.allocations, 0u);
  EXPECT_EQ(counter.counts.deallocations, 0u);
}

TEST(MouseSpringAlloc, SimulationThreadDoesNotAllocateWhileABodyIsDragged) {
  expect_drag_allocates_nothing("configs/pendulum_body.yaml", "link", 0.5, 0.5, 300);
}

// the live view test's spinning beam (tests/e2e/beam_spinner.yaml, the implicit midpoint rule),
// grabbed at a quarter of its length: PlanarMultibody's beam point kinematics and J^T F on the
// simulation thread. Fewer ticks than the pendulum's: the loop may fall behind under ASan.
TEST(MouseSpringAlloc, SimulationThreadDoesNotAllocateWhileABeamIsDragged) {
  expect_drag_allocates_nothing("tests/e2e/beam_spinner.yaml", "beam", 0.25, -0.25, 100);
}

}  // namespace
}  // namespace rtmb
