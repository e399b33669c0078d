// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// LogHistogram queries. The bucket layout and the percentile definition are explained in
// include/rtmb/runtime/log_histogram.hpp.
#include "rtmb/runtime/log_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace rtmb {
namespace {

// Nearest rank ceil(p/100 * n), at least 1. The product is shrunk by a relative 1e-12 first so
// that a rank which is an integer on paper (99.9 % of 1000) is not pushed up by the rounding
// error of p * n.
std::uint64_t nearest_rank(double p, std::uint64_t n) noexcept {
  const double clamped = std::clamp(p, 0.0, 100.0);
  const double exact = clamped * static_cast<double>(n) / 100.0;
  const auto rank = static_cast<std::uint64_t>(std::ceil(exact * (1.0 - 1e-12)));
  return std::clamp<std::uint64_t>(rank, 1, n);
}

}  // namespace

std::int64_t LogHistogram::reported_value(int bucket) const noexcept {
  // the last bucket also holds the overflow, whose largest value is max_
  const std::int64_t upper = bucket == kBucketCount - 1 ? max_ : bucket_upper(bucket);
  return std::clamp(upper, min_, max_);
}

std::int64_t LogHistogram::value_at_rank(std::uint64_t rank) const noexcept {
  std::uint64_t seen = 0;
  for (int i = 0; i < kBucketCount; ++i) {
    seen += buckets_[static_cast<std::size_t>(i)];
    if (seen >= rank) return reported_value(i);
  }
  return max_;
}

std::int64_t LogHistogram::percentile(double p) const noexcept {
  if (count_ == 0) return 0;
  return value_at_rank(nearest_rank(p, count_));
}

HistogramSummary LogHistogram::summarize() const noexcept {
  HistogramSummary s;
  if (count_ == 0) return s;
  s.count = count_;
  s.min = min_;
  s.max = max_;
  s.mean = mean();

  // one ascending walk serves all four ranks, which are non-decreasing in p
  const std::uint64_t ranks[4] = {nearest_rank(50.0, count_), nearest_rank(90.0, count_),
                                  nearest_rank(99.0, count_), nearest_rank(99.9, count_)};
  std::int64_t* const outputs[4] = {&s.p50, &s.p90, &s.p99, &s.p999};
  int next = 0;
  std::uint64_t seen = 0;
  for (int i = 0; i < kBucketCount && next < 4; ++i) {
    seen += buckets_[static_cast<std::size_t>(i)];
    while (next < 4 && seen >= ranks[next]) {
      *outputs[next] = reported_value(i);
      ++next;
    }
  }
  return s;
}

void LogHistogram::merge(const LogHistogram& other) noexcept {
  if (other.count_ == 0) return;
  for (std::size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = count_ == 0 ? other.max_ : std::max(max_, other.max_);
  count_ += other.count_;
  below_zero_ += other.below_zero_;
  overflow_ += other.overflow_;
  sum_ += other.sum_;
}

void LogHistogram::reset() noexcept {
  buckets_.fill(0);
  count_ = 0;
  below_zero_ = 0;
  overflow_ = 0;
  min_ = 0;
  max_ = 0;
  sum_ = 0;
}

double LogHistogram::mean() const noexcept {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(count_);
}

}  // namespace rtmb
