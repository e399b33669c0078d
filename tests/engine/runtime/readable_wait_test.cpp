// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// wait_readable_until on a datagram socket pair: a datagram wakes it, no datagram lets it time
// out, and a datagram sent while it waits wakes it long before a far deadline.
#include "rtmb/runtime/readable_wait.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <thread>

#include "rtmb/runtime/monotonic_clock.hpp"

namespace rtmb {
namespace {

struct SocketPair {
  std::array<int, 2> fd{-1, -1};
  SocketPair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_DGRAM, 0, fd.data()), 0); }
  ~SocketPair() {
    for (int f : fd) ::close(f);
  }
  void send() const {
    const char byte = 'x';
    EXPECT_EQ(::send(fd[1], &byte, 1, 0), 1);
  }
};

TEST(ReadableWait, TimesOutWithoutDatagram) {
  SocketPair pair;
  MonotonicClock clock;
  const std::int64_t now = clock.now();
  EXPECT_FALSE(wait_readable_until(pair.fd[0], now, now));  // deadline already there
  EXPECT_FALSE(wait_readable_until(pair.fd[0], now - 1'000'000, now));
  const std::int64_t later = clock.now();
  EXPECT_FALSE(wait_readable_until(pair.fd[0], later + 1'000'000, later));
  EXPECT_GE(clock.now(), later + 1'000'000);  // it did wait until the deadline
}

TEST(ReadableWait, DatagramWakesIt) {
  SocketPair pair;
  MonotonicClock clock;
  pair.send();
  const std::int64_t now = clock.now();
  EXPECT_TRUE(wait_readable_until(pair.fd[0], now, now));
  // still readable until it is read
  EXPECT_TRUE(wait_readable_until(pair.fd[0], now + 60'000'000'000, now));
  char byte = 0;
  EXPECT_EQ(::recv(pair.fd[0], &byte, 1, 0), 1);
  EXPECT_FALSE(wait_readable_until(pair.fd[0], now, now));
}

TEST(ReadableWait, DatagramSentWhileWaitingWakesItBeforeTheDeadline) {
  SocketPair pair;
  MonotonicClock clock;
  std::thread sender([&pair] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    pair.send();
  });
  const std::int64_t now = clock.now();
  const std::int64_t deadline = now + 60'000'000'000;  // a minute: only the datagram ends it
  EXPECT_TRUE(wait_readable_until(pair.fd[0], deadline, now));
  EXPECT_LT(clock.now(), deadline);
  sender.join();
}

}  // namespace
}  // namespace rtmb
