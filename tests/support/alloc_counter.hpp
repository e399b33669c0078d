// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Counting heap allocations made by the current thread, for tests that prove a code path never
// allocates (the step contract: "RT-safe: no allocation").
//
// The counter sees every allocation the process can make, not just operator new: Eigen and C
// libraries call malloc directly, so a counter on operator new alone would be blind to them.
//
// How it counts depends on the build (tests/support/alloc_counter.cpp):
//  * normal builds replace the malloc family and every global operator new/delete, forwarding to
//    glibc's __libc_* entry points;
//  * sanitizer builds (ASan/TSan/MSan/HWASan own malloc, so we must not replace it) register
//    __sanitizer_install_malloc_and_free_hooks, which fires for every allocation the sanitizer's
//    allocator serves, operator new included.
// The hook mode is verified under ASan+UBSan (tests/alloc/alloc_counter_test.cpp, GCC and clang).
// GCC 12's TSan runtime does not run the hooks for aligned_alloc, posix_memalign, memalign,
// valloc and pvalloc, and the self-test fails there accordingly: run the allocation tests in
// normal or ASan builds, not under TSan. MSan and HWASan are untested.
//
// What counts:
//  * allocation:   any request for memory: malloc, calloc, aligned_alloc, posix_memalign, memalign,
//                  valloc, pvalloc, every operator new / new[], and realloc unless it only frees;
//  * deallocation: any release of a non-null pointer: free, every operator delete / delete[], and
//                  realloc of a non-null pointer that returns a new block or frees (size 0).
// So realloc(p, n) with p != nullptr and n > 0 counts as one allocation and one deallocation,
// whether or not the block moved, which is what the sanitizer allocators report as well.
//
// The counter must be linked into the test executable only (rtmb_alloc_tests), because in normal
// builds it replaces the allocator for the whole process.

#include <cstdint>
#include <optional>

// Sanitizers whose runtime replaces malloc. In those builds we must use the sanitizer hooks.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(__SANITIZE_HWADDRESS__)
#define RTMB_ALLOC_COUNTER_SANITIZER_HOOKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer) || __has_feature(hwaddress_sanitizer)
#define RTMB_ALLOC_COUNTER_SANITIZER_HOOKS 1
#endif
#endif
#ifndef RTMB_ALLOC_COUNTER_SANITIZER_HOOKS
#define RTMB_ALLOC_COUNTER_SANITIZER_HOOKS 0
#endif

namespace rtmb::testing {

/// True when allocations are seen through sanitizer hooks rather than a replaced malloc.
inline constexpr bool kCountsViaSanitizerHooks = RTMB_ALLOC_COUNTER_SANITIZER_HOOKS != 0;

/// Heap calls made by one thread inside an AllocationScope; see the file comment for what counts.
struct AllocationCounts {
  std::uint64_t allocations = 0;    ///< requests for memory
  std::uint64_t deallocations = 0;  ///< releases of non-null pointers
};

/// Counts the heap calls of the constructing thread from construction until destruction.
/// Allocations made by other threads are never counted, so a test framework or a worker thread
/// allocating concurrently does not disturb the count.
///
/// Scopes may nest on one thread (each reports its own window). A scope must be constructed,
/// queried and destroyed on the same thread; doing otherwise aborts with a message. The scope
/// itself does not allocate, and neither does counts().
///
/// Usage: read the counts before the scope ends, then assert outside it, because a failing
/// GoogleTest assertion allocates its message.
///   AllocationCounts counts;
///   { AllocationScope scope; step(...); counts = scope.counts(); }
///   EXPECT_EQ(counts.allocations, 0u);
class AllocationScope {
 public:
  AllocationScope();
  ~AllocationScope();
  AllocationScope(const AllocationScope&) = delete;
  AllocationScope& operator=(const AllocationScope&) = delete;

  /// Heap calls made by this thread since the scope was constructed.
  [[nodiscard]] AllocationCounts counts() const;

 private:
  const void* owner_;       // identity of the owning thread's counters, to catch misuse
  AllocationCounts start_;  // thread totals at construction
};

/// The heap calls this thread makes while running f() (f's own allocations included: for code
/// that must allocate, such as the negative controls; assert outside, as with AllocationScope).
template <class F>
[[nodiscard]] AllocationCounts count_allocations(F&& f) {
  AllocationScope scope;
  f();
  return scope.counts();
}

/// Counts the simulation thread's heap calls from just before its loop to just after it: pass
/// `&SimThreadCounter::hook` and the counter as the server's loop hook and context.
struct SimThreadCounter {
  std::optional<AllocationScope> scope;
  AllocationCounts counts;
  bool done = false;

  static void hook(void* context, bool begin) {
    auto* self = static_cast<SimThreadCounter*>(context);
    if (begin) {
      self->scope.emplace();
    } else {
      self->counts = self->scope->counts();
      self->scope.reset();
      self->done = true;
    }
  }
};

}  // namespace rtmb::testing
