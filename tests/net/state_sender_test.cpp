// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// StateSender (net/state_sender.hpp), the state stream sent from the simulation thread: which
// subscriber gets which datagram, per-subscriber sequence numbers across table updates, and the
// counting of datagrams the socket refuses. A stand-in for sendmmsg(2) plays a socket whose
// buffer is full (a UDP socket on loopback never reports that: the kernel hands the datagram to
// the receiver at once and drops it there), and a real socket checks the real call.
#include "net/state_sender.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "rtmb/net/udp_socket.hpp"
#include "rtmb/net/wire.hpp"

namespace rtmb {
namespace {

using namespace std::chrono_literals;

// One datagram the stand-in socket was asked to send.
struct Attempt {
  std::uint16_t port = 0;  // destination (host order)
  std::vector<std::byte> bytes;
};

// The stand-in socket: every datagram offered is recorded once in `attempts`; outcomes[k] (0:
// taken, else an errno) decides the k-th datagram offered, taken when the script has run out.
// sendmmsg's contract: it returns how many of the batch it took before the first refusal, or -1
// with errno when it refuses the first.
struct FakeSocket {
  static inline std::vector<Attempt> attempts;
  static inline std::vector<int> outcomes;
  static inline int calls = 0;

  static void reset() {
    attempts.clear();
    outcomes.clear();
    calls = 0;
  }

  static int send(int /*fd*/, mmsghdr* messages, unsigned int count, int flags) {
    ++calls;
    EXPECT_NE(flags & MSG_DONTWAIT, 0);  // never waits
    int taken = 0;
    for (unsigned int i = 0; i < count; ++i) {
      const msghdr& h = messages[i].msg_hdr;
      Attempt a;
      const auto* to = static_cast<const sockaddr_in*>(h.msg_name);
      a.port = ntohs(to->sin_port);
      for (std::size_t k = 0; k < h.msg_iovlen; ++k) {
        const auto* p = static_cast<const std::byte*>(h.msg_iov[k].iov_base);
        a.bytes.insert(a.bytes.end(), p, p + h.msg_iov[k].iov_len);
      }
      const std::size_t index = attempts.size();
      attempts.push_back(std::move(a));
      const int outcome = index < outcomes.size() ? outcomes[index] : 0;
      if (outcome != 0) {
        if (taken > 0) {
          attempts.pop_back();  // not offered to the kernel yet: the caller offers it again
          return taken;
        }
        errno = outcome;
        return -1;
      }
      messages[i].msg_len = static_cast<unsigned int>(attempts.back().bytes.size());
      ++taken;
    }
    return taken;
  }
};

SubscriberEntry entry(std::uint64_t id, std::uint16_t port, std::uint32_t decimation = 1) {
  SubscriberEntry e;
  e.id = id;
  e.decimation = decimation;
  const sockaddr_in a = ipv4_address("127.0.0.1", port);
  EXPECT_TRUE(set_address(e, &a, sizeof a));
  return e;
}

void publish(SubscriberSlot& slot, std::initializer_list<SubscriberEntry> entries) {
  SubscriberTable t;
  for (const SubscriberEntry& e : entries) t.entries[t.count++] = e;
  slot.publish(t);
}

StateMessage state_at(std::uint64_t step, bool paused = false) {
  StateMessage m;
  m.header.flags = paused ? static_cast<std::uint16_t>(WireFlag::kPaused) : 0;
  m.header.step = step;
  m.header.sim_time_s = 1e-3 * static_cast<double>(step);
  m.position_drift = 1e-12;
  m.velocity_drift = 2e-12;
  m.energy = -9.81;
  m.channel_count = 3;
  m.channels[0] = 0.5;
  m.channels[1] = -0.25;
  m.channels[2] = static_cast<double>(step);
  return m;
}

StateMessage decoded(const Attempt& a) {
  StateMessage m;
  EXPECT_EQ(decode_state(a.bytes, m), PacketStatus::kOk);
  return m;
}

class StateSenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FakeSocket::reset();
    sender.set_batch_send(&FakeSocket::send);
  }

  SubscriberSlot slot;
  StateSender sender{-1, slot};
};

TEST_F(StateSenderTest, EachSubscriberGetsTheStateWithItsOwnSequenceInOneBatch) {
  publish(slot, {entry(1, 7001), entry(2, 7002)});
  ASSERT_TRUE(sender.update_subscribers());
  EXPECT_FALSE(sender.update_subscribers());  // nothing newer
  for (std::uint64_t step = 1; step <= 3; ++step) {
    StateMessage m = state_at(step);
    EXPECT_EQ(sender.send(m, 0, 1000 + static_cast<std::int64_t>(step)), 2);
  }
  EXPECT_EQ(FakeSocket::calls, 3);  // one sendmmsg per state
  ASSERT_EQ(FakeSocket::attempts.size(), 6u);
  for (std::size_t k = 0; k < 6; ++k) {
    const Attempt& a = FakeSocket::attempts[k];
    EXPECT_EQ(a.port, k % 2 == 0 ? 7001 : 7002);
    const StateMessage got = decoded(a);
    const std::uint64_t step = k / 2 + 1;
    // the datagram is exactly the encoder's, with this subscriber's sequence number
    StateMessage want = state_at(step);
    want.header.sequence = step;
    want.header.sender_time_ns = 1000 + static_cast<std::int64_t>(step);
    std::array<std::byte, kMaxDatagramBytes> buffer{};
    const std::size_t n = encode_state(want, buffer);
    ASSERT_EQ(a.bytes.size(), n);
    EXPECT_TRUE(std::equal(a.bytes.begin(), a.bytes.end(), buffer.begin())) << "datagram " << k;
    EXPECT_EQ(got.header.sequence, step);
  }
  EXPECT_EQ(sender.counters().states_sent, 6u);
  EXPECT_EQ(sender.counters().send_errors + sender.counters().send_dropped_full, 0u);
}

TEST_F(StateSenderTest, SequenceNumbersStayMonotonicAcrossTableUpdates) {
  publish(slot, {entry(1, 7001), entry(2, 7002)});
  ASSERT_TRUE(sender.update_subscribers());
  for (std::uint64_t step = 1; step <= 4; ++step) {
    StateMessage m = state_at(step);
    (void)sender.send(m, 0, 0);
  }
  EXPECT_EQ(sender.last_sequence(1), 4u);
  EXPECT_EQ(sender.last_sequence(2), 4u);

  // 1 leaves, 3 joins, 2 moves to another slot of the table: 2 goes on from 4, 3 starts at 1
  publish(slot, {entry(3, 7003), entry(2, 7002)});
  ASSERT_TRUE(sender.update_subscribers());
  EXPECT_EQ(sender.last_sequence(1), 0u);
  FakeSocket::attempts.clear();
  StateMessage m = state_at(5);
  EXPECT_EQ(sender.send(m, 0, 0), 2);
  ASSERT_EQ(FakeSocket::attempts.size(), 2u);
  EXPECT_EQ(FakeSocket::attempts[0].port, 7003);
  EXPECT_EQ(decoded(FakeSocket::attempts[0]).header.sequence, 1u);
  EXPECT_EQ(FakeSocket::attempts[1].port, 7002);
  EXPECT_EQ(decoded(FakeSocket::attempts[1]).header.sequence, 5u);

  // a new decimation for 2 (same id) keeps its numbering too
  publish(slot, {entry(3, 7003), entry(2, 7002, 2)});
  ASSERT_TRUE(sender.update_subscribers());
  m = state_at(6);
  (void)sender.send(m, 0, 0);
  EXPECT_EQ(sender.last_sequence(2), 5u);  // step 6 < 5 + 2: not due
  m = state_at(7);
  (void)sender.send(m, 0, 0);
  EXPECT_EQ(sender.last_sequence(2), 6u);
  EXPECT_EQ(sender.last_sequence(3), 3u);
}

TEST_F(StateSenderTest, AFullSocketBufferDropsThatDatagramCountsItAndNeverRetries) {
  publish(slot, {entry(1, 7001), entry(2, 7002), entry(3, 7003), entry(4, 7004)});
  ASSERT_TRUE(sender.update_subscribers());
  // 1 taken, 2 refused (buffer full), 3 refused (no buffer), 4 refused (another error)
  FakeSocket::outcomes = {0, EAGAIN, ENOBUFS, EINVAL};
  StateMessage m = state_at(1);
  EXPECT_EQ(sender.send(m, 0, 0), 1);
  // each datagram offered exactly once, in order: nothing was retried
  ASSERT_EQ(FakeSocket::attempts.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(FakeSocket::attempts[k].port, 7001 + k);
  EXPECT_EQ(sender.counters().states_sent, 1u);
  EXPECT_EQ(sender.counters().send_dropped_full, 2u);
  EXPECT_EQ(sender.counters().send_errors, 1u);

  // a refused datagram still used its sequence number: the subscriber sees the gap
  FakeSocket::attempts.clear();
  FakeSocket::outcomes.clear();
  m = state_at(2);
  EXPECT_EQ(sender.send(m, 0, 0), 4);
  ASSERT_EQ(FakeSocket::attempts.size(), 4u);
  for (const Attempt& a : FakeSocket::attempts) EXPECT_EQ(decoded(a).header.sequence, 2u);

  // a socket that refuses everything: every datagram dropped once, the call returns
  FakeSocket::attempts.clear();
  FakeSocket::outcomes.assign(100, EWOULDBLOCK);
  m = state_at(3);
  EXPECT_EQ(sender.send(m, 0, 0), 0);
  EXPECT_EQ(FakeSocket::attempts.size(), 4u);
  EXPECT_EQ(sender.counters().send_dropped_full, 2u + 4u);
  EXPECT_EQ(sender.counters().states_sent, 5u);
}

TEST_F(StateSenderTest, DecimationPauseAndRestartDecideWhoIsDue) {
  publish(slot, {entry(1, 7001), entry(2, 7002, 3)});
  ASSERT_TRUE(sender.update_subscribers());
  std::vector<std::uint64_t> steps_to_2;
  const auto send = [&](std::uint64_t step, std::uint64_t epoch, bool paused) {
    FakeSocket::attempts.clear();
    StateMessage m = state_at(step, paused);
    (void)sender.send(m, epoch, 0);
    for (const Attempt& a : FakeSocket::attempts) {
      if (a.port == 7002) steps_to_2.push_back(decoded(a).header.step);
    }
    return FakeSocket::attempts;
  };
  for (std::uint64_t step = 1; step <= 7; ++step)
    EXPECT_EQ(send(step, 0, false).size(), 1u + (step % 3 == 1));
  EXPECT_EQ(steps_to_2, (std::vector<std::uint64_t>{1, 4, 7}));

  // pausing is news for every subscriber at once, and so is resuming
  std::vector<Attempt> out = send(7, 0, true);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(has_flag(decoded(out[1]).header.flags, WireFlag::kPaused));
  EXPECT_EQ(send(7, 0, true).size(), 0u);  // paused again: nothing new

  // a reset (new epoch, step back to 0): both get one datagram flagged kRestarted, then not
  out = send(0, 1, true);
  ASSERT_EQ(out.size(), 2u);
  for (const Attempt& a : out) {
    EXPECT_TRUE(has_flag(decoded(a).header.flags, WireFlag::kRestarted));
    EXPECT_EQ(decoded(a).header.step, 0u);
  }
  out = send(1, 1, false);
  ASSERT_EQ(out.size(), 2u);
  for (const Attempt& a : out)
    EXPECT_FALSE(has_flag(decoded(a).header.flags, WireFlag::kRestarted));
}

TEST_F(StateSenderTest, ANonFiniteStateIsNeverSent) {
  publish(slot, {entry(1, 7001)});
  ASSERT_TRUE(sender.update_subscribers());
  StateMessage m = state_at(1);
  m.channels[2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(sender.send(m, 0, 0), 0);
  m = state_at(2);
  m.header.sim_time_s = std::numeric_limits<double>::infinity();
  EXPECT_EQ(sender.send(m, 0, 0), 0);
  EXPECT_EQ(FakeSocket::calls, 0);
  EXPECT_EQ(sender.counters().non_finite, 2u);
  m = state_at(3);
  EXPECT_EQ(sender.send(m, 0, 0), 1);
}

TEST_F(StateSenderTest, NoSubscriberNoCall) {
  StateMessage m = state_at(1);
  EXPECT_EQ(sender.send(m, 0, 0), 0);
  publish(slot, {entry(1, 7001)});
  ASSERT_TRUE(sender.update_subscribers());
  publish(slot, {});
  ASSERT_TRUE(sender.update_subscribers());
  EXPECT_EQ(sender.subscriber_count(), 0u);
  EXPECT_EQ(sender.send(m, 0, 0), 0);
  EXPECT_EQ(FakeSocket::calls, 0);
}

TEST(StateSenderSocket, RealSendmmsgReachesEverySubscriber) {
  // the server's side: a plain bound UDP socket, as Asio's would be
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  const sockaddr_in local = ipv4_address("127.0.0.1", 0);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof local), 0);
  std::array<UdpSocket, 3> receivers;
  SubscriberSlot slot;
  SubscriberTable table;
  for (std::size_t i = 0; i < receivers.size(); ++i) {
    const std::uint16_t port = receivers[i].bind_loopback();
    table.entries[table.count++] = entry(10 + i, port);
  }
  slot.publish(table);
  StateSender sender(fd, slot);
  ASSERT_TRUE(sender.update_subscribers());
  for (std::uint64_t step = 1; step <= 5; ++step) {
    StateMessage m = state_at(step);
    EXPECT_EQ(sender.send(m, 0, 0), 3);
  }
  for (UdpSocket& r : receivers) {
    SequenceWindow window;
    PacketCounters counters;
    for (std::uint64_t step = 1; step <= 5; ++step) {
      ASSERT_TRUE(r.wait_readable(std::chrono::steady_clock::now() + 2s));
      std::array<std::byte, kMaxDatagramBytes + 1> buffer{};
      const long n = r.receive(buffer);
      ASSERT_GT(n, 0);
      StateMessage m;
      ASSERT_EQ(admit_state(std::span<const std::byte>(buffer.data(), static_cast<std::size_t>(n)),
                            window, counters, m),
                PacketStatus::kOk);
      EXPECT_EQ(m.header.sequence, step);
      EXPECT_EQ(m.header.step, step);
      EXPECT_EQ(m.channels[2], static_cast<double>(step));
    }
  }
  EXPECT_EQ(sender.counters().states_sent, 15u);
  EXPECT_EQ(sender.counters().send_errors, 0u);
  ::close(fd);
}

}  // namespace
}  // namespace rtmb
