// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Allocation counter for the no-allocation tests; see alloc_counter.hpp for what counts.
//
// The problem: prove that a code path makes no heap call at all, including the ones Eigen and C
// libraries make through malloc directly, without counting what GoogleTest or other threads do.
//
// Options considered:
//  1. Replace only global operator new. Simple, but blind to malloc (Eigen's aligned_malloc,
//     strdup, C libraries), so a "0 allocations" result would prove too little.
//  2. Replace the whole malloc family and operator new/delete, forwarding to glibc's __libc_*
//     entry points. Sees everything, costs one thread-local check per call. Impossible under a
//     sanitizer, whose runtime already defines malloc: two definitions would either fail to link
//     or silently bypass the sanitizer's checks.
//  3. Under a sanitizer, register __sanitizer_install_malloc_and_free_hooks. The sanitizer's
//     allocator serves malloc, calloc, realloc, the aligned functions and operator new, and runs
//     the hooks for each of them.
// Choice: 2 in normal builds, 3 in sanitizer builds, selected at compile time.
//
// Counting state is one thread_local block per thread, so other threads never disturb a window.
// The hooks must not allocate (that would recurse) and must not run anything that might, so they
// only touch that block: no stdio, no locks, no GoogleTest.
#include "tests/support/alloc_counter.hpp"

#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#if RTMB_ALLOC_COUNTER_SANITIZER_HOOKS
#if __has_include(<sanitizer/allocator_interface.h>)
#include <sanitizer/allocator_interface.h>
#else
// GCC 12 ships the sanitizer runtimes but not this header (clang does); the runtime exports the
// function either way, so declare it as compiler-rt does.
extern "C" int __sanitizer_install_malloc_and_free_hooks(
    void (*malloc_hook)(const volatile void* ptr, std::size_t size),
    void (*free_hook)(const volatile void* ptr));
#endif
#endif

namespace rtmb::testing {
namespace {

struct ThreadCounters {
  std::uint32_t depth;  // live AllocationScopes on this thread; counting is on while > 0
  std::uint64_t allocations;
  std::uint64_t deallocations;
};

// constinit + trivial type: no guard variable and no TLS wrapper call on access, so reading it
// inside malloc cannot call back into malloc. initial-exec: the block lives in the static TLS
// area, so access never goes through __tls_get_addr, which may allocate.
[[gnu::tls_model("initial-exec")]] constinit thread_local ThreadCounters t_counters{};

// RTMB_ALLOC_ABORT set in the environment: every heap call a scope counts aborts at once, so that
// a debugger shows who made it (`RTMB_ALLOC_ABORT=1 gdb -batch -ex run -ex bt --args
// build/bin/rtmb_alloc_tests --gtest_filter=...`). For chasing a rare allocation; the negative
// controls, which allocate on purpose, abort too. Read once at load, not inside malloc.
bool g_abort_on_count = false;
[[gnu::constructor]] void read_abort_flag() {
  g_abort_on_count = std::getenv("RTMB_ALLOC_ABORT") != nullptr;
}

inline void note_allocation() noexcept {
  if (t_counters.depth != 0) {
    ++t_counters.allocations;
    if (g_abort_on_count) std::abort();
  }
}

// Callers check for nullptr themselves: releasing nullptr is not a deallocation.
inline void note_deallocation() noexcept {
  if (t_counters.depth != 0) {
    ++t_counters.deallocations;
    if (g_abort_on_count) std::abort();
  }
}

// Misuse is reported with write(2): stdio may allocate, and the allocator is what we are testing.
[[noreturn]] void die(const char* message) noexcept {
  [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, message, std::strlen(message));
  std::abort();
}

}  // namespace

AllocationScope::AllocationScope()
    : owner_(&t_counters), start_{t_counters.allocations, t_counters.deallocations} {
  ++t_counters.depth;
}

AllocationScope::~AllocationScope() {
  if (owner_ != &t_counters) die("rtmb::testing::AllocationScope destroyed on another thread\n");
  --t_counters.depth;
}

AllocationCounts AllocationScope::counts() const {
  if (owner_ != &t_counters) die("rtmb::testing::AllocationScope queried from another thread\n");
  return {t_counters.allocations - start_.allocations,
          t_counters.deallocations - start_.deallocations};
}

}  // namespace rtmb::testing

#if RTMB_ALLOC_COUNTER_SANITIZER_HOOKS

// ---------------------------------------------------------------------------------------------
// Sanitizer builds: observe the sanitizer's allocator, define no allocation function ourselves.
// ---------------------------------------------------------------------------------------------
namespace rtmb::testing {
namespace {

void on_malloc(const volatile void* /*ptr*/, std::size_t /*size*/) {
  note_allocation();
}

void on_free(const volatile void* ptr) {
  if (ptr != nullptr) note_deallocation();
}

// The runtime requires installation on the main thread before other threads start, which is when
// static initialisers run. A failed install would leave the counter blind, and every
// "no allocation" test would pass vacuously, so it stops the process instead.
struct HookInstaller {
  HookInstaller() {
    if (__sanitizer_install_malloc_and_free_hooks(&on_malloc, &on_free) == 0) {
      die("rtmb::testing: __sanitizer_install_malloc_and_free_hooks failed\n");
    }
  }
};
const HookInstaller g_hook_installer;

}  // namespace
}  // namespace rtmb::testing

#else  // !RTMB_ALLOC_COUNTER_SANITIZER_HOOKS

// ---------------------------------------------------------------------------------------------
// Normal builds: replace the malloc family and global operator new/delete for this executable.
// ---------------------------------------------------------------------------------------------
// Every block still comes from glibc's allocator, so pointers stay interchangeable with anything
// glibc hands out internally (strdup, getline, ...) and malloc_usable_size keeps working. Each
// replacement counts once and then calls a __libc_* entry point directly, never another public
// allocation function, so nothing is counted twice and nothing recurses.
extern "C" {
void* __libc_malloc(std::size_t size) noexcept;
void* __libc_calloc(std::size_t count, std::size_t size) noexcept;
void* __libc_realloc(void* ptr, std::size_t size) noexcept;
void __libc_free(void* ptr) noexcept;
void* __libc_memalign(std::size_t alignment, std::size_t size) noexcept;
void* __libc_valloc(std::size_t size) noexcept;
void* __libc_pvalloc(std::size_t size) noexcept;
}

namespace rtmb::testing {
namespace {

constexpr bool is_power_of_two(std::size_t x) noexcept {
  return x != 0 && (x & (x - 1)) == 0;
}

// The replaceable operator new contract: a distinct non-null pointer even for size 0, retry
// through the new_handler, std::bad_alloc when there is none. One call counts once, however many
// retries it takes.
void* checked_new(std::size_t size, std::size_t alignment) {
  note_allocation();
  if (size == 0) size = 1;
  for (;;) {
    void* const ptr = alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__
                          ? __libc_malloc(size)
                          : __libc_memalign(alignment, size);
    if (ptr != nullptr) return ptr;
    const std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

// The nothrow forms are specified as calling the throwing form and mapping bad_alloc to nullptr.
void* nothrow_new(std::size_t size, std::size_t alignment) noexcept {
  try {
    return checked_new(size, alignment);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

void checked_delete(void* ptr) noexcept {
  if (ptr != nullptr) note_deallocation();
  __libc_free(ptr);
}

}  // namespace
}  // namespace rtmb::testing

using rtmb::testing::checked_delete;
using rtmb::testing::checked_new;
using rtmb::testing::is_power_of_two;
using rtmb::testing::note_allocation;
using rtmb::testing::note_deallocation;
using rtmb::testing::nothrow_new;

extern "C" {

void* malloc(std::size_t size) noexcept {
  note_allocation();
  return __libc_malloc(size);
}

void* calloc(std::size_t count, std::size_t size) noexcept {
  note_allocation();
  return __libc_calloc(count, size);
}

// glibc's realloc(nullptr, n) allocates, and realloc(p, 0) frees p and returns nullptr. Otherwise
// the old block is released exactly when a block is returned (moved or resized in place); on
// failure p stays valid and nothing was released.
void* realloc(void* ptr, std::size_t size) noexcept {
  if (ptr == nullptr) {
    note_allocation();
    return __libc_realloc(nullptr, size);
  }
  if (size == 0) {
    note_deallocation();
    return __libc_realloc(ptr, 0);
  }
  note_allocation();
  void* const result = __libc_realloc(ptr, size);
  if (result != nullptr) note_deallocation();
  return result;
}

void free(void* ptr) noexcept {
  if (ptr != nullptr) note_deallocation();
  __libc_free(ptr);
}

// C11 (after DR 460) and glibc >= 2.38: the alignment must be a power of two, else EINVAL.
// Older glibc silently rounded it up; rejecting it matches what ASan does in sanitizer builds.
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  note_allocation();
  if (!is_power_of_two(alignment)) {
    errno = EINVAL;
    return nullptr;
  }
  return __libc_memalign(alignment, size);
}

// POSIX: report errors through the return value only, leave *memptr untouched on failure, and
// require a power-of-two multiple of sizeof(void*).
int posix_memalign(void** memptr, std::size_t alignment, std::size_t size) noexcept {
  note_allocation();
  if (!is_power_of_two(alignment) || alignment % sizeof(void*) != 0) return EINVAL;
  const int saved_errno = errno;
  void* const ptr = __libc_memalign(alignment, size);
  errno = saved_errno;
  if (ptr == nullptr) return ENOMEM;
  *memptr = ptr;
  return 0;
}

// Obsolete interfaces, still reachable from old C code; glibc's own semantics apply.
void* memalign(std::size_t alignment, std::size_t size) noexcept {
  note_allocation();
  return __libc_memalign(alignment, size);
}

void* valloc(std::size_t size) noexcept {
  note_allocation();
  return __libc_valloc(size);
}

void* pvalloc(std::size_t size) noexcept {
  note_allocation();
  return __libc_pvalloc(size);
}

}  // extern "C"

// Plain and array forms share one implementation: the array cookie, if any, is the compiler's
// business and is already included in size.
void* operator new(std::size_t size) {
  return checked_new(size, 0);
}
void* operator new[](std::size_t size) {
  return checked_new(size, 0);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return nothrow_new(size, 0);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return nothrow_new(size, 0);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return checked_new(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return checked_new(size, static_cast<std::size_t>(alignment));
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return nothrow_new(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return nothrow_new(size, static_cast<std::size_t>(alignment));
}

// Every block above comes from glibc, aligned or not, so every delete form is a plain free.
void operator delete(void* ptr) noexcept {
  checked_delete(ptr);
}
void operator delete[](void* ptr) noexcept {
  checked_delete(ptr);
}
void operator delete(void* ptr, const std::nothrow_t&) noexcept {
  checked_delete(ptr);
}
void operator delete[](void* ptr, const std::nothrow_t&) noexcept {
  checked_delete(ptr);
}
void operator delete(void* ptr, std::size_t) noexcept {
  checked_delete(ptr);
}
void operator delete[](void* ptr, std::size_t) noexcept {
  checked_delete(ptr);
}
void operator delete(void* ptr, std::align_val_t) noexcept {
  checked_delete(ptr);
}
void operator delete[](void* ptr, std::align_val_t) noexcept {
  checked_delete(ptr);
}
void operator delete(void* ptr, std::align_val_t, const std::nothrow_t&) noexcept {
  checked_delete(ptr);
}
void operator delete[](void* ptr, std::align_val_t, const std::nothrow_t&) noexcept {
  checked_delete(ptr);
}
void operator delete(void* ptr, std::size_t, std::align_val_t) noexcept {
  checked_delete(ptr);
}
void operator delete[](void* ptr, std::size_t, std::align_val_t) noexcept {
  checked_delete(ptr);
}

#endif  // RTMB_ALLOC_COUNTER_SANITIZER_HOOKS
