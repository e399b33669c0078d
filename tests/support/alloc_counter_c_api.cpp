// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// A C interface to AllocationScope (alloc_counter.hpp), for processes that are not C++ test
// executables: python/CMakeLists.txt builds it with alloc_counter.cpp into the shared library
// rtmb_alloc_preload, which the Python allocation test LD_PRELOADs into /usr/bin/python3 and
// calls through ctypes (python/tests/test_allocations.py). Preloaded, the library's malloc family
// and operator new/delete replace everyone's, the engine's inside the rtmb module included.
#include <cstdint>

#include "tests/support/alloc_counter.hpp"

extern "C" {

/// Opens a counting window on the calling thread; close it on the same thread.
[[gnu::visibility("default")]] void* rtmb_alloc_scope_open() {
  return new rtmb::testing::AllocationScope();
}

/// The calling thread's heap calls since scope was opened.
[[gnu::visibility("default")]] void rtmb_alloc_scope_counts(const void* scope,
                                                            std::uint64_t* allocations,
                                                            std::uint64_t* deallocations) {
  const rtmb::testing::AllocationCounts c =
      static_cast<const rtmb::testing::AllocationScope*>(scope)->counts();
  *allocations = c.allocations;
  *deallocations = c.deallocations;
}

[[gnu::visibility("default")]] void rtmb_alloc_scope_close(void* scope) {
  delete static_cast<rtmb::testing::AllocationScope*>(scope);
}

}  // extern "C"
