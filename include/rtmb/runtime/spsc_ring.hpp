// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Wait-free single-producer/single-consumer hand-off between the simulation thread and the
// network thread: a bounded ring (SpscRing, here) for inputs and events, a latest-value slot
// (LatestValue, rtmb/runtime/latest_value.hpp) for state snapshots.
//
// Design notes. The simulation thread must never wait for the network thread, and neither may a
// slow or stalled network thread make the simulation thread wait. A mutex, even one that is
// held for a few instructions, breaks that: if its owner is preempted the other thread sleeps
// (priority inversion). So both structures are wait-free on both sides: every operation
// finishes in a bounded number of its own steps, whatever the other thread does.
//
// SpscRing: events and input samples must not vanish silently, so the ring is bounded, a push
// into a full ring fails at once and is counted (dropped()), and the producer decides what that
// means. With one producer and one consumer each index has a single writer, so plain
// acquire/release loads and stores of two monotonic counters are enough (no compare-and-swap).
// Each side also caches the other side's counter and only re-reads it when the cached value
// says full/empty, which keeps the two cache lines from bouncing on every call.
//
// LatestValue: for the state stream only the newest snapshot matters, and a queue would hand a
// slow reader a backlog of stale ones. A single shared buffer would need a lock (or a seqlock,
// whose reader retries: not wait-free, and a torn copy of a non-atomic struct is a data race).
// A triple buffer gives each side a private buffer plus one shared "middle" buffer: the writer
// fills its back buffer and swaps it with the middle in one atomic exchange; the reader swaps
// the middle with its front buffer only when the middle holds something new. Neither side ever
// touches the buffer the other side owns, so copies are never torn, and both sides finish in a
// bounded number of steps. The cost is three copies of T; snapshots are about 1 KiB.
//
// Both require trivially copyable T (checked): copying must be a plain memory copy that cannot
// allocate, throw or run user code on the real-time thread.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace rtmb {

/// Assumed cache-line size: producer- and consumer-owned fields are kept this far apart so they
/// do not share a line (false sharing). 64 bytes on x86-64 and most AArch64 cores.
inline constexpr std::size_t kCacheLineBytes = 64;

/// Bounded wait-free single-producer/single-consumer ring of trivially copyable T.
/// Capacity is a power of two >= 2. Exactly one thread may call the producer functions
/// (try_push) and exactly one thread the consumer functions (try_pop); the observers may be
/// called from either. The ring stores its slots inline (sizeof is about Capacity * sizeof(T)):
/// create it at setup, e.g. with std::make_unique. Setup-only to construct; RT-safe to use.
template <class T, std::size_t Capacity>
class SpscRing {
  static_assert(std::is_trivially_copyable_v<T>, "SpscRing<T>: T must be trivially copyable");
  static_assert(std::is_default_constructible_v<T>, "SpscRing<T>: T must be default constructible");
  static_assert(Capacity >= 2 && (Capacity & (Capacity - 1)) == 0,
                "SpscRing: Capacity must be a power of two >= 2");

 public:
  using value_type = T;

  SpscRing() = default;
  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  /// Producer: appends a copy of value, or returns false at once when the ring is full (the
  /// failure is counted in dropped()). Wait-free, RT-safe.
  bool try_push(const T& value) noexcept {
    const std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - cached_head_ == Capacity) {
      cached_head_ = head_.load(std::memory_order_acquire);
      if (tail - cached_head_ == Capacity) {
        dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        return false;
      }
    }
    slots_[tail & kMask] = value;
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }

  /// Consumer: moves the oldest element into out, or returns false at once when the ring is
  /// empty (out untouched). Wait-free, RT-safe.
  bool try_pop(T& out) noexcept {
    const std::uint64_t head = head_.load(std::memory_order_relaxed);
    if (head == cached_tail_) {
      cached_tail_ = tail_.load(std::memory_order_acquire);
      if (head == cached_tail_) return false;
    }
    out = slots_[head & kMask];
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

  /// Elements in the ring; exact on the consumer when the producer is idle, a snapshot
  /// otherwise. Either thread. RT-safe.
  [[nodiscard]] std::size_t size_approx() const noexcept {
    const std::uint64_t head = head_.load(std::memory_order_acquire);
    const std::uint64_t tail = tail_.load(std::memory_order_acquire);
    return static_cast<std::size_t>(tail >= head ? tail - head : 0);
  }
  /// Successful pushes since construction. Either thread. RT-safe.
  [[nodiscard]] std::uint64_t pushed() const noexcept {
    return tail_.load(std::memory_order_acquire);
  }
  /// Successful pops since construction. Either thread. RT-safe.
  [[nodiscard]] std::uint64_t popped() const noexcept {
    return head_.load(std::memory_order_acquire);
  }
  /// Pushes refused because the ring was full. Either thread. RT-safe.
  [[nodiscard]] std::uint64_t dropped() const noexcept {
    return dropped_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] static constexpr std::size_t capacity() noexcept { return Capacity; }

 private:
  static constexpr std::uint64_t kMask = Capacity - 1;

  // consumer-owned line: head_ is written only by the consumer
  alignas(kCacheLineBytes) std::atomic<std::uint64_t> head_{0};
  std::uint64_t cached_tail_ = 0;
  // producer-owned line: tail_ and dropped_ are written only by the producer
  alignas(kCacheLineBytes) std::atomic<std::uint64_t> tail_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::uint64_t cached_head_ = 0;
  alignas(kCacheLineBytes) std::array<T, Capacity> slots_{};
};

}  // namespace rtmb
