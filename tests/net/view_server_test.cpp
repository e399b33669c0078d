// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The live view over real sockets (net/view_server.cpp): with a token (rtmb serve --token) a
// request for the page or the WebSocket without it, or with a wrong one, is refused (401/403)
// and with it the page and the scene arrive (issue 15, point 6); the page's messages are control
// commands that reach the server through its control channel, its hello and token check included
// (issue 20, point 3); a page's reported frame rate sets its decimation, and a model larger than
// the state stream's channels is served and its frames carry every coordinate (issue 20 point 6).
#include "rtmb/net/view_server.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "rtmb/models/chain_models.hpp"
#include "rtmb/net/server.hpp"
#include "tests/support/loopback_server.hpp"

namespace rtmb {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

// A web folder with the seven files the view serves, each holding its own name.
std::string fake_web_dir() {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "rtmb_view_web";
  std::filesystem::create_directories(dir);
  for (const char* name : {"index.html", "view.js", "charts.js", "instanced_bodies.js",
                           "three.module.js", "three.core.js", "OrbitControls.js"}) {
    std::ofstream(dir / name) << "file " << name << "\n";
  }
  return dir.string();
}

// One GET over a fresh connection, optionally asking for a WebSocket upgrade: the status and
// the body.
std::pair<unsigned, std::string> http_get(std::uint16_t port,
                                          const std::string& target,
                                          bool upgrade = false) {
  asio::io_context io;
  tcp::resolver resolver(io);
  beast::tcp_stream stream(io);
  stream.expires_after(std::chrono::seconds(20));
  stream.connect(resolver.resolve("127.0.0.1", std::to_string(port)));
  http::request<http::empty_body> req{http::verb::get, target, 11};
  req.set(http::field::host, "127.0.0.1");
  if (upgrade) {  // RFC 6455 4.1
    req.set(http::field::connection, "Upgrade");
    req.set(http::field::upgrade, "websocket");
    req.set(http::field::sec_websocket_version, "13");
    req.set(http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  }
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  return {res.result_int(), res.body()};
}

// The WebSocket handshake on `target` and the first message.
std::string ws_first_message(std::uint16_t port, const std::string& target) {
  asio::io_context io;
  tcp::resolver resolver(io);
  websocket::stream<beast::tcp_stream> ws(io);
  beast::get_lowest_layer(ws).expires_after(std::chrono::seconds(20));
  beast::get_lowest_layer(ws).connect(resolver.resolve("127.0.0.1", std::to_string(port)));
  ws.handshake("127.0.0.1", target);
  beast::flat_buffer buffer;
  ws.read(buffer);
  ws.close(websocket::close_code::normal);
  return beast::buffers_to_string(buffer.data());
}

class ViewServerToken : public ::testing::Test {
 protected:
  ViewServerToken() : server_(testing::loopback_config()) {
    ViewConfig vc;
    vc.web_dir = fake_web_dir();
    vc.token = "s3cret";
    view_ = std::make_unique<ViewServer>(vc, server_, R"({"type":"scene"})");
    view_->start();
  }
  ~ViewServerToken() override { view_->stop(); }

  Server server_;  // never started: the view only reads its stats
  std::unique_ptr<ViewServer> view_;
};

TEST_F(ViewServerToken, ThePageNeedsTheToken) {
  const std::uint16_t port = view_->port();
  EXPECT_EQ(http_get(port, "/").first, 401u);
  EXPECT_EQ(http_get(port, "/index.html?token=guess").first, 403u);
  const auto [status, body] = http_get(port, "/?token=s3cret");
  EXPECT_EQ(status, 200u);
  EXPECT_EQ(body, "file index.html\n");
  // the scripts hold no state: open (the page's <script> tags carry no token)
  EXPECT_EQ(http_get(port, "/view.js").first, 200u);
  EXPECT_EQ(view_->stats().ws_sessions, 0u);
}

TEST_F(ViewServerToken, TheWebSocketNeedsTheToken) {
  const std::uint16_t port = view_->port();
  EXPECT_EQ(http_get(port, "/ws", true).first, 401u);
  EXPECT_EQ(http_get(port, "/ws?token=s3cre", true).first, 403u);
  EXPECT_EQ(http_get(port, "/ws?token=s3cret", true).first, 101u);  // upgraded, then dropped
  std::string message;
  EXPECT_NO_THROW(message = ws_first_message(port, "/ws?token=s3cret"));
  EXPECT_EQ(message, R"({"type":"scene"})");
  EXPECT_TRUE(testing::eventually([&] { return view_->stats().ws_sessions == 2; }));
}

// A started server with a token, and a view of it: the page's commands go through the relay.
class ViewServerControls : public ::testing::Test {
 protected:
  ViewServerControls() : server_(config()) {
    server_.start();
    ViewConfig vc;
    vc.web_dir = fake_web_dir();
    vc.token = "s3cret";
    view_ = std::make_unique<ViewServer>(vc, server_, R"({"type":"scene"})");
    view_->start();
    tcp::resolver resolver(io_);
    beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(20));
    beast::get_lowest_layer(ws_).connect(
        resolver.resolve("127.0.0.1", std::to_string(view_->port())));
    ws_.handshake("127.0.0.1", "/ws?token=s3cret");
    EXPECT_EQ(next_reply(), "");  // skips the scene (not a reply)
  }
  ~ViewServerControls() override {
    beast::error_code ignored;
    ws_.close(websocket::close_code::normal, ignored);
    view_->stop();
    server_.request_stop();
    server_.join();
  }
  static ServerConfig config() {
    ServerConfig c = testing::loopback_config();
    c.token = "s3cret";
    return c;
  }
  // The next message that is a command reply (frames are skipped); "" for the scene.
  std::string next_reply() {
    for (;;) {
      beast::flat_buffer buffer;
      ws_.read(buffer);
      std::string m = beast::buffers_to_string(buffer.data());
      if (m.starts_with(R"({"type":"scene")")) return "";
      if (!m.starts_with(R"({"type":"frame")")) return m;
    }
  }
  std::string command(const std::string& line) {
    ws_.write(asio::buffer(line));
    return next_reply();
  }

  Server server_;
  std::unique_ptr<ViewServer> view_;
  asio::io_context io_;
  websocket::stream<beast::tcp_stream> ws_{io_};
};

TEST_F(ViewServerControls, CommandsMeetTheControlChannelsHelloAndToken) {
  // the control channel's own replies (net/server_commands.cpp), not the view's
  EXPECT_EQ(command(R"({"command":"pause","id":1})"),
            R"({"ok":false,"error":"say hello first","command":"pause","id":1})");
  EXPECT_EQ(command(R"({"command":"hello","token":"guess"})"),
            R"({"ok":false,"error":"wrong token","command":"hello"})");
  EXPECT_TRUE(command(R"({"command":"hello","token":"s3cret"})").starts_with(R"({"ok":true)"));
  EXPECT_EQ(command(R"({"command":"jump"})").substr(0, 34),
            R"({"ok":false,"error":"unknown comma)");
  // two lines in one message would be two commands: refused whole
  EXPECT_TRUE(command("{\"command\":\"stats\"}\n{\"command\":\"pause\"}")
                  .starts_with(R"({"ok":false,"error":"a control command is one line)"));
  EXPECT_FALSE(server_.stats().paused);
}

TEST_F(ViewServerControls, PauseStepResetStartActOnTheSimulation) {
  ASSERT_TRUE(command(R"({"command":"hello","token":"s3cret"})").starts_with(R"({"ok":true)"));
  EXPECT_EQ(command(R"({"command":"pause","id":2})"), R"({"ok":true,"command":"pause","id":2})");
  ASSERT_TRUE(testing::eventually([&] { return server_.stats().paused; }));
  const std::uint64_t paused_at = server_.stats().step;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(server_.stats().step, paused_at);  // paused: no step in 50 ticks
  EXPECT_EQ(command(R"({"command":"step","count":5})"), R"({"ok":true,"command":"step"})");
  EXPECT_TRUE(testing::eventually([&] { return server_.stats().step == paused_at + 5; }));
  EXPECT_EQ(command(R"({"command":"reset"})"), R"({"ok":true,"command":"reset"})");
  EXPECT_TRUE(testing::eventually([&] {
    const ServerStats s = server_.stats();
    return s.sim_time == 0.0 && s.paused;  // reset keeps a paused simulation paused
  }));
  EXPECT_EQ(command(R"({"command":"start"})"), R"({"ok":true,"command":"start"})");
  EXPECT_TRUE(testing::eventually([&] { return server_.stats().step > 20; }));
}

// issue 20: a `load` swaps the model; every page then gets the new model's scene (the view
// builds it on its thread from ServerStats::model_file), so the page draws the new geometry.
TEST_F(ViewServerControls, ALoadSendsEveryPageTheNewModelsScene) {
  ASSERT_TRUE(command(R"({"command":"hello","token":"s3cret"})").starts_with(R"({"ok":true)"));
  ws_.write(asio::buffer(std::string(R"({"command":"load","model":"four_bar"})")));
  std::string scene;
  bool loaded = false;
  for (int i = 0; i < 1000 && (scene.empty() || !loaded); ++i) {
    beast::flat_buffer buffer;
    ws_.read(buffer);
    const std::string m = beast::buffers_to_string(buffer.data());
    if (m.starts_with(R"({"type":"scene")")) scene = m;
    if (m.starts_with(R"({"ok":true,"command":"load")")) loaded = true;
  }
  EXPECT_TRUE(loaded);
  EXPECT_EQ(scene, view_scene_json(builtin_model_file("four_bar")));
  EXPECT_NE(scene.find(R"("model":"four_bar")"), std::string::npos);
}

// issue 20: a device's round-trip report reaches the page in the frames, for the chart; a built-in
// mechanism (no bodies) cannot be dragged, and says so.
TEST_F(ViewServerControls, FramesCarryTheDevicesReportedRoundTrip) {
  ASSERT_TRUE(command(R"({"command":"hello","token":"s3cret"})").starts_with(R"({"ok":true)"));
  EXPECT_EQ(command(R"({"command":"report","rtt_p50_us":120.5,"rtt_p99_us":300,"samples":7})"),
            R"({"ok":true,"command":"report"})");
  EXPECT_TRUE(testing::eventually([&] { return server_.stats().device_rtt_reports == 1; }));
  bool seen = false;
  for (int i = 0; i < 100 && !seen; ++i) {
    beast::flat_buffer buffer;
    ws_.read(buffer);
    const std::string m = beast::buffers_to_string(buffer.data());
    seen = m.find(R"("device_rtt_p50_us":120.5,"device_rtt_p99_us":300)") != std::string::npos;
  }
  EXPECT_TRUE(seen);
  EXPECT_EQ(
      command(R"({"command":"drag","body":"link","x":1})"),
      R"x({"ok":false,"error":"drag needs a model with bodies (a built-in mechanism has none)",)x"
      R"x("command":"drag"})x");
}

// issue 20 point 6: the page reports the rate at which it draws; the view answers with the
// decimation it chose for the page (net/view_decimation.hpp) and keeps sending frames. The
// report is the view's own message, not a control command: no hello is needed for it.
TEST_F(ViewServerControls, APagesReportedFrameRateSetsItsDecimation) {
  // the view's default timer is 60 Hz; a page that draws 10 frames per second is sent half as
  // many frames at each report (d doubles) until it draws 60-85 % of what it gets (10 of 15 at
  // d = 4), where d stays
  EXPECT_EQ(command(R"({"view":"frame_rate","fps":10})"),
            R"({"type":"view","decimation":2,"frame_rate_hz":60})");
  EXPECT_TRUE(testing::eventually([&] { return view_->stats().frame_rate_reports == 1; }));
  EXPECT_EQ(view_->stats().decimation, 2.0);
  EXPECT_EQ(view_->stats().page_fps, 10.0);
  EXPECT_EQ(command(R"({"view":"frame_rate","fps":10})"),
            R"({"type":"view","decimation":4,"frame_rate_hz":60})");
  EXPECT_EQ(command(R"({"view":"frame_rate","fps":10})"),
            R"({"type":"view","decimation":4,"frame_rate_hz":60})");
  const std::uint64_t sent = view_->stats().frames_sent;
  EXPECT_TRUE(testing::eventually([&] { return view_->stats().frames_sent >= sent + 2; }));
  // it drew all it got (60 >= 15): twice the frames
  EXPECT_EQ(command(R"({"view":"frame_rate","fps":60})"),
            R"({"type":"view","decimation":2,"frame_rate_hz":60})");
  // not a rate: the decimation stays; an unknown view message is a control command (refused)
  EXPECT_EQ(command(R"({"view":"frame_rate","fps":-1})"),
            R"({"type":"view","decimation":2,"frame_rate_hz":60})");
  EXPECT_TRUE(command(R"({"view":"zoom"})").starts_with(R"({"ok":false)"));
}

// The numbers of the frame's "q" array.
std::vector<double> frame_q(const std::string& frame) {
  std::vector<double> q;
  const std::size_t at = frame.find(R"("q":[)");
  if (at == std::string::npos) return q;
  const char* p = frame.c_str() + at + 5;
  while (*p != ']' && *p != '\0') {
    char* end = nullptr;
    q.push_back(std::strtod(p, &end));
    p = *end == ',' ? end + 1 : end;
  }
  return q;
}

// issue 20 point 6: a chain of 30 links has 90 + 90 state channels, more than the UDP stream's 64
// (and 90 generalized forces, more than 64 input channels). It is served all the same, its
// datagrams without channels and without inputs, and the view's frames carry all 90 coordinates
// (the simulation thread's full-position hand-off, net/view_state_buffer.hpp): every revolute
// joint of the falling chain holds in them, link k's end (+L/2 on its x axis) on link k+1's start
// (-L/2), link 0's start on the ground origin (the generator's geometry,
// engine/model_file/chain_models.cpp), to the step's position drift.
TEST(ViewServerFullState, FramesOfAChainLargerThanTheStreamCarryEveryCoordinate) {
  constexpr int links = 30;
  ServerConfig config = testing::loopback_config();
  config.model_file = parse_model_file(chain_model_yaml(links, false, false), "chain_30.yaml");
  Server server(config);
  EXPECT_TRUE(server.schema().outputs.empty());
  EXPECT_TRUE(server.schema().inputs.empty());
  EXPECT_EQ(server.view_capacity(), 3u * links);
  server.start();
  ViewConfig vc;
  vc.web_dir = fake_web_dir();
  ViewServer view(vc, server, view_scene_json(*config.model_file));
  view.start();
  asio::io_context io;
  tcp::resolver resolver(io);
  websocket::stream<beast::tcp_stream> ws(io);
  beast::get_lowest_layer(ws).expires_after(std::chrono::seconds(20));
  beast::get_lowest_layer(ws).connect(resolver.resolve("127.0.0.1", std::to_string(view.port())));
  ws.handshake("127.0.0.1", "/ws");
  std::vector<double> q;
  double t = 0.0;
  for (int i = 0; i < 200 && t < 0.1; ++i) {  // a frame after the chain fell for 0.1 s
    beast::flat_buffer buffer;
    ws.read(buffer);
    const std::string m = beast::buffers_to_string(buffer.data());
    if (!m.starts_with(R"({"type":"frame")")) continue;
    q = frame_q(m);
    t = std::strtod(m.c_str() + m.find(R"("t":)") + 4, nullptr);
  }
  ws.close(websocket::close_code::normal);
  view.stop();
  server.request_stop();
  server.join();

  ASSERT_EQ(q.size(), 3u * links);
  EXPECT_GE(t, 0.1);
  const double half = 0.25;
  const auto end = [&](int k, double sign) {
    const double th = q[3 * k + 2];
    return std::array<double, 2>{q[3 * k] + sign * half * std::cos(th),
                                 q[3 * k + 1] + sign * half * std::sin(th)};
  };
  double worst = std::hypot(end(0, -1.0)[0], end(0, -1.0)[1]);
  for (int k = 0; k + 1 < links; ++k) {
    const auto a = end(k, 1.0);
    const auto b = end(k + 1, -1.0);
    worst = std::max(worst, std::hypot(a[0] - b[0], a[1] - b[1]));
  }
  EXPECT_LT(worst, 1e-6);
  // and it moved: the last link's centre fell from where the generator put it
  const ModelFile initial = parse_model_file(chain_model_yaml(links, false, false), "c.yaml");
  EXPECT_GT(std::abs(q[3 * (links - 1) + 1] - initial.bodies->bodies.back().pose[1]), 1e-4);
}

TEST(ViewServer, TheUrlCarriesThePercentEncodedToken) {
  EXPECT_EQ(view_url("127.0.0.1", 8080, ""), "http://127.0.0.1:8080/");
  EXPECT_EQ(view_url("0.0.0.0", 80, "a b&c"), "http://0.0.0.0:80/?token=a%20b%26c");
}

}  // namespace
}  // namespace rtmb
