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

}  // namespace rtmb
