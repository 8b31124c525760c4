// Tests for the HdrHistogram-compatible Histogram: bucket layout against
// HdrHistogram's formulas, value precision, percentile semantics, merging,
// clamping, the percentile distribution, and IntervalRecorder.
#include "hdr/histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "hdr/interval_recorder.h"
#include "hdr/percentile_distribution.h"
#include "common/thread_stats.h"

namespace wirebench::hdr {
namespace {

constexpr uint64_t kSeed = 0x5eed2024;

// countsArrayLength as HdrHistogram's Java constructor derives it, with its
// floating-point logs, written out independently of histogram.cc.
int64_t JavaCountsArrayLength(int64_t lowest, int64_t highest, int digits, int64_t* sub_bucket_count) {
  const int64_t largest_single_unit = 2 * static_cast<int64_t>(std::pow(10, digits));
  const int unit_magnitude = static_cast<int>(std::floor(std::log(lowest) / std::log(2)));
  const int sub_bucket_count_magnitude =
      static_cast<int>(std::ceil(std::log(static_cast<double>(largest_single_unit)) / std::log(2)));
  const int half_magnitude = (sub_bucket_count_magnitude > 1 ? sub_bucket_count_magnitude : 1) - 1;
  *sub_bucket_count = static_cast<int64_t>(std::pow(2, half_magnitude + 1));
  int64_t smallest_untrackable = *sub_bucket_count << unit_magnitude;
  int64_t buckets = 1;
  while (smallest_untrackable <= highest) {
    if (smallest_untrackable > INT64_MAX / 2) {  // As Java's getBucketsNeededToCoverValue.
      ++buckets;
      break;
    }
    smallest_untrackable <<= 1;
    ++buckets;
  }
  return (buckets + 1) * (*sub_bucket_count / 2);
}

Histogram Make(int64_t lowest, int64_t highest, int digits) {
  StatusOr<Histogram> h = Histogram::Create({lowest, highest, digits});
  EXPECT_TRUE(h.ok()) << h.status().ToString();
  return std::move(h).value();
}

TEST(HdrHistogram, LayoutMatchesHdrHistogramFormulas) {
  Histogram h;  // 1 ns .. 1 h, 3 digits.
  EXPECT_EQ(h.sub_bucket_count(), 2048);
  EXPECT_EQ(h.sub_bucket_half_count_magnitude(), 10);
  EXPECT_EQ(h.unit_magnitude(), 0);
  // 2048 << 30 <= 3.6e12 < 2048 << 31: 32 buckets, (32 + 1) * 1024 entries.
  EXPECT_EQ(h.bucket_count(), 32);
  EXPECT_EQ(h.counts_array_length(), 33792);

  struct Case {
    int64_t lowest, highest;
    int digits;
  };
  for (const Case& c : {Case{1, 3'600'000'000'000, 3}, Case{1, 3'600'000'000, 3}, Case{1000, 3'600'000'000'000, 3},
                        Case{1, 1'000'000, 2}, Case{1, INT64_MAX, 5}, Case{1, 100, 0}, Case{3, 1'000'000'000, 4}}) {
    int64_t sub_bucket_count;
    const int64_t expected = JavaCountsArrayLength(c.lowest, c.highest, c.digits, &sub_bucket_count);
    Histogram x = Make(c.lowest, c.highest, c.digits);
    EXPECT_EQ(x.counts_array_length(), expected) << c.lowest << " " << c.highest << " " << c.digits;
    EXPECT_EQ(x.sub_bucket_count(), sub_bucket_count);
  }
  // HdrHistogram_c's own test figure for 1 h in us at 3 digits.
  EXPECT_EQ(Make(1, 3'600'000'000, 3).counts_array_length(), 23552);
  EXPECT_EQ(Make(1000, 3'600'000'000'000, 3).unit_magnitude(), 9);
}

TEST(HdrHistogram, RejectsInvalidOptions) {
  EXPECT_FALSE(Histogram::Create({0, 1000, 3}).ok());
  EXPECT_FALSE(Histogram::Create({1, 1, 3}).ok());
  EXPECT_FALSE(Histogram::Create({1, 1000, 6}).ok());
  EXPECT_FALSE(Histogram::Create({1, 1000, -1}).ok());
  EXPECT_FALSE(Histogram::Create({int64_t{1} << 60, INT64_MAX, 3}).ok());
  EXPECT_TRUE(Histogram::Create({1, 2, 0}).ok());
}

TEST(HdrHistogram, ValuesLandInBucketsWithinThreeDigits) {
  std::printf("seed=%llu\n", static_cast<unsigned long long>(kSeed));
  std::mt19937_64 rng(kSeed);
  std::uniform_real_distribution<double> exponent(0.0, 12.5);
  Histogram h;
  for (int i = 0; i < 20000; ++i) {
    const int64_t v = static_cast<int64_t>(std::pow(10.0, exponent(rng)));
    const int32_t index = h.CountsArrayIndex(v);
    ASSERT_GE(index, 0);
    ASSERT_LT(index, h.counts_array_length());
    const int64_t lo = h.ValueFromIndex(index);
    const int64_t hi = h.HighestEquivalentValue(v);
    ASSERT_EQ(lo, h.LowestEquivalentValue(v)) << v;
    ASSERT_LE(lo, v);
    ASSERT_GE(hi, v);
    // The whole bucket is within 0.1% of any value in it (exact below 2048).
    ASSERT_LE(hi - lo + 1, std::max<int64_t>(1, v / 1000)) << v;
    ASSERT_EQ(h.CountsArrayIndex(hi), index);
    if (index + 1 < h.counts_array_length()) {
      ASSERT_EQ(h.ValueFromIndex(index + 1), hi + 1) << v;
    }
    h.Record(v);
    ASSERT_EQ(h.CountAtIndex(index) > 0, true);
  }
  EXPECT_EQ(h.total_count(), 20000);
}

TEST(HdrHistogram, PercentilesOfOneToAMillion) {
  Histogram h;
  for (int64_t v = 1; v <= 1'000'000; ++v) h.Record(v);
  const int64_t p50 = h.ValueAtPercentile(50);
  EXPECT_NEAR(static_cast<double>(p50), 500000.0, 500.0);
  // The 500000th value's bucket is [499968, 500223]: HdrHistogram reports its top.
  EXPECT_EQ(p50, 500223);
  EXPECT_EQ(h.ValueAtPercentile(99.9), 999423);
  EXPECT_NEAR(static_cast<double>(h.ValueAtPercentile(90)), 900000.0, 900.0);
  EXPECT_EQ(h.ValueAtPercentile(0), 1);
  EXPECT_EQ(h.ValueAtPercentile(100), 1000447);
  EXPECT_EQ(h.Max(), 1000447);
  EXPECT_EQ(h.Min(), 1);
  EXPECT_NEAR(h.Mean(), 500000.5, 500.0);
  // Uniform on [1, N]: stddev = N / sqrt(12).
  EXPECT_NEAR(h.StdDev(), 1e6 / std::sqrt(12.0), 300.0);
}

TEST(HdrHistogram, PercentileStepsOneUlpDownLikeHdrHistogram) {
  Histogram h;
  for (int64_t v = 1; v <= 1000; ++v) h.Record(v);
  // 99.9% of 1000 is the 999th value; without HdrHistogram's nextAfter the
  // floating product rounds up to 1000.
  EXPECT_EQ(h.ValueAtPercentile(99.9), 999);
  EXPECT_EQ(h.ValueAtPercentile(50), 500);
  EXPECT_EQ(h.ValueAtPercentile(0.05), 1);
}

TEST(HdrHistogram, HdrHistogramTestSuiteFigures) {
  // AbstractHistogram tests: 10000 x 1000 plus one 100000000.
  Histogram h = Make(1, 3'600'000'000, 3);
  h.RecordValues(1000, 10000);
  h.Record(100'000'000);
  EXPECT_EQ(h.ValueAtPercentile(30), 1000);
  EXPECT_EQ(h.ValueAtPercentile(99.99), 1000);
  EXPECT_EQ(h.ValueAtPercentile(99.999), 100'007'935);
  EXPECT_EQ(h.ValueAtPercentile(100), 100'007'935);
  EXPECT_NEAR(h.Mean(), (1000.0 * 10000 + 100'000'000.0) / 10001, 100'000'000.0 / 10001 * 0.001);
}

TEST(HdrHistogram, EmptyHistogramQueriesAreZero) {
  Histogram h;
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.Min(), 0);
  EXPECT_EQ(h.Max(), 0);
  EXPECT_EQ(h.Mean(), 0.0);
  EXPECT_EQ(h.StdDev(), 0.0);
  EXPECT_EQ(h.ValueAtPercentile(99), 0);
  EXPECT_EQ(h.MaxNonZeroIndex(), -1);
}

TEST(HdrHistogram, ClampsOutOfRangeValuesAndCountsThem) {
  Histogram h = Make(1, 1'000'000, 3);
  h.Record(5'000'000);
  h.Record(-7);
  h.Record(10);
  EXPECT_EQ(h.total_count(), 3);
  EXPECT_EQ(h.clamped_above(), 1);
  EXPECT_EQ(h.clamped_below(), 1);
  EXPECT_EQ(h.CountAtIndex(h.CountsArrayIndex(1'000'000)), 1);
  EXPECT_EQ(h.CountAtIndex(0), 1);
  EXPECT_EQ(h.Max(), h.HighestEquivalentValue(1'000'000));
  EXPECT_EQ(h.Min(), 0);
}

TEST(HdrHistogram, RecordDoesNotAllocate) {
  Histogram h;
  const CounterTotals before = ThisThreadTotals();
  for (int64_t v = 1; v < 1'000'000'000; v = v * 3 + 1) h.Record(v);
  const CounterTotals after = ThisThreadTotals();
  ASSERT_TRUE(AllocationCountingActive());
  EXPECT_EQ(after.allocs - before.allocs, 0u);
  EXPECT_GT(h.total_count(), 10);
}

TEST(HdrHistogram, MergeEqualsOneHistogramHoldingBoth) {
  std::printf("seed=%llu\n", static_cast<unsigned long long>(kSeed + 1));
  std::mt19937_64 rng(kSeed + 1);
  std::lognormal_distribution<double> latency(11.0, 1.5);  // ~60 us median, long tail.
  Histogram a, b, both;
  for (int i = 0; i < 50000; ++i) {
    const int64_t v = static_cast<int64_t>(latency(rng));
    (i % 3 == 0 ? a : b).Record(v);
    both.Record(v);
  }
  Histogram merged = a;
  merged.Add(b);
  ASSERT_EQ(merged.counts_array_length(), both.counts_array_length());
  for (int32_t i = 0; i < both.counts_array_length(); ++i) {
    ASSERT_EQ(merged.CountAtIndex(i), both.CountAtIndex(i)) << i;
  }
  EXPECT_EQ(merged.total_count(), both.total_count());
  EXPECT_EQ(merged.Min(), both.Min());
  EXPECT_EQ(merged.Max(), both.Max());
  EXPECT_DOUBLE_EQ(merged.Mean(), both.Mean());
  for (double p : {50.0, 90.0, 99.0, 99.9, 99.99}) {
    EXPECT_EQ(merged.ValueAtPercentile(p), both.ValueAtPercentile(p)) << p;
  }
}

TEST(HdrHistogram, AddAcrossLayoutsKeepsCountsAndPrecision) {
  Histogram small = Make(1, 10'000'000, 3);
  for (int64_t v = 100; v <= 1'000'000; v += 7) small.Record(v);
  Histogram big;
  big.Add(small);
  EXPECT_EQ(big.total_count(), small.total_count());
  for (double p : {1.0, 50.0, 99.0}) {
    EXPECT_NEAR(static_cast<double>(big.ValueAtPercentile(p)), static_cast<double>(small.ValueAtPercentile(p)),
                small.ValueAtPercentile(p) * 0.001);
  }
}

TEST(HdrHistogram, ResetForgetsEverything) {
  Histogram h;
  h.Record(12345);
  h.Record(INT64_MAX);
  h.Reset();
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.clamped_above(), 0);
  EXPECT_EQ(h.MaxNonZeroIndex(), -1);
  EXPECT_EQ(h.Max(), 0);
}

TEST(HdrPercentileDistribution, WalksToOneHundredPercent) {
  Histogram h;
  for (int64_t v = 1; v <= 10000; ++v) h.Record(v * 1000);
  const std::vector<PercentilePoint> points = PercentileDistribution(h, 5);
  ASSERT_GT(points.size(), 20u);
  EXPECT_EQ(points.front().percentile, 0.0);
  EXPECT_EQ(points.front().value, h.HighestEquivalentValue(1000));
  EXPECT_EQ(points.back().percentile, 100.0);
  EXPECT_EQ(points.back().value, h.Max());
  EXPECT_EQ(points.back().count_to_value, 10000);
  // HdrHistogram's first steps with 5 ticks per half distance: 0, 10, 20, 30, 40, 50, 55, 60 ...
  ASSERT_GE(points.size(), 8u);
  const double expected[] = {0, 10, 20, 30, 40, 50, 55, 60};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(points[i].percentile, expected[i], 1e-9) << i;
  for (size_t i = 1; i < points.size(); ++i) {
    EXPECT_GE(points[i].value, points[i - 1].value);
    EXPECT_GE(points[i].percentile, points[i - 1].percentile);
    // The value reported for a level holds at least that share of the count.
    EXPECT_GE(100.0 * points[i].count_to_value / 10000.0, points[i].percentile - 1e-9);
  }
}

TEST(HdrPercentileDistribution, FormatsLikeOutputPercentileDistribution) {
  Histogram h;
  h.RecordValues(1000, 3);
  h.Record(2000);
  const std::string text = FormatPercentileDistribution(h, {.value_unit_scaling_ratio = 1000.0});
  const std::string expected_head = "       Value     Percentile TotalCount 1/(1-Percentile)\n\n";
  ASSERT_EQ(text.substr(0, expected_head.size()), expected_head);
  // First point: 1000 ns = 1.000 us at percentile 0.
  EXPECT_NE(text.find("       1.000 0.000000000000          3           1.00\n"), std::string::npos) << text;
  // The 100% line has no 1/(1-p) column.
  EXPECT_NE(text.find("       2.000 1.000000000000          4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#[Mean    =        1.250, StdDeviation   =        0.433]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#[Max     =        2.000, Total count    =            4]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#[Buckets =           32, SubBuckets     =         2048]\n"), std::string::npos) << text;
  const std::string csv = FormatPercentileDistribution(h, {.csv = true});
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "\"Value\",\"Percentile\",\"TotalCount\",\"1/(1-Percentile)\"");
  EXPECT_NE(csv.find("2000.000,1.000000000000,4,Infinity\n"), std::string::npos) << csv;
}

TEST(HdrIntervalRecorder, TakesIntervalsWithoutAllocatingAndKeepsTotal) {
  StatusOr<IntervalRecorder> made = IntervalRecorder::Create({}, 1'000);
  ASSERT_TRUE(made.ok());
  IntervalRecorder rec = std::move(made).value();
  RecordedInterval interval;
  rec.Record(100);
  rec.Record(200);
  rec.TakeInterval(2'000, &interval);
  EXPECT_EQ(interval.start_ns, 1'000);
  EXPECT_EQ(interval.end_ns, 2'000);
  EXPECT_EQ(interval.histogram.total_count(), 2);
  EXPECT_EQ(rec.current().total_count(), 0);
  EXPECT_EQ(rec.current_start_ns(), 2'000);

  rec.Record(300);
  const CounterTotals before = ThisThreadTotals();
  rec.TakeInterval(3'000, &interval);  // Recycles the previous interval's histogram.
  const CounterTotals after = ThisThreadTotals();
  EXPECT_EQ(after.allocs - before.allocs, 0u);
  EXPECT_EQ(interval.histogram.total_count(), 1);
  EXPECT_EQ(interval.histogram.Max(), 300);
  EXPECT_EQ(interval.start_ns, 2'000);
  EXPECT_EQ(rec.total().total_count(), 3);
  EXPECT_EQ(rec.total().Max(), 300);
  EXPECT_EQ(rec.total().Min(), 100);
}

}  // namespace
}  // namespace wirebench::hdr
