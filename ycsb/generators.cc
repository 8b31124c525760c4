#include "ycsb/generators.h"

#include <cassert>

namespace wirebench::ycsb {

HotspotIntegerGenerator::HotspotIntegerGenerator(int64_t lb, int64_t ub, double hotset_fraction,
                                                 double hotopn_fraction)
    : lb_(lb), hotopn_fraction_(hotopn_fraction) {
  assert(lb <= ub);
  const int64_t interval = ub - lb + 1;
  // YCSB truncates through an int cast.
  hot_interval_ = int64_t(double(interval) * hotset_fraction);
  cold_interval_ = interval - hot_interval_;
}

void DiscreteGenerator::Add(int value, double weight) {
  if (!(weight > 0)) return;
  assert(n_ < kMaxValues);
  values_[n_] = value;
  weights_[n_] = weight;
  ++n_;
  sum_ += weight;
}

FieldLengthGenerator::FieldLengthGenerator(LengthDistribution dist, int64_t min, int64_t max)
    : dist_(dist),
      min_(min),
      max_(max),
      uniform_(min, max),
      // Zeta over a constant distribution's single item costs nothing.
      zipfian_(dist == LengthDistribution::kZipfian ? min : max, max) {
  assert(0 <= min && min <= max);
}

}  // namespace wirebench::ycsb
