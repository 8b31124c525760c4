// The latency figures YCSB prints for one operation type, computed from a
// nanosecond Histogram, and formatted as YCSB's OneMeasurementHdrHistogram
// and TextMeasurementsExporter print them:
//
//   [READ], Operations, 1000
//   [READ], AverageLatency(us), 412.7
//   [READ], MinLatency(us), 201
//   [READ], MaxLatency(us), 9871
//   [READ], 95thPercentileLatency(us), 655
//   [READ], 99.9PercentileLatency(us), 2011
//
// YCSB records whole microseconds ((end - start) / 1000 in ns) into an
// HdrHistogram; from a nanosecond histogram the integer figures are the
// nanosecond query divided by 1000 with truncation, and the average is the
// mean of each sample's whole microseconds (each bucket's median value
// truncated to us, as YCSB truncates each sample), printed as Java prints a
// double (Double.toString). Note that
// YCSB names a fractional percentile without "th": 99.9 -> "99.9", exactly as
// its ordinal() does; whole ones get English ordinals (1st, 2nd, 50th, 11th).
// Also YCSB's status-thread summary "[READ: Count=.., Max=.., ...]".
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hdr/histogram.h"
#include "common/status.h"

namespace wirebench::hdr {

// YCSB's hdrhistogram.percentiles default.
inline constexpr std::string_view kYcsbDefaultPercentiles = "50,95,99";

struct YcsbLatencySummary {
  int64_t operations = 0;
  double average_us = 0;
  int64_t min_us = 0;
  int64_t max_us = 0;
  // (percentile, value in us), in the order asked for.
  std::vector<std::pair<double, int64_t>> percentiles_us;
};

// From a nanosecond histogram, what YCSB's OneMeasurementHdrHistogram
// (HdrHistogram 2.1.12 over whole microseconds) reports: percentiles ranked
// as getValueAtPercentile ranks them (one ulp down, the count rounded up),
// each figure then placed in YCSB's microsecond buckets (YcsbHdrUs), the
// average over those buckets' medians (YcsbHdrMeanUs).
YcsbLatencySummary SummarizeForYcsb(const Histogram& histogram_ns, const std::vector<double>& percentiles);

// A whole-microsecond value as YCSB's HdrHistogram reports it: exact below
// 2048 us; above, the highest (`lowest`: the lowest) value of its bucket,
// buckets 2 us wide to 4095 us, 4 us to 8191 us, and so on (a 2500 us
// sample is reported as 2501, as highestEquivalentValue gives it).
int64_t YcsbHdrUs(int64_t us, bool lowest);
// getMean on YCSB's microsecond histogram: each sample's whole
// microseconds, taken as the median of its microsecond bucket (2500 -> 2501).
double YcsbHdrMeanUs(const Histogram& histogram_ns);

// The mean of the samples' whole microseconds (YCSB's (int) (ns / 1000) per
// sample): about 0.5 us below Mean() / 1000. 0 when empty.
double MeanOfWholeMicros(const Histogram& histogram_ns);

// YCSB's measurementtype=histogram (OneMeasurementHistogram) figures: whole
// microseconds per sample, counted in 1 ms buckets up to `buckets` ms.
struct YcsbMsHistogram {
  int64_t operations = 0;
  double average_us = 0;   // NaN when empty, as YCSB's 0 / 0.0.
  double variance_us = 0;  // E[x^2] - E[x]^2 in us^2 (YCSB's "LatencyVariance(us)").
  int64_t min_us = -1;     // -1 when empty, as YCSB's.
  int64_t max_us = -1;
  std::vector<int64_t> buckets;  // Operations whose latency is in [i ms, i+1 ms).
  int64_t overflow = 0;          // At or past `buckets` ms.
  // YCSB's 95th and 99th percentile lines: the first bucket (in us, i * 1000)
  // where the cumulative share reaches 0.95 / 0.99; -1 when never reached.
  int64_t p95_us = -1;
  int64_t p99_us = -1;
};
YcsbMsHistogram ToYcsbMsHistogram(const Histogram& histogram_ns, int64_t buckets);

// YCSB's ordinal(): 50 -> "50th", 1 -> "1st", 22 -> "22nd", 13 -> "13th",
// 99.9 -> "99.9" (Java's Double.toString, no suffix).
std::string YcsbPercentileName(double percentile);
// "<name>PercentileLatency(us)".
std::string YcsbPercentileMetric(double percentile);

// Parses YCSB's hdrhistogram.percentiles value ("50,95,99,99.9").
// Each must be a number in [0, 100].
[[nodiscard]] StatusOr<std::vector<double>> ParseYcsbPercentiles(std::string_view list);

// The exporter lines, without line ends, in YCSB's order: Operations,
// AverageLatency(us), MinLatency(us), MaxLatency(us), then the percentiles.
std::vector<std::string> FormatYcsbLatencyLines(std::string_view section, const YcsbLatencySummary& summary);

// YCSB's status-line fragment for one interval histogram:
// "[READ: Count=10, Max=12, Min=1, Avg=3.5, 50=3, 90=9, 99=12, 99.9=12, 99.99=12]"
// (values in us; Avg and percentiles with DecimalFormat("#.##")).
std::string FormatYcsbStatusSummary(std::string_view name, const Histogram& interval_ns);

// The status-line fragment of YCSB's OneMeasurementHistogram and
// OneMeasurementTimeSeries (measurementtype histogram, timeseries, and the
// Bucket half of hdrhistogram+histogram): "[READ AverageLatency(us)=0.1]",
// the mean of the interval's whole microseconds as DecimalFormat("#.##");
// "" for an interval without operations.
std::string FormatYcsbAverageStatusSummary(std::string_view name, const Histogram& interval_ns);
// OneMeasurementRaw's (raw, and the Raw half of hdrhistogram+raw):
// "READ count: 491, average latency(us): 0.14" (String.format's %.2f); ""
// for an interval without operations.
std::string FormatYcsbRawStatusSummary(std::string_view name, const Histogram& interval_ns);

// Java's String.format("%.2f", d): the shortest round-trip digits rounded
// HALF_UP to two decimals (0.125 -> "0.13", 0.145 -> "0.15", 2.0 -> "2.00").
std::string JavaFormatFixed2(double d);

// Java's DecimalFormat("#.##") as YCSB's status line uses it: at most two
// decimals, HALF_EVEN on the exact binary value, no trailing zeros
// (2.750375 -> "2.75", 2.0 -> "2", 0.125 -> "0.12").
std::string YcsbDecimalFormat(double d);

// Java's Double.toString for finite values: the shortest digits that round-
// trip, decimal notation for 1e-3 <= |d| < 1e7 ("412.7", "0.0", "100.0"),
// otherwise "1.2345E7". "NaN", "Infinity", "-Infinity" otherwise.
std::string JavaDoubleToString(double d);

}  // namespace wirebench::hdr
