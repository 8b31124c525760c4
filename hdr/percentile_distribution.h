// The percentile distribution of a Histogram, as HdrHistogram's
// PercentileIterator walks it and outputPercentileDistribution prints it:
// reporting levels that halve the distance to 100% every
// `ticks_per_half_distance` steps, so the tail gets as many points as the
// body. Used for percentile charts and for the "hgrm" text HdrHistogram's
// plotter (and wirebench's charts) read.
// Thread-safety: pure functions over a const Histogram.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hdr/histogram.h"

namespace wirebench::hdr {

// One reporting point of the distribution.
struct PercentilePoint {
  int64_t value = 0;             // Highest equivalent value of the bucket reached.
  double percentile = 0;         // The reporting level iterated to, 0..100.
  int64_t count_to_value = 0;    // Cumulative count up to and including this bucket.
};

// The points HdrHistogram's PercentileIterator(ticks_per_half_distance)
// yields, ending with the 100% point. Empty for an empty histogram.
// REQUIRES: ticks_per_half_distance >= 1
std::vector<PercentilePoint> PercentileDistribution(const Histogram& histogram,
                                                    int ticks_per_half_distance = 5);

struct PercentileDistributionFormat {
  // Values are divided by this before printing (1000 prints ns as us).
  double value_unit_scaling_ratio = 1.0;
  // Steps per halving of the distance to 100% (HdrHistogram's
  // percentileTicksPerHalfDistance). Default 5, as HdrHistogram.
  int ticks_per_half_distance = 5;
  // CSV ("Value","Percentile","TotalCount","1/(1-Percentile)") instead of
  // the fixed-width text with the #[Mean ...] trailer.
  bool csv = false;
};

// The text AbstractHistogram.outputPercentileDistribution prints, byte for
// byte (number formats with Locale.US).
std::string FormatPercentileDistribution(const Histogram& histogram,
                                         const PercentileDistributionFormat& format = {});

}  // namespace wirebench::hdr
