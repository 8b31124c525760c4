// The confidence interval of a ratio over repeats (bench/results/
// ratio_interval.h): known inputs give known intervals, to 1e-3.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/results/ratio_interval.h"

namespace wirebench {
namespace {

std::vector<double> Exp(const std::vector<double>& logs) {
  std::vector<double> v;
  for (double l : logs) v.push_back(std::exp(l));
  return v;
}

void ExpectInterval(const RatioInterval& r, IntervalMethod method, double ratio, double lo,
                    double hi) {
  EXPECT_EQ(r.method, method);
  EXPECT_NEAR(r.ratio, ratio, 1e-3);
  EXPECT_NEAR(r.lo, lo, 1e-3);
  EXPECT_NEAR(r.hi, hi, 1e-3);
}

TEST(RatioInterval, StudentTQuantilesMatchTheTables) {
  EXPECT_NEAR(StudentTQuantile(0.95, 1), 12.7062, 1e-3);
  EXPECT_NEAR(StudentTQuantile(0.95, 2), 4.3027, 1e-3);
  EXPECT_NEAR(StudentTQuantile(0.95, 4), 2.7764, 1e-3);
  EXPECT_NEAR(StudentTQuantile(0.95, 10), 2.2281, 1e-3);
  EXPECT_NEAR(StudentTQuantile(0.99, 5), 4.0321, 1e-3);
}

TEST(RatioInterval, PairedUsesThePerRepeatLogDifferences) {
  // Log differences 0.10, 0.15, 0.10: mean 0.11667, se 0.016667, t(2) 4.3027.
  const RatioInterval r = PairedRatioInterval(Exp({0.1, 0.25, 0.3}), Exp({0.0, 0.1, 0.2}));
  ExpectInterval(r, IntervalMethod::kPaired, 1.12374, 1.04598, 1.20729);
  EXPECT_TRUE(r.distinguishable());
}

TEST(RatioInterval, WelchWithEqualVariancesHasTwiceNMinusOneDegrees) {
  // Both log variances 0.01, n = 3: se sqrt(2 * 0.01 / 3), df 4, t 2.7764.
  const RatioInterval r = WelchRatioInterval(Exp({0.1, 0.2, 0.3}), Exp({0.0, 0.1, 0.2}));
  ExpectInterval(r, IntervalMethod::kWelch, 1.10517, 0.88100, 1.38638);
  EXPECT_FALSE(r.distinguishable());  // Contains 1.0.
}

TEST(RatioInterval, WelchWithUnequalVariancesAndCounts) {
  // Log means 0.53 and 0.05; se 0.05164; Welch df 1.136, between t(1) and t(2).
  const RatioInterval r =
      WelchRatioInterval(Exp({0.5, 0.52, 0.54, 0.56}), Exp({0.0, 0.1}));
  EXPECT_NEAR(r.ratio, std::exp(0.48), 1e-3);
  const double half = std::log(r.hi / r.ratio);
  EXPECT_NEAR(std::log(r.ratio / r.lo), half, 1e-9);  // Symmetric on the log scale.
  EXPECT_GT(half, StudentTQuantile(0.95, 2) * 0.05164);
  EXPECT_LT(half, StudentTQuantile(0.95, 1) * 0.05164);
  EXPECT_NEAR(half, StudentTQuantile(0.95, 1.136095) * 0.0516398, 1e-3);
}

TEST(RatioInterval, IdenticalRepeatsGiveAPoint) {
  // Deterministic counts (allocations, wire bytes): no spread, no width.
  RatioInterval r = PairedRatioInterval({2.0, 2.0, 2.0}, {2.0, 2.0, 2.0});
  EXPECT_DOUBLE_EQ(r.lo, 1.0);
  EXPECT_DOUBLE_EQ(r.hi, 1.0);
  EXPECT_FALSE(r.distinguishable());
  r = WelchRatioInterval({3.0, 3.0}, {2.0, 2.0, 2.0});
  EXPECT_NEAR(r.lo, 1.5, 1e-12);
  EXPECT_NEAR(r.hi, 1.5, 1e-12);
  EXPECT_TRUE(r.distinguishable());
}

TEST(RatioInterval, NoIntervalWithOneRepeatOrAZero) {
  RatioInterval r = PairedRatioInterval({3.0}, {2.0});
  EXPECT_FALSE(r.has_interval());
  EXPECT_FALSE(r.distinguishable());
  EXPECT_DOUBLE_EQ(r.ratio, 1.5);
  EXPECT_TRUE(std::isnan(r.lo) && std::isnan(r.hi));
  EXPECT_EQ(r.no_interval, "1 repeat: no interval");
  r = WelchRatioInterval({3.0, 3.3, 2.7}, {2.0});
  EXPECT_EQ(r.no_interval, "1 repeat: no interval");
  r = PairedRatioInterval({0.0, 1.0}, {2.0, 2.0});
  EXPECT_EQ(r.no_interval, "a zero value: no interval");
  EXPECT_DOUBLE_EQ(r.ratio, 0.25);  // Of the medians.
  r = PairedRatioInterval({0.0, 0.0}, {0.0, 0.0});
  EXPECT_TRUE(std::isnan(r.ratio));
  EXPECT_EQ(r.no_interval, "baseline 0: no ratio");
  EXPECT_TRUE(std::isnan(WelchRatioInterval({}, {1.0}).ratio));
}

TEST(RatioInterval, PairingCancelsDriftSharedByARepeat) {
  // Each repeat moves both columns together by up to 30%; the codec is 10%
  // dearer in every repeat. Paired sees the 10%; Welch drowns in the drift.
  const std::vector<double> base = {1.0, 1.3, 0.8, 1.15};
  std::vector<double> x;
  for (double b : base) x.push_back(b * 1.1);
  EXPECT_TRUE(PairedRatioInterval(x, base).distinguishable());
  EXPECT_NEAR(PairedRatioInterval(x, base).ratio, 1.1, 1e-9);
  EXPECT_FALSE(WelchRatioInterval(x, base).distinguishable());
}

TEST(RatioInterval, PValueIsTheTwoSidedTTestOfTheInterval) {
  // The paired case above: t = 0.11667 / 0.016667 = 7.0 on 2 df: p = 0.0198.
  RatioInterval r = PairedRatioInterval(Exp({0.1, 0.25, 0.3}), Exp({0.0, 0.1, 0.2}));
  EXPECT_NEAR(r.p, 0.0198, 5e-4);
  // A 95% interval that just excludes 1.0 has p just under 0.05: the two agree.
  EXPECT_EQ(r.p < 0.05, r.distinguishable());
  r = WelchRatioInterval(Exp({0.1, 0.2, 0.3}), Exp({0.0, 0.1, 0.2}));
  EXPECT_GT(r.p, 0.05);
  EXPECT_FALSE(r.distinguishable());
  EXPECT_DOUBLE_EQ(PairedRatioInterval({2.0, 2.0}, {2.0, 2.0}).p, 1.0);  // Identical.
  EXPECT_TRUE(std::isnan(PairedRatioInterval({3.0}, {2.0}).p));      // No interval, no test.
}

TEST(RatioInterval, HolmRejectsStepDownAndSkipsUntested) {
  const double nan = std::nan("");
  // Four tested rows at 0.05: thresholds 0.0125, 0.0167, 0.025, 0.05 in p order.
  EXPECT_EQ(HolmReject({0.01, 0.04, 0.015, 0.3}), (std::vector<bool>{true, false, true, false}));
  // 0.02 is past 0.0125 as the smallest of four: nothing after it either.
  EXPECT_EQ(HolmReject({0.02, 0.021, 0.022, 0.023}), (std::vector<bool>(4, false)));
  // An untested row (NaN) is not in the family: two rows, thresholds 0.025, 0.05.
  EXPECT_EQ(HolmReject({0.02, nan, 0.04}), (std::vector<bool>{true, false, true}));
  // Alone, a row is tested at alpha itself.
  EXPECT_EQ(HolmReject({0.049}), std::vector<bool>{true});
}

}  // namespace
}  // namespace wirebench
