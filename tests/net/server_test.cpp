// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb::Server with rtmb::Client over loopback (issue 3, acceptance 1 and 2). Ports are chosen
// by the OS; every wait is bounded; nothing asserts on timing.
#include "rtmb/net/server.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/net/client.hpp"
#include "rtmb/net/udp_socket.hpp"
#include "rtmb/net/wire.hpp"
#include "rtmb/step.hpp"
#include "tests/support/loopback_server.hpp"
#include "tests/support/text_files.hpp"
#include "tests/support/wire_bytes.hpp"

namespace rtmb {
namespace {

using namespace std::chrono_literals;
using testing::input_datagram;

using testing::connect_and_hello;
using testing::eventually;
using testing::loopback_config;
using testing::say_hello_and_subscribe;
using testing::write_temp_file;

// Starts the server, subscribes the client and reads the first state into m.
void start_and_subscribe(Server& server, Client& client, StateMessage& m) {
  server.start();
  say_hello_and_subscribe(client, server);
  ASSERT_TRUE(client.receive_state(m, 2000ms));
}

TEST(ServerLoopback, HelloSubscribeStreamAndLatencyEcho) {
  Server server(loopback_config());
  server.start();

  Client client;
  const ClientSchema schema = connect_and_hello(client, server);
  EXPECT_EQ(schema.version, kWireVersionAuthenticated);  // rtmb::Client asks for version 2
  EXPECT_NE(schema.session, 0u);
  EXPECT_EQ(schema.model, "pendulum");
  EXPECT_EQ(schema.udp_port, server.udp_port());
  EXPECT_GT(schema.rate_hz, 0.0);
  ASSERT_EQ(schema.outputs, (std::vector<std::string>{"q0", "q1", "v0", "v1"}));
  EXPECT_EQ(schema.output_units.size(), 4u);
  EXPECT_EQ(schema.inputs, (std::vector<std::string>{"f0", "f1"}));

  client.subscribe(1);

  // the stream: increasing sequence numbers and steps, the model's shape, on the circle
  StateMessage m;
  std::uint64_t last_seq = 0;
  std::uint64_t last_step = 0;
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(client.receive_state(m, 2000ms)) << "no state datagram " << i;
    EXPECT_GT(m.header.sequence, last_seq);
    EXPECT_GT(m.header.step, last_step);
    ASSERT_EQ(m.channel_count, 4);
    for (int c = 0; c < 4; ++c) EXPECT_TRUE(std::isfinite(m.channels[c]));
    const double r2 = m.channels[0] * m.channels[0] + m.channels[1] * m.channels[1];
    EXPECT_NEAR(r2, 1.0, 1e-6);  // pendulum of length 1 m, post-stabilized
    EXPECT_FALSE(has_flag(m.header.flags, WireFlag::kEchoValid));
    last_seq = m.header.sequence;
    last_step = m.header.step;
  }

  // an input: its echo comes back, applied in a step after the last one seen before sending
  const std::array<InputSample, 1> samples{InputSample{0, 0.25}};
  const MessageHeader sent = client.send_input(samples);
  bool echoed = false;
  std::uint64_t newest_without_echo = last_step;
  for (int i = 0; i < 5000 && !echoed; ++i) {
    ASSERT_TRUE(client.receive_state(m, 2000ms));
    if (!has_flag(m.header.flags, WireFlag::kEchoValid)) {
      newest_without_echo = m.header.step;
      continue;
    }
    echoed = true;
    EXPECT_EQ(m.echo.sequence, sent.sequence);
    EXPECT_EQ(m.echo.sender_time_ns, sent.sender_time_ns);
    EXPECT_GT(m.echo.applied_step, last_step);  // the input was sent after last_step was seen
    EXPECT_GT(m.echo.applied_step, newest_without_echo);
    EXPECT_LE(m.echo.applied_step, m.header.step);
  }
  EXPECT_TRUE(echoed);
  EXPECT_TRUE(eventually([&] { return server.stats().inputs_queued == 1; }));
  EXPECT_EQ(server.stats().udp_in.accepted(), 1u);
  EXPECT_EQ(client.state_counters().rejected(), 0u);
  // the server measured the input's wait for its tick and each tick's turnaround
  EXPECT_TRUE(eventually([&] { return server.stats().input_wait.count == 1; }));
  EXPECT_GT(server.stats().turnaround.count, 0u);

  server.request_stop();
  server.join();
  EXPECT_EQ(server.stop_reason(), StopReason::kStopRequested);
  EXPECT_GT(server.loop_counters().ticks, 0);
}

// A paused server with a subscribed client that has read the paused initial state (m).
class ServerLoopbackPaused : public ::testing::Test {
 protected:
  static ServerConfig paused() {
    ServerConfig config = loopback_config();
    config.start_running = false;
    return config;
  }

  void SetUp() override { start_and_subscribe(server, client, m); }

  Server server{paused()};
  Client client;
  StateMessage m;
};

TEST_F(ServerLoopbackPaused, PauseStepResetControlTheStream) {
  EXPECT_TRUE(has_flag(m.header.flags, WireFlag::kPaused));
  EXPECT_EQ(m.header.step, 0u);

  EXPECT_EQ(client.request(R"({"command":"step","count":5,"id":3})"),
            R"({"ok":true,"command":"step","id":3})");
  std::uint64_t step = 0;
  while (step < 5) {
    ASSERT_TRUE(client.receive_state(m, 2000ms));
    step = m.header.step;
  }
  EXPECT_EQ(step, 5u);
  EXPECT_TRUE(eventually([&] { return server.stats().step == 5; }));

  EXPECT_EQ(client.request(R"({"command":"reset"})"), R"({"ok":true,"command":"reset"})");
  bool restarted = false;
  for (int i = 0; i < 100 && !restarted; ++i) {
    ASSERT_TRUE(client.receive_state(m, 2000ms));
    restarted = has_flag(m.header.flags, WireFlag::kRestarted);
  }
  EXPECT_TRUE(restarted);
  EXPECT_EQ(m.header.step, 0u);

  EXPECT_EQ(client.request(R"({"command":"start"})"), R"({"ok":true,"command":"start"})");
  EXPECT_TRUE(eventually([&] { return server.stats().step > 10; }));
  const std::string stats = client.request(R"({"command":"stats","id":9})");
  EXPECT_TRUE(stats.starts_with(R"({"ok":true,"command":"stats","id":9,"step":)")) << stats;
  EXPECT_EQ(stats.find("\"ok\":", 2), std::string::npos) << stats;  // keys are unique
  EXPECT_NE(stats.find("\"udp_bad_magic\":0"), std::string::npos) << stats;
}

TEST_F(ServerLoopbackPaused, InputsActAsForcesInTheStepAfterTheyArriveThenTheWatchdogRampsThemOut) {
  // an input while paused, then one step: the step must be exactly the engine's step with the
  // input as generalized force (reference computed here with the same model and settings)
  const std::array<InputSample, 2> samples{InputSample{0, 2.0}, InputSample{1, -1.0}};
  const MessageHeader sent = client.send_input(samples);
  ASSERT_TRUE(eventually([&] { return server.stats().inputs_queued == 2; }));
  EXPECT_EQ(client.request(R"({"command":"step","count":1})"), R"({"ok":true,"command":"step"})");
  do {
    ASSERT_TRUE(client.receive_state(m, 2000ms));
  } while (m.header.step < 1);
  ASSERT_EQ(m.header.step, 1u);
  ASSERT_TRUE(has_flag(m.header.flags, WireFlag::kEchoValid));
  EXPECT_EQ(m.echo.sequence, sent.sequence);
  EXPECT_EQ(m.echo.applied_step, 1u);

  const ModelFile file = builtin_model_file("pendulum");
  const Model model(std::shared_ptr<const System>(make_mechanism("pendulum")), file.settings);
  Workspace ws(model);
  State ref = initial_state(model);
  applied_force(ws) << 2.0, -1.0;
  (void)step(model, ref, ws);
  ASSERT_EQ(m.channel_count, 4);
  EXPECT_EQ(m.channels[0], ref.q[0]);  // bit for bit
  EXPECT_EQ(m.channels[1], ref.q[1]);
  EXPECT_EQ(m.channels[2], ref.v[0]);
  EXPECT_EQ(m.channels[3], ref.v[1]);
  // and it is not the unforced step
  Workspace ws0(model);
  State free = initial_state(model);
  (void)step(model, free, ws0);
  EXPECT_NE(m.channels[2], free.v[0]);
  ASSERT_TRUE(eventually([&] { return server.stats().step == 1; }));
  EXPECT_EQ(server.stats().input_values, (std::vector<double>{2.0, -1.0}));
  EXPECT_FALSE(server.stats().inputs_stale);

  // silence: stale after 3 ticks, then the 10 ms ramp, zero 13 ticks after the last sample at
  // the latest (paused time between commands counts as silence too; the exact ramp is checked in
  // InputChannelSetup.RunnerAdvancesTheBankAndTheWatchdogRampsAStoppedForce)
  EXPECT_EQ(client.request(R"({"command":"step","count":13})"), R"({"ok":true,"command":"step"})");
  ASSERT_TRUE(eventually([&] { return server.stats().step == 14; }));
  EXPECT_EQ(server.stats().input_values, (std::vector<double>{0.0, 0.0}));
  EXPECT_TRUE(server.stats().inputs_stale);

  // set: an input channel by name, applied at the next step like a datagram
  EXPECT_EQ(client.request(R"({"command":"set","param":"f1","value":0.75})"),
            R"({"ok":true,"command":"set","param":"f1","value":0.75})");
  EXPECT_EQ(client.request(R"({"command":"step","count":1})"), R"({"ok":true,"command":"step"})");
  ASSERT_TRUE(eventually([&] { return server.stats().step == 15; }));
  EXPECT_EQ(server.stats().input_values, (std::vector<double>{0.0, 0.75}));
  const std::string unknown = client.request(R"({"command":"set","param":"gravity","value":1})");
  EXPECT_TRUE(unknown.starts_with(R"({"ok":false,"error":"unknown parameter \"gravity\")"))
      << unknown;
  const std::string text = client.request(R"({"command":"set","param":"f0","value":"x"})");
  EXPECT_TRUE(text.starts_with(R"({"ok":false)")) << text;

  // reset puts the inputs back to zero with the state
  EXPECT_EQ(client.request(R"({"command":"reset"})"), R"({"ok":true,"command":"reset"})");
  ASSERT_TRUE(eventually([&] { return server.stats().step == 0; }));
  EXPECT_EQ(server.stats().input_values, (std::vector<double>{0.0, 0.0}));
}

TEST(ServerLoopback, LoadSwapsTheModelBetweenTicksAndRefusesWhatDoesNotFit) {
  // the served file, and two next to it that the load command names
  const std::string served = write_temp_file("rtmb_load_a.yaml", "mechanism: pendulum\n");
  (void)write_temp_file("rtmb_load_b.yaml",
                        "mechanism: slider_crank\ninputs:\n  channels: [{name: crank}, {name: "
                        "rod}, {name: fx}, {name: fy, kind: command}]\n");
  (void)write_temp_file("rtmb_load_bad_dt.yaml",
                        "mechanism: pendulum\nintegration: {dt: 0.0007}\n");
  ServerConfig config = loopback_config();
  config.model_file = load_model_file(served);
  Server server(config);
  Client client;
  StateMessage m;
  start_and_subscribe(server, client, m);
  if (HasFatalFailure()) return;
  EXPECT_EQ(m.channel_count, 4);

  // a model file next to the served one: the reply carries the new schema, the stream restarts
  // with the new model's shape, and it runs (post-stabilized: its loop stays closed)
  const std::string reply = client.request(R"({"command":"load","model":"rtmb_load_b.yaml"})");
  EXPECT_TRUE(
      reply.starts_with(R"({"ok":true,"command":"load","version":2,"model":"slider_crank")"))
      << reply;
  EXPECT_NE(reply.find(R"("inputs":"crank,rod,fx,fy")"), std::string::npos) << reply;
  bool restarted = false;
  for (int i = 0; i < 200 && !restarted; ++i) {
    ASSERT_TRUE(client.receive_state(m, 2000ms));
    restarted = has_flag(m.header.flags, WireFlag::kRestarted);
  }
  ASSERT_TRUE(restarted);
  EXPECT_EQ(m.channel_count, 8);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(client.receive_state(m, 2000ms));
  EXPECT_EQ(m.channel_count, 8);
  EXPECT_GT(m.header.step, 0u);
  EXPECT_LE(m.position_drift, 1e-12);
  EXPECT_EQ(client.hello().inputs, (std::vector<std::string>{"crank", "rod", "fx", "fy"}));
  // inputs now address the new channels (fy is a command channel: it holds, no watchdog ramp)
  const std::array<InputSample, 1> push{InputSample{3, 1.5}};
  (void)client.send_input(push);
  EXPECT_TRUE(eventually([&] {
    const ServerStats st = server.stats();
    return st.input_values.size() == 4 && st.input_values[3] == 1.5;
  }));

  // a built-in by name whose step divides the 1 ms period (Andrews: 20 steps of 5e-5 s)
  const std::string andrews = client.request(R"({"command":"load","model":"andrews"})");
  EXPECT_NE(andrews.find(R"("model":"andrews")"), std::string::npos) << andrews;
  EXPECT_NE(andrews.find(R"("substeps":20)"), std::string::npos) << andrews;

  // refused, and the server keeps running the current model
  const std::string bad_dt =
      client.request(R"({"command":"load","model":"rtmb_load_bad_dt.yaml"})");
  EXPECT_TRUE(bad_dt.starts_with(R"({"ok":false)")) << bad_dt;
  EXPECT_NE(bad_dt.find("does not divide"), std::string::npos) << bad_dt;
  const std::string outside = client.request(R"({"command":"load","model":"../../etc/passwd"})");
  EXPECT_TRUE(outside.starts_with(R"({"ok":false)")) << outside;
  EXPECT_NE(outside.find("not permitted"), std::string::npos) << outside;
  const std::string missing = client.request(R"({"command":"load","model":"nope.yaml"})");
  EXPECT_TRUE(missing.starts_with(R"({"ok":false)")) << missing;
  EXPECT_NE(missing.find("cannot open"), std::string::npos) << missing;
  EXPECT_TRUE(eventually([&] { return server.stats().loads == 2; }));
  const std::uint64_t before = server.stats().step;
  EXPECT_TRUE(eventually([&] { return server.stats().step > before + 10; }));
  EXPECT_TRUE(server.running());
}

TEST(ServerLoopback, InputAndCommandRatesAreLimitedPerClient) {
  ServerConfig config = loopback_config();
  config.max_input_rate_hz = 100.0;   // burst 10
  config.max_command_rate_hz = 20.0;  // burst 10
  Server server(config);
  server.start();
  Client client;
  say_hello_and_subscribe(client, server);

  // 500 well-formed inputs as fast as possible: about the burst gets through, the rest is
  // counted as rate_limited (never waited for, never queued)
  const std::array<InputSample, 1> sample{InputSample{0, 0.1}};
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 500; ++i) (void)client.send_input(sample);
  // wait until the server has read what reached it (the kernel may drop some on the way)
  std::uint64_t seen = 0;
  for (int i = 0; i < 100; ++i) {
    std::this_thread::sleep_for(30ms);
    const std::uint64_t now = server.stats().udp_in.received;
    if (now == seen && now > 0) break;
    seen = now;
  }
  // the server received them all within this window, so at most burst + rate x window passed
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const PacketCounters c = server.stats().udp_in;
  EXPECT_GT(c.received, 100u);
  EXPECT_EQ(c.accepted() + c.count(PacketStatus::kRateLimited), c.received);
  EXPECT_LE(static_cast<double>(c.accepted()), 10.0 + 100.0 * elapsed + 1.0);
  EXPECT_GE(c.accepted(), 10u);
  EXPECT_GT(c.count(PacketStatus::kRateLimited), 0u);

  // commands: the burst is answered, then rate-limit errors; the connection stays usable
  int limited = 0;
  for (int i = 0; i < 40; ++i) {
    const std::string r = client.request(R"({"command":"stats"})");
    if (r.find("rate limit") != std::string::npos) ++limited;
  }
  EXPECT_GT(limited, 0);
  std::this_thread::sleep_for(600ms);  // the bucket refills
  EXPECT_TRUE(client.request(R"({"command":"stats"})").starts_with(R"({"ok":true)"));
  EXPECT_TRUE(server.running());
}

TEST(ServerLoopback, HaltPolicyStopsInTheSafeStateWhenStepsCannotKeepUp) {
  // Andrews' mechanism at dt = 1 us: one step costs several microseconds, so every 1 us tick
  // overruns (an honest slow step, not an injected one)
  ServerConfig config = loopback_config();
  config.model_file = parse_model_file("mechanism: andrews\nintegration: {dt: 1.0e-6}\n", "fast");
  config.overrun = OverrunPolicy::kHalt;
  config.halt_after_overruns = 3;
  Server server(config);
  server.start();
  ASSERT_TRUE(eventually([&] { return !server.running(); }));
  server.join();
  EXPECT_EQ(server.stop_reason(), StopReason::kHalted);
  EXPECT_GE(server.loop_counters().max_consecutive_overruns, 3);
  EXPECT_TRUE(server.stats().paused);  // the safe state's last snapshot
}

TEST(ServerLoopback, MalformedDatagramsAreDroppedAndCounted) {
  Server server(loopback_config());
  server.start();
  UdpSocket raw;  // a plain UDP socket for the malformed datagrams (throws if it cannot open)
  raw.connect("127.0.0.1", server.udp_port());

  // one of each kind, each counted under its reason
  std::vector<std::byte> d = input_datagram(1, 0, 1.0);
  d[0] ^= std::byte{0xFF};
  raw.send(d);  // bad_magic
  d = input_datagram(2, 0, 1.0);
  d[4] = std::byte{3};
  raw.send(d);  // bad_version (neither 1 nor 2)
  d = input_datagram(3, 0, 1.0);
  d.push_back(std::byte{0});
  raw.send(d);  // bad_length: a byte after the payload
  d = input_datagram(4, 0, 1.0);
  raw.send(std::span<const std::byte>(d.data(), 20));            // too_short
  raw.send(std::span<const std::byte>(d.data(), d.size() - 3));  // bad_length: truncated
  raw.send(input_datagram(5, 0, std::numeric_limits<double>::quiet_NaN()));  // non_finite
  raw.send(input_datagram(6, 1, -std::numeric_limits<double>::infinity()));  // non_finite
  raw.send(input_datagram(7, 2, 1.0));  // unknown_channel: the pendulum has f0, f1
  ASSERT_TRUE(eventually([&] { return server.stats().udp_in.received == 8; }));
  PacketCounters c = server.stats().udp_in;
  EXPECT_EQ(c.count(PacketStatus::kBadMagic), 1u);
  EXPECT_EQ(c.count(PacketStatus::kBadVersion), 1u);
  EXPECT_EQ(c.count(PacketStatus::kBadLength), 2u);
  EXPECT_EQ(c.count(PacketStatus::kTooShort), 1u);
  EXPECT_EQ(c.count(PacketStatus::kNonFinite), 2u);
  EXPECT_EQ(c.count(PacketStatus::kUnknownChannel), 1u);
  EXPECT_EQ(c.accepted(), 0u);
  EXPECT_EQ(server.stats().inputs_queued, 0u);

  // a flood of 10^5 garbage datagrams (the kernel may drop some on the way: no exact count)
  std::mt19937 rng(12345);
  std::array<std::byte, kMaxDatagramBytes + 8> garbage{};
  const std::uint64_t step_before = server.stats().step;
  for (int i = 0; i < 100'000; ++i) {
    const std::size_t n = rng() % garbage.size();
    for (std::size_t k = 0; k < n; ++k) garbage[k] = static_cast<std::byte>(rng());
    if (i % 2 == 0 && n >= 8) {  // half carry a valid magic and version: checked further in
      const std::array<unsigned char, 6> head{0x52, 0x54, 0x4D, 0x42, 0x01, 0x00};
      std::memcpy(garbage.data(), head.data(), head.size());
    }
    raw.send(std::span<const std::byte>(garbage.data(), n));
  }
  // wait until the server has read what reached it (the count stops moving)
  std::uint64_t seen = 0;
  for (int i = 0; i < 100; ++i) {
    std::this_thread::sleep_for(20ms);
    const std::uint64_t now = server.stats().udp_in.received;
    if (now == seen) break;
    seen = now;
  }
  c = server.stats().udp_in;
  EXPECT_GT(c.received, 8u);
  EXPECT_LE(c.received, 100'008u);
  EXPECT_EQ(c.accepted(), 0u);
  std::uint64_t sum = 0;
  for (const std::uint64_t n : c.by_status) sum += n;
  EXPECT_EQ(sum, c.received);
  EXPECT_GT(c.count(PacketStatus::kTooShort) + c.count(PacketStatus::kBadMagic), 0u);
  EXPECT_GT(c.count(PacketStatus::kBadLength), 2u);

  // still stepping, still finite
  EXPECT_TRUE(eventually([&] { return server.stats().step > step_before + 10; }));
  EXPECT_TRUE(server.stats().state_finite);
  EXPECT_TRUE(server.running());

  // a well-formed input from an address no control client has said hello from: refused
  // (resent in case the kernel dropped it behind the flood)
  bool refused = false;
  for (std::uint64_t k = 0; k < 30 && !refused; ++k) {
    raw.send(input_datagram(100 + k, 1, 0.5));
    refused = eventually(
        [&] { return server.stats().udp_in.count(PacketStatus::kUnknownSender) >= 1; }, 100ms);
  }
  EXPECT_TRUE(refused);
  EXPECT_EQ(server.stats().inputs_queued, 0u);

  // once a client at that address said hello, the same sender is accepted
  Client client;
  client.connect("127.0.0.1", server.tcp_port());
  (void)client.hello();
  bool queued = false;
  for (std::uint64_t k = 0; k < 30 && !queued; ++k) {
    raw.send(input_datagram(200 + k, 1, 0.5));
    queued = eventually([&] { return server.stats().inputs_queued >= 1; }, 100ms);
  }
  EXPECT_TRUE(queued);
  client.subscribe(1);
  StateMessage m;
  ASSERT_TRUE(client.receive_state(m, 2000ms));
  for (int k = 0; k < m.channel_count; ++k) EXPECT_TRUE(std::isfinite(m.channels[k]));
}

TEST(ServerLoopback, BadCommandsGetErrorRepliesAndTheServerKeepsRunning) {
  ServerConfig config = loopback_config();
  config.token = "s3cret";
  Server server(config);
  server.start();
  Client client;
  client.connect("127.0.0.1", server.tcp_port());

  const auto is_error = [](const std::string& reply) { return reply.starts_with("{\"ok\":false"); };
  std::string r = client.request("this is not json");
  EXPECT_TRUE(is_error(r)) << r;
  EXPECT_NE(r.find("invalid JSON"), std::string::npos) << r;
  r = client.request(R"({"command":"jump","id":4})");
  EXPECT_TRUE(is_error(r)) << r;
  EXPECT_NE(r.find("unknown command"), std::string::npos) << r;
  EXPECT_NE(r.find("\"id\":4"), std::string::npos) << r;
  r = client.request(R"({"command":"start"})");
  EXPECT_TRUE(is_error(r)) << r;  // no hello yet
  r = client.request(R"({"command":"hello"})");
  EXPECT_TRUE(is_error(r)) << r;  // token required
  r = client.request(R"({"command":"hello","token":"wrong"})");
  EXPECT_TRUE(is_error(r)) << r;
  EXPECT_NO_THROW((void)client.hello("s3cret"));
  r = client.request(R"({"command":"subscribe"})");
  EXPECT_TRUE(is_error(r)) << r;
  EXPECT_NE(r.find("missing key \\\"port\\\""), std::string::npos) << r;
  r = client.request(R"({"command":"subscribe","port":9,"address":"10.1.2.3"})");
  EXPECT_TRUE(is_error(r)) << r;  // only the client's own address
  r = client.request(R"({"command":"set","param":"dt","value":0.001})");
  EXPECT_TRUE(is_error(r)) << r;
  r = client.request(R"({"command":"load","model":"no_such_model"})");
  EXPECT_TRUE(is_error(r)) << r;
  // several requests in one segment, each answered in order
  client.send_raw("{\"command\":\"stats\",\"id\":1}\n{\"command\":\"stats\",\"id\":2}\n");
  EXPECT_NE(client.read_line().find("\"id\":1"), std::string::npos);
  EXPECT_NE(client.read_line().find("\"id\":2"), std::string::npos);

  // a huge line: one error reply, then the server closes this connection
  client.send_raw(std::string(3 * 4096, 'x') + "\n");
  r = client.read_line();
  EXPECT_TRUE(is_error(r)) << r;
  EXPECT_NE(r.find("line too long"), std::string::npos) << r;

  // the server is fine: a new connection works and the simulation keeps stepping
  Client again;
  again.connect("127.0.0.1", server.tcp_port());
  EXPECT_NO_THROW((void)again.hello("s3cret"));
  const std::uint64_t step = server.stats().step;
  EXPECT_TRUE(eventually([&] { return server.stats().step > step; }));
  EXPECT_GE(server.stats().command_errors, 10u);
}

TEST(ServerLoopback, ClientThatDoesNotReadItsRepliesIsDropped) {
  Server server(loopback_config());
  server.start();

  // a client with a tiny receive window that sends requests and never reads the replies
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  const int small = 4096;
  (void)::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(server.tcp_port());
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to), 0);
  const std::string hello = "{\"command\":\"hello\"}\n";
  (void)::send(fd, hello.data(), hello.size(), MSG_NOSIGNAL);
  std::string requests;
  for (int i = 0; i < 1000; ++i) requests += "{\"command\":\"stats\"}\n";
  const auto end = std::chrono::steady_clock::now() + 5s;
  while (server.stats().tcp_dropped == 0 && std::chrono::steady_clock::now() < end) {
    const ssize_t n = ::send(fd, requests.data(), requests.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) break;  // closed
    if (n < 0) std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(eventually([&] { return server.stats().tcp_dropped == 1; }));
  ::close(fd);

  Client client;
  client.connect("127.0.0.1", server.tcp_port());
  EXPECT_NO_THROW((void)client.hello());
  EXPECT_TRUE(eventually([&] { return server.stats().clients == 1; }));
}

TEST(ServerLoopback, LimitsOnClientsAndUnknownModel) {
  EXPECT_THROW(
      {
        ServerConfig c = loopback_config();
        c.model = "no_such_model";
        Server s(c);
      },
      std::invalid_argument);

  ServerConfig config = loopback_config();
  config.max_clients = 1;
  Server server(config);
  server.start();
  Client first;
  first.connect("127.0.0.1", server.tcp_port());
  (void)first.hello();
  Client second;
  second.connect("127.0.0.1", server.tcp_port());  // accepted by the kernel, closed by the server
  EXPECT_THROW((void)second.hello(), ClientError);
  EXPECT_TRUE(eventually([&] { return server.stats().tcp_refused == 1; }));
  EXPECT_NO_THROW((void)first.request(R"({"command":"stats"})"));
}

TEST(ServerLoopback, ServesABodyModelFile) {
  // a model file with bodies: the schema names its per-body channels and units, and the
  // stream carries its 9 + 9 coordinates on the constraint manifold
  ServerConfig config = loopback_config();
  config.model_file = load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/four_bar.yaml");
  Server server(config);
  EXPECT_EQ(server.schema().model, "four_bar_body");
  ASSERT_EQ(server.schema().inputs.size(), 9u);
  EXPECT_EQ(server.schema().inputs[2].name, "crank.tz");
  ASSERT_EQ(server.schema().outputs.size(), 18u);
  EXPECT_EQ(server.schema().outputs[2].unit, "rad");
  Client client;
  StateMessage m;
  start_and_subscribe(server, client, m);
  if (HasFatalFailure()) return;
  EXPECT_EQ(m.channel_count, 18);
}

TEST(ServerLoopback, HelloAnnouncesTheNamedChannelsOfModelFiles) {
  // configs/five_bar.yaml and configs/arm6.yaml (issue 4): hello names the inputs and the outputs
  // with their units, in stream order
  struct Case {
    const char* file;
    std::vector<std::string> inputs;
    std::size_t outputs;
    std::vector<std::size_t> picked;  // outputs whose names are checked
    std::string names;
  };
  const Case cases[] = {
      {"five_bar.yaml",
       {"motor_l", "motor_r", "target_x", "target_y"},
       10,
       {0, 6},
       "handle.x coupling_force.fx"},
      {"arm6.yaml",
       {"target_x", "target_y", "target_z"},
       11,
       {0, 3, 6, 10},
       "tip.x tip_velocity.vx coupling_force.fx energy"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    ServerConfig config = loopback_config();
    config.model_file = load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/" + c.file);
    Server server(config);
    server.start();
    Client client;
    const ClientSchema schema = connect_and_hello(client, server);
    ASSERT_EQ(schema.inputs, c.inputs);
    ASSERT_EQ(schema.outputs.size(), c.outputs);
    std::string names;
    for (std::size_t k : c.picked) names += (names.empty() ? "" : " ") + schema.outputs[k];
    EXPECT_EQ(names, c.names);
    EXPECT_EQ(schema.output_units[0] + " " + schema.output_units[6], "m N");
  }
}

// A model file served on loopback to a subscribed client.
class ServerLoopbackFile : public ::testing::Test {
 protected:
  void serve(const char* file) {
    config.model_file = load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/" + file);
    server.emplace(config);
    server->start();
    say_hello_and_subscribe(client, *server);
  }

  // Reads `count` states into m; false when one does not come within 2 s.
  bool receive(int count) {
    for (int i = 0; i < count; ++i) {
      if (!client.receive_state(m, 2000ms)) return false;
    }
    return true;
  }

  // Sends `inputs` at every 10th state (fresh for the watchdog) until moved(m), for at most
  // `limit` states.
  template <class Inputs, class Moved>
  ::testing::AssertionResult drive_until(const Inputs& inputs, int limit, Moved moved) {
    for (int i = 0; i < limit; ++i) {
      if (i % 10 == 0) (void)client.send_input(inputs);
      if (!receive(1)) return ::testing::AssertionFailure() << "no state within 2 s";
      if (moved(m)) return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "not moved after " << limit << " states";
  }

  ServerConfig config = loopback_config();
  std::optional<Server> server;
  Client client;
  StateMessage m;
};

TEST_F(ServerLoopbackFile, FiveBarPantographHandleMovesWithItsMotor) {
  // configs/five_bar.yaml: the stream carries the outputs (handle position first), and a motor
  // torque sent over UDP by channel name's index moves the handle, which sits still without it
  // (no gravity)
  serve("five_bar.yaml");
  ASSERT_TRUE(receive(20));
  ASSERT_EQ(m.channel_count, 10);
  const double x0 = m.channels[0];
  const double y0 = m.channels[1];
  // at rest where it started: on the coupling's target, which starts at the handle
  EXPECT_NEAR(x0, config.model_file->inputs[2].config.initial_value, 1e-9);
  EXPECT_NEAR(y0, config.model_file->inputs[3].config.initial_value, 1e-9);

  // the left motor turns its crank counter-clockwise: the handle moves (first order J e_1 dth)
  const std::array<InputSample, 1> torque{InputSample{0, 0.05}};
  EXPECT_TRUE(drive_until(torque, 3000,
                          [&](const StateMessage& s) {
                            return std::hypot(s.channels[0] - x0, s.channels[1] - y0) > 1e-4;
                          }))
      << "handle at (" << m.channels[0] << ", " << m.channels[1] << ")";
  EXPECT_GT(std::hypot(m.channels[6], m.channels[7]), 0.0);  // the coupling pulls back
}

TEST_F(ServerLoopbackFile, SpatialArm6TipFollowsItsCouplingTarget) {
  // configs/arm6.yaml (issue 4): a target sent over UDP pulls the tip 0.3 m sideways (y), where
  // without it the arm moves (nearly) in its x-z plane
  serve("arm6.yaml");
  ASSERT_TRUE(receive(20));
  ASSERT_EQ(m.channel_count, 11);
  std::printf("arm6 served: tip (%.6f, %.6f, %.6f) before the target moves\n", m.channels[0],
              m.channels[1], m.channels[2]);
  EXPECT_LT(std::abs(m.channels[1]), 1e-3);  // the off-axis flange load alone moves y only slightly
  // target (1.2, 0.3, 0.3): 0.3 m to the side of the start
  const std::array<InputSample, 3> target{InputSample{0, 1.2}, InputSample{1, 0.3},
                                          InputSample{2, 0.3}};
  const ::testing::AssertionResult moved =
      drive_until(target, 5000, [](const StateMessage& s) { return s.channels[1] > 0.05; });
  std::printf("arm6 served: tip (%.6f, %.6f, %.6f), coupling force (%.3f, %.3f, %.3f) N\n",
              m.channels[0], m.channels[1], m.channels[2], m.channels[6], m.channels[7],
              m.channels[8]);
  EXPECT_TRUE(moved) << "tip y " << m.channels[1];
}

TEST_F(ServerLoopbackFile, ClosedLoopUrdfArmStreamsJointNamedChannels) {
  // configs/urdf/parallelogram_arm.yaml (issue 19, acceptance 6): a URDF tree closed in YAML,
  // served with joint-named inputs and joint- and link-named outputs. The loop makes the forearm
  // keep its orientation whatever the shoulder does (elbow = -shoulder, the forearm's pose
  // quaternion stays (1, 0, 0, 0)); a shoulder torque sent by its channel index moves the tool
  // point.
  serve("urdf/parallelogram_arm.yaml");
  const auto& schema = server->schema();
  ASSERT_EQ(schema.inputs.size(), 3u);
  // one torque per joint coordinate, in the tree's order (links depth first from the root)
  EXPECT_EQ(schema.inputs[0].name + " " + schema.inputs[1].name + " " + schema.inputs[2].name,
            "bar shoulder elbow");
  ASSERT_EQ(schema.outputs.size(), 14u);
  std::string names;
  for (std::size_t k : {0, 2, 3, 6, 9, 13}) names += " " + schema.outputs[k].name;
  EXPECT_EQ(names, " shoulder shoulder_rate tool.x forearm.x forearm.e0 drift");
  EXPECT_EQ(schema.outputs[0].unit + " " + schema.outputs[2].unit + " " + schema.outputs[3].unit,
            "rad rad/s m");
  ASSERT_TRUE(receive(20));
  ASSERT_EQ(m.channel_count, 14);
  const double tool_z0 = m.channels[5];
  const std::array<InputSample, 1> torque{InputSample{0, -3.0}};  // lifts the arm (about +y)
  EXPECT_TRUE(
      drive_until(torque, 3000,
                  [&](const StateMessage& s) { return std::abs(s.channels[5] - tool_z0) > 1e-3; }))
      << "tool z " << m.channels[5];
  for (int i = 0; i < 20 && receive(1); ++i) {
    EXPECT_NEAR(m.channels[0] + m.channels[1], 0.0, 1e-9);  // elbow = -shoulder
    EXPECT_NEAR(m.channels[9], 1.0, 1e-9);                  // forearm e0
    EXPECT_NEAR(m.channels[11], 0.0, 1e-9);                 // forearm e2 (the turn about y)
    EXPECT_LE(m.channels[13], 1e-10);                       // the closure's drift
  }
  std::printf("parallelogram arm served: shoulder %.4f rad, tool (%.4f, %.4f, %.4f) m\n",
              m.channels[0], m.channels[3], m.channels[4], m.channels[5]);
}

}  // namespace
}  // namespace rtmb
