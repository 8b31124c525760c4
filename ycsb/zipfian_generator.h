// YCSB's zipfian family (site.ycsb.generator): ZipfianGenerator (Gray et al.,
// "Quickly Generating Billion-Record Synthetic Databases", SIGMOD 1994, with
// YCSB's constant 0.99 and its incremental zeta when the item count grows),
// ScrambledZipfianGenerator (zipfian over 10^10 items with YCSB's precomputed
// zeta, scattered with FnvHash64) and SkewedLatestGenerator (zipfian counted
// back from the last acknowledged insert).
//
// Generators are small values that hold no RNG: the caller passes its Rng to
// every draw, so a workload builds each generator once (the O(n) zeta sum) and
// copies it into each logical client cheaply.
// Thread-safety: generator objects have one owner at a time; SharedZeta is
// safe to share between threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "ycsb/acknowledged_counter.h"
#include "ycsb/rng.h"

namespace wirebench::ycsb {

inline constexpr double kZipfianConstant = 0.99;

// zeta(n, theta) = sum_{i=1..n} 1 / i^theta, and YCSB's incremental form that
// continues a sum computed for st items up to n items.
double ZetaStatic(int64_t n, double theta);
double ZetaStatic(int64_t st, int64_t n, double theta, double initial_sum);

// A zeta sum that grows as the item count grows, shared by every client's copy
// of one zipfian generator so the incremental terms are summed once per run
// rather than once per client. Readers take no lock; extending takes a mutex.
class SharedZeta {
 public:
  SharedZeta(int64_t count, double zetan, double theta)
      : count_(count), zetan_(zetan), theta_(theta) {}
  SharedZeta(const SharedZeta&) = delete;
  SharedZeta& operator=(const SharedZeta&) = delete;

  struct Snapshot {
    int64_t count;
    double zetan;
  };
  // The zeta sum over `count` items, count >= n: extended to exactly n when the
  // shared sum covers fewer items, or the larger current one otherwise (YCSB
  // also keeps its larger zeta when the item count it is given goes down).
  Snapshot AtLeast(int64_t n);

 private:
  Snapshot Read() const;

  std::mutex extend_mu_;
  // Seqlock over (count_, zetan_): odd while a writer is mid-update.
  std::atomic<uint64_t> seq_{0};
  std::atomic<int64_t> count_;
  std::atomic<double> zetan_;
  const double theta_;
};

class ZipfianGenerator {
 public:
  // Items min..max inclusive; computes zeta over max - min + 1 items (O(n)).
  ZipfianGenerator(int64_t min, int64_t max, double theta = kZipfianConstant);
  // As above with a precomputed zeta.
  ZipfianGenerator(int64_t min, int64_t max, double theta, double zetan);

  // Shares incremental zeta updates through `shared` (not owned; must outlive
  // this generator and every copy of it).
  void set_shared_zeta(SharedZeta* shared) { shared_ = shared; }

  // A value in [min, max]: min is the most popular.
  int64_t Next(Rng& rng) { return Next(rng, items_); }
  // A value drawn as if there were `itemcount` items (YCSB's nextLong(itemcount));
  // zeta is extended incrementally when itemcount grows.
  int64_t Next(Rng& rng, int64_t itemcount);

  int64_t items() const { return items_; }
  double zetan() const { return zetan_; }
  int64_t count_for_zeta() const { return count_for_zeta_; }

 private:
  void Grow(int64_t itemcount);
  double Eta() const;

  int64_t items_;
  int64_t base_;
  double theta_;
  double zeta2theta_;
  double alpha_;
  double zetan_;
  double eta_;
  double half_pow_theta_;  // 1 + 0.5^theta, the second item's threshold.
  int64_t count_for_zeta_;
  SharedZeta* shared_ = nullptr;
};

class ScrambledZipfianGenerator {
 public:
  // YCSB's constants: the underlying zipfian spans kItemCount + 1 items with
  // the zeta YCSB precomputed for that span.
  static constexpr int64_t kItemCount = 10'000'000'000ll;
  static constexpr double kZetan = 26.46902820178302;

  // Values in [min, max], popular ones scattered over the range.
  ScrambledZipfianGenerator(int64_t min, int64_t max);

  int64_t Next(Rng& rng);

 private:
  ZipfianGenerator gen_;
  int64_t min_;
  int64_t itemcount_;
};

class SkewedLatestGenerator {
 public:
  // Draws relative to basis->Last(); `basis` and `shared` are not owned and
  // must outlive the generator (shared may be null).
  SkewedLatestGenerator(const AcknowledgedCounterGenerator* basis, SharedZeta* shared);
  // As above, copying the zipfian state (and its zeta) from `prototype`.
  SkewedLatestGenerator(const AcknowledgedCounterGenerator* basis,
                        const ZipfianGenerator& prototype);

  // max - zipfian(max) with max = basis->Last(): the newest key most often.
  int64_t Next(Rng& rng) {
    const int64_t max = basis_->Last();
    return max - zipfian_.Next(rng, max);
  }
  const ZipfianGenerator& zipfian() const { return zipfian_; }

 private:
  const AcknowledgedCounterGenerator* basis_;
  ZipfianGenerator zipfian_;
};

}  // namespace wirebench::ycsb
