// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The state stream of rtmb::Server over loopback since the simulation thread sends it itself
// (issue 14): per-subscriber sequence numbers while other subscriptions come and go, and a
// subscriber that never reads is not waited for. Ports are chosen by the OS; every wait is
// bounded; nothing asserts on timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"
#include "rtmb/net/udp_socket.hpp"
#include "rtmb/net/wire.hpp"
#include "tests/support/loopback_server.hpp"

namespace rtmb {
namespace {

using namespace std::chrono_literals;

using testing::connect_and_hello;
using testing::eventually;
using testing::loopback_config;
using testing::say_hello_and_subscribe;

// Reads every state datagram waiting for client (up to `limit`), appending sequence numbers.
void drain(Client& client, std::vector<std::uint64_t>& sequences, int limit = 1000) {
  StateMessage m;
  for (int i = 0; i < limit && client.receive_state(m, 0ms); ++i) {
    sequences.push_back(m.header.sequence);
  }
}

// Reads the state datagrams waiting on a plain socket, decoded without any sequence check (the
// Client would drop a restarted numbering as out of order), appending sequence numbers; waits up
// to `first` for the first one.
void drain(UdpSocket& socket,
           std::vector<std::uint64_t>& sequences,
           std::chrono::milliseconds first = 0ms) {
  std::array<std::byte, kMaxDatagramBytes + 1> buffer{};
  if (first > 0ms && !socket.wait_readable(std::chrono::steady_clock::now() + first)) return;
  for (long n = socket.receive(buffer); n > 0; n = socket.receive(buffer)) {
    StateMessage m;
    ASSERT_EQ(
        decode_state(std::span<const std::byte>(buffer.data(), static_cast<std::size_t>(n)), m),
        PacketStatus::kOk);
    sequences.push_back(m.header.sequence);
  }
}

TEST(ServerStream, SequenceStaysMonotonicWhileOtherSubscriptionsComeAndGo) {
  Server server(loopback_config());
  server.start();
  Client watcher;  // subscribed all along
  say_hello_and_subscribe(watcher, server);
  Client other;  // subscribes and unsubscribes `socket` while the simulation runs
  (void)connect_and_hello(other, server);
  UdpSocket socket;
  const std::string port = std::to_string(socket.bind_loopback());

  std::vector<std::uint64_t> watched;
  std::vector<std::uint64_t> others;
  StateMessage m;
  ASSERT_TRUE(watcher.receive_state(m, 2000ms));
  watched.push_back(m.header.sequence);
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    const std::string reply = other.request(R"({"command":"subscribe","port":)" + port + "}");
    ASSERT_TRUE(reply.starts_with(R"({"ok":true)")) << reply;
    // the new subscription's first datagram (number 1) arrives within a tick or two; datagrams
    // of the previous subscription sent before the simulation thread took the new table may
    // come first
    const std::size_t before = others.size();
    const auto limit = std::chrono::steady_clock::now() + 2s;
    while (std::find(others.begin() + static_cast<std::ptrdiff_t>(before), others.end(), 1u) ==
               others.end() &&
           std::chrono::steady_clock::now() < limit) {
      drain(socket, others, 100ms);
    }
    ASSERT_NE(std::find(others.begin() + static_cast<std::ptrdiff_t>(before), others.end(), 1u),
              others.end())
        << "round " << round;
    drain(watcher, watched);
    // the watcher changes its own decimation: the same subscription, its numbering goes on
    watcher.subscribe(round % 2 == 0 ? 2 : 1);
    EXPECT_TRUE(other.request(R"({"command":"unsubscribe"})").starts_with(R"({"ok":true)"));
    // at least one state to the watcher after each change of the table
    ASSERT_TRUE(watcher.receive_state(m, 2000ms));
    watched.push_back(m.header.sequence);
    drain(watcher, watched);
  }
  ASSERT_TRUE(watcher.receive_state(m, 2000ms));
  watched.push_back(m.header.sequence);
  drain(watcher, watched);
  drain(socket, others);

  // the watcher's numbers only ever go up (loopback does not reorder)
  ASSERT_GT(watched.size(), static_cast<std::size_t>(kRounds));
  for (std::size_t i = 1; i < watched.size(); ++i) {
    ASSERT_GT(watched[i], watched[i - 1]) << "datagram " << i;
  }
  // and the client's own sequence check refused none (it would have hidden a step back)
  EXPECT_EQ(watcher.state_counters().rejected(), 0u);
  // the other client's numbers: one increasing run per subscription, each starting at 1
  // (datagrams of an ended subscription that were in flight may still arrive: they continue
  // their run, never restart it)
  int runs = 0;
  for (std::size_t i = 0; i < others.size(); ++i) {
    if (i == 0 || others[i] <= others[i - 1]) {
      EXPECT_EQ(others[i], 1u) << "datagram " << i;
      ++runs;
    }
  }
  EXPECT_EQ(runs, kRounds);
  EXPECT_EQ(server.stats().send_errors, 0u);
  EXPECT_TRUE(eventually([&] { return server.stats().subscribers == 1; }));
  server.request_stop();
  server.join();
}

TEST(ServerStream, ASubscriberThatNeverReadsIsNotWaitedFor) {
  Server server(loopback_config());
  server.start();
  Client client;
  say_hello_and_subscribe(client, server);
  // a second subscriber of the same client: a socket with the smallest receive buffer the
  // kernel allows, never read, so it is full after a few datagrams and the rest are dropped
  UdpSocket stuck;
  stuck.set_receive_buffer(1);
  const std::uint16_t stuck_port = stuck.bind_loopback();
  const std::string reply =
      client.request(R"({"command":"subscribe","port":)" + std::to_string(stuck_port) + "}");
  ASSERT_TRUE(reply.starts_with(R"({"ok":true)")) << reply;
  ASSERT_TRUE(eventually([&] { return server.stats().subscribers == 2; }));

  // the reading subscriber keeps getting every state, in order, while the stuck one's buffer
  // stays full
  StateMessage m;
  std::uint64_t last_sequence = 0;
  std::uint64_t last_step = 0;
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(client.receive_state(m, 2000ms)) << "state " << i;
    EXPECT_GT(m.header.sequence, last_sequence);
    EXPECT_GT(m.header.step, last_step);
    last_sequence = m.header.sequence;
    last_step = m.header.step;
  }
  EXPECT_TRUE(server.running());
  server.request_stop();
  server.join();
  EXPECT_EQ(server.stop_reason(), StopReason::kStopRequested);

  // every datagram the server sent the reading client is in its socket by now: its last
  // sequence number is how many it was sent
  while (client.receive_state(m, 0ms)) {
    EXPECT_GT(m.header.sequence, last_sequence);
    last_sequence = m.header.sequence;
  }
  // the rest of states_sent went to the stuck subscriber: about as many (it subscribed a few
  // ticks later), far more than it holds
  const ServerStats stats = server.stats();
  ASSERT_GE(stats.states_sent, last_sequence);
  const std::uint64_t to_stuck = stats.states_sent - last_sequence;
  EXPECT_LE(to_stuck, last_sequence);
  EXPECT_GE(to_stuck + 50, last_sequence);
  std::uint64_t queued = 0;
  std::array<std::byte, kMaxDatagramBytes + 1> buffer{};
  while (stuck.receive(buffer) > 0) ++queued;
  EXPECT_LT(queued, to_stuck / 2);
  EXPECT_EQ(stats.send_errors, 0u);
}

}  // namespace
}  // namespace rtmb
