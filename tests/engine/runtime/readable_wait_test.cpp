// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// wait_readable_until on a datagram socket pair: a datagram wakes it, no datagram lets it time
// out, and a datagram sent while it waits wakes it long before a far deadline. PeriodicInputWait
// (the device loop's wait with a spin) keeps the same contract before, in and after its spin
// window, and centres the window one period after each input.
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

constexpr std::int64_t kWaitPeriodNs = 1'000'000;  // 1 kHz master
constexpr std::int64_t kSpinNs = 200'000;

// One input through the wait and read: it opens the first spin window.
bool take_one_input(const SocketPair& pair, PeriodicInputWait& wait, MonotonicClock& clock) {
  pair.send();
  if (!wait.wait_until(clock.now() + 1'000'000'000, [&] { return clock.now(); })) return false;
  char byte = 0;
  return ::recv(pair.fd[0], &byte, 1, 0) == 1;
}

TEST(PeriodicInputWait, BeforeTheFirstInputItIsThePlainWait) {
  SocketPair pair;
  MonotonicClock clock;
  PeriodicInputWait wait(pair.fd[0], kWaitPeriodNs, kSpinNs);
  EXPECT_EQ(wait.expected_ns(), 0);
  const std::int64_t start = clock.now();
  EXPECT_FALSE(wait.wait_until(start + 2'000'000, [&] { return clock.now(); }));
  EXPECT_GE(clock.now(), start + 2'000'000);
  EXPECT_EQ(wait.expected_ns(), 0);  // no input: no window
}

TEST(PeriodicInputWait, AnInputCentresTheNextWindowOnePeriodLater) {
  SocketPair pair;
  MonotonicClock clock;
  PeriodicInputWait wait(pair.fd[0], kWaitPeriodNs, kSpinNs);
  pair.send();
  const std::int64_t before = clock.now();
  EXPECT_TRUE(wait.wait_until(before + 60'000'000'000, [&] { return clock.now(); }));
  const std::int64_t after = clock.now();
  EXPECT_GE(wait.expected_ns(), before + kWaitPeriodNs);
  EXPECT_LE(wait.expected_ns(), after + kWaitPeriodNs);
}

TEST(PeriodicInputWait, InputsBeforeInAndAfterTheWindowAllWakeIt) {
  SocketPair pair;
  MonotonicClock clock;
  PeriodicInputWait wait(pair.fd[0], kWaitPeriodNs, kSpinNs);
  const auto now = [&] { return clock.now(); };
  ASSERT_TRUE(take_one_input(pair, wait, clock));
  char byte = 0;
  // sent after 0.1 ms (before the window), 1 ms (in it) and 5 ms (after it): each wakes the wait
  // long before its far deadline, and only once it is there
  for (const int delay_us : {100, 1000, 5000}) {
    const std::int64_t sent_after = clock.now() + delay_us * 1000LL;
    std::thread sender([&pair, delay_us] {
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
      pair.send();
    });
    const std::int64_t deadline = clock.now() + 60'000'000'000;
    EXPECT_TRUE(wait.wait_until(deadline, now)) << delay_us;
    EXPECT_GE(clock.now(), sent_after) << delay_us;
    EXPECT_LT(clock.now(), deadline) << delay_us;
    sender.join();
    ASSERT_EQ(::recv(pair.fd[0], &byte, 1, 0), 1);
  }
}

TEST(PeriodicInputWait, WithoutAnInputItTimesOutAtTheDeadlineInsideOrPastTheWindow) {
  SocketPair pair;
  MonotonicClock clock;
  PeriodicInputWait wait(pair.fd[0], kWaitPeriodNs, kSpinNs);
  const auto now = [&] { return clock.now(); };
  ASSERT_TRUE(take_one_input(pair, wait, clock));
  const std::int64_t expected = wait.expected_ns();
  // a deadline inside the window ends the spin there; one past it ends the kernel wait
  for (const std::int64_t deadline : {expected + kSpinNs / 2, expected + 3 * kSpinNs}) {
    EXPECT_FALSE(wait.wait_until(deadline, now));
    EXPECT_GE(clock.now(), deadline);
    EXPECT_EQ(wait.expected_ns(), expected);  // a timeout does not move the window
  }
}

}  // namespace
}  // namespace rtmb
