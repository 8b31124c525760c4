#include "hdr/percentile_distribution.h"

#include <algorithm>
#include <cassert>
#include <cstdarg>
#include <cmath>
#include <cstdio>

namespace wirebench::hdr {

std::vector<PercentilePoint> PercentileDistribution(const Histogram& h, int ticks_per_half_distance) {
  assert(ticks_per_half_distance >= 1);
  std::vector<PercentilePoint> points;
  const int64_t total = h.total_count();
  if (total == 0) return points;
  // A transcription of PercentileIterator over AbstractHistogramIterator.
  const int32_t length = h.counts_array_length();
  int32_t index = 0;
  bool fresh_sub_bucket = true;
  int64_t count_to_index = 0;
  double level_to_iterate_to = 0.0;
  bool reached_last_recorded_value = false;
  while (true) {
    // hasNext()
    if (count_to_index >= total) {
      if (reached_last_recorded_value) break;
      level_to_iterate_to = 100.0;
      reached_last_recorded_value = true;
    }
    // next()
    bool found = false;
    while (index < length) {
      const int64_t count_here = h.CountAtIndex(index);
      if (fresh_sub_bucket) {
        count_to_index += count_here;
        fresh_sub_bucket = false;
      }
      const double current = (100.0 * static_cast<double>(count_to_index)) / static_cast<double>(total);
      if (count_here != 0 && current >= level_to_iterate_to) {
        points.push_back({h.HighestEquivalentValue(h.ValueFromIndex(index)), level_to_iterate_to,
                          count_to_index});
        found = true;
        break;
      }
      fresh_sub_bucket = true;
      ++index;
    }
    if (!found || level_to_iterate_to >= 100.0) break;
    // incrementIterationLevel()
    const int64_t halvings =
        static_cast<int64_t>(std::log(100.0 / (100.0 - level_to_iterate_to)) / std::log(2.0));
    const double ticks = ticks_per_half_distance * std::pow(2.0, static_cast<double>(halvings + 1));
    level_to_iterate_to += 100.0 / ticks;
  }
  return points;
}

namespace {

void AppendF(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void AppendF(std::string* out, const char* fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n > 0) out->append(buf, static_cast<size_t>(std::min<int>(n, sizeof(buf) - 1)));
}

}  // namespace

std::string FormatPercentileDistribution(const Histogram& h, const PercentileDistributionFormat& f) {
  std::string out;
  const int digits = h.significant_digits();
  const double ratio = f.value_unit_scaling_ratio;
  if (f.csv) {
    out += "\"Value\",\"Percentile\",\"TotalCount\",\"1/(1-Percentile)\"\n";
  } else {
    AppendF(&out, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");
  }
  for (const PercentilePoint& p : PercentileDistribution(h, f.ticks_per_half_distance)) {
    const double value = static_cast<double>(p.value) / ratio;
    const double fraction = p.percentile / 100.0;
    const long long count = static_cast<long long>(p.count_to_value);
    if (p.percentile != 100.0) {
      if (f.csv) {
        AppendF(&out, "%.*f,%.12f,%lld,%.2f\n", digits, value, fraction, count, 1.0 / (1.0 - fraction));
      } else {
        AppendF(&out, "%12.*f %2.12f %10lld %14.2f\n", digits, value, fraction, count,
                1.0 / (1.0 - fraction));
      }
    } else if (f.csv) {
      AppendF(&out, "%.*f,%.12f,%lld,Infinity\n", digits, value, fraction, count);
    } else {
      AppendF(&out, "%12.*f %2.12f %10lld\n", digits, value, fraction, count);
    }
  }
  if (!f.csv) {
    AppendF(&out, "#[Mean    = %12.*f, StdDeviation   = %12.*f]\n", digits, h.Mean() / ratio, digits,
            h.StdDev() / ratio);
    AppendF(&out, "#[Max     = %12.*f, Total count    = %12lld]\n", digits,
            static_cast<double>(h.Max()) / ratio, static_cast<long long>(h.total_count()));
    AppendF(&out, "#[Buckets = %12d, SubBuckets     = %12d]\n", h.bucket_count(), h.sub_bucket_count());
  }
  return out;
}

}  // namespace wirebench::hdr
