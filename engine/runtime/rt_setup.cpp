// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Best-effort real-time setup (design notes in include/rtmb/runtime/rt_setup.hpp). Every
// failure becomes a result whose message names the limit or capability to change.
#include "rtmb/runtime/rt_setup.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace rtmb {
namespace {

constexpr std::size_t kStackPageBytes = 4096;
constexpr std::size_t kStackMarginBytes = 64 * 1024;

[[gnu::format(printf, 3, 4)]] RtSetupResult make_result(RtSetupStatus status,
                                                        int error,
                                                        const char* format,
                                                        ...) noexcept {
  RtSetupResult r;
  r.status = status;
  r.error = error;
  std::va_list args;
  va_start(args, format);
  std::vsnprintf(r.text, sizeof r.text, format, args);
  va_end(args);
  return r;
}

// The soft limit of a resource (RLIMIT_MEMLOCK, ...) as text for messages: "unlimited" or the
// number.
struct SoftLimit {
  char text[32] = "";
};

SoftLimit soft_limit(decltype(RLIMIT_MEMLOCK) resource) noexcept {
  rlimit limit{};
  getrlimit(resource, &limit);
  SoftLimit out;
  if (limit.rlim_cur == RLIM_INFINITY) {
    std::snprintf(out.text, sizeof out.text, "unlimited");
  } else {
    std::snprintf(out.text, sizeof out.text, "%llu",
                  static_cast<unsigned long long>(limit.rlim_cur));
  }
  return out;
}

// One page-sized frame per call, written before and after the recursive call so the frames
// cannot be merged by a tail call; volatile so the writes cannot be dropped.
[[gnu::noinline]] void touch_stack_pages(std::size_t pages) noexcept {
  volatile unsigned char page[kStackPageBytes];
  for (std::size_t i = 0; i < kStackPageBytes; i += 256) page[i] = 0;
  if (pages > 1) touch_stack_pages(pages - 1);
  page[0] = static_cast<unsigned char>(page[0] + 1);
}

}  // namespace

RtSetupResult lock_memory() noexcept {
  if constexpr (kSanitizerBuild) {
    return make_result(RtSetupStatus::kUnsupported, ENOTSUP,
                       "mlockall not attempted in a sanitizer build (it would lock the "
                       "sanitizer's shadow memory); memory stays pageable");
  }
  if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
    return make_result(RtSetupStatus::kOk, 0, "memory locked (mlockall)");
  }
  const int error = errno;
  const SoftLimit soft = soft_limit(RLIMIT_MEMLOCK);
  return make_result(RtSetupStatus::kRefused, error,
                     "mlockall refused (%s; memlock limit %s bytes): needs CAP_IPC_LOCK or a "
                     "larger memlock limit: see /etc/security/limits.conf ('@realtime - memlock "
                     "unlimited') or ulimit -l",
                     std::strerror(error), soft.text);
}

RtSetupResult set_realtime_priority(int priority) noexcept {
  const int lowest = sched_get_priority_min(SCHED_FIFO);
  const int highest = sched_get_priority_max(SCHED_FIFO);
  if (lowest < 0 || highest < 0) {
    return make_result(RtSetupStatus::kUnsupported, errno,
                       "SCHED_FIFO is not supported on this system");
  }
  if (priority < lowest || priority > highest) {
    return make_result(RtSetupStatus::kInvalid, EINVAL,
                       "real-time priority %d is out of range: SCHED_FIFO takes %d..%d", priority,
                       lowest, highest);
  }
  sched_param param{};
  param.sched_priority = priority;
  const int error = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
  if (error == 0) {
    return make_result(RtSetupStatus::kOk, 0, "SCHED_FIFO priority %d set", priority);
  }
  const SoftLimit soft = soft_limit(RLIMIT_RTPRIO);
  return make_result(RtSetupStatus::kRefused, error,
                     "SCHED_FIFO priority %d refused (%s; rtprio limit %s): needs CAP_SYS_NICE "
                     "or an rtprio limit: see /etc/security/limits.conf ('@realtime - rtprio "
                     "90'); in a container also allow real-time scheduling (--cap-add SYS_NICE)",
                     priority, std::strerror(error), soft.text);
}

RtSetupResult set_cpu_affinity(int cpu) noexcept {
  if (cpu < 0 || cpu >= CPU_SETSIZE) {
    return make_result(RtSetupStatus::kInvalid, EINVAL, "CPU %d is out of range 0..%d", cpu,
                       CPU_SETSIZE - 1);
  }
  // Ask the kernel first: the CPUs the cgroup cpuset allows are the limit, not the calling
  // thread's own set, which a thread started by one pinned elsewhere inherits (rtmb latency
  // --server-cpu: the floor's echo thread is started by the device's pinned thread).
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  CPU_SET(cpu, &wanted);
  const int error = pthread_setaffinity_np(pthread_self(), sizeof wanted, &wanted);
  if (error == 0) {
    return make_result(RtSetupStatus::kOk, 0, "thread pinned to CPU %d", cpu);
  }
  if (error == EINVAL) {  // a CPU that is offline, absent or outside the cpuset
    return make_result(RtSetupStatus::kInvalid, EINVAL,
                       "CPU %d is not available to this process (%ld CPUs online; see the cgroup "
                       "cpuset): pick one of those",
                       cpu, sysconf(_SC_NPROCESSORS_ONLN));
  }
  return make_result(RtSetupStatus::kRefused, error,
                     "pinning to CPU %d refused (%s): check the cgroup cpuset and taskset -p", cpu,
                     std::strerror(error));
}

RtSetupResult prefault_stack(std::size_t bytes) noexcept {
  // how much stack lies below this frame
  pthread_attr_t attr;
  if (const int error = pthread_getattr_np(pthread_self(), &attr); error != 0) {
    return make_result(RtSetupStatus::kUnsupported, error, "cannot query the thread's stack (%s)",
                       std::strerror(error));
  }
  void* stack_low = nullptr;
  std::size_t stack_size = 0;
  const int error = pthread_attr_getstack(&attr, &stack_low, &stack_size);
  pthread_attr_destroy(&attr);
  if (error != 0) {
    return make_result(RtSetupStatus::kUnsupported, error, "cannot query the thread's stack (%s)",
                       std::strerror(error));
  }
  const auto frame = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  const auto low = reinterpret_cast<std::uintptr_t>(stack_low);
  const std::size_t available = frame > low ? frame - low : 0;
  if (bytes + kStackMarginBytes > available) {
    return make_result(RtSetupStatus::kInvalid, ENOMEM,
                       "cannot prefault %zu stack bytes: only %zu are left below this frame "
                       "(keeping a %zu-byte margin): raise ulimit -s or the thread's stack size",
                       bytes, available, kStackMarginBytes);
  }

  // touch the pages
  touch_stack_pages((bytes + kStackPageBytes - 1) / kStackPageBytes);
  return make_result(RtSetupStatus::kOk, 0, "%zu stack bytes prefaulted", bytes);
}

RtSetupResult set_timer_slack(std::int64_t ns) noexcept {
  if (ns <= 0) return make_result(RtSetupStatus::kInvalid, EINVAL, "timer slack must be > 0 ns");
  if (::prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(ns), 0, 0, 0) == 0) {
    return make_result(RtSetupStatus::kOk, 0, "timer slack %lld ns", static_cast<long long>(ns));
  }
  const int error = errno;
  return make_result(RtSetupStatus::kRefused, error,
                     "cannot set the timer slack (%s); wake-ups may be up to 50 us late",
                     std::strerror(error));
}

RtSetupReport setup_realtime(const RtSetupOptions& options) noexcept {
  const RtSetupResult skipped = make_result(RtSetupStatus::kOk, 0, "skipped");
  RtSetupReport report{skipped, skipped, skipped, skipped, skipped};
  if (options.lock_memory) report.memory = lock_memory();
  if (options.prefault_stack_bytes > 0) report.stack = prefault_stack(options.prefault_stack_bytes);
  if (options.cpu >= 0) report.affinity = set_cpu_affinity(options.cpu);
  if (options.priority != 0) report.priority = set_realtime_priority(options.priority);
  if (options.timer_slack_ns > 0) report.timer_slack = set_timer_slack(options.timer_slack_ns);
  return report;
}

}  // namespace rtmb
