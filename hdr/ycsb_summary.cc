#include "hdr/ycsb_summary.h"

#include "common/str_cat.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace wirebench::hdr {

namespace {

// |d| = digits[0].digits[1..] x 10^exponent, digits the shortest that round-trip.
struct Decimal {
  bool negative = false;
  std::string digits;
  int exponent = 0;
};

// REQUIRES: d finite and non-zero.
Decimal ShortestDecimal(double d) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), std::fabs(d), std::chars_format::scientific);
  (void)ec;
  std::string_view s(buf, static_cast<size_t>(end - buf));  // "4.127e+02"
  Decimal out;
  out.negative = std::signbit(d);
  const size_t e = s.find('e');
  for (char c : s.substr(0, e)) {
    if (c != '.') out.digits += c;
  }
  out.exponent = std::atoi(std::string(s.substr(e + 1)).c_str());
  while (out.digits.size() > 1 && out.digits.back() == '0') out.digits.pop_back();
  return out;
}

}  // namespace

std::string YcsbDecimalFormat(double d) {
  if (!std::isfinite(d)) return JavaDoubleToString(d);
  // Java 8+ rounds HALF_EVEN on the double's exact binary value, which is
  // what printf's correctly rounded conversion does.
  char buf[512];
  std::snprintf(buf, sizeof(buf), "%.2f", d);
  std::string out(buf);
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out;
}

std::string JavaDoubleToString(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  const Decimal dec = ShortestDecimal(d);
  std::string out = dec.negative ? "-" : "";
  const double mag = std::fabs(d);
  if (mag >= 1e-3 && mag < 1e7) {
    if (dec.exponent >= 0) {
      std::string int_part = dec.digits.substr(0, std::min(dec.digits.size(), size_t(dec.exponent) + 1));
      int_part.append(static_cast<size_t>(dec.exponent) + 1 - int_part.size(), '0');
      std::string frac = dec.digits.size() > int_part.size() ? dec.digits.substr(int_part.size()) : "0";
      out += int_part + "." + frac;
    } else {
      out += "0." + std::string(static_cast<size_t>(-dec.exponent - 1), '0') + dec.digits;
    }
  } else {
    out += dec.digits.substr(0, 1) + "." + (dec.digits.size() > 1 ? dec.digits.substr(1) : "0");
    out += StrCat("E", std::to_string(dec.exponent));
  }
  return out;
}

std::string YcsbPercentileName(double p) {
  if (std::fmod(p, 1.0) == 0.0) {
    const long long j = static_cast<long long>(p);
    static const char* const kSuffixes[] = {"th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"};
    const long long mod100 = j % 100;
    if (mod100 == 11 || mod100 == 12 || mod100 == 13) return std::to_string(j) + "th";
    return std::to_string(j) + kSuffixes[std::llabs(j % 10)];
  }
  return JavaDoubleToString(p);
}

std::string YcsbPercentileMetric(double p) { return YcsbPercentileName(p) + "PercentileLatency(us)"; }

StatusOr<std::vector<double>> ParseYcsbPercentiles(std::string_view list) {
  std::vector<double> out;
  while (true) {
    const size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    double v = 0;
    const char* end = item.data() + item.size();
    auto [ptr, ec] = std::from_chars(item.data(), end, v);
    if (item.empty() || ec != std::errc() || ptr != end || !(v >= 0 && v <= 100)) {
      return Status::InvalidArgument("hdrhistogram.percentiles: '" + std::string(item) +
                                     "' is not a percentile in [0, 100]; expected e.g. 50,95,99,99.9");
    }
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

namespace {

// YCSB's HdrHistogram (2.1.12) holds whole microseconds with our layout
// (lowest discernible value 1, 3 significant digits) over a microsecond
// axis. Only this histogram's layout is read.
const Histogram& MicrosecondLayout() {
  static const Histogram layout;
  return layout;
}

}  // namespace

int64_t YcsbHdrUs(int64_t us, bool lowest) {
  if (us <= 0) return 0;
  const Histogram& layout = MicrosecondLayout();
  return lowest ? layout.LowestEquivalentValue(us) : layout.HighestEquivalentValue(us);
}

double YcsbHdrMeanUs(const Histogram& h) {
  if (h.total_count() == 0) return 0.0;
  const Histogram& layout = MicrosecondLayout();
  double total = 0.0;
  for (int32_t i = 0; i < h.counts_array_length(); ++i) {
    const int64_t count = h.CountAtIndex(i);
    if (count != 0) {
      const int64_t us = h.MedianEquivalentValue(h.ValueFromIndex(i)) / 1000;
      total += double(layout.MedianEquivalentValue(us)) * double(count);
    }
  }
  return total / double(h.total_count());
}

YcsbLatencySummary SummarizeForYcsb(const Histogram& h, const std::vector<double>& percentiles) {
  YcsbLatencySummary s;
  s.operations = h.total_count();
  s.average_us = YcsbHdrMeanUs(h);
  // getMinValue, getMaxValue and getValueAtPercentile on YCSB's microsecond
  // histogram: the lowest (Min, the 0th percentile) or highest value
  // equivalent to the sample's whole microseconds.
  s.min_us = YcsbHdrUs(h.Min() / 1000, /*lowest=*/true);
  s.max_us = YcsbHdrUs(h.Max() / 1000, /*lowest=*/false);
  for (double p : percentiles)
    s.percentiles_us.emplace_back(p, YcsbHdrUs(h.ValueAtPercentile(p) / 1000, p == 0.0));
  return s;
}

double MeanOfWholeMicros(const Histogram& h) {
  if (h.total_count() == 0) return 0.0;
  double total = 0.0;
  for (int32_t i = 0; i < h.counts_array_length(); ++i) {
    const int64_t count = h.CountAtIndex(i);
    if (count != 0)
      total += double(h.MedianEquivalentValue(h.ValueFromIndex(i)) / 1000) * double(count);
  }
  return total / double(h.total_count());
}

YcsbMsHistogram ToYcsbMsHistogram(const Histogram& h, int64_t buckets) {
  YcsbMsHistogram m;
  m.buckets.assign(size_t(std::max<int64_t>(buckets, 0)), 0);
  double sum = 0, sum_squares = 0;
  for (int32_t i = 0; i < h.counts_array_length(); ++i) {
    const int64_t count = h.CountAtIndex(i);
    if (count == 0) continue;
    const int64_t us = h.MedianEquivalentValue(h.ValueFromIndex(i)) / 1000;
    m.operations += count;
    sum += double(us) * double(count);
    sum_squares += double(us) * double(us) * double(count);
    const int64_t ms = us / 1000;
    if (ms >= buckets) {
      m.overflow += count;
    } else {
      m.buckets[size_t(ms)] += count;
    }
  }
  if (m.operations > 0) {
    m.min_us = h.Min() / 1000;
    m.max_us = h.Max() / 1000;
  }
  m.average_us = sum / double(m.operations);  // NaN when empty, as in YCSB.
  m.variance_us = sum_squares / double(m.operations) - m.average_us * m.average_us;
  int64_t cumulative = 0;
  for (size_t i = 0; i < m.buckets.size(); ++i) {
    cumulative += m.buckets[i];
    const double share = double(cumulative) / double(m.operations);
    if (m.p95_us < 0 && share >= 0.95) m.p95_us = int64_t(i) * 1000;
    if (share >= 0.99) {
      m.p99_us = int64_t(i) * 1000;
      break;
    }
  }
  return m;
}

std::vector<std::string> FormatYcsbLatencyLines(std::string_view section, const YcsbLatencySummary& s) {
  const std::string prefix = StrCat("[", section, "], ");
  std::vector<std::string> lines;
  lines.push_back(prefix + "Operations, " + std::to_string(s.operations));
  lines.push_back(prefix + "AverageLatency(us), " + JavaDoubleToString(s.average_us));
  lines.push_back(prefix + "MinLatency(us), " + std::to_string(s.min_us));
  lines.push_back(prefix + "MaxLatency(us), " + std::to_string(s.max_us));
  for (const auto& [p, v] : s.percentiles_us) {
    lines.push_back(prefix + YcsbPercentileMetric(p) + ", " + std::to_string(v));
  }
  return lines;
}

std::string FormatYcsbStatusSummary(std::string_view name, const Histogram& h) {
  auto us = [&](double p) { return std::to_string(YcsbHdrUs(h.ValueAtPercentile(p) / 1000, false)); };
  return StrCat("[", name, ": Count=", std::to_string(h.total_count()),
                ", Max=", std::to_string(YcsbHdrUs(h.Max() / 1000, false)),
                ", Min=", std::to_string(YcsbHdrUs(h.Min() / 1000, true)),
                ", Avg=", YcsbDecimalFormat(YcsbHdrMeanUs(h)), ", 50=", us(50), ", 90=", us(90),
                ", 99=", us(99), ", 99.9=", us(99.9), ", 99.99=", us(99.99), "]");
}

std::string JavaFormatFixed2(double d) {
  if (!std::isfinite(d)) return JavaDoubleToString(d);
  if (d == 0) return std::signbit(d) ? "-0.00" : "0.00";
  const Decimal dec = ShortestDecimal(d);
  // The shortest digits as <int>.<frac>, then HALF_UP on the third decimal.
  std::string int_part, frac;
  if (dec.exponent >= 0) {
    const size_t n = size_t(dec.exponent) + 1;
    int_part = dec.digits.substr(0, std::min(n, dec.digits.size()));
    int_part.append(n - int_part.size(), '0');
    frac = dec.digits.size() > n ? dec.digits.substr(n) : "";
  } else {
    int_part = "0";
    frac = std::string(size_t(-dec.exponent - 1), '0') + dec.digits;
  }
  frac.append(frac.size() < 3 ? 3 - frac.size() : 0, '0');
  std::string number = int_part + frac.substr(0, 2);
  if (frac[2] >= '5') {
    size_t i = number.size();
    while (i > 0 && number[i - 1] == '9') number[--i] = '0';
    if (i == 0) {
      number.insert(number.begin(), '1');
    } else {
      ++number[i - 1];
    }
  }
  // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, a known false
  // positive) on "literal" + std::string&&.
  std::string out = dec.negative ? "-" : "";
  out.append(number, 0, number.size() - 2);
  out += '.';
  out.append(number, number.size() - 2);
  return out;
}

std::string FormatYcsbAverageStatusSummary(std::string_view name, const Histogram& h) {
  if (h.total_count() == 0) return "";
  return StrCat("[", name, " AverageLatency(us)=", YcsbDecimalFormat(MeanOfWholeMicros(h)), "]");
}

std::string FormatYcsbRawStatusSummary(std::string_view name, const Histogram& h) {
  if (h.total_count() == 0) return "";
  return StrCat(name, " count: ", std::to_string(h.total_count()),
                ", average latency(us): ", JavaFormatFixed2(MeanOfWholeMicros(h)));
}

}  // namespace wirebench::hdr
