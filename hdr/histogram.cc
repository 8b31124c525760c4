#include "hdr/histogram.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

namespace wirebench::hdr {

StatusOr<BucketLayout> ComputeBucketLayout(const HistogramOptions& options) {
  const int64_t lowest = options.lowest_discernible_value;
  const int64_t highest = options.highest_trackable_value;
  const int digits = options.significant_digits;
  if (lowest < 1) {
    return Status::InvalidArgument("histogram: lowest_discernible_value must be >= 1, got " +
                                   std::to_string(lowest));
  }
  if (digits < 0 || digits > 5) {
    return Status::InvalidArgument("histogram: significant_digits must be in 0..5, got " +
                                   std::to_string(digits));
  }
  if (highest / 2 < lowest) {
    return Status::InvalidArgument("histogram: highest_trackable_value (" + std::to_string(highest) +
                                   ") must be at least twice lowest_discernible_value (" +
                                   std::to_string(lowest) + ")");
  }
  BucketLayout layout;
  // subBucketCountMagnitude = ceil(log2(2 * 10^digits)), computed exactly.
  int64_t largest_single_unit = 2;
  for (int i = 0; i < digits; ++i) largest_single_unit *= 10;
  int sub_bucket_count_magnitude = 0;
  while ((int64_t{1} << sub_bucket_count_magnitude) < largest_single_unit) ++sub_bucket_count_magnitude;
  layout.sub_bucket_half_count_magnitude = std::max(sub_bucket_count_magnitude, 1) - 1;
  // unitMagnitude = floor(log2(lowest)).
  layout.unit_magnitude = 63 - __builtin_clzll(static_cast<uint64_t>(lowest));
  if (layout.unit_magnitude + layout.sub_bucket_half_count_magnitude > 61) {
    return Status::InvalidArgument(
        "histogram: lowest_discernible_value and significant_digits leave no room for buckets");
  }
  layout.sub_bucket_count = int32_t{1} << (layout.sub_bucket_half_count_magnitude + 1);
  // getBucketsNeededToCoverValue(highest).
  int64_t smallest_untrackable = int64_t{layout.sub_bucket_count} << layout.unit_magnitude;
  int32_t buckets_needed = 1;
  while (smallest_untrackable <= highest) {
    if (smallest_untrackable > INT64_MAX / 2) {
      ++buckets_needed;
      break;
    }
    smallest_untrackable <<= 1;
    ++buckets_needed;
  }
  layout.bucket_count = buckets_needed;
  layout.counts_array_length = (buckets_needed + 1) * (layout.sub_bucket_count / 2);
  return layout;
}

Histogram::Histogram() : Histogram(HistogramOptions()) {}

StatusOr<Histogram> Histogram::Create(const HistogramOptions& options) {
  StatusOr<BucketLayout> layout = ComputeBucketLayout(options);
  if (!layout.ok()) return layout.status();
  return Histogram(options);
}

Histogram::Histogram(const HistogramOptions& options) : options_(options) {
  StatusOr<BucketLayout> layout = ComputeBucketLayout(options);
  assert(layout.ok());
  highest_trackable_value_ = options.highest_trackable_value;
  unit_magnitude_ = layout->unit_magnitude;
  sub_bucket_half_count_magnitude_ = layout->sub_bucket_half_count_magnitude;
  sub_bucket_count_ = layout->sub_bucket_count;
  sub_bucket_half_count_ = sub_bucket_count_ / 2;
  bucket_count_ = layout->bucket_count;
  sub_bucket_mask_ = (static_cast<uint64_t>(sub_bucket_count_) - 1) << unit_magnitude_;
  leading_zero_count_base_ = 64 - unit_magnitude_ - sub_bucket_half_count_magnitude_ - 1;
  counts_.assign(static_cast<size_t>(layout->counts_array_length), 0);
}

bool Histogram::SameLayout(const Histogram& other) const {
  return options_.lowest_discernible_value == other.options_.lowest_discernible_value &&
         options_.highest_trackable_value == other.options_.highest_trackable_value &&
         options_.significant_digits == other.options_.significant_digits;
}

void Histogram::Add(const Histogram& other) {
  if (SameLayout(other)) {
    for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
    total_count_ += other.total_count_;
    max_value_ = std::max(max_value_, other.max_value_);
    min_non_zero_value_ = std::min(min_non_zero_value_, other.min_non_zero_value_);
  } else {
    for (int32_t i = 0; i < other.counts_array_length(); ++i) {
      const int64_t count = other.CountAtIndex(i);
      if (count != 0) RecordValues(other.ValueFromIndex(i), count);
    }
  }
  clamped_above_ += other.clamped_above_;
  clamped_below_ += other.clamped_below_;
}

void Histogram::AddCountAtIndex(int32_t index, int64_t count) {
  assert(index >= 0 && index < counts_array_length() && count >= 0);
  if (count == 0) return;
  counts_[static_cast<size_t>(index)] += count;
  total_count_ += count;
  const int64_t value = ValueFromIndex(index);
  if (value > max_value_) max_value_ = value;
  if (value < min_non_zero_value_ && value != 0) min_non_zero_value_ = value;
}

void Histogram::Reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_count_ = 0;
  max_value_ = 0;
  min_non_zero_value_ = INT64_MAX;
  clamped_above_ = 0;
  clamped_below_ = 0;
}

int64_t Histogram::ValueFromIndex(int32_t index) const {
  int bucket_index = (index >> sub_bucket_half_count_magnitude_) - 1;
  int64_t sub_bucket_index = (index & (sub_bucket_half_count_ - 1)) + sub_bucket_half_count_;
  if (bucket_index < 0) {
    sub_bucket_index -= sub_bucket_half_count_;
    bucket_index = 0;
  }
  return sub_bucket_index << (bucket_index + unit_magnitude_);
}

int64_t Histogram::SizeOfEquivalentValueRange(int64_t value) const {
  const int bucket_index = BucketIndex(value);
  const int64_t sub_bucket_index = value >> (bucket_index + unit_magnitude_);
  const int adjusted = sub_bucket_index >= sub_bucket_count_ ? bucket_index + 1 : bucket_index;
  return int64_t{1} << (unit_magnitude_ + adjusted);
}

int64_t Histogram::LowestEquivalentValue(int64_t value) const {
  const int bucket_index = BucketIndex(value);
  const int64_t sub_bucket_index = value >> (bucket_index + unit_magnitude_);
  return sub_bucket_index << (bucket_index + unit_magnitude_);
}

int64_t Histogram::NextNonEquivalentValue(int64_t value) const {
  return LowestEquivalentValue(value) + SizeOfEquivalentValueRange(value);
}

int64_t Histogram::HighestEquivalentValue(int64_t value) const {
  return NextNonEquivalentValue(value) - 1;
}

int64_t Histogram::MedianEquivalentValue(int64_t value) const {
  return LowestEquivalentValue(value) + (SizeOfEquivalentValueRange(value) >> 1);
}

int64_t Histogram::Min() const {
  if (total_count_ == 0 || counts_[0] > 0) return 0;
  return LowestEquivalentValue(min_non_zero_value_);
}

int64_t Histogram::Max() const { return max_value_ == 0 ? 0 : HighestEquivalentValue(max_value_); }

int32_t Histogram::MaxNonZeroIndex() const {
  for (size_t i = counts_.size(); i-- > 0;) {
    if (counts_[i] != 0) return static_cast<int32_t>(i);
  }
  return -1;
}

double Histogram::Mean() const {
  if (total_count_ == 0) return 0.0;
  double total = 0.0;
  for (int32_t i = 0; i < counts_array_length(); ++i) {
    const int64_t count = counts_[static_cast<size_t>(i)];
    if (count != 0) total += static_cast<double>(MedianEquivalentValue(ValueFromIndex(i))) * count;
  }
  return total / static_cast<double>(total_count_);
}

double Histogram::StdDev() const {
  if (total_count_ == 0) return 0.0;
  const double mean = Mean();
  double variance = 0.0;
  for (int32_t i = 0; i < counts_array_length(); ++i) {
    const int64_t count = counts_[static_cast<size_t>(i)];
    if (count != 0) {
      const double dev = static_cast<double>(MedianEquivalentValue(ValueFromIndex(i))) - mean;
      variance += dev * dev * static_cast<double>(count);
    }
  }
  return std::sqrt(variance / static_cast<double>(total_count_));
}

int64_t Histogram::ValueAtPercentile(double percentile) const {
  // As AbstractHistogram.getValueAtPercentile: step one ulp down so that a
  // percentile like 99.9 whose product rounds up does not overrun into the
  // next bucket, then round the count up so the reported level is never
  // below the requested one.
  const double requested =
      std::min(std::max(std::nextafter(percentile, -INFINITY), 0.0), 100.0);
  const double fp_count = (requested * static_cast<double>(total_count_)) / 100.0;
  const int64_t count_at_percentile = std::max<int64_t>(static_cast<int64_t>(std::ceil(fp_count)), 1);
  int64_t running = 0;
  for (int32_t i = 0; i < counts_array_length(); ++i) {
    running += counts_[static_cast<size_t>(i)];
    if (running >= count_at_percentile) {
      const int64_t value = ValueFromIndex(i);
      return percentile == 0.0 ? LowestEquivalentValue(value) : HighestEquivalentValue(value);
    }
  }
  return 0;
}

}  // namespace wirebench::hdr
