// Confidence intervals of a ratio between two sets of repeated measurements
// (a codec's per-repeat figures against the baseline's): a t-interval on the
// log ratio, either paired by repeat index or Welch's (unequal variances).
// The point estimate is the ratio of the geometric means, the centre of the
// interval on the log scale.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

namespace wirebench {

enum class IntervalMethod {
  kNone,    // No interval (see RatioInterval::no_interval).
  kPaired,  // t on the per-repeat log differences, n - 1 degrees of freedom.
  kWelch,   // t on the difference of mean logs, Welch-Satterthwaite df.
};
const char* IntervalMethodName(IntervalMethod m);  // "paired", "welch", "none".

struct RatioInterval {
  double ratio = 0;  // NaN when it cannot be formed (no values, baseline 0).
  double lo = 0, hi = 0;  // NaN without an interval.
  IntervalMethod method = IntervalMethod::kNone;
  // Why there is no interval, e.g. "1 repeat: no interval", "a zero value:
  // no interval", "baseline 0: no ratio"; empty with one.
  std::string no_interval;
  // Two-sided p-value of the t-test behind the interval (log ratio = 0);
  // NaN without an interval. 1 for identical logs on both sides, 0 for a
  // constant nonzero shift with no spread.
  double p = 0;

  bool has_interval() const { return method != IntervalMethod::kNone; }
  // The interval excludes 1.0. False without an interval.
  bool distinguishable() const { return has_interval() && (lo > 1.0 || hi < 1.0); }
};

// `x` against `base`, with x[i] and base[i] measured in the same repeat
// (sizes must match). Needs 2 or more pairs, all values > 0.
RatioInterval PairedRatioInterval(const std::vector<double>& x, const std::vector<double>& base,
                                  double confidence = 0.95);
// `x` against `base`, independent samples. Needs 2 or more values on each
// side, all > 0.
RatioInterval WelchRatioInterval(const std::vector<double>& x, const std::vector<double>& base,
                                 double confidence = 0.95);

// Holm's step-down over a family of p-values at family-wise level `alpha`:
// which hypotheses are rejected ("different"), in the order given. NaN
// p-values are not part of the family (never rejected, not counted).
std::vector<bool> HolmReject(const std::vector<double>& p, double alpha = 0.05);

// The two-sided Student t quantile: P(|T| <= q) = confidence with `df`
// degrees of freedom (df may be fractional, as Welch's is).
double StudentTQuantile(double confidence, double df);

// The median of `v` (the mean of the middle two when even); NaN when empty.
double Median(std::vector<double> v);

}  // namespace wirebench
