// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// InputReceiver (net/input_receiver.hpp), the input stream read on the simulation thread: over a
// real loopback socket, datagrams are admitted only from addresses in the admission table, bad
// ones are counted by reason, good ones reach the ring with a kernel arrival time, a new hello
// forgets the sender's numbering, and a flood is read a bounded number per call.
#include "net/input_receiver.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "net/input_auth.hpp"
#include "rtmb/net/udp_socket.hpp"
#include "rtmb/net/wire.hpp"
#include "tests/support/wire_bytes.hpp"

namespace rtmb {
namespace {

using namespace std::chrono_literals;
using testing::input_datagram;

std::int64_t monotonic_ns() {
  timespec ts{};
  (void)::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

AdmissionTable loopback_admitted(std::uint64_t hello, double rate_hz = 1e6) {
  AdmissionTable t;
  t.rate_hz = rate_hz;
  t.burst = 0.1 * rate_hz;
  t.count = 1;
  t.entries[0].address.family = AF_INET;
  t.entries[0].address.bytes = {127, 0, 0, 1};
  t.entries[0].hello = hello;
  return t;
}

// A version 2 input of `session` with one sample, signed with key.
std::vector<std::byte> signed_datagram(std::uint64_t session,
                                       const SessionKey& key,
                                       std::uint64_t seq,
                                       std::uint16_t channel,
                                       double value) {
  InputMessage m;
  m.header.sequence = seq;
  m.header.sender_time_ns = 1000;
  m.sample_count = 1;
  m.samples[0] = {channel, value};
  std::vector<std::byte> b(kMaxDatagramBytes);
  b.resize(encode_input_v2(m, session, b));
  sign_input(b, key);
  return b;
}

SessionKey key_of(std::uint8_t fill) {
  SessionKey k{};
  k.fill(fill);
  return k;
}

constexpr std::uint64_t kSessionA = 0xA11CEu;
constexpr std::uint64_t kSessionB = 0xB0Bu;

// loopback_admitted(hello) with the sessions A (key 0x11...) and B (key 0x22...) and version 1
// inputs refused, as on a server bound beyond loopback
AdmissionTable authenticated(std::uint64_t hello = 1) {
  AdmissionTable t = loopback_admitted(hello);
  t.require_authenticated = true;
  t.session_count = 2;
  t.sessions[0] = SessionEntry{kSessionA, key_of(0x11)};
  t.sessions[1] = SessionEntry{kSessionB, key_of(0x22)};
  return t;
}

class InputReceiverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    const sockaddr_in local = ipv4_address("127.0.0.1", 0);
    ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof local), 0);
    sockaddr_in bound{};
    socklen_t len = sizeof bound;
    ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len), 0);
    client.connect("127.0.0.1", ntohs(bound.sin_port));
    receiver = std::make_unique<InputReceiver>(fd, slot, *ring);
  }
  void TearDown() override { ::close(fd); }

  // receives until `count` datagrams were read or 2 s passed
  int receive_all(int count) {
    int got = 0;
    const auto limit = std::chrono::steady_clock::now() + 2s;
    while (got < count && std::chrono::steady_clock::now() < limit) {
      got += receiver->receive(2);
      if (got < count) std::this_thread::sleep_for(1ms);
    }
    return got;
  }

  int fd = -1;
  UdpSocket client;
  AdmissionSlot slot;
  std::unique_ptr<InputRing> ring = std::make_unique<InputRing>();
  std::unique_ptr<InputReceiver> receiver;
};

TEST_F(InputReceiverTest, OnlyAdmittedAddressesAreQueuedAndGarbageIsCountedByReason) {
  // nobody admitted yet: a well-formed input is an unknown sender's
  ASSERT_TRUE(client.send(input_datagram(1, 0, 0.5)));
  ASSERT_EQ(receive_all(1), 1);
  EXPECT_EQ(receiver->counters().udp_in.count(PacketStatus::kUnknownSender), 1u);
  EXPECT_EQ(ring->size_approx(), 0u);

  slot.publish(loopback_admitted(1));
  receiver->update_admission();
  std::vector<std::byte> bad = input_datagram(2, 0, 1.0);
  bad[0] ^= std::byte{0xFF};
  ASSERT_TRUE(client.send(bad));                                         // bad_magic
  ASSERT_TRUE(client.send(std::span<const std::byte>(bad.data(), 10)));  // too_short
  ASSERT_TRUE(client.send(input_datagram(3, 5, 1.0)));  // unknown_channel (2 channels)
  const std::int64_t before_send = monotonic_ns();
  ASSERT_TRUE(client.send(input_datagram(4, 1, -0.25)));  // ok
  ASSERT_TRUE(client.send(input_datagram(4, 1, -0.25)));  // duplicate
  ASSERT_EQ(receive_all(5), 5);
  const std::int64_t after_receive = monotonic_ns();
  const PacketCounters& c = receiver->counters().udp_in;
  EXPECT_EQ(c.received, 6u);
  EXPECT_EQ(c.count(PacketStatus::kBadMagic), 1u);
  EXPECT_EQ(c.count(PacketStatus::kTooShort), 1u);
  EXPECT_EQ(c.count(PacketStatus::kUnknownChannel), 1u);
  EXPECT_EQ(c.count(PacketStatus::kDuplicate), 1u);
  EXPECT_EQ(c.accepted(), 1u);
  EXPECT_EQ(receiver->counters().inputs_queued, 1u);
  QueuedInput q;
  ASSERT_TRUE(ring->try_pop(q));
  EXPECT_EQ(q.channel, 1u);
  EXPECT_EQ(q.value, -0.25);
  EXPECT_EQ(q.seq, 4u);
  // the kernel's arrival time on the loop's clock: after the send, not later than the read
  EXPECT_GE(q.arrival_ns, before_send);
  EXPECT_LE(q.arrival_ns, after_receive);

  // the same table again keeps the numbering (4 is a duplicate); a new hello forgets it
  slot.publish(loopback_admitted(1));
  receiver->update_admission();
  ASSERT_TRUE(client.send(input_datagram(4, 0, 0.1)));
  ASSERT_EQ(receive_all(1), 1);
  EXPECT_EQ(c.count(PacketStatus::kDuplicate), 2u);
  slot.publish(loopback_admitted(2));
  receiver->update_admission();
  ASSERT_TRUE(client.send(input_datagram(1, 0, 0.1)));
  ASSERT_EQ(receive_all(1), 1);
  EXPECT_EQ(c.accepted(), 2u);
}

TEST_F(InputReceiverTest, AFloodIsReadABoundedNumberPerCallAndRateLimited) {
  slot.publish(loopback_admitted(1, 100.0));  // burst 10
  receiver->update_admission();
  constexpr int kSent = 200;
  for (int i = 0; i < kSent; ++i) ASSERT_TRUE(client.send(input_datagram(1 + i, 0, 0.0)));
  std::this_thread::sleep_for(20ms);
  const int first = receiver->receive(2);
  EXPECT_LE(first, static_cast<int>(kReceiveBatch) * kReceiveBatchesPerTick);
  EXPECT_GT(first, 0);
  const int rest = receive_all(kSent - first);
  const PacketCounters& c = receiver->counters().udp_in;
  EXPECT_EQ(c.received, static_cast<std::uint64_t>(first + rest));
  // sent far faster than 100/s: about the burst passes, the rest is rate_limited
  EXPECT_GE(c.accepted(), 10u);
  EXPECT_LE(c.accepted(), 12u);
  EXPECT_EQ(c.accepted() + c.count(PacketStatus::kRateLimited), c.received);
}

TEST_F(InputReceiverTest, AuthenticatedInputsNeedTheirSessionsMacAndAFreshSequence) {
  init_crypto();
  slot.publish(authenticated());
  receiver->update_admission();
  UdpSocket stranger;  // another socket, another port: version 2 admits by session, not address
  stranger.connect("127.0.0.1", [&] {
    sockaddr_in bound{};
    socklen_t len = sizeof bound;
    (void)::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
    return ntohs(bound.sin_port);
  }());

  const std::vector<std::byte> a1 = signed_datagram(kSessionA, key_of(0x11), 1, 0, 0.5);
  ASSERT_TRUE(client.send(a1));                                                   // ok
  ASSERT_TRUE(client.send(signed_datagram(kSessionA, key_of(0x33), 2, 0, 9.0)));  // bad_mac
  std::vector<std::byte> altered = signed_datagram(kSessionA, key_of(0x11), 3, 0, 9.0);
  altered[kHeaderBytes + input_offset::kSamples] = std::byte{1};  // channel 0 -> 1 after signing
  ASSERT_TRUE(client.send(altered));                              // bad_mac
  // A's key with B's session id: forging another client's session
  ASSERT_TRUE(stranger.send(signed_datagram(kSessionB, key_of(0x11), 4, 0, 9.0)));  // bad_mac
  ASSERT_TRUE(stranger.send(signed_datagram(0x5EED, key_of(0x11), 5, 0, 9.0)));  // unknown_session
  ASSERT_TRUE(stranger.send(a1));                       // duplicate: a replay
  ASSERT_TRUE(client.send(input_datagram(6, 0, 9.0)));  // unauthenticated: version 1
  ASSERT_TRUE(client.send(signed_datagram(kSessionB, key_of(0x22), 1, 1, -0.25)));  // ok (B)
  // A moves 100 ahead; then one never sent but 90 behind, and one inside the window but older
  ASSERT_TRUE(client.send(signed_datagram(kSessionA, key_of(0x11), 101, 0, 0.75)));  // ok
  ASSERT_TRUE(client.send(signed_datagram(kSessionA, key_of(0x11), 11, 0, 9.0)));    // out_of_order
  ASSERT_TRUE(client.send(signed_datagram(kSessionA, key_of(0x11), 100, 0, 9.0)));   // out_of_order
  ASSERT_EQ(receive_all(11), 11);

  const PacketCounters& c = receiver->counters().udp_in;
  EXPECT_EQ(c.received, 11u);
  EXPECT_EQ(c.accepted(), 3u);
  EXPECT_EQ(c.count(PacketStatus::kBadMac), 3u);
  EXPECT_EQ(c.count(PacketStatus::kUnknownSession), 1u);
  EXPECT_EQ(c.count(PacketStatus::kDuplicate), 1u);
  EXPECT_EQ(c.count(PacketStatus::kUnauthenticated), 1u);
  EXPECT_EQ(c.count(PacketStatus::kOutOfOrder), 2u);
  // only the valid datagrams' samples reached the ring, in order
  struct Expected {
    std::uint32_t channel;
    double value;
    std::uint64_t seq;
  };
  const std::array<Expected, 3> expected{Expected{0, 0.5, 1}, Expected{1, -0.25, 1},
                                         Expected{0, 0.75, 101}};
  for (const Expected& e : expected) {
    QueuedInput q;
    ASSERT_TRUE(ring->try_pop(q));
    EXPECT_EQ(q.channel, e.channel);
    EXPECT_EQ(q.value, e.value);
    EXPECT_EQ(q.seq, e.seq);
  }
  QueuedInput extra;
  EXPECT_FALSE(ring->try_pop(extra));
}

TEST_F(InputReceiverTest, ReplayWindowsOutliveTableUpdatesAndLoadsButNotTheirSession) {
  init_crypto();
  slot.publish(authenticated(1));
  receiver->update_admission();
  const std::vector<std::byte> a7 = signed_datagram(kSessionA, key_of(0x11), 7, 0, 0.5);
  ASSERT_TRUE(client.send(a7));
  ASSERT_EQ(receive_all(1), 1);
  // another hello from the same address (a new table, a new hello number) and a model load: A's
  // window stays, so its recorded datagram is still a replay
  slot.publish(authenticated(2));
  receiver->update_admission();
  receiver->clear_sequences();
  ASSERT_TRUE(client.send(a7));
  ASSERT_EQ(receive_all(1), 1);
  const PacketCounters& c = receiver->counters().udp_in;
  EXPECT_EQ(c.count(PacketStatus::kDuplicate), 1u);
  // A's session ends (its client said hello again and got a new one): its datagrams are refused
  AdmissionTable t = authenticated(3);
  t.sessions[0] = SessionEntry{kSessionA + 1, key_of(0x44)};
  slot.publish(t);
  receiver->update_admission();
  ASSERT_TRUE(client.send(a7));
  ASSERT_TRUE(client.send(signed_datagram(kSessionA + 1, key_of(0x44), 1, 0, 0.5)));  // fresh
  ASSERT_EQ(receive_all(2), 2);
  EXPECT_EQ(c.count(PacketStatus::kUnknownSession), 1u);
  EXPECT_EQ(c.accepted(), 2u);
}

}  // namespace
}  // namespace rtmb
