// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Issue 7, acceptance 5: the simulation thread allocates nothing with a virtual coupling driven
// over the network, recording and the live view all on. The five-bar pantograph as a haptic
// device model (configs/five_bar_haptic.yaml: the coupling's safety filter with the passivity
// controller, the streamed device force and the coupling's local linearization) is served with
// --record; a device client streams the coupling target at about 1 kHz and reads every state; a
// browser-like WebSocket client reads the view's frames. Afterwards the record replays bit for
// bit, so the recording really captured the session it did not disturb.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/record_model.hpp"
#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"
#include "rtmb/net/view_server.hpp"
#include "rtmb/runtime/record.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/loopback_server.hpp"

namespace rtmb {
namespace {

using namespace std::chrono_literals;
using testing::SimThreadCounter;

TEST(HapticSessionAlloc, CouplingRecordingAndViewOnAllocateNothingOnTheSimulationThread) {
  const std::string record = (std::filesystem::temp_directory_path() /
                              ("rtmb_haptic_alloc_" + std::to_string(::getpid()) + ".rec"))
                                 .string();
  ServerConfig config;
  config.model_file =
      load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/five_bar_haptic.yaml");
  config.record_path = record;
  Server server(config);
  ViewConfig vc;
  vc.web_dir = RTMB_WEB_DIR;
  ViewServer view(vc, server, view_scene_json(*config.model_file));
  SimThreadCounter counter;
  server.set_sim_thread_hook(&SimThreadCounter::hook, &counter);
  server.start();
  view.start();

  // a browser: the scene, then frames at 60 Hz (the view's default)
  std::atomic<int> frames{0};
  std::thread browser([&] {
    namespace asio = boost::asio;
    namespace websocket = boost::beast::websocket;
    asio::io_context io;
    asio::ip::tcp::resolver resolver(io);
    websocket::stream<asio::ip::tcp::socket> ws(io);
    asio::connect(ws.next_layer(), resolver.resolve("127.0.0.1", std::to_string(view.port())));
    ws.handshake("127.0.0.1", "/ws");
    boost::beast::flat_buffer buffer;
    for (int i = 0; i < 40; ++i) {  // the scene and ~0.65 s of frames
      ws.read(buffer);
      buffer.clear();
      ++frames;
    }
    ws.close(websocket::close_code::normal);
  });

  // the device: the coupling target (channels 2, 3 of five_bar_haptic.yaml) on a small circle at 1
  // kHz
  Client device;
  testing::say_hello_and_subscribe(device, server);
  const int received = testing::drive_at_1khz(device, 2000, [](int i) {
    const double a = 2.0 * 3.141592653589793 * 0.5 * i * 1e-3;
    return std::array<InputSample, 2>{InputSample{2, 0.0 + 0.01 * std::cos(a)},
                                      InputSample{3, 0.14 + 0.01 * std::sin(a)}};
  });
  browser.join();
  view.stop();
  server.request_stop();
  server.join();

  ASSERT_TRUE(counter.done);
  EXPECT_GT(received, 500);
  EXPECT_GE(frames.load(), 40);
  EXPECT_EQ(counter.counts.allocations, 0u);
  EXPECT_EQ(counter.counts.deallocations, 0u);
  std::printf(
      "simulation thread: %llu allocations, %llu frees with coupling inputs (%d states "
      "read), recording and the view (%d WebSocket messages) on\n",
      static_cast<unsigned long long>(counter.counts.allocations),
      static_cast<unsigned long long>(counter.counts.deallocations), received, frames.load());

  // the record holds the session and replays it bit for bit
  ASSERT_TRUE(server.record_complete());
  const RecordFile rec = read_record(record);
  EXPECT_GT(rec.entries.size(), 500u);
  const ReplayResult r = replay_record(rec);
  EXPECT_TRUE(r.identical);
  std::printf("record: %lld steps, %zu entries, hash %016llx, replay %016llx\n",
              static_cast<long long>(rec.steps), rec.entries.size(),
              static_cast<unsigned long long>(rec.state_hash),
              static_cast<unsigned long long>(r.state_hash));
  std::filesystem::remove(record);
}

}  // namespace
}  // namespace rtmb
