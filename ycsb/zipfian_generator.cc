#include "ycsb/zipfian_generator.h"

#include <cmath>

#include "ycsb/fnv.h"

namespace wirebench::ycsb {

double ZetaStatic(int64_t n, double theta) { return ZetaStatic(0, n, theta, 0); }

double ZetaStatic(int64_t st, int64_t n, double theta, double initial_sum) {
  double sum = initial_sum;
  for (int64_t i = st; i < n; ++i) sum += 1 / std::pow(double(i + 1), theta);
  return sum;
}

SharedZeta::Snapshot SharedZeta::Read() const {
  for (;;) {
    const uint64_t s1 = seq_.load(std::memory_order_acquire);
    if (s1 & 1) continue;
    Snapshot snap{count_.load(std::memory_order_relaxed), zetan_.load(std::memory_order_relaxed)};
    std::atomic_thread_fence(std::memory_order_acquire);
    if (seq_.load(std::memory_order_relaxed) == s1) return snap;
  }
}

SharedZeta::Snapshot SharedZeta::AtLeast(int64_t n) {
  Snapshot snap = Read();
  if (snap.count >= n) return snap;
  std::lock_guard<std::mutex> lock(extend_mu_);
  snap = {count_.load(std::memory_order_relaxed), zetan_.load(std::memory_order_relaxed)};
  if (snap.count >= n) return snap;
  snap = {n, ZetaStatic(snap.count, n, theta_, snap.zetan)};
  const uint64_t s = seq_.load(std::memory_order_relaxed);
  seq_.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  count_.store(snap.count, std::memory_order_relaxed);
  zetan_.store(snap.zetan, std::memory_order_relaxed);
  seq_.store(s + 2, std::memory_order_release);
  return snap;
}

ZipfianGenerator::ZipfianGenerator(int64_t min, int64_t max, double theta)
    : ZipfianGenerator(min, max, theta, ZetaStatic(max - min + 1, theta)) {}

ZipfianGenerator::ZipfianGenerator(int64_t min, int64_t max, double theta, double zetan)
    : items_(max - min + 1),
      base_(min),
      theta_(theta),
      zeta2theta_(ZetaStatic(2, theta)),
      alpha_(1.0 / (1.0 - theta)),
      zetan_(zetan),
      half_pow_theta_(1.0 + std::pow(0.5, theta)),
      count_for_zeta_(items_) {
  eta_ = Eta();
}

double ZipfianGenerator::Eta() const {
  // YCSB uses the item count the generator was built with, also after zeta
  // grows. (An empty generator, which YCSB would divide by, counts as one item.)
  const double n = double(items_ > 0 ? items_ : 1);
  return (1 - std::pow(2.0 / n, 1 - theta_)) / (1 - zeta2theta_ / zetan_);
}

void ZipfianGenerator::Grow(int64_t itemcount) {
  if (shared_ != nullptr) {
    const SharedZeta::Snapshot snap = shared_->AtLeast(itemcount);
    zetan_ = snap.zetan;
    count_for_zeta_ = snap.count;
  } else {
    zetan_ = ZetaStatic(count_for_zeta_, itemcount, theta_, zetan_);
    count_for_zeta_ = itemcount;
  }
  eta_ = Eta();
}

int64_t ZipfianGenerator::Next(Rng& rng, int64_t itemcount) {
  // YCSB only ever grows zeta (allowitemcountdecrease is false): a smaller
  // itemcount keeps the larger sum.
  if (itemcount > count_for_zeta_) Grow(itemcount);
  const double u = rng.NextDouble();
  const double uz = u * zetan_;
  if (uz < 1.0) return base_;
  if (uz < half_pow_theta_) return base_ + 1;
  return base_ + int64_t(double(itemcount) * std::pow(eta_ * u - eta_ + 1, alpha_));
}

ScrambledZipfianGenerator::ScrambledZipfianGenerator(int64_t min, int64_t max)
    : gen_(0, kItemCount, kZipfianConstant, kZetan), min_(min), itemcount_(max - min + 1) {}

int64_t ScrambledZipfianGenerator::Next(Rng& rng) {
  return min_ + FnvHash64(gen_.Next(rng)) % itemcount_;
}

SkewedLatestGenerator::SkewedLatestGenerator(const AcknowledgedCounterGenerator* basis,
                                             SharedZeta* shared)
    : basis_(basis), zipfian_(0, basis->Last() - 1) {
  zipfian_.set_shared_zeta(shared);
}

SkewedLatestGenerator::SkewedLatestGenerator(const AcknowledgedCounterGenerator* basis,
                                             const ZipfianGenerator& prototype)
    : basis_(basis), zipfian_(prototype) {}

}  // namespace wirebench::ycsb
