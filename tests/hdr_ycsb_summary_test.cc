// Tests for the YCSB latency-summary helpers: percentile names as YCSB's
// ordinal() spells them, Java number formatting, the exporter lines and the
// status-line fragment.
#include "hdr/ycsb_summary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <utility>

namespace wirebench::hdr {
namespace {

// Each case: a number and the text it must become.
struct Spelled {
  double value;
  const char* text;
};

template <typename Fn>
void ExpectSpellings(Fn spell, std::initializer_list<Spelled> cases) {
  for (const Spelled& c : cases) EXPECT_EQ(spell(c.value), c.text) << "of " << c.value;
}

TEST(HdrYcsbSummary, PercentileNamesFollowYcsbOrdinal) {
  ExpectSpellings(YcsbPercentileName, {
      {50, "50th"},
      {95, "95th"},
      {99, "99th"},
      {1, "1st"},
      {2, "2nd"},
      {3, "3rd"},
      {11, "11th"},
      {12, "12th"},
      {13, "13th"},
      {21, "21st"},
      {100, "100th"},
      // YCSB prints a fractional percentile with Double.toString and no suffix.
      {99.9, "99.9"},
      {99.99, "99.99"},
  });
  ExpectSpellings(YcsbPercentileMetric, {
      {95, "95thPercentileLatency(us)"},
      {99.9, "99.9PercentileLatency(us)"},
  });
}

TEST(HdrYcsbSummary, JavaDoubleToString) {
  ExpectSpellings(JavaDoubleToString, {
      {0.0, "0.0"},
      {100.0, "100.0"},
      {412.7, "412.7"},
      {2.750375, "2.750375"},
      {0.001, "0.001"},
      {0.0001, "1.0E-4"},
      {1e7, "1.0E7"},
      {12345678.9, "1.23456789E7"},
      {9999999.5, "9999999.5"},
      {-3.25, "-3.25"},
      {1.0 / 3, "0.3333333333333333"},
  });
}

TEST(HdrYcsbSummary, DecimalFormatTwoPlacesRoundsHalfEven) {
  ExpectSpellings(YcsbDecimalFormat, {
      {2.750375, "2.75"},
      {2.0, "2"},
      {0.125, "0.12"},
      {0.135, "0.14"},
      {2.999, "3"},
      {0.004, "0"},
      {2.675, "2.67"},  // 2.67499999... in binary.
      {99.996, "100"},
      {1234567.891, "1234567.89"},
  });
}

Histogram EightOps() {
  Histogram h;
  h.RecordValues(2000, 5);  // 2 us, exact bucket.
  h.RecordValues(4000, 3);  // Bucket [4000, 4001]: median 4001, top 4001.
  return h;
}

TEST(HdrYcsbSummary, ExporterLinesMatchYcsb) {
  StatusOr<std::vector<double>> percentiles = ParseYcsbPercentiles("50,95,99.9");
  ASSERT_TRUE(percentiles.ok());
  const YcsbLatencySummary s = SummarizeForYcsb(EightOps(), *percentiles);
  EXPECT_EQ(s.operations, 8);
  // YCSB records each sample's whole microseconds: (5 * 2 + 3 * 4) / 8, not
  // the nanosecond mean / 1000 (2.750375).
  EXPECT_DOUBLE_EQ(s.average_us, (5 * 2 + 3 * 4) / 8.0);
  const std::vector<std::string> lines = FormatYcsbLatencyLines("READ", s);
  const std::vector<std::string> expected = {
      "[READ], Operations, 8",
      "[READ], AverageLatency(us), 2.75",
      "[READ], MinLatency(us), 2",
      "[READ], MaxLatency(us), 4",
      "[READ], 50thPercentileLatency(us), 2",
      "[READ], 95thPercentileLatency(us), 4",
      "[READ], 99.9PercentileLatency(us), 4",
  };
  EXPECT_EQ(lines, expected);
}

// YCSB's microsecond bucket of `us` (HdrHistogram, lowest 1, 3 digits):
// its lowest and highest values, written out from the layout's rule
// (exact below 2048, then 2^(floor(log2 us) - 10) us wide).
std::pair<int64_t, int64_t> YcsbBucket(int64_t us) {
  if (us < 2048) return {us, us};
  const int64_t width = int64_t(1) << (63 - __builtin_clzll(uint64_t(us)) - 10);
  return {us / width * width, us / width * width + width - 1};
}

// YCSB master pins HdrHistogram 2.1.12, whose
// getValueAtPercentile ranks as wirebench does (one ulp below the
// percentile, the count rounded up; 2.1.4 rounded to nearest), and its
// histogram holds whole microseconds, bucketed 2, 4, 8 ... us wide above
// 2048 us: a percentile or maximum is the highest value of its bucket (a
// 2.5 ms sample is 2501), the minimum the lowest, the mean over the
// buckets' medians. From wirebench's nanosecond histogram (buckets about as
// wide there) a percentile or maximum is in YCSB's bucket or one of the next
// two (never below), the minimum in YCSB's or one of the two before.
TEST(HdrYcsbSummary, FiguresFallInYcsbsMicrosecondBuckets) {
  Histogram ten;  // 1 .. 10 us.
  for (int64_t us = 1; us <= 10; ++us) ten.Record(us * 1000);
  const YcsbLatencySummary r = SummarizeForYcsb(ten, {90, 94, 95});
  EXPECT_EQ(r.percentiles_us[0].second, 9);
  EXPECT_EQ(r.percentiles_us[1].second, 10);  // ceil(9.4): 2.1.4's round-to-nearest gave 9.
  EXPECT_EQ(r.percentiles_us[2].second, 10);

  Histogram h;
  h.Record(2'500'000);
  YcsbLatencySummary s = SummarizeForYcsb(h, {50, 100});
  EXPECT_EQ(s.max_us, 2501);  // YCSB: highestEquivalentValue(2500) in its 2-us bucket.
  EXPECT_EQ(s.percentiles_us[0].second, 2501);
  EXPECT_EQ(s.percentiles_us[1].second, 2501);
  EXPECT_EQ(FormatYcsbStatusSummary("READ", h).substr(0, 26), "[READ: Count=1, Max=2501, ");

  for (double ns = 1000; ns < 2e8; ns *= 1.0031) {
    SCOPED_TRACE(int64_t(ns));
    Histogram one;
    one.Record(int64_t(ns));
    s = SummarizeForYcsb(one, {50});
    const auto [low, high] = YcsbBucket(int64_t(ns) / 1000);  // YCSB's figures.
    const auto next = YcsbBucket(YcsbBucket(high + 1).second + 1);  // Two buckets up.
    const auto previous =
        YcsbBucket(std::max<int64_t>(YcsbBucket(std::max<int64_t>(low - 1, 0)).first - 1, 0));
    EXPECT_EQ(YcsbBucket(s.max_us).second, s.max_us);  // A value YCSB can print.
    EXPECT_EQ(s.percentiles_us[0].second, s.max_us);
    EXPECT_GE(s.max_us, high);
    EXPECT_LE(s.max_us, next.second);
    EXPECT_EQ(YcsbBucket(s.min_us).first, s.min_us);
    EXPECT_LE(s.min_us, low);
    EXPECT_GE(s.min_us, previous.first);
    const double ycsb_mean = double(low + (high - low + 1) / 2);
    EXPECT_LE(std::fabs(s.average_us - ycsb_mean), double(next.second - low)) << s.average_us;
  }
}

// 1999 ns is 1 us to YCSB, so the mean of 999 ns and
// 1999 ns samples is 0.5, where the nanosecond mean gives 1.499.
TEST(HdrYcsbSummary, AverageIsTheMeanOfWholeMicroseconds) {
  Histogram h;
  h.Record(999);
  h.Record(1999);
  EXPECT_DOUBLE_EQ(MeanOfWholeMicros(h), 0.5);
  EXPECT_DOUBLE_EQ(MeanOfWholeMicros(Histogram()), 0.0);
}

// measurementtype=histogram: OneMeasurementHistogram's figures from whole
// microseconds in 1 ms buckets.
TEST(HdrYcsbSummary, MsHistogramMatchesOneMeasurementHistogram) {
  Histogram h;
  for (int i = 0; i < 90; ++i) h.Record(512'000);   // 512 us: bucket 0.
  for (int i = 0; i < 6; ++i) h.Record(1'536'000);  // 1536 us: bucket 1.
  for (int i = 0; i < 3; ++i) h.Record(2'097'152);  // 2097 us: bucket 2.
  h.Record(9'000'000);                              // 9 ms: past the 3 buckets.
  const YcsbMsHistogram m = ToYcsbMsHistogram(h, 3);
  EXPECT_EQ(m.operations, 100);
  EXPECT_EQ(m.buckets, (std::vector<int64_t>{90, 6, 3}));
  EXPECT_EQ(m.overflow, 1);
  // Each bucket's median in whole us: 512, 1536, 2098 and 8998.
  EXPECT_DOUBLE_EQ(m.average_us, (90 * 512 + 6 * 1536 + 3 * 2098 + 8998) / 100.0);
  const double mean = m.average_us;
  EXPECT_DOUBLE_EQ(m.variance_us, (90 * 512.0 * 512 + 6 * 1536.0 * 1536 + 3 * 2098.0 * 2098 +
                                   8998.0 * 8998) / 100 - mean * mean);
  EXPECT_EQ(m.min_us, 512);
  EXPECT_EQ(m.max_us, h.Max() / 1000);
  EXPECT_EQ(m.p95_us, 1000);  // 96% by the end of bucket 1.
  EXPECT_EQ(m.p99_us, 2000);  // 99% by the end of bucket 2.
  const YcsbMsHistogram empty = ToYcsbMsHistogram(Histogram(), 3);
  EXPECT_TRUE(std::isnan(empty.average_us));  // YCSB divides 0 by 0.0.
  EXPECT_EQ(empty.min_us, -1);
  EXPECT_EQ(empty.p95_us, -1);
}

TEST(HdrYcsbSummary, StatusSummaryMatchesYcsb) {
  EXPECT_EQ(FormatYcsbStatusSummary("READ", EightOps()),
            "[READ: Count=8, Max=4, Min=2, Avg=2.75, 50=2, 90=4, 99=4, 99.9=4, 99.99=4]");
  EXPECT_EQ(FormatYcsbStatusSummary("INSERT", Histogram()),
            "[INSERT: Count=0, Max=0, Min=0, Avg=0, 50=0, 90=0, 99=0, 99.9=0, 99.99=0]");
}

// The status-line fragments of YCSB's other measurement
// types. OneMeasurementHistogram and OneMeasurementTimeSeries: "[READ
// AverageLatency(us)=<#.##>]"; OneMeasurementRaw: "READ count: N, average
// latency(us): <%.2f>"; both "" for an interval without operations.
TEST(HdrYcsbSummary, AverageAndRawStatusSummariesMatchYcsb) {
  EXPECT_EQ(FormatYcsbAverageStatusSummary("READ", EightOps()), "[READ AverageLatency(us)=2.75]");
  EXPECT_EQ(FormatYcsbAverageStatusSummary("READ", Histogram()), "");
  EXPECT_EQ(FormatYcsbRawStatusSummary("READ", EightOps()), "READ count: 8, average latency(us): 2.75");
  EXPECT_EQ(FormatYcsbRawStatusSummary("UPDATE", Histogram()), "");
  Histogram three;  // 0, 0 and 1 whole us: 0.333...
  three.RecordValues(500, 2);
  three.Record(1500);
  EXPECT_EQ(FormatYcsbAverageStatusSummary("READ", three), "[READ AverageLatency(us)=0.33]");
  EXPECT_EQ(FormatYcsbRawStatusSummary("READ", three), "READ count: 3, average latency(us): 0.33");
  Histogram eight;  // 1 us once, 0 us seven times: 0.125.
  eight.RecordValues(100, 7);
  eight.Record(1000);
  // DecimalFormat rounds HALF_EVEN, String.format HALF_UP.
  EXPECT_EQ(FormatYcsbAverageStatusSummary("READ", eight), "[READ AverageLatency(us)=0.12]");
  EXPECT_EQ(FormatYcsbRawStatusSummary("READ", eight), "READ count: 8, average latency(us): 0.13");
}

// Java's String.format("%.2f"): HALF_UP on the shortest decimal digits.
TEST(HdrYcsbSummary, JavaFixedTwoDecimals) {
  EXPECT_EQ(JavaFormatFixed2(0), "0.00");
  EXPECT_EQ(JavaFormatFixed2(2), "2.00");
  EXPECT_EQ(JavaFormatFixed2(0.125), "0.13");
  EXPECT_EQ(JavaFormatFixed2(0.145), "0.15");  // The double is 0.14499999...: printf says 0.14.
  EXPECT_EQ(JavaFormatFixed2(0.004), "0.00");
  EXPECT_EQ(JavaFormatFixed2(0.005), "0.01");
  EXPECT_EQ(JavaFormatFixed2(0.0001), "0.00");
  EXPECT_EQ(JavaFormatFixed2(9.995), "10.00");
  EXPECT_EQ(JavaFormatFixed2(99.999), "100.00");
  EXPECT_EQ(JavaFormatFixed2(1234567.891), "1234567.89");
  EXPECT_EQ(JavaFormatFixed2(-1.5), "-1.50");
}

TEST(HdrYcsbSummary, ParsesPercentileLists) {
  StatusOr<std::vector<double>> d = ParseYcsbPercentiles(kYcsbDefaultPercentiles);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, (std::vector<double>{50, 95, 99}));
  StatusOr<std::vector<double>> spaced = ParseYcsbPercentiles("90, 99.99");
  ASSERT_TRUE(spaced.ok());
  EXPECT_EQ(*spaced, (std::vector<double>{90, 99.99}));
  EXPECT_FALSE(ParseYcsbPercentiles("50,abc").ok());
  EXPECT_FALSE(ParseYcsbPercentiles("101").ok());
  EXPECT_FALSE(ParseYcsbPercentiles("50,,99").ok());
  EXPECT_FALSE(ParseYcsbPercentiles("").ok());
}

}  // namespace
}  // namespace wirebench::hdr
