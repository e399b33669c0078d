// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Best-effort real-time setup: every call returns a result with a message and never throws;
// refusals carry an errno and name the fix; out-of-range arguments are rejected as kInvalid.
// Whether the OS grants a request depends on the machine (capabilities, limits, containers),
// so granted and refused are both accepted. Calls that change the scheduling of a thread run on
// a throw-away thread, and memory locking is undone, so the rest of the test process is not
// affected.
#include "rtmb/runtime/rt_setup.hpp"

#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>

namespace rtmb {
namespace {

// Granted or refused, the result explains itself.
void expect_well_formed(const RtSetupResult& r) {
  EXPECT_FALSE(r.message().empty());
  EXPECT_LT(r.message().size(), sizeof r.text);
  if (r.ok()) {
    EXPECT_EQ(r.error, 0) << r.message();
  } else {
    EXPECT_NE(r.error, 0) << r.message();
  }
}

// Removes cap from the calling thread's effective set. Capabilities are per thread on Linux and
// the raw system call (unlike glibc's set*id wrappers) changes only this thread, so a test can
// provoke a refusal on a throw-away thread even when it runs as root.
bool drop_effective_capability(int cap) {
  __user_cap_header_struct header{};
  header.version = _LINUX_CAPABILITY_VERSION_3;
  header.pid = 0;
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  data[cap / 32].effective &= ~(1u << (cap % 32));
  return syscall(SYS_capset, &header, data) == 0;
}

template <class F>
RtSetupResult on_own_thread(F call) {
  RtSetupResult r;
  std::thread([&] { r = call(); }).join();
  return r;
}

TEST(RuntimeRtSetup, LockMemoryReturnsAResult) {
  const RtSetupResult r = lock_memory();
  munlockall();  // keep the rest of the test process unlocked
  expect_well_formed(r);
  if (kSanitizerBuild) {
    // not attempted: mlockall(MCL_CURRENT) would lock the sanitizer's shadow mappings
    EXPECT_EQ(r.status, RtSetupStatus::kUnsupported);
    EXPECT_NE(r.message().find("sanitizer"), std::string_view::npos) << r.message();
  } else if (!r.ok()) {
    EXPECT_EQ(r.status, RtSetupStatus::kRefused);
    EXPECT_NE(r.message().find("memlock"), std::string_view::npos) << r.message();
  }
}

TEST(RuntimeRtSetup, RealtimePriorityIsGrantedOrRefusedWithTheFix) {
  const RtSetupResult r = on_own_thread([] { return set_realtime_priority(10); });
  expect_well_formed(r);
  if (!r.ok()) {
    EXPECT_EQ(r.status, RtSetupStatus::kRefused);
    EXPECT_NE(r.message().find("CAP_SYS_NICE"), std::string_view::npos) << r.message();
    EXPECT_NE(r.message().find("/etc/security/limits.conf"), std::string_view::npos);
  }
}

// Lowering one's own soft limit and effective capabilities is always permitted on Linux, so the
// refusal tests provoke the refusal on any machine instead of depending on how it is set up.

// Runs call() on a thread without `capability` while the soft limit of `resource` is 0; out
// stays empty when the capability could not be dropped. The limit is per process, so it is
// restored right after.
template <class Call>
void run_refused(int capability,
                 decltype(RLIMIT_RTPRIO) resource,
                 Call call,
                 std::optional<RtSetupResult>& out) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(resource, &saved), 0);
  rlimit zero = saved;
  zero.rlim_cur = 0;
  ASSERT_EQ(setrlimit(resource, &zero), 0);
  std::thread([&] {
    if (drop_effective_capability(capability)) out = call();
  }).join();
  ASSERT_EQ(setrlimit(resource, &saved), 0);
}

TEST(RuntimeRtSetup, RealtimePriorityRefusalNamesTheFix) {
  // without CAP_SYS_NICE and with an rtprio limit of 0 the kernel must refuse SCHED_FIFO
  std::optional<RtSetupResult> r;
  run_refused(
      CAP_SYS_NICE, RLIMIT_RTPRIO, [] { return set_realtime_priority(10); }, r);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(r.has_value()) << "capset could not drop CAP_SYS_NICE (blocked by a seccomp filter?)";
  EXPECT_EQ(r->status, RtSetupStatus::kRefused) << r->message();
  EXPECT_EQ(r->error, EPERM);
  EXPECT_NE(r->message().find("CAP_SYS_NICE or an rtprio limit"), std::string_view::npos);
  EXPECT_NE(r->message().find("/etc/security/limits.conf"), std::string_view::npos);
}

TEST(RuntimeRtSetup, LockMemoryRefusalNamesTheFix) {
  // without CAP_IPC_LOCK and with a memlock limit of 0 the kernel must refuse mlockall
  std::optional<RtSetupResult> r;
  run_refused(
      CAP_IPC_LOCK, RLIMIT_MEMLOCK,
      [] {
        const RtSetupResult locked = lock_memory();
        munlockall();  // in case it was not refused
        return locked;
      },
      r);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(r.has_value()) << "capset could not drop CAP_IPC_LOCK (blocked by a seccomp filter?)";
  if (kSanitizerBuild) {
    EXPECT_EQ(r->status, RtSetupStatus::kUnsupported) << r->message();  // not attempted
    return;
  }
  EXPECT_EQ(r->status, RtSetupStatus::kRefused) << r->message();
  EXPECT_EQ(r->error, EPERM);
  EXPECT_NE(r->message().find("CAP_IPC_LOCK"), std::string_view::npos) << r->message();
  EXPECT_NE(r->message().find("memlock"), std::string_view::npos);
}

TEST(RuntimeRtSetup, RealtimePriorityOutOfRangeIsInvalid) {
  const RtSetupResult r = on_own_thread([] { return set_realtime_priority(1000); });
  EXPECT_EQ(r.status, RtSetupStatus::kInvalid);
  expect_well_formed(r);
  EXPECT_NE(r.message().find("out of range"), std::string_view::npos) << r.message();
}

TEST(RuntimeRtSetup, CpuAffinityPinsToAnAllowedCpu) {
  const RtSetupResult r = on_own_thread([] { return set_cpu_affinity(0); });
  expect_well_formed(r);
  if (!r.ok()) {
    EXPECT_NE(r.status, RtSetupStatus::kUnsupported) << r.message();
  }
}

TEST(RuntimeRtSetup, CpuAffinityRejectsCpusThatDoNotExist) {
  for (int cpu : {-1, 100'000, CPU_SETSIZE - 1}) {
    const RtSetupResult r = on_own_thread([cpu] { return set_cpu_affinity(cpu); });
    EXPECT_EQ(r.status, RtSetupStatus::kInvalid) << cpu << ": " << r.message();
    expect_well_formed(r);
  }
}

TEST(RuntimeRtSetup, PrefaultStackTouchesWhatFits) {
  const RtSetupResult main_thread = prefault_stack(128 * 1024);
  EXPECT_TRUE(main_thread.ok()) << main_thread.message();
  expect_well_formed(main_thread);
  const RtSetupResult other = on_own_thread([] { return prefault_stack(256 * 1024); });
  EXPECT_TRUE(other.ok()) << other.message();
}

TEST(RuntimeRtSetup, PrefaultStackRefusesMoreThanTheStackHolds) {
  const RtSetupResult r = prefault_stack(std::size_t{1} << 40);  // 1 TiB
  EXPECT_EQ(r.status, RtSetupStatus::kInvalid);
  expect_well_formed(r);
  EXPECT_NE(r.message().find("ulimit -s"), std::string_view::npos) << r.message();
}

TEST(RuntimeRtSetup, SetupRealtimeRunsOnlyWhatIsAsked) {
  RtSetupOptions options;
  options.lock_memory = false;
  options.prefault_stack_bytes = 64 * 1024;
  options.cpu = -1;
  options.priority = 0;
  options.timer_slack_ns = 0;
  const RtSetupReport report = setup_realtime(options);  // only the stack prefault
  EXPECT_TRUE(report.all_ok());
  EXPECT_EQ(report.memory.message(), "skipped");
  EXPECT_EQ(report.affinity.message(), "skipped");
  EXPECT_EQ(report.priority.message(), "skipped");
  EXPECT_EQ(report.timer_slack.message(), "skipped");
  EXPECT_NE(report.stack.message().find("prefaulted"), std::string_view::npos);
  static_assert(noexcept(setup_realtime(options)));
  static_assert(std::is_trivially_copyable_v<RtSetupResult>);
}

TEST(RuntimeRtSetup, TimerSlackIsSetOnTheCallingThread) {
  // on a thread of its own, so the test runner's thread keeps its slack
  std::optional<RtSetupResult> result;
  long slack_after = -1;
  std::thread t([&] {
    result = set_timer_slack(1000);
    slack_after = ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  });
  t.join();
  ASSERT_TRUE(result.has_value());
  EXPECT_TRUE(result->ok()) << result->message();
  EXPECT_EQ(slack_after, 1000);
  EXPECT_EQ(set_timer_slack(0).status, RtSetupStatus::kInvalid);
}

}  // namespace
}  // namespace rtmb
