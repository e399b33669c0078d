// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// MonotonicClock: CLOCK_MONOTONIC reads and absolute-deadline sleeps (design notes in
// include/rtmb/runtime/monotonic_clock.hpp).
#include "rtmb/runtime/monotonic_clock.hpp"

#include <time.h>

#include <cerrno>

namespace rtmb {
namespace {

constexpr std::int64_t kNsPerSecond = 1'000'000'000;

timespec to_timespec(std::int64_t ns) noexcept {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(ns / kNsPerSecond);
  ts.tv_nsec = static_cast<long>(ns % kNsPerSecond);
  return ts;
}

}  // namespace

std::int64_t monotonic_now_ns() noexcept {
  timespec ts{};
  // CLOCK_MONOTONIC cannot fail on Linux with a valid pointer; it is served by the vDSO
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * kNsPerSecond + ts.tv_nsec;
}

std::int64_t MonotonicClock::now() noexcept {
  return monotonic_now_ns();
}

void MonotonicClock::sleep_until(std::int64_t deadline_ns) noexcept {
  // sleep in the kernel until spin_ns before the deadline; an absolute deadline makes a retry
  // after a signal end at the same instant
  const std::int64_t wake_ns = deadline_ns - spin_ns_;
  if (wake_ns > now()) {
    const timespec ts = to_timespec(wake_ns);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
      ++interrupted_sleeps_;
    }
  }
  // spin the rest; also covers a kernel wake-up that came early by rounding
  while (now() < deadline_ns) {
  }
}

}  // namespace rtmb
