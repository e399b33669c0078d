// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Waiting for a socket to become readable until an absolute deadline: the wait of the device
// loop (rtmb/runtime/device_loop.hpp, clock mode device) on the server's UDP socket.
//
// ppoll(2) takes a relative timeout, so the deadline (CLOCK_MONOTONIC, the loop's clock) is
// turned into one with the caller's now; a wake before the deadline (a signal) only makes the
// loop wait again (DeviceLockstep::on_timeout returns false for an early wake). ppoll rather
// than poll for its nanosecond timespec; no signal mask is passed.

#include <poll.h>
#include <time.h>

#include <cstdint>

namespace rtmb {

/// Blocks until fd is readable (true) or deadline_ns passed (false), now_ns being the current
/// time on the deadline's clock. An error other than EINTR returns false. RT-safe: one system
/// call, no allocation, lock or exception.
[[nodiscard]] inline bool wait_readable_until(int fd,
                                              std::int64_t deadline_ns,
                                              std::int64_t now_ns) noexcept {
  std::int64_t left_ns = deadline_ns - now_ns;
  if (left_ns < 0) left_ns = 0;
  timespec timeout{};
  timeout.tv_sec = static_cast<time_t>(left_ns / 1'000'000'000);
  timeout.tv_nsec = static_cast<long>(left_ns % 1'000'000'000);
  pollfd p{};
  p.fd = fd;
  p.events = POLLIN;
  const int n = ::ppoll(&p, 1, &timeout, nullptr);
  return n > 0 && (p.revents & POLLIN) != 0;
}

/// The device loop's wait with an optional spin (`rtmb serve --clock device --spin-us`). A clock
/// master sends one input per period, so the next one is due about one period after the last
/// wake-up on an input. With spin_ns > 0 the wait sleeps in the kernel until spin_ns before that
/// instant, then polls the socket without blocking until an input is there, for at most
/// 2·spin_ns (an input that is late by more than spin_ns is waited for in the kernel again). Why:
/// the wake-up from a blocking ppoll is the largest share of the server's part of a round trip on
/// a virtual machine (tens of µs, issue 14); a thread that is already running sees the datagram
/// within a poll, about a microsecond. The cost is up to 2·spin_ns of CPU per period. Without
/// spin_ns, or before the first input, it is wait_readable_until. RT-safe: ppoll and the clock
/// only, no allocation, lock or exception.
class PeriodicInputWait {
 public:
  PeriodicInputWait() noexcept = default;
  /// fd: the input socket; period_ns: the master's period (the loop's); spin_ns >= 0.
  PeriodicInputWait(int fd, std::int64_t period_ns, std::int64_t spin_ns) noexcept
      : fd_(fd), period_ns_(period_ns), spin_ns_(spin_ns > 0 ? spin_ns : 0) {}

  /// Blocks until fd is readable (true) or deadline_ns passed (false) on now()'s clock (any
  /// callable returning ns, e.g. MonotonicClock::now).
  template <class Now>
  [[nodiscard]] bool wait_until(std::int64_t deadline_ns, Now&& now) noexcept {
    std::int64_t t = now();
    if (spin_ns_ > 0 && expected_ns_ > 0) {
      const std::int64_t spin_from = expected_ns_ - spin_ns_;
      const std::int64_t spin_to = expected_ns_ + spin_ns_;
      if (t < spin_from && deadline_ns > spin_from) {
        if (wait_readable_until(fd_, spin_from, t)) return woke(now());
        t = now();
      }
      while (t < spin_to && t < deadline_ns) {
        if (wait_readable_until(fd_, t, t)) return woke(t);  // a zero timeout: a poll
        t = now();
      }
    }
    if (wait_readable_until(fd_, deadline_ns, t)) return woke(now());
    return false;
  }

  /// Where the spin window is centred: one period after the last wake on an input [ns]; 0 until
  /// the first input.
  [[nodiscard]] std::int64_t expected_ns() const noexcept { return expected_ns_; }

 private:
  bool woke(std::int64_t at_ns) noexcept {
    expected_ns_ = at_ns + period_ns_;
    return true;
  }

  int fd_ = -1;
  std::int64_t period_ns_ = 0;
  std::int64_t spin_ns_ = 0;
  std::int64_t expected_ns_ = 0;
};

}  // namespace rtmb
