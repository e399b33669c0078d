// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// LogHistogram: bucket layout (contiguous, <= 1/32 relative width), percentiles against an
// exact sorted reference on known data, extremes, merge and reset.
#include "rtmb/runtime/log_histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <utility>
#include <vector>

namespace rtmb {
namespace {

constexpr int kSamples = 10'000;

// Ranks of p50/p90/p99/p99.9 among kSamples samples, nearest-rank definition, exact integers.
struct RankCase {
  double p;
  std::size_t rank;
};
constexpr RankCase kRanks[] = {{50.0, 5000}, {90.0, 9000}, {99.0, 9900}, {99.9, 9990}};

std::vector<std::int64_t> uniform_data(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> dist(0, 2'000'000);
  std::vector<std::int64_t> data(kSamples);
  for (auto& x : data) x = dist(rng);
  return data;
}

// log-normal around 50 us with a long tail, like step compute times
std::vector<std::int64_t> lognormal_data(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> dist(std::log(50'000.0), 0.8);
  std::vector<std::int64_t> data(kSamples);
  for (auto& x : data) x = std::llround(dist(rng));
  return data;
}

// mostly small, 2 % outliers at 1..10 ms: the tail percentiles land among the outliers
std::vector<std::int64_t> bimodal_data(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> small(10, 900);
  std::uniform_int_distribution<std::int64_t> large(1'000'000, 10'000'000);
  std::uniform_int_distribution<int> pick(0, 99);
  std::vector<std::int64_t> data(kSamples);
  for (auto& x : data) x = pick(rng) < 2 ? large(rng) : small(rng);
  return data;
}

void expect_within_resolution(std::int64_t reported, std::int64_t exact, const char* what) {
  // the bucket's upper edge: never below the exact sample, at most 1/32 above it
  EXPECT_GE(reported, exact) << what;
  EXPECT_LE(reported, exact + exact / LogHistogram::kSubBuckets) << what;
}

TEST(LogHistogram, BucketsAreContiguousAndAtMostThreePercentWide) {
  EXPECT_EQ(LogHistogram::bucket_lower(0), 0);
  for (int i = 0; i + 1 < LogHistogram::kBucketCount; ++i) {
    ASSERT_EQ(LogHistogram::bucket_lower(i + 1), LogHistogram::bucket_upper(i) + 1) << i;
  }
  for (int i = LogHistogram::kSubBuckets; i < LogHistogram::kBucketCount; ++i) {
    const std::int64_t width = LogHistogram::bucket_upper(i) - LogHistogram::bucket_lower(i) + 1;
    ASSERT_LE(width * LogHistogram::kSubBuckets, LogHistogram::bucket_lower(i)) << i;
  }
  // 10 ns .. 10 s are inside the range
  EXPECT_GE(LogHistogram::kMaxTrackable, 10'000'000'000);
}

TEST(LogHistogram, EveryValueFallsInsideItsBucket) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> exponent(0, LogHistogram::kMaxExponent - 1);
  for (int n = 0; n < 100'000; ++n) {
    const std::int64_t v =
        n < 5000 ? n : static_cast<std::int64_t>(rng() >> (64 - 1 - exponent(rng)));
    const int i = LogHistogram::bucket_index(v);
    ASSERT_GE(i, 0);
    ASSERT_LT(i, LogHistogram::kBucketCount);
    ASSERT_LE(LogHistogram::bucket_lower(i), v);
    ASSERT_GE(LogHistogram::bucket_upper(i), v);
  }
  for (std::int64_t v = 0; v < LogHistogram::kSubBuckets; ++v) {
    EXPECT_EQ(LogHistogram::bucket_upper(LogHistogram::bucket_index(v)), v);  // exact below 32
  }
}

TEST(LogHistogram, PercentilesMatchSortedReferenceWithinBucketResolution) {
  const std::vector<std::int64_t> sets[] = {uniform_data(1), lognormal_data(2), bimodal_data(3)};
  for (const auto& data : sets) {
    auto h = std::make_unique<LogHistogram>();
    for (std::int64_t x : data) h->record(x);
    std::vector<std::int64_t> sorted = data;
    std::sort(sorted.begin(), sorted.end());

    ASSERT_EQ(h->count(), static_cast<std::uint64_t>(kSamples));
    EXPECT_EQ(h->min(), sorted.front());
    EXPECT_EQ(h->max(), sorted.back());
    double sum = 0.0;
    for (std::int64_t x : data) sum += static_cast<double>(x);
    EXPECT_DOUBLE_EQ(h->mean(), sum / kSamples);
    for (const RankCase& rc : kRanks) {
      expect_within_resolution(h->percentile(rc.p), sorted[rc.rank - 1], "percentile");
    }
    EXPECT_EQ(h->percentile(100.0), sorted.back());

    // summarize() gives the same numbers in one pass
    const HistogramSummary s = h->summarize();
    EXPECT_EQ(s.count, h->count());
    EXPECT_EQ(s.min, h->min());
    EXPECT_EQ(s.max, h->max());
    EXPECT_EQ(s.p50, h->percentile(50.0));
    EXPECT_EQ(s.p90, h->percentile(90.0));
    EXPECT_EQ(s.p99, h->percentile(99.0));
    EXPECT_EQ(s.p999, h->percentile(99.9));
    EXPECT_DOUBLE_EQ(s.mean, h->mean());
  }
}

TEST(LogHistogram, SmallCountsUseNearestRank) {
  LogHistogram h;
  for (std::int64_t x : {5, 1, 4, 2, 3}) h.record(x);  // exact buckets below 32
  EXPECT_EQ(h.percentile(0.0), 1);
  EXPECT_EQ(h.percentile(20.0), 1);
  EXPECT_EQ(h.percentile(21.0), 2);
  EXPECT_EQ(h.percentile(50.0), 3);
  EXPECT_EQ(h.percentile(99.9), 5);
  EXPECT_EQ(h.percentile(100.0), 5);
  EXPECT_EQ(h.percentile(250.0), 5);  // clamped
}

TEST(LogHistogram, EmptyReportsZeros) {
  LogHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.percentile(50.0), 0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0.0);
  const HistogramSummary s = h.summarize();
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.p999, 0);
}

TEST(LogHistogram, NegativeAndOverflowingValuesAreCountedAndExtremesStayExact) {
  LogHistogram h;
  h.record(-1500);  // negative slack of an overrun
  h.record(1000);
  h.record(20'000'000'000);  // 20 s: beyond the last bucket
  EXPECT_EQ(h.count(), 3u);
  EXPECT_EQ(h.below_zero(), 1u);
  EXPECT_EQ(h.overflow(), 1u);
  EXPECT_EQ(h.min(), -1500);
  EXPECT_EQ(h.max(), 20'000'000'000);
  EXPECT_EQ(h.bucket_count(0), 1u);
  EXPECT_EQ(h.bucket_count(LogHistogram::kBucketCount - 1), 1u);
  EXPECT_EQ(h.percentile(1.0), 0);  // the negative sample sits in the zero bucket
  EXPECT_EQ(h.percentile(100.0), 20'000'000'000);
}

TEST(LogHistogram, MergeEqualsRecordingEverythingInOne) {
  const std::vector<std::int64_t> data = lognormal_data(4);
  auto all = std::make_unique<LogHistogram>();
  auto first = std::make_unique<LogHistogram>();
  auto second = std::make_unique<LogHistogram>();
  for (std::size_t i = 0; i < data.size(); ++i) {
    all->record(data[i]);
    (i % 3 == 0 ? *first : *second).record(data[i]);
  }
  first->merge(*second);
  for (int i = 0; i < LogHistogram::kBucketCount; ++i) {
    ASSERT_EQ(first->bucket_count(i), all->bucket_count(i)) << i;
  }
  EXPECT_EQ(first->count(), all->count());
  EXPECT_EQ(first->min(), all->min());
  EXPECT_EQ(first->max(), all->max());
  EXPECT_DOUBLE_EQ(first->mean(), all->mean());

  // merging into an empty histogram copies the extremes
  LogHistogram empty;
  empty.merge(*all);
  EXPECT_EQ(empty.min(), all->min());
  EXPECT_EQ(empty.percentile(99.0), all->percentile(99.0));
}

TEST(LogHistogram, ResetForgetsEverything) {
  LogHistogram h;
  for (std::int64_t x :
       {std::int64_t{-3}, std::int64_t{7}, std::int64_t{1'000'000}, std::int64_t{30'000'000'000}}) {
    h.record(x);
  }
  h.reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.below_zero(), 0u);
  EXPECT_EQ(h.overflow(), 0u);
  for (int i = 0; i < LogHistogram::kBucketCount; ++i) ASSERT_EQ(h.bucket_count(i), 0u);
  h.record(42);
  EXPECT_EQ(h.min(), 42);
  EXPECT_EQ(h.max(), 42);
}

// Compile-time contract, checked by building this file (not a run-time test): recording and
// reading are noexcept, and a summary is a plain copyable value.
static_assert(noexcept(std::declval<LogHistogram&>().record(1)));
static_assert(noexcept(std::declval<const LogHistogram&>().percentile(50.0)));
static_assert(noexcept(std::declval<const LogHistogram&>().summarize()));
static_assert(std::is_trivially_copyable_v<HistogramSummary>);

}  // namespace
}  // namespace rtmb
