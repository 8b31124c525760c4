#include "bench/results/ratio_interval.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <boost/math/distributions/students_t.hpp>

namespace wirebench {

namespace {

double Nan() { return std::nan(""); }

double Mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

// Sample variance (n - 1).
double Variance(const std::vector<double>& v) {
  const double m = Mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / double(v.size() - 1);
}

std::vector<double> Logs(const std::vector<double>& v) {
  std::vector<double> l;
  for (double x : v) l.push_back(std::log(x));
  return l;
}

// The ratio alone, when no interval can be formed: of the geometric means
// when every value is positive, else of the medians (NaN over a zero).
RatioInterval NoInterval(const std::vector<double>& x, const std::vector<double>& base,
                         std::string why) {
  RatioInterval r;
  r.lo = r.hi = r.p = Nan();
  r.no_interval = std::move(why);
  if (x.empty() || base.empty()) {
    r.ratio = Nan();
    return r;
  }
  const auto positive = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double d) { return d > 0; });
  };
  if (positive(x) && positive(base)) {
    r.ratio = std::exp(Mean(Logs(x)) - Mean(Logs(base)));
  } else if (const double b = Median(base); b > 0) {
    r.ratio = Median(x) / b;
  } else {
    r.ratio = Nan();
    r.no_interval = "baseline 0: no ratio";
  }
  return r;
}

// Why these samples get no interval; empty when they can have one.
std::string Unusable(const std::vector<double>& x, const std::vector<double>& base) {
  if (x.size() < 2 || base.size() < 2) return "1 repeat: no interval";
  for (const auto* v : {&x, &base})
    for (double d : *v)
      if (!(d > 0)) return "a zero value: no interval";
  return "";
}

RatioInterval Interval(double mean_log, double se, double df, double confidence,
                       IntervalMethod method) {
  RatioInterval r;
  r.method = method;
  r.ratio = std::exp(mean_log);
  // Identical logs on both sides (e.g. deterministic counts): a point.
  const double half = se > 0 ? StudentTQuantile(confidence, df) * se : 0.0;
  if (se > 0) {
    boost::math::students_t t(df);
    r.p = 2 * boost::math::cdf(boost::math::complement(t, std::fabs(mean_log) / se));
  } else {
    r.p = mean_log == 0 ? 1.0 : 0.0;
  }
  r.lo = std::exp(mean_log - half);
  r.hi = std::exp(mean_log + half);
  return r;
}

}  // namespace

const char* IntervalMethodName(IntervalMethod m) {
  switch (m) {
    case IntervalMethod::kPaired: return "paired";
    case IntervalMethod::kWelch: return "welch";
    case IntervalMethod::kNone: break;
  }
  return "none";
}

std::vector<bool> HolmReject(const std::vector<double>& p, double alpha) {
  std::vector<size_t> order;
  for (size_t i = 0; i < p.size(); ++i)
    if (!std::isnan(p[i])) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<bool> reject(p.size(), false);
  const size_t m = order.size();
  for (size_t k = 0; k < m; ++k) {
    if (p[order[k]] > alpha / double(m - k)) break;  // Step-down: stop at the first kept.
    reject[order[k]] = true;
  }
  return reject;
}

double StudentTQuantile(double confidence, double df) {
  boost::math::students_t t(df);
  return boost::math::quantile(t, 0.5 + confidence / 2);
}

RatioInterval PairedRatioInterval(const std::vector<double>& x, const std::vector<double>& base,
                                  double confidence) {
  if (x.size() != base.size()) return WelchRatioInterval(x, base, confidence);
  if (std::string why = Unusable(x, base); !why.empty()) return NoInterval(x, base, why);
  std::vector<double> d;
  for (size_t i = 0; i < x.size(); ++i) d.push_back(std::log(x[i]) - std::log(base[i]));
  const double n = double(d.size());
  return Interval(Mean(d), std::sqrt(Variance(d) / n), n - 1, confidence, IntervalMethod::kPaired);
}

RatioInterval WelchRatioInterval(const std::vector<double>& x, const std::vector<double>& base,
                                 double confidence) {
  if (std::string why = Unusable(x, base); !why.empty()) return NoInterval(x, base, why);
  const std::vector<double> lx = Logs(x), lb = Logs(base);
  const double nx = double(lx.size()), nb = double(lb.size());
  const double vx = Variance(lx) / nx, vb = Variance(lb) / nb;
  const double se = std::sqrt(vx + vb);
  // Welch-Satterthwaite degrees of freedom.
  const double df = (vx + vb) * (vx + vb) / (vx * vx / (nx - 1) + vb * vb / (nb - 1));
  return Interval(Mean(lx) - Mean(lb), se, df, confidence, IntervalMethod::kWelch);
}

double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace wirebench
