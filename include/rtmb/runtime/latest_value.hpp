// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Wait-free latest-value slot for state snapshots; the design notes shared with SpscRing (why
// wait-free, why a triple buffer) are at the top of rtmb/runtime/spsc_ring.hpp.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "rtmb/runtime/spsc_ring.hpp"  // kCacheLineBytes

namespace rtmb {

/// Wait-free latest-value slot (triple buffer) for trivially copyable T: one writer publishes,
/// one reader takes the newest complete value. Values are never torn; values published between
/// two reads are skipped (only the newest matters). Exactly one thread may call the writer
/// functions (publish, back, commit) and exactly one the reader function (try_read).
/// Setup-only to construct; RT-safe to use.
template <class T>
class LatestValue {
  static_assert(std::is_trivially_copyable_v<T>, "LatestValue<T>: T must be trivially copyable");
  static_assert(std::is_default_constructible_v<T>,
                "LatestValue<T>: T must be default constructible");

 public:
  using value_type = T;

  LatestValue() = default;
  LatestValue(const LatestValue&) = delete;
  LatestValue& operator=(const LatestValue&) = delete;

  /// Writer: makes a copy of value the newest. Never blocks. Wait-free, RT-safe.
  void publish(const T& value) noexcept {
    back() = value;
    commit();
  }

  /// Writer: the private buffer the next commit() publishes, for filling a large T in place.
  /// Its contents are unspecified (an older value): write every field. Wait-free, RT-safe.
  [[nodiscard]] T& back() noexcept { return slots_[back_].value; }

  /// Writer: publishes back() and takes a new private buffer. Wait-free, RT-safe.
  void commit() noexcept {
    // release: the reader that takes this buffer sees its contents; acquire: the buffer handed
    // back was released by the reader, so its last read of it is finished
    const std::uint32_t previous = middle_.exchange(back_ | kFresh, std::memory_order_acq_rel);
    back_ = previous & kIndexMask;
    published_.store(published_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  /// Reader: when a value newer than the last one read has been published, copies the newest
  /// into out and returns true; otherwise returns false and leaves out untouched.
  /// Wait-free, RT-safe.
  bool try_read(T& out) noexcept {
    if ((middle_.load(std::memory_order_relaxed) & kFresh) == 0u) return false;
    // only the writer sets kFresh, so the exchange below always takes a fresh buffer
    front_ = middle_.exchange(front_, std::memory_order_acq_rel) & kIndexMask;
    out = slots_[front_].value;
    return true;
  }

  /// Values published since construction (including ones the reader skipped). Either thread.
  [[nodiscard]] std::uint64_t published() const noexcept {
    return published_.load(std::memory_order_relaxed);
  }

 private:
  static constexpr std::uint32_t kIndexMask = 0x3u;
  static constexpr std::uint32_t kFresh = 0x4u;  // middle holds a value the reader has not taken

  struct alignas(kCacheLineBytes) Slot {
    T value{};
  };

  std::array<Slot, 3> slots_{};
  // the shared buffer's index, plus kFresh; the only field both threads write
  alignas(kCacheLineBytes) std::atomic<std::uint32_t> middle_{1};
  // writer-owned
  alignas(kCacheLineBytes) std::uint32_t back_ = 0;
  std::atomic<std::uint64_t> published_{0};
  // reader-owned
  alignas(kCacheLineBytes) std::uint32_t front_ = 2;
};

}  // namespace rtmb
