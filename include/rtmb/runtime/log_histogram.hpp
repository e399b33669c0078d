// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Log-bucket histogram of durations for the deadline loop (wake lateness, compute time, slack).
//
// Design notes. A deadline loop is judged by its tail (p99.9, max), not its mean, so every tick
// must be recorded, on the real-time thread, for hours. That rules out keeping samples (memory
// grows) and sorting (not O(1)). Options considered:
//  * fixed-width buckets: either too coarse at 100 ns or too many buckets to reach seconds;
//  * pure powers of two: cheap, but a 2x bucket cannot tell a 600 us step from a 1 ms one;
//  * log-linear buckets (the HdrHistogram layout): each power-of-two octave [2^e, 2^(e+1)) is
//    split into 32 equal sub-buckets, so every bucket is at most 1/32 = 3.1 % wide relative to
//    its lower edge, values below 32 ns are exact, and the bucket of a value is found from its
//    bit width with two shifts (O(1), no log(), no loop).
// We use the last. 30 octaves cover 0 .. 2^34 ns (17.2 s) in 960 buckets (7.5 KiB of counters),
// allocated inside the object: nothing is allocated after construction. Values above the range
// go to the last bucket and are counted in overflow(); negative values (negative slack, i.e. an
// overrun) go to the zero bucket and are counted in below_zero(). min() and max() are exact.
//
// percentile(p) uses the nearest-rank definition (the sample of rank ceil(p/100 * count) in
// sorted order) and returns the upper edge of that sample's bucket, clamped to [min, max] (the
// last bucket, which also holds the overflow, reports max): it never under-reports a sample in
// range, and over-reports by at most 3.1 %.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace rtmb {

/// Percentiles and extremes of one LogHistogram, trivially copyable so it can be handed to a
/// telemetry thread by value. All durations in ns; zero when count == 0.
struct HistogramSummary {
  std::uint64_t count = 0;  ///< samples recorded
  std::int64_t min = 0;     ///< exact smallest sample [ns]
  std::int64_t max = 0;     ///< exact largest sample [ns]
  std::int64_t p50 = 0;     ///< median [ns], within bucket resolution (<= 3.1 % high)
  std::int64_t p90 = 0;     ///< [ns]
  std::int64_t p99 = 0;     ///< [ns]
  std::int64_t p999 = 0;    ///< 99.9th percentile [ns]
  double mean = 0.0;        ///< exact arithmetic mean of the samples [ns]
};

/// Fixed, preallocated log-linear histogram of durations in ns (see the file comment for the
/// bucket layout and accuracy). Not thread-safe: one thread records; read it from that thread
/// or after it has stopped, or hand a HistogramSummary over (LatestValue).
class LogHistogram {
 public:
  static constexpr int kSubBucketBits = 5;                 ///< 32 sub-buckets per octave
  static constexpr int kSubBuckets = 1 << kSubBucketBits;  ///< 32
  static constexpr int kMaxExponent = 34;                  ///< range is [0, 2^34) ns
  static constexpr std::int64_t kMaxTrackable = (std::int64_t{1} << kMaxExponent) - 1;    ///< [ns]
  static constexpr int kBucketCount = (kMaxExponent - kSubBucketBits + 1) * kSubBuckets;  ///< 960

  /// Adds one sample [ns]. O(1). RT-safe: no allocation, no locks, does not throw.
  void record(std::int64_t value_ns) noexcept {
    int index = 0;
    if (value_ns < 0) {
      ++below_zero_;
    } else if (value_ns > kMaxTrackable) {
      ++overflow_;
      index = kBucketCount - 1;
    } else {
      index = bucket_index(value_ns);
    }
    ++buckets_[static_cast<std::size_t>(index)];
    if (count_ == 0 || value_ns < min_) min_ = value_ns;
    if (count_ == 0 || value_ns > max_) max_ = value_ns;
    ++count_;
    sum_ += value_ns;
  }

  /// Nearest-rank percentile, p in [0, 100] (clamped), as the upper edge of the bucket holding
  /// that sample, clamped to [min(), max()]; 0 when empty. O(kBucketCount). RT-safe.
  [[nodiscard]] std::int64_t percentile(double p) const noexcept;

  /// count, min, max, mean and p50/p90/p99/p99.9 in a single pass over the buckets. RT-safe.
  [[nodiscard]] HistogramSummary summarize() const noexcept;

  /// Adds every sample of other to this histogram. O(kBucketCount). RT-safe.
  void merge(const LogHistogram& other) noexcept;

  /// Forgets every sample. O(kBucketCount). RT-safe.
  void reset() noexcept;

  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
  /// Exact smallest sample [ns]; 0 when empty.
  [[nodiscard]] std::int64_t min() const noexcept { return count_ == 0 ? 0 : min_; }
  /// Exact largest sample [ns]; 0 when empty.
  [[nodiscard]] std::int64_t max() const noexcept { return count_ == 0 ? 0 : max_; }
  /// Exact mean [ns]; 0 when empty.
  [[nodiscard]] double mean() const noexcept;
  /// Samples below 0 (counted in the zero bucket).
  [[nodiscard]] std::uint64_t below_zero() const noexcept { return below_zero_; }
  /// Samples above kMaxTrackable (counted in the last bucket).
  [[nodiscard]] std::uint64_t overflow() const noexcept { return overflow_; }
  /// Samples in bucket i, 0 <= i < kBucketCount.
  [[nodiscard]] std::uint64_t bucket_count(int i) const noexcept {
    return buckets_[static_cast<std::size_t>(i)];
  }

  /// Bucket of a value in [0, kMaxTrackable]: the value itself below 32, else
  /// (octave - 4) * 32 + (the 5 bits after the leading one).
  [[nodiscard]] static constexpr int bucket_index(std::int64_t value_ns) noexcept {
    const auto v = static_cast<std::uint64_t>(value_ns);
    if (v < static_cast<std::uint64_t>(kSubBuckets)) return static_cast<int>(v);
    const int exponent =
        static_cast<int>(std::bit_width(v)) - 1;  // floor(log2 v) >= kSubBucketBits
    const int shift = exponent - kSubBucketBits;
    const auto sub = static_cast<int>(v >> shift) - kSubBuckets;
    return (shift + 1) * kSubBuckets + sub;
  }
  /// Smallest value [ns] that falls in bucket i.
  [[nodiscard]] static constexpr std::int64_t bucket_lower(int i) noexcept {
    if (i < kSubBuckets) return i;
    const int shift = i / kSubBuckets - 1;
    return static_cast<std::int64_t>(kSubBuckets + i % kSubBuckets) << shift;
  }
  /// Largest value [ns] that falls in bucket i.
  [[nodiscard]] static constexpr std::int64_t bucket_upper(int i) noexcept {
    if (i < kSubBuckets) return i;
    const int shift = i / kSubBuckets - 1;
    return (static_cast<std::int64_t>(kSubBuckets + i % kSubBuckets + 1) << shift) - 1;
  }

 private:
  [[nodiscard]] std::int64_t value_at_rank(std::uint64_t rank) const noexcept;
  [[nodiscard]] std::int64_t reported_value(int bucket) const noexcept;

  std::array<std::uint64_t, kBucketCount> buckets_{};
  std::uint64_t count_ = 0;
  std::uint64_t below_zero_ = 0;
  std::uint64_t overflow_ = 0;
  std::int64_t min_ = 0;
  std::int64_t max_ = 0;
  std::int64_t sum_ = 0;  // 2^63 ns is 292 years of samples: no overflow in practice
};

static_assert(LogHistogram::bucket_index(LogHistogram::kMaxTrackable) ==
              LogHistogram::kBucketCount - 1);
static_assert(LogHistogram::bucket_upper(LogHistogram::kBucketCount - 1) ==
              LogHistogram::kMaxTrackable);

}  // namespace rtmb
