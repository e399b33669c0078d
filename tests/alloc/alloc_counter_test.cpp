// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Self-test of the allocation counter. A "step makes 0 allocations" test is only worth something
// if the counter demonstrably sees every way the engine and its libraries could allocate, so each
// allocation path gets its own window with an exact expected count. Exact counts also catch
// double counting (e.g. operator new counted once itself and once more through malloc).
//
// Compilers may remove a new/delete or malloc/free pair whose pointer never escapes, which would
// make these tests pass or fail for the wrong reason; every pointer therefore goes through a
// volatile global (escape) before it is released.
#include "tests/support/alloc_counter.hpp"

#include <gtest/gtest.h>
#include <malloc.h>

#include <Eigen/Core>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <thread>
#include <vector>

namespace rtmb::testing {
namespace {

void* volatile g_sink = nullptr;

// Publishes ptr where the optimizer cannot see, so the allocation that produced it must happen.
template <class T>
T* escape(T* ptr) {
  g_sink = ptr;
  return static_cast<T*>(g_sink);
}

bool is_aligned(const void* ptr, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(ptr) % alignment == 0;
}

// Runs body inside a fresh window. Assertions happen outside it, since gtest may allocate.
template <class Body>
AllocationCounts count_in_window(Body&& body) {
  AllocationScope scope;
  body();
  return scope.counts();
}

struct alignas(64) CacheLine {
  double values[8];
};

TEST(AllocCounterTest, MallocAndFreeAreCounted) {
  const AllocationCounts counts = count_in_window([] { std::free(escape(std::malloc(64))); });
  EXPECT_EQ(counts.allocations, 1u);
  EXPECT_EQ(counts.deallocations, 1u);
}

TEST(AllocCounterTest, CallocIsCounted) {
  const AllocationCounts counts = count_in_window([] { std::free(escape(std::calloc(8, 16))); });
  EXPECT_EQ(counts.allocations, 1u);
  EXPECT_EQ(counts.deallocations, 1u);
}

// A growing realloc is one allocation plus the release of the old block, whether or not the
// block moved (the sanitizer allocators always move it).
TEST(AllocCounterTest, GrowingReallocIsCounted) {
  void* ptr = escape(std::malloc(16));
  const AllocationCounts counts =
      count_in_window([&] { ptr = escape(std::realloc(ptr, 1 << 20)); });
  ASSERT_NE(ptr, nullptr);
  std::free(ptr);
  EXPECT_EQ(counts.allocations, 1u);
  EXPECT_EQ(counts.deallocations, 1u);
}

TEST(AllocCounterTest, AlignedAllocIsCountedAndAligned) {
  void* ptr = nullptr;
  const AllocationCounts counts =
      count_in_window([&] { ptr = escape(std::aligned_alloc(256, 512)); });
  ASSERT_NE(ptr, nullptr);
  EXPECT_TRUE(is_aligned(ptr, 256));
  std::free(ptr);
  EXPECT_EQ(counts.allocations, 1u);
  EXPECT_EQ(counts.deallocations, 0u);
}

TEST(AllocCounterTest, PosixMemalignIsCountedAndAligned) {
  void* ptr = nullptr;
  int rc = -1;
  const AllocationCounts counts = count_in_window([&] {
    rc = posix_memalign(&ptr, 128, 100);
    std::free(escape(ptr));
  });
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(is_aligned(ptr, 128));
  EXPECT_EQ(counts.allocations, 1u);
  EXPECT_EQ(counts.deallocations, 1u);
}

TEST(AllocCounterTest, ObsoleteAlignedFunctionsAreCounted) {
  const AllocationCounts counts = count_in_window([] {
    std::free(escape(memalign(64, 100)));
    std::free(escape(valloc(100)));
    std::free(escape(pvalloc(100)));
  });
  EXPECT_EQ(counts.allocations, 3u);
  EXPECT_EQ(counts.deallocations, 3u);
}

TEST(AllocCounterTest, OperatorNewAndDeleteAreCounted) {
  const AllocationCounts counts = count_in_window([] { delete escape(new int(7)); });
  EXPECT_EQ(counts.allocations, 1u);
  EXPECT_EQ(counts.deallocations, 1u);
}

TEST(AllocCounterTest, ArrayNewAndDeleteAreCounted) {
  const AllocationCounts counts = count_in_window([] { delete[] escape(new int[32]); });
  EXPECT_EQ(counts.allocations, 1u);
  EXPECT_EQ(counts.deallocations, 1u);
}

TEST(AllocCounterTest, AlignedNewIsCountedAndAligned) {
  CacheLine* one = nullptr;
  CacheLine* many = nullptr;
  const AllocationCounts counts = count_in_window([&] {
    one = escape(new CacheLine{});
    many = escape(new CacheLine[3]{});
  });
  EXPECT_TRUE(is_aligned(one, alignof(CacheLine)));
  EXPECT_TRUE(is_aligned(many, alignof(CacheLine)));
  delete one;
  delete[] many;
  EXPECT_EQ(counts.allocations, 2u);
  EXPECT_EQ(counts.deallocations, 0u);
}

TEST(AllocCounterTest, NothrowNewIsCounted) {
  const AllocationCounts counts = count_in_window([] {
    delete escape(new (std::nothrow) int(1));
    delete escape(new (std::nothrow) CacheLine{});
  });
  EXPECT_EQ(counts.allocations, 2u);
  EXPECT_EQ(counts.deallocations, 2u);
}

TEST(AllocCounterTest, VectorPushBackIsCounted) {
  const AllocationCounts counts = count_in_window([] {
    std::vector<double> values;
    values.push_back(1.0);
    escape(values.data());
  });
  EXPECT_EQ(counts.allocations, 1u);
  EXPECT_EQ(counts.deallocations, 1u);
}

// Eigen allocates dynamic-size storage through its own aligned_malloc, which calls std::malloc,
// not operator new: the reason the counter replaces malloc and not just new.
TEST(AllocCounterTest, EigenDynamicVectorIsCounted) {
  const AllocationCounts counts = count_in_window([] {
    Eigen::VectorXd x(16);
    escape(x.data());
  });
  EXPECT_EQ(counts.allocations, 1u);
  EXPECT_EQ(counts.deallocations, 1u);
}

// The patterns the step relies on: fixed-size Eigen types and writing into storage sized once.
TEST(AllocCounterTest, ArithmeticAndPresizedEigenCountZero) {
  Eigen::VectorXd a = Eigen::VectorXd::LinSpaced(32, 0.0, 1.0);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(32);
  Eigen::VectorXd out(32);
  Eigen::MatrixXd m = Eigen::MatrixXd::Identity(32, 32);
  volatile double sum = 0.0;
  const AllocationCounts counts = count_in_window([&] {
    for (int i = 0; i < 1000; ++i) sum = sum + 0.5 * i;
    const Eigen::Vector3d u(1.0, 2.0, 3.0);
    const Eigen::Vector3d w = 2.0 * Eigen::Matrix3d::Identity() * u + Eigen::Vector3d::UnitX();
    out.noalias() = m * a;
    out += 2.0 * b;
    sum = sum + w.norm() + out.sum();
  });
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 0u);
}

TEST(AllocCounterTest, ReallocToZeroCountsOnlyTheRelease) {
  void* ptr = escape(std::malloc(32));
  const AllocationCounts counts = count_in_window([&] { escape(std::realloc(ptr, 0)); });
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 1u);
}

TEST(AllocCounterTest, OtherThreadsAreNotCounted) {
  constexpr int kWorkerAllocations = 100;
  std::atomic<int> phase{0};  // 0: wait, 1: main window open, 2: worker done
  AllocationCounts worker_counts;
  std::thread worker([&] {
    while (phase.load() != 1) std::this_thread::yield();
    AllocationScope scope;
    for (int i = 0; i < kWorkerAllocations; ++i) std::free(escape(std::malloc(32)));
    worker_counts = scope.counts();
    phase.store(2);
  });

  // the worker allocates only while this thread's window is open
  const AllocationCounts main_counts = count_in_window([&] {
    phase.store(1);
    while (phase.load() != 2) std::this_thread::yield();
  });
  worker.join();

  EXPECT_EQ(main_counts.allocations, 0u);
  EXPECT_EQ(main_counts.deallocations, 0u);
  EXPECT_EQ(worker_counts.allocations, static_cast<std::uint64_t>(kWorkerAllocations));
  EXPECT_EQ(worker_counts.deallocations, static_cast<std::uint64_t>(kWorkerAllocations));
}

TEST(AllocCounterTest, NestedScopesCountTheirOwnWindow) {
  AllocationCounts outer_counts;
  AllocationCounts inner_counts;
  {
    AllocationScope outer;
    std::free(escape(std::malloc(8)));
    {
      AllocationScope inner;
      std::free(escape(std::malloc(8)));
      inner_counts = inner.counts();
    }
    outer_counts = outer.counts();
  }
  EXPECT_EQ(inner_counts.allocations, 1u);
  EXPECT_EQ(outer_counts.allocations, 2u);
  EXPECT_EQ(outer_counts.deallocations, 2u);
}

// Sanitizers report an invalid alignment as an error instead of returning EINVAL, so the POSIX
// contract of our own replacement is only checked in normal builds.
TEST(AllocCounterTest, PosixMemalignRejectsBadAlignment) {
  if constexpr (kCountsViaSanitizerHooks) {
    GTEST_SKIP() << "the sanitizer owns posix_memalign in this build";
  } else {
    int marker = 0;
    void* ptr = &marker;
    EXPECT_EQ(posix_memalign(&ptr, 3 * sizeof(void*), 64), EINVAL);
    EXPECT_EQ(posix_memalign(&ptr, sizeof(void*) / 2, 64), EINVAL);
    EXPECT_EQ(ptr, static_cast<void*>(&marker));  // untouched on failure
  }
}

}  // namespace
}  // namespace rtmb::testing
