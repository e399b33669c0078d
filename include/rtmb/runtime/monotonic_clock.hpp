// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Clocks for the deadline loop: the real one (CLOCK_MONOTONIC) and a fake one for tests and
// faster-than-real-time runs.
//
// Design notes. The loop's overrun policies are pure bookkeeping on timestamps, and their
// exact counts (which ticks are skipped, caught up or halt the loop) must be testable without
// depending on how loaded the machine is. So the loop takes its clock as a template parameter
// (concept LoopClock): MonotonicClock in production, FakeClock in tests, where sleeping jumps
// the fake time to the deadline and a step "takes" exactly the time the test injects with
// advance(). A template rather than a virtual interface keeps the real clock's now() inlinable
// next to the step and costs nothing when only one clock is used.
//
// Time is an int64 count of nanoseconds: exact integer deadlines (start + k * period never
// drifts, unlike accumulated doubles) and 292 years of range.
//
// MonotonicClock::sleep_until sleeps with clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME): an
// absolute deadline makes a wake-up that comes late, or a sleep restarted after a signal
// (EINTR), still end at the same instant, where a relative sleep would add the delay each time.
// Optionally it wakes spin_ns early and busy-waits the rest, trading CPU time for less wake-up
// jitter (useful only on an isolated core with a real-time priority).

#include <concepts>
#include <cstdint>

namespace rtmb {

/// What DeadlineLoop needs from a clock: now() in ns on a monotonic time line, and
/// sleep_until(deadline_ns), which returns no earlier than the deadline (and at once if it has
/// passed). Both noexcept.
template <class C>
concept LoopClock = requires(C& clock, std::int64_t deadline_ns) {
  { clock.now() }
  noexcept->std::same_as<std::int64_t>;
  { clock.sleep_until(deadline_ns) }
  noexcept;
};

/// CLOCK_MONOTONIC now [ns]: the loop's clock, the clock of Tick::deadline_ns and of input
/// arrival times (std::chrono::steady_clock on Linux reads the same clock). RT-safe (vDSO).
[[nodiscard]] std::int64_t monotonic_now_ns() noexcept;

/// The real clock: CLOCK_MONOTONIC, absolute-deadline sleeps with an optional final spin.
/// now() and sleep_until() are RT-safe in the loop's sense: no allocation, lock or exception;
/// sleep_until makes the clock_nanosleep system call, which is the point of it.
class MonotonicClock {
 public:
  /// spin_ns >= 0: wake this long before each deadline and busy-wait the rest [ns]
  /// (values < 0 are treated as 0). Setup-only.
  explicit MonotonicClock(std::int64_t spin_ns = 0) noexcept
      : spin_ns_(spin_ns > 0 ? spin_ns : 0) {}

  /// CLOCK_MONOTONIC now [ns]. RT-safe.
  [[nodiscard]] std::int64_t now() noexcept;

  /// Returns once now() >= deadline_ns; immediately if it already is. Retries after EINTR.
  /// RT-safe (sleeps in the kernel, then spins at most spin_ns).
  void sleep_until(std::int64_t deadline_ns) noexcept;

  [[nodiscard]] std::int64_t spin_ns() const noexcept { return spin_ns_; }
  /// Sleeps cut short by a signal and restarted.
  [[nodiscard]] std::uint64_t interrupted_sleeps() const noexcept { return interrupted_sleeps_; }

 private:
  std::int64_t spin_ns_;
  std::uint64_t interrupted_sleeps_ = 0;
};

/// Deterministic clock for tests and offline runs: time moves only when sleep_until() jumps to
/// a deadline (plus an optional fixed wake latency) or when advance() is called, e.g. by a test
/// step to simulate its compute time. Single-threaded: use it from the loop thread only.
class FakeClock {
 public:
  explicit FakeClock(std::int64_t start_ns = 0) noexcept : now_ns_(start_ns) {}

  /// Fake now [ns]. RT-safe.
  [[nodiscard]] std::int64_t now() noexcept { return now_ns_; }

  /// Jumps to max(now, deadline_ns) + wake latency. RT-safe.
  void sleep_until(std::int64_t deadline_ns) noexcept {
    if (deadline_ns > now_ns_) now_ns_ = deadline_ns;
    now_ns_ += wake_latency_ns_;
    ++sleeps_;
  }

  /// Moves time forward by duration_ns >= 0 (e.g. a step's injected compute time). RT-safe.
  void advance(std::int64_t duration_ns) noexcept {
    if (duration_ns > 0) now_ns_ += duration_ns;
  }

  /// Every later sleep_until() returns this long after its deadline [ns], >= 0.
  void set_wake_latency(std::int64_t latency_ns) noexcept {
    wake_latency_ns_ = latency_ns > 0 ? latency_ns : 0;
  }

  /// Calls of sleep_until() so far.
  [[nodiscard]] std::uint64_t sleeps() const noexcept { return sleeps_; }

 private:
  std::int64_t now_ns_;
  std::int64_t wake_latency_ns_ = 0;
  std::uint64_t sleeps_ = 0;
};

static_assert(LoopClock<MonotonicClock>);
static_assert(LoopClock<FakeClock>);

}  // namespace rtmb
