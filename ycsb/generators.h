// YCSB's simple number generators (site.ycsb.generator): uniform, hotspot,
// sequential, exponential, constant, the discrete chooser that picks the next
// operation, and the field-length chooser of CoreWorkload.
//
// Like the zipfian family (zipfian_generator.h), these hold no RNG: every
// draw takes the caller's Rng, so each logical client keeps copies of the
// generators and its own Rng, and no draw touches shared state. The one
// exception is SequentialGenerator, whose counter is shared by every client
// of a run as YCSB's is.
// Thread-safety: one owner at a time, except SequentialGenerator (thread-safe).
#pragma once

#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>

#include "ycsb/rng.h"
#include "ycsb/zipfian_generator.h"

namespace wirebench::ycsb {

// Uniform over [lb, ub] inclusive (YCSB's UniformLongGenerator).
class UniformLongGenerator {
 public:
  // REQUIRES: lb <= ub
  UniformLongGenerator(int64_t lb, int64_t ub) : lb_(lb), interval_(uint64_t(ub - lb) + 1) {}
  int64_t Next(Rng& rng) {
    return lb_ + int64_t(interval_ == 0 ? rng.Next() : rng.Below(interval_));
  }
  double Mean() const { return double(lb_) + (double(interval_) - 1) / 2.0; }

 private:
  int64_t lb_;
  uint64_t interval_;  // 0 means the full 2^64 range.
};

// hotopn_fraction of draws fall uniformly in the first hotset_fraction of
// [lb, ub], the rest uniformly in the remainder (YCSB's HotspotIntegerGenerator;
// hot numbers are always smaller than cold ones).
class HotspotIntegerGenerator {
 public:
  // REQUIRES: lb <= ub, both fractions in [0, 1]
  HotspotIntegerGenerator(int64_t lb, int64_t ub, double hotset_fraction, double hotopn_fraction);
  int64_t Next(Rng& rng) {
    // YCSB throws on an empty set (x % 0); fall to the other set instead.
    const bool hot = rng.NextDouble() < hotopn_fraction_;
    if ((hot && hot_interval_ > 0) || cold_interval_ == 0) {
      return lb_ + int64_t(rng.Below(uint64_t(hot_interval_)));
    }
    return lb_ + hot_interval_ + int64_t(rng.Below(uint64_t(cold_interval_)));
  }
  int64_t hot_interval() const { return hot_interval_; }
  int64_t cold_interval() const { return cold_interval_; }

 private:
  int64_t lb_;
  int64_t hot_interval_;
  int64_t cold_interval_;
  double hotopn_fraction_;
};

// start, start+1, ..., end, start, ... (YCSB's SequentialGenerator), one
// counter for every client sharing the object.
class SequentialGenerator {
 public:
  // REQUIRES: start <= end
  SequentialGenerator(int64_t start, int64_t end) : start_(start), interval_(end - start + 1) {}
  SequentialGenerator(const SequentialGenerator&) = delete;
  SequentialGenerator& operator=(const SequentialGenerator&) = delete;
  int64_t Next() {
    return start_ + int64_t(counter_.fetch_add(1, std::memory_order_relaxed) % uint64_t(interval_));
  }

 private:
  const int64_t start_;
  const int64_t interval_;
  std::atomic<uint64_t> counter_{0};
};

// Exponentially distributed doubles, skewed toward 0 (YCSB's ExponentialGenerator).
class ExponentialGenerator {
 public:
  // `percentile` percent of draws fall below `range`.
  static ExponentialGenerator FromPercentile(double percentile, double range) {
    return ExponentialGenerator(-std::log(1.0 - percentile / 100.0) / range);
  }
  static ExponentialGenerator FromMean(double mean) { return ExponentialGenerator(1.0 / mean); }

  // 1 - u keeps the draw in (0, 1], so the log is finite.
  double Next(Rng& rng) { return -std::log(1.0 - rng.NextDouble()) / gamma_; }
  double Mean() const { return 1.0 / gamma_; }
  double gamma() const { return gamma_; }

 private:
  explicit ExponentialGenerator(double gamma) : gamma_(gamma) {}
  double gamma_;
};

// Picks one of up to kMaxValues small integers with given weights (YCSB's
// DiscreteGenerator: one uniform draw times the weight sum, walked down the
// list in insertion order).
class DiscreteGenerator {
 public:
  static constexpr int kMaxValues = 8;

  // Ignores non-positive weights, like CoreWorkload which only adds an
  // operation whose proportion is > 0.
  // REQUIRES: fewer than kMaxValues values added
  void Add(int value, double weight);
  int size() const { return n_; }
  double sum() const { return sum_; }
  // REQUIRES: size() > 0
  int Next(Rng& rng) const {
    double val = rng.NextDouble() * sum_;
    for (int i = 0; i < n_; ++i) {
      if (val < weights_[i]) return values_[i];
      val -= weights_[i];
    }
    return values_[n_ - 1];  // Rounding left a sliver past the end.
  }

 private:
  std::array<int, kMaxValues> values_{};
  std::array<double, kMaxValues> weights_{};
  int n_ = 0;
  double sum_ = 0;
};

enum class LengthDistribution : uint8_t { kConstant, kUniform, kZipfian };

// CoreWorkload's fieldlengthgenerator: constant fieldlength, uniform over
// [minfieldlength, fieldlength], or zipfian over the same (favouring short).
class FieldLengthGenerator {
 public:
  // REQUIRES: 0 <= min <= max
  FieldLengthGenerator(LengthDistribution dist, int64_t min, int64_t max);
  int64_t Next(Rng& rng) {
    switch (dist_) {
      case LengthDistribution::kConstant:
        return max_;
      case LengthDistribution::kUniform:
        return uniform_.Next(rng);
      case LengthDistribution::kZipfian:
        return zipfian_.Next(rng);
    }
    return max_;
  }
  LengthDistribution distribution() const { return dist_; }
  int64_t max() const { return max_; }
  int64_t min() const { return dist_ == LengthDistribution::kConstant ? max_ : min_; }

 private:
  LengthDistribution dist_;
  int64_t min_;
  int64_t max_;
  UniformLongGenerator uniform_;
  ZipfianGenerator zipfian_;
};

}  // namespace wirebench::ycsb
