// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The live view's full positions, simulation thread -> view thread (issue 20 point 6).
//
// Why not the snapshot (ServerSnapshot, StateSnapshot): a snapshot is a trivially copyable
// value with room for kSnapshotMaxCoordinates (64) coordinates, copied whole on every publish
// and read by the network thread for its stats; a 1000-body chain has 3000. The view needs every
// coordinate, so they travel here: a triple buffer like LatestValue (rtmb/runtime/latest_value.hpp,
// the same index protocol), but with its three coordinate arrays sized once at construction
// (setup, when the server compiles the model), so the simulation thread only copies doubles into
// memory that already exists. Wait-free on both sides: one writer (the simulation thread), one
// reader (the view's thread); a reader that is slow skips values, it never holds the writer.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "rtmb/net/drag_state.hpp"
#include "rtmb/runtime/spsc_ring.hpp"  // kCacheLineBytes

namespace rtmb {

/// One published state as the reader sees it: valid until the reader's next take().
struct ViewStateRecord {
  double t = 0.0;           ///< simulation time [s]
  std::uint64_t step = 0;   ///< engine steps since the last reset or load
  std::uint64_t epoch = 0;  ///< resets and loads so far (ServerSnapshot::epoch)
  std::size_t n_q = 0;      ///< the model's coordinates; q holds min(n_q, capacity) of them
  DragState drag;           ///< the mouse spring as the same tick left it
  const double* q = nullptr;
};

/// Wait-free triple buffer of up to `capacity` coordinates. Setup-only to construct (allocates
/// 3 x capacity doubles); publish() and take() are RT-safe: no allocation, lock or exception.
class ViewStateBuffer {
 public:
  explicit ViewStateBuffer(std::size_t capacity)
      : capacity_(capacity),
        storage_(std::make_unique<double[]>(3 * std::max<std::size_t>(capacity, 1))) {
    for (std::size_t i = 0; i < 3; ++i) slots_[i].q = storage_.get() + i * capacity_;
  }
  ViewStateBuffer(const ViewStateBuffer&) = delete;
  ViewStateBuffer& operator=(const ViewStateBuffer&) = delete;

  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

  /// Writer: makes (t, step, epoch, drag, q[0..n)) the newest value; only the first capacity()
  /// coordinates are kept, n is recorded as the model's count. Wait-free, RT-safe.
  void publish(double t,
               std::uint64_t step,
               std::uint64_t epoch,
               const DragState& drag,
               const double* q,
               std::size_t n) noexcept {
    Slot& s = slots_[back_];
    s.value = ViewStateRecord{t, step, epoch, n, drag, s.q};
    std::copy_n(q, std::min(n, capacity_), s.q);
    // release: the reader that takes this slot sees its contents; acquire: the slot handed back
    // was released by the reader, so its last read of it is finished (as LatestValue::commit)
    back_ = middle_.exchange(back_ | kFresh, std::memory_order_acq_rel) & kIndexMask;
  }

  /// Reader: when a value newer than the last one taken was published, fills out with it (its q
  /// points into the buffer until the next take()) and returns true; else returns false and
  /// leaves out untouched. Wait-free, RT-safe.
  bool take(ViewStateRecord& out) noexcept {
    if ((middle_.load(std::memory_order_relaxed) & kFresh) == 0u) return false;
    // only the writer sets kFresh, so the exchange always takes a fresh slot
    front_ = middle_.exchange(front_, std::memory_order_acq_rel) & kIndexMask;
    out = slots_[front_].value;
    return true;
  }

 private:
  static constexpr std::uint32_t kIndexMask = 0x3u;
  static constexpr std::uint32_t kFresh = 0x4u;  // middle holds a value the reader has not taken

  struct alignas(kCacheLineBytes) Slot {
    ViewStateRecord value;  // value.q == q
    double* q = nullptr;    // capacity_ doubles of storage_
  };

  std::size_t capacity_;
  std::unique_ptr<double[]> storage_;
  std::array<Slot, 3> slots_{};
  // the shared slot's index, plus kFresh; the only field both threads write
  alignas(kCacheLineBytes) std::atomic<std::uint32_t> middle_{1};
  alignas(kCacheLineBytes) std::uint32_t back_ = 0;   // writer-owned
  alignas(kCacheLineBytes) std::uint32_t front_ = 2;  // reader-owned
};

}  // namespace rtmb
