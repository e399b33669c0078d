// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Issue 20 point 6: the simulation thread hands every coordinate to the live view without
// allocating. A 30-link chain (90 coordinates, more than a snapshot's 64, so the full-position
// buffer of net/view_state_buffer.hpp carries them) is served with the view on; a browser-like
// WebSocket client reports a frame rate (the server then decimates its frames) and reads frames.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <string>
#include <thread>

#include "rtmb/models/chain_models.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/net/server.hpp"
#include "rtmb/net/view_server.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/loopback_server.hpp"

namespace rtmb {
namespace {

using testing::SimThreadCounter;

TEST(ViewStateAlloc, HandingEveryCoordinateToTheViewAllocatesNothingOnTheSimulationThread) {
  ServerConfig config = testing::loopback_config();
  config.model_file = parse_model_file(chain_model_yaml(30, false, false), "chain_30.yaml");
  Server server(config);
  ASSERT_GT(server.view_capacity(), 64u);
  ViewConfig vc;
  vc.web_dir = RTMB_WEB_DIR;
  ViewServer view(vc, server, view_scene_json(*config.model_file));
  SimThreadCounter counter;
  server.set_sim_thread_hook(&SimThreadCounter::hook, &counter);
  server.start();
  view.start();

  int frames = 0;
  std::string last;
  {
    namespace asio = boost::asio;
    namespace websocket = boost::beast::websocket;
    asio::io_context io;
    asio::ip::tcp::resolver resolver(io);
    websocket::stream<asio::ip::tcp::socket> ws(io);
    asio::connect(ws.next_layer(), resolver.resolve("127.0.0.1", std::to_string(view.port())));
    ws.handshake("127.0.0.1", "/ws");
    // a page that draws 20 frames per second: at its first report it gets half the 60 Hz
    // timer's frames, d = 2 (0.8 * 60 / 20 = 2.4, but at most half as many per report;
    // net/view_decimation.hpp)
    ws.write(asio::buffer(std::string(R"({"view":"frame_rate","fps":20})")));
    boost::beast::flat_buffer buffer;
    for (int i = 0; i < 14; ++i) {  // the scene, the reply and ~0.4 s of decimated frames
      ws.read(buffer);
      last = boost::beast::buffers_to_string(buffer.data());
      frames += last.starts_with(R"({"type":"frame")") ? 1 : 0;
      buffer.clear();
    }
    ws.close(websocket::close_code::normal);
  }
  view.stop();
  server.request_stop();
  server.join();

  ASSERT_TRUE(counter.done);
  EXPECT_GE(frames, 10);
  EXPECT_EQ(view.stats().decimation, 2.0);
  EXPECT_GT(server.loop_counters().ticks, 100);
  EXPECT_EQ(counter.counts.allocations, 0u);
  EXPECT_EQ(counter.counts.deallocations, 0u);
}

}  // namespace
}  // namespace rtmb
