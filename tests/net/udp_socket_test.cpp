// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb::UdpSocket on loopback: binding, a connected pair, addressed replies, timeouts and bad
// addresses.
#include "rtmb/net/udp_socket.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <utility>

namespace rtmb {
namespace {

using Clock = std::chrono::steady_clock;

std::array<std::byte, 3> bytes(unsigned char a, unsigned char b, unsigned char c) {
  return {std::byte{a}, std::byte{b}, std::byte{c}};
}

TEST(UdpSocket, BindLoopbackChoosesAPort) {
  UdpSocket s;
  EXPECT_NE(s.bind_loopback(), 0);
}

TEST(UdpSocket, AMovedSocketKeepsItsBinding) {
  UdpSocket first;
  const std::uint16_t port = first.bind_loopback();
  UdpSocket second(std::move(first));
  UdpSocket sender;
  ASSERT_TRUE(sender.send_to(bytes(1, 1, 1), ipv4_address("127.0.0.1", port)));
  ASSERT_TRUE(second.wait_readable(Clock::now() + std::chrono::seconds(2)));
  std::array<std::byte, 4> buf{};
  EXPECT_EQ(second.receive(buf), 3);
}

TEST(UdpSocket, ConnectedPairExchangesDatagramsBothWays) {
  UdpSocket server;
  const std::uint16_t port = server.bind_loopback();
  UdpSocket device;
  device.connect("127.0.0.1", port);
  const auto ping = bytes(1, 2, 3);
  ASSERT_TRUE(device.send(ping));

  ASSERT_TRUE(server.wait_readable(Clock::now() + std::chrono::seconds(2)));
  std::array<std::byte, 16> buf{};
  sockaddr_in from{};
  ASSERT_EQ(server.receive(buf, &from), 3);
  EXPECT_EQ(buf[0], std::byte{1});
  EXPECT_EQ(buf[2], std::byte{3});

  // the reply goes to the sender's address: the connected socket receives it
  const auto pong = bytes(7, 8, 9);
  ASSERT_TRUE(server.send_to(pong, from));
  ASSERT_TRUE(device.wait_readable(Clock::now() + std::chrono::seconds(2)));
  ASSERT_EQ(device.receive(buf), 3);
  EXPECT_EQ(buf[1], std::byte{8});
}

TEST(UdpSocket, SendToAnAddressReachesABoundSocket) {
  UdpSocket receiver;
  const std::uint16_t port = receiver.bind_loopback();
  UdpSocket sender;
  ASSERT_TRUE(sender.send_to(bytes(4, 5, 6), ipv4_address("127.0.0.1", port)));
  ASSERT_TRUE(receiver.wait_readable(Clock::now() + std::chrono::seconds(2)));
  std::array<std::byte, 2> small{};
  EXPECT_EQ(receiver.receive(small), 2) << "a longer datagram is truncated to the buffer";
  EXPECT_EQ(small[1], std::byte{5});
}

TEST(UdpSocket, WaitTimesOutAndReceiveDoesNotBlockWhenNothingIsQueued) {
  UdpSocket s;
  (void)s.bind_loopback();
  const auto start = Clock::now();
  EXPECT_FALSE(s.wait_readable(start + std::chrono::milliseconds(20)));
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(20));
  EXPECT_FALSE(s.wait_readable(start)) << "a deadline in the past polls once";
  std::array<std::byte, 8> buf{};
  EXPECT_EQ(s.receive(buf), -1);
  EXPECT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK);
}

// This thread's CPU time (user + system) [s].
double thread_cpu_s() {
  rusage u{};
  (void)getrusage(RUSAGE_THREAD, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// poll_readable (rtmb latency --device-poll, issue 14): the same answers as wait_readable, but
// the thread keeps its CPU busy instead of sleeping. The kernel charges thread CPU time by the
// scheduler tick (4 ms here), so a sleeping wait can be charged a whole tick; the polling wait
// must have used at least a fifth of its 100 ms, five ticks, which a loaded 2-core machine still
// gives a thread that never sleeps.
TEST(UdpSocket, PollReadableAnswersAsWaitReadableWithoutSleeping) {
  UdpSocket s;
  const std::uint16_t port = s.bind_loopback();
  const auto wait = std::chrono::milliseconds(100);

  auto start = Clock::now();
  EXPECT_FALSE(s.wait_readable(start + wait));

  const double cpu0 = thread_cpu_s();
  start = Clock::now();
  EXPECT_FALSE(s.poll_readable(start + wait));
  EXPECT_GE(Clock::now() - start, wait) << "it returned before its deadline";
  const double polling_cpu = thread_cpu_s() - cpu0;
  EXPECT_GE(polling_cpu, 0.02) << "the polling wait slept";
  EXPECT_FALSE(s.poll_readable(start)) << "a deadline in the past polls once";

  UdpSocket sender;
  ASSERT_TRUE(sender.send_to(bytes(7, 7, 7), ipv4_address("127.0.0.1", port)));
  ASSERT_TRUE(s.poll_readable(Clock::now() + std::chrono::seconds(2)));
  std::array<std::byte, 8> buf{};
  EXPECT_EQ(s.receive(buf), 3);
}

TEST(UdpSocket, BadAddressesThrowSocketError) {
  EXPECT_THROW((void)ipv4_address("localhost", 1), SocketError);
  EXPECT_THROW((void)ipv4_address("1.2.3", 1), SocketError);
  UdpSocket s;
  EXPECT_THROW(s.connect("not an address", 9), SocketError);
  const sockaddr_in a = ipv4_address("10.1.2.3", 4242);
  EXPECT_EQ(a.sin_family, AF_INET);
  EXPECT_EQ(ntohs(a.sin_port), 4242);
}

}  // namespace
}  // namespace rtmb
