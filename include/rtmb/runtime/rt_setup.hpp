// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Best-effort real-time setup of the simulation thread: lock memory, SCHED_FIFO priority, CPU
// affinity, prefaulted stack. Call once, on the thread that will run the loop, before it runs.
//
// Design notes. Each of these is routinely refused outside a tuned machine (containers, CI,
// a desktop without an rtprio limit), and the simulator must still run there, only with more
// jitter. So nothing here throws or exits: each call returns an RtSetupResult saying whether it
// worked and, if not, what the operating system said and how to fix it. The caller logs each
// refusal once, at start, from a normal thread. The message lives in a fixed buffer inside the
// result, so building it cannot fail for lack of memory.
//
// Order matters: lock memory first (MCL_FUTURE also locks what is mapped later), then prefault
// the stack so its pages are resident and locked before the first tick, then set affinity and
// priority last, so the setup itself does not run at real-time priority.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rtmb {

/// True in AddressSanitizer/ThreadSanitizer builds. There mlockall would try to lock the
/// sanitizer's terabytes of shadow mappings, so lock_memory() does not attempt it.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif
#else
inline constexpr bool kSanitizerBuild = false;
#endif

/// Outcome of one real-time setup call.
enum class RtSetupStatus {
  kOk,           ///< done
  kRefused,      ///< the OS refused (permissions or limits); the message names the fix
  kInvalid,      ///< the argument is out of range for this machine
  kUnsupported,  ///< not available on this platform or build
};

/// Result of one real-time setup call. Trivially copyable; never allocates.
struct RtSetupResult {
  RtSetupStatus status = RtSetupStatus::kOk;
  int error = 0;  ///< errno of the failing call; 0 when ok
  /// NUL-terminated human message: what was done, or what failed and how to fix it.
  char text[240] = {};

  [[nodiscard]] bool ok() const noexcept { return status == RtSetupStatus::kOk; }
  [[nodiscard]] std::string_view message() const noexcept { return text; }
};

/// mlockall(MCL_CURRENT | MCL_FUTURE): keep every present and future page of the process in
/// RAM, so the loop never waits for a page-in. Refused without CAP_IPC_LOCK when the memlock
/// limit is too small. In sanitizer builds (kSanitizerBuild) it is not attempted and returns
/// kUnsupported. Setup-only; never throws.
[[nodiscard]] RtSetupResult lock_memory() noexcept;

/// SCHED_FIFO at priority (1..99 on Linux) for the calling thread. Refused without
/// CAP_SYS_NICE or an rtprio limit. Setup-only; never throws.
[[nodiscard]] RtSetupResult set_realtime_priority(int priority) noexcept;

/// Pins the calling thread to CPU cpu (0-based). Invalid when that CPU is offline, absent or
/// outside the process's cgroup cpuset; the set the thread inherited (taskset, a pinned parent
/// thread) is no limit. Setup-only; never throws.
[[nodiscard]] RtSetupResult set_cpu_affinity(int cpu) noexcept;

/// Touches bytes of the calling thread's stack below the current frame, so those pages are
/// mapped (and locked, after lock_memory) before the loop runs. Invalid when the thread's stack
/// is too small for bytes plus a 64 KiB margin. Setup-only; never throws.
[[nodiscard]] RtSetupResult prefault_stack(std::size_t bytes) noexcept;

/// Sets the calling thread's timer slack (PR_SET_TIMERSLACK) to ns. A normal thread's sleeps may
/// end up to 50 us late by default, because the kernel coalesces timer expiries; a deadline loop
/// wants its wake-up on time. Setup-only; never throws.
[[nodiscard]] RtSetupResult set_timer_slack(std::int64_t ns) noexcept;

/// What setup_realtime() should do; a field at its "off" value skips that call.
struct RtSetupOptions {
  bool lock_memory = true;                        ///< call lock_memory()
  std::size_t prefault_stack_bytes = 256 * 1024;  ///< prefault_stack(bytes); 0: skip
  int cpu = -1;                                   ///< set_cpu_affinity(cpu); < 0: skip
  int priority = 0;                               ///< set_realtime_priority(priority); 0: skip
  std::int64_t timer_slack_ns = 1;                ///< set_timer_slack(ns); <= 0: skip
};

/// The results of setup_realtime(), one per call; a skipped call has status kOk and the text
/// "skipped".
struct RtSetupReport {
  RtSetupResult memory;
  RtSetupResult stack;
  RtSetupResult affinity;
  RtSetupResult priority;
  RtSetupResult timer_slack;

  /// True when every requested call succeeded.
  [[nodiscard]] bool all_ok() const noexcept {
    return memory.ok() && stack.ok() && affinity.ok() && priority.ok() && timer_slack.ok();
  }
};

/// Runs the requested calls on the calling thread in the order of the file comment.
/// Setup-only; never throws.
[[nodiscard]] RtSetupReport setup_realtime(const RtSetupOptions& options) noexcept;

}  // namespace rtmb
