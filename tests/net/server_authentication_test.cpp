// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Wire version 2 end to end (issue 15, acceptance 1; docs/protocol.md "Wire version 2"): a
// server that requires authenticated inputs refuses a version 1 hello and version 1 inputs,
// applies a valid signed input, and drops a wrong MAC, a spoofed sender (no key, or another
// client's session), a replayed and an old sequence, each counted by reason, the state
// unaffected (no sample of theirs queued, the applied inputs those of the valid datagrams).
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "net/input_auth.hpp"
#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"
#include "rtmb/net/udp_socket.hpp"
#include "rtmb/net/wire.hpp"
#include "tests/support/loopback_server.hpp"
#include "tests/support/wire_bytes.hpp"

namespace rtmb {
namespace {

using namespace std::chrono_literals;
using testing::Bytes;
using testing::eventually;

InputMessage one_sample(std::uint64_t sequence, double f0) {
  InputMessage m;
  m.header.sequence = sequence;
  m.header.sender_time_ns = 1000;
  m.sample_count = 1;
  m.samples[0] = InputSample{0, f0};
  return m;
}

// m as client's signed datagram (version 2, its session and key)
Bytes signed_by(const Client& client, const InputMessage& m) {
  Bytes b(kMaxDatagramBytes);
  b.resize(client.encode_input_datagram(m, b));
  return b;
}

ServerConfig authenticated_paused() {
  ServerConfig c = testing::loopback_config();
  c.require_authenticated_inputs = true;  // what a bind beyond loopback implies
  c.start_running = false;                // inputs wait for an explicit step
  return c;
}

TEST(ServerAuthentication, VersionOneHelloIsRefusedWhereInputsMustBeAuthenticated) {
  Server server(authenticated_paused());
  server.start();
  Client raw;
  raw.connect("127.0.0.1", server.tcp_port());
  const std::string v1 = raw.request(R"({"command":"hello"})");
  EXPECT_TRUE(v1.starts_with(R"({"ok":false,"error":"this server requires authenticated inputs)"))
      << v1;
  EXPECT_NE(v1.find(R"(\"version\":2)"), std::string::npos) << v1;  // says what to do
  const std::string v3 = raw.request(R"({"command":"hello","version":3})");
  EXPECT_NE(v3.find("speaks versions 1 and 2"), std::string::npos) << v3;
  const std::string v2 = raw.request(R"({"command":"hello","version":2})");
  EXPECT_TRUE(v2.starts_with(R"({"ok":true,"command":"hello","version":2,)")) << v2;
  EXPECT_NE(v2.find(R"("session":")"), std::string::npos) << v2;
  EXPECT_NE(v2.find(R"("key":")"), std::string::npos) << v2;
}

TEST(ServerAuthentication, LoopbackServerStillSpeaksVersionOneAndEachHelloMakesANewSession) {
  Server server(testing::loopback_config());
  server.start();
  Client raw;
  raw.connect("127.0.0.1", server.tcp_port());
  const std::string v1 = raw.request(R"({"command":"hello"})");
  EXPECT_TRUE(v1.starts_with(R"({"ok":true,"command":"hello","version":1,)")) << v1;
  EXPECT_EQ(v1.find("\"key\""), std::string::npos) << v1;

  Client a;
  a.connect("127.0.0.1", server.tcp_port());
  const ClientSchema first = a.hello();
  const ClientSchema second = a.hello();
  EXPECT_EQ(first.version, kWireVersionAuthenticated);
  EXPECT_NE(first.session, 0u);
  EXPECT_NE(first.session, second.session);
}

TEST(ServerAuthentication, ForgedReplayedAndOldInputsAreDroppedAndCountedTheStateUnaffected) {
  Server server(authenticated_paused());
  server.start();
  Client a;
  Client b;
  const ClientSchema sa = testing::connect_and_hello(a, server);
  const ClientSchema sb = testing::connect_and_hello(b, server);
  ASSERT_EQ(sa.version, kWireVersionAuthenticated);
  ASSERT_EQ(sb.version, kWireVersionAuthenticated);
  UdpSocket stranger;  // another socket on the same host: it knows the session ids, not the keys
  stranger.connect("127.0.0.1", server.udp_port());

  const Bytes first = signed_by(a, one_sample(10, 0.5));
  const Bytes newest = signed_by(a, one_sample(100, 0.75));
  a.send_datagram(first);   // ok
  a.send_datagram(newest);  // ok
  ASSERT_TRUE(eventually([&] { return server.stats().udp_in.accepted() == 2; }));

  Bytes flipped = signed_by(a, one_sample(101, 9.0));
  flipped.back() ^= std::byte{0x80};
  a.send_datagram(flipped);  // bad_mac: a tag bit flipped
  Bytes altered = signed_by(a, one_sample(102, 9.0));
  testing::poke<std::uint64_t>(altered, kHeaderBytes + input_offset::kSamples + 2,
                               std::bit_cast<std::uint64_t>(9.5));
  a.send_datagram(altered);  // bad_mac: the value changed after signing

  // the stranger: A's session under a key of its own, and B's session id pasted into A's datagram
  InputMessage spoof = one_sample(103, 9.0);
  Bytes no_key(kMaxDatagramBytes);
  no_key.resize(encode_input_v2(spoof, sa.session, no_key));
  SessionKey guess{};
  guess.fill(0x5A);
  sign_input(no_key, guess);
  ASSERT_TRUE(stranger.send(no_key));  // bad_mac
  Bytes other_session = signed_by(a, one_sample(104, 9.0));
  testing::poke<std::uint64_t>(other_session, other_session.size() - kInputTrailerBytes,
                               sb.session);
  ASSERT_TRUE(stranger.send(other_session));  // bad_mac: the session id is covered by the MAC
  Bytes unknown = signed_by(a, one_sample(105, 9.0));
  testing::poke<std::uint64_t>(unknown, unknown.size() - kInputTrailerBytes,
                               sa.session ^ sb.session ^ 1u);
  ASSERT_TRUE(stranger.send(unknown));  // unknown_session

  ASSERT_TRUE(stranger.send(newest));  // duplicate: a replay, even from another socket
  a.send_datagram(first);              // out_of_order: older than the newest
  a.send_datagram(signed_by(a, one_sample(20, 9.0)));  // out_of_order: 80 behind, never sent
  ASSERT_TRUE(stranger.send(testing::input_datagram(200, 0, 9.0)));  // unauthenticated (v1)

  ASSERT_TRUE(eventually([&] { return server.stats().udp_in.received == 11; }));
  const ServerStats stats = server.stats();
  const PacketCounters& c = stats.udp_in;
  EXPECT_EQ(c.accepted(), 2u);
  EXPECT_EQ(c.count(PacketStatus::kBadMac), 4u);
  EXPECT_EQ(c.count(PacketStatus::kUnknownSession), 1u);
  EXPECT_EQ(c.count(PacketStatus::kDuplicate), 1u);
  EXPECT_EQ(c.count(PacketStatus::kOutOfOrder), 2u);
  EXPECT_EQ(c.count(PacketStatus::kUnauthenticated), 1u);
  EXPECT_EQ(stats.inputs_queued, 2u);  // the valid datagrams' samples only

  // a valid input after all that is still applied, by the next step (sent just before it, so
  // the inputs' watchdog has no time to call it stale)
  a.send_datagram(signed_by(a, one_sample(300, 0.25)));
  ASSERT_TRUE(eventually([&] { return server.stats().inputs_queued == 3; }));
  EXPECT_EQ(a.request(R"({"command":"step","count":1})"), R"({"ok":true,"command":"step"})");
  ASSERT_TRUE(eventually([&] { return server.stats().step == 1; }));
  EXPECT_EQ(server.stats().input_values, (std::vector<double>{0.25, 0.0}));

  // the stats reply names the new reasons
  const std::string reply = a.request(R"({"command":"stats"})");
  EXPECT_NE(reply.find(R"("udp_bad_mac":4)"), std::string::npos) << reply;
  EXPECT_NE(reply.find(R"("udp_unauthenticated":1)"), std::string::npos) << reply;
  EXPECT_NE(reply.find(R"("udp_unknown_session":1)"), std::string::npos) << reply;
}

TEST(ServerAuthentication, ClientSendInputSignsAndIsApplied) {
  Server server(authenticated_paused());
  server.start();
  Client a;
  (void)testing::connect_and_hello(a, server);
  const std::array<InputSample, 2> samples{InputSample{0, 1.25}, InputSample{1, -0.5}};
  (void)a.send_input(samples);
  ASSERT_TRUE(eventually([&] { return server.stats().inputs_queued == 2; }));
  EXPECT_EQ(a.request(R"({"command":"step","count":1})"), R"({"ok":true,"command":"step"})");
  ASSERT_TRUE(eventually([&] { return server.stats().step == 1; }));
  EXPECT_EQ(server.stats().input_values, (std::vector<double>{1.25, -0.5}));
  EXPECT_EQ(server.stats().udp_in.rejected(), 0u);
}

}  // namespace
}  // namespace rtmb
