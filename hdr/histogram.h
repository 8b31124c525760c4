// Histogram: a latency histogram with exactly HdrHistogram's bucket layout
// (subBucketCount = 2^ceil(log2(2 * 10^digits)), unitMagnitude,
// subBucketHalfCountMagnitude, bucketCount, countsArrayLength and
// countsArrayIndex(value) as in HdrHistogram's Java and C code), so its counts
// array can be written in HdrHistogram's V2 encoding (histogram_encoding.h)
// and read by HdrHistogram's own tools. Queries follow HdrHistogram's
// semantics: ValueAtPercentile is AbstractHistogram.getValueAtPercentile,
// Mean/StdDev use each bucket's median equivalent value, Max is the highest
// value equivalent to the largest recorded value.
//
// wirebench records values in nanoseconds with a lowest discernible value of
// 1 and 3 significant digits; the highest trackable value defaults to one hour.
// Values above it are recorded as the highest trackable value and counted in
// clamped_above(); negative values are recorded as 0 and counted in
// clamped_below(), so nothing is dropped silently.
//
// Thread-safety: none. Record() is a plain non-atomic increment; give every
// recording thread its own Histogram (see interval_recorder.h) and merge with
// Add() on one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"

namespace wirebench::hdr {

struct HistogramOptions {
  // Smallest value that is distinguished from 0 (HdrHistogram's
  // lowestDiscernibleValue). 1 for nanosecond latencies.
  int64_t lowest_discernible_value = 1;
  // Largest value tracked at full precision; larger ones are clamped to it.
  // Default: one hour in nanoseconds.
  int64_t highest_trackable_value = 3'600'000'000'000;
  // Decimal digits of precision kept for every value, 0..5. Default 3
  // (values within 0.1%).
  int significant_digits = 3;
};

class Histogram {
 public:
  // A histogram with the default options (1 ns .. 1 h, 3 digits).
  Histogram();
  // Checks the options the way HdrHistogram's constructor does: lowest >= 1,
  // highest >= 2 * lowest, 0 <= digits <= 5, unitMagnitude +
  // subBucketHalfCountMagnitude <= 61.
  [[nodiscard]] static StatusOr<Histogram> Create(const HistogramOptions& options);

  // Copyable (a snapshot is a copy) and movable.
  Histogram(const Histogram&) = default;
  Histogram& operator=(const Histogram&) = default;
  Histogram(Histogram&&) noexcept = default;
  Histogram& operator=(Histogram&&) noexcept = default;

  // Records one value. No allocation, no lock, a handful of instructions.
  void Record(int64_t value) { RecordValues(value, 1); }
  // Records `count` occurrences of `value`. REQUIRES: count >= 0.
  void RecordValues(int64_t value, int64_t count) {
    if (value > highest_trackable_value_) [[unlikely]] {
      clamped_above_ += count;
      value = highest_trackable_value_;
    } else if (value < 0) [[unlikely]] {
      clamped_below_ += count;
      value = 0;
    }
    counts_[CountsArrayIndex(value)] += count;
    total_count_ += count;
    if (value > max_value_) max_value_ = value;
    if (value < min_non_zero_value_ && value != 0) min_non_zero_value_ = value;
  }

  // Adds `count` to bucket `index` directly, as HdrHistogram's decoder sets
  // counts by index (the top buckets reach past highest_trackable_value, so
  // recording by value could not reproduce them). For decoders.
  // REQUIRES: 0 <= index < counts_array_length(), count >= 0
  void AddCountAtIndex(int32_t index, int64_t count);

  // Adds every count of `other` to this one. Exact (bucket by bucket) when
  // both have the same layout; otherwise each of other's buckets is
  // re-recorded at its lowest equivalent value, as HdrHistogram's add() does,
  // clamping what does not fit.
  void Add(const Histogram& other);
  // Forgets every recorded value; keeps the layout and the memory.
  void Reset();

  // --- Queries (HdrHistogram semantics) ---
  int64_t total_count() const { return total_count_; }
  // Smallest recorded value's lowest equivalent value; 0 when empty or when
  // 0 was recorded.
  int64_t Min() const;
  // Largest recorded value's highest equivalent value; 0 when empty.
  int64_t Max() const;
  // Mean and population standard deviation over bucket medians; 0 when empty.
  double Mean() const;
  double StdDev() const;
  // The value at which the cumulative count first reaches
  // ceil(percentile/100 * total) (at least 1), reported as the highest value
  // equivalent to that bucket (the lowest for percentile 0). 0 when empty.
  int64_t ValueAtPercentile(double percentile) const;
  // Values recorded above highest_trackable_value / below 0.
  int64_t clamped_above() const { return clamped_above_; }
  int64_t clamped_below() const { return clamped_below_; }

  // --- Layout (names as in HdrHistogram) ---
  const HistogramOptions& options() const { return options_; }
  int64_t lowest_discernible_value() const { return options_.lowest_discernible_value; }
  int64_t highest_trackable_value() const { return highest_trackable_value_; }
  int significant_digits() const { return options_.significant_digits; }
  int unit_magnitude() const { return unit_magnitude_; }
  int sub_bucket_half_count_magnitude() const { return sub_bucket_half_count_magnitude_; }
  int32_t sub_bucket_count() const { return sub_bucket_count_; }
  int32_t sub_bucket_half_count() const { return sub_bucket_half_count_; }
  int32_t bucket_count() const { return bucket_count_; }
  int32_t counts_array_length() const { return static_cast<int32_t>(counts_.size()); }
  // True when `other` has the same lowest, highest and digits, so its counts
  // array lines up with this one index for index.
  bool SameLayout(const Histogram& other) const;

  // HdrHistogram's countsArrayIndex(value).
  // REQUIRES: 0 <= value <= highest_trackable_value()
  int32_t CountsArrayIndex(int64_t value) const {
    const int bucket_index = BucketIndex(value);
    const int32_t sub_bucket_index = static_cast<int32_t>(value >> (bucket_index + unit_magnitude_));
    return ((bucket_index + 1) << sub_bucket_half_count_magnitude_) +
           (sub_bucket_index - sub_bucket_half_count_);
  }
  // HdrHistogram's valueFromIndex(index): the lowest value in bucket `index`.
  // REQUIRES: 0 <= index < counts_array_length()
  int64_t ValueFromIndex(int32_t index) const;
  int64_t CountAtIndex(int32_t index) const { return counts_[static_cast<size_t>(index)]; }
  // Value-range helpers, as HdrHistogram names them. REQUIRES: value >= 0.
  int64_t SizeOfEquivalentValueRange(int64_t value) const;
  int64_t LowestEquivalentValue(int64_t value) const;
  int64_t HighestEquivalentValue(int64_t value) const;
  int64_t MedianEquivalentValue(int64_t value) const;
  int64_t NextNonEquivalentValue(int64_t value) const;
  // Index of the last non-zero bucket, or -1 when empty.
  int32_t MaxNonZeroIndex() const;

 private:
  explicit Histogram(const HistogramOptions& options);  // REQUIRES: valid options.
  int BucketIndex(int64_t value) const {
    return leading_zero_count_base_ - __builtin_clzll(static_cast<uint64_t>(value) | sub_bucket_mask_);
  }

  HistogramOptions options_;
  int64_t highest_trackable_value_ = 0;
  int unit_magnitude_ = 0;
  int sub_bucket_half_count_magnitude_ = 0;
  int leading_zero_count_base_ = 0;
  int32_t sub_bucket_count_ = 0;
  int32_t sub_bucket_half_count_ = 0;
  int32_t bucket_count_ = 0;
  uint64_t sub_bucket_mask_ = 0;

  std::vector<int64_t> counts_;
  int64_t total_count_ = 0;
  int64_t max_value_ = 0;
  int64_t min_non_zero_value_ = INT64_MAX;
  int64_t clamped_above_ = 0;
  int64_t clamped_below_ = 0;
};

// The layout figures HdrHistogram derives from its three parameters, without
// allocating a counts array. Used by Histogram and by the decoder to bound
// untrusted headers before allocating.
struct BucketLayout {
  int unit_magnitude = 0;
  int sub_bucket_half_count_magnitude = 0;
  int32_t sub_bucket_count = 0;
  int32_t bucket_count = 0;
  int32_t counts_array_length = 0;
};
[[nodiscard]] StatusOr<BucketLayout> ComputeBucketLayout(const HistogramOptions& options);

}  // namespace wirebench::hdr
