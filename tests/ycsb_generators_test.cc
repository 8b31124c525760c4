// Statistical tests for the YCSB generators (ycsb/generators.h,
// zipfian_generator.h, acknowledged_counter.h). Every test uses a fixed seed,
// printed on failure, so a failing draw sequence can be replayed.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <numeric>
#include <thread>
#include <vector>

#include "ycsb/acknowledged_counter.h"
#include "ycsb/generators.h"
#include "ycsb/rng.h"
#include "ycsb/zipfian_generator.h"

namespace wirebench::ycsb {
namespace {

constexpr uint64_t kSeed = 20240601;

TEST(YcsbRng, DeterministicPerSeedAndClient) {
  SCOPED_TRACE(kSeed);
  Rng a = Rng::ForClient(kSeed, 3), b = Rng::ForClient(kSeed, 3), c = Rng::ForClient(kSeed, 4);
  uint64_t x = a.Next();
  EXPECT_EQ(x, b.Next());
  EXPECT_NE(x, c.Next());
  for (int i = 0; i < 10000; ++i) {
    const double d = a.NextDouble();
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
    ASSERT_LT(a.Below(7), 7u);
  }
}

TEST(YcsbGenerators, UniformChiSquare) {
  SCOPED_TRACE(kSeed);
  Rng rng(kSeed);
  UniformLongGenerator gen(10, 109);  // 100 buckets.
  std::vector<int> counts(100);
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const int64_t v = gen.Next(rng);
    ASSERT_GE(v, 10);
    ASSERT_LE(v, 109);
    ++counts[size_t(v - 10)];
  }
  const double expected = n / 100.0;
  double chi2 = 0;
  for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
  // 99 degrees of freedom: mean 99, sd 14; 160 is past the 99.99th percentile.
  EXPECT_LT(chi2, 160) << chi2;
  EXPECT_GT(chi2, 50) << chi2;  // Suspiciously even would be wrong too.
}

TEST(YcsbGenerators, ZipfianRankFrequencyFollowsPowerLaw) {
  SCOPED_TRACE(kSeed);
  Rng rng(kSeed);
  const int64_t items = 1000;
  ZipfianGenerator gen(0, items - 1);
  EXPECT_NEAR(gen.zetan(), ZetaStatic(items, 0.99), 1e-9);
  std::vector<int> counts(items);
  const int n = 1000000;
  for (int i = 0; i < n; ++i) {
    const int64_t v = gen.Next(rng);
    ASSERT_GE(v, 0);
    ASSERT_LT(v, items);
    ++counts[size_t(v)];
  }
  // Item 0 is drawn with probability 1/zeta(n), item 1 with 2^-0.99/zeta(n).
  EXPECT_NEAR(counts[0] / double(n), 1 / gen.zetan(), 0.003);
  EXPECT_NEAR(double(counts[0]) / counts[1], std::pow(2.0, 0.99), 0.05);
  // Gray's closed form approximates the tail: ratios within 15% of 1/rank^0.99.
  for (int rank : {3, 5, 10, 20, 50}) {
    const double ratio = double(counts[0]) / counts[size_t(rank - 1)];
    const double want = std::pow(double(rank), 0.99);
    EXPECT_NEAR(ratio / want, 1.0, 0.15) << "rank " << rank << " ratio " << ratio;
  }
  // Popularity falls with rank over the head.
  EXPECT_GT(counts[0], counts[1]);
  EXPECT_GT(counts[1], counts[4]);
  EXPECT_GT(counts[4], counts[50]);
}

TEST(YcsbGenerators, ZipfianZetaGrowsIncrementally) {
  SCOPED_TRACE(kSeed);
  Rng rng(kSeed);
  ZipfianGenerator gen(0, 99);
  EXPECT_EQ(gen.count_for_zeta(), 100);
  for (int i = 0; i < 1000; ++i) ASSERT_LT(gen.Next(rng, 250), 250);
  EXPECT_EQ(gen.count_for_zeta(), 250);
  EXPECT_NEAR(gen.zetan(), ZetaStatic(250, 0.99), 1e-9);
  // A smaller item count keeps the larger zeta, as YCSB does.
  (void)gen.Next(rng, 120);
  EXPECT_EQ(gen.count_for_zeta(), 250);

  // Copies sharing a SharedZeta sum each new term once and agree.
  ZipfianGenerator proto(0, 99);
  SharedZeta shared(proto.count_for_zeta(), proto.zetan(), 0.99);
  proto.set_shared_zeta(&shared);
  ZipfianGenerator a = proto, b = proto;
  (void)a.Next(rng, 500);
  EXPECT_EQ(shared.AtLeast(1).count, 500);
  (void)b.Next(rng, 300);  // Takes the shared sum for 500 items.
  EXPECT_EQ(b.count_for_zeta(), 500);
  EXPECT_NEAR(b.zetan(), ZetaStatic(500, 0.99), 1e-9);
}

TEST(YcsbGenerators, ScrambledZipfianInRangeAndSkewed) {
  SCOPED_TRACE(kSeed);
  Rng rng(kSeed);
  const int64_t lo = 100, n = 1000;
  ScrambledZipfianGenerator gen(lo, lo + n - 1);
  std::vector<int> counts(n);
  const int draws = 300000;
  for (int i = 0; i < draws; ++i) {
    const int64_t v = gen.Next(rng);
    ASSERT_GE(v, lo);
    ASSERT_LT(v, lo + n);
    ++counts[size_t(v - lo)];
  }
  std::vector<int> sorted = counts;
  std::sort(sorted.rbegin(), sorted.rend());
  const double top10pct = std::accumulate(sorted.begin(), sorted.begin() + n / 10, 0.0) / draws;
  // Uniform would give 10%. YCSB's scrambled zipfian draws from 10^10 items,
  // of which the 100 most popular carry zeta(100)/zeta(10^10) = 20% of the
  // mass, the rest spreading almost evenly: about 28% in all.
  EXPECT_GT(top10pct, 0.24) << top10pct;
  EXPECT_LT(top10pct, 0.34) << top10pct;
  // The most popular item is not item lo (the popular ones are scattered).
  const int64_t hottest = std::max_element(counts.begin(), counts.end()) - counts.begin();
  EXPECT_NE(hottest, 0);
  // Item 0 of the underlying zipfian alone has 1/zeta = 3.8% of the draws.
  EXPECT_GT(sorted[0] / double(draws), 1 / ScrambledZipfianGenerator::kZetan - 0.003);
}

TEST(YcsbGenerators, SkewedLatestFavoursNewestAcknowledged) {
  SCOPED_TRACE(kSeed);
  Rng rng(kSeed);
  AcknowledgedCounterGenerator acked(1000);  // Last() = 999.
  SkewedLatestGenerator gen(&acked, nullptr);
  std::map<int64_t, int> counts;
  const int draws = 100000;
  for (int i = 0; i < draws; ++i) {
    const int64_t v = gen.Next(rng);
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 999);
    ++counts[v];
  }
  EXPECT_GT(counts[999], counts[998]);
  EXPECT_GT(counts[998], counts[990]);
  int recent = 0;
  for (auto& [k, c] : counts) recent += k >= 900 ? c : 0;
  EXPECT_GT(recent / double(draws), 0.6);
  // Acknowledge 50 more inserts: the newest of those becomes the favourite.
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(acked.Acknowledge(acked.Next()).ok());
  EXPECT_EQ(acked.Last(), 1049);
  counts.clear();
  for (int i = 0; i < draws; ++i) {
    const int64_t v = gen.Next(rng);
    ASSERT_LE(v, 1049);
    ++counts[v];
  }
  EXPECT_GT(counts[1049], counts[999]);
  EXPECT_EQ(gen.zipfian().count_for_zeta(), 1049);
}

TEST(YcsbGenerators, HotspotFractions) {
  SCOPED_TRACE(kSeed);
  Rng rng(kSeed);
  HotspotIntegerGenerator gen(1000, 1999, 0.2, 0.8);
  EXPECT_EQ(gen.hot_interval(), 200);
  EXPECT_EQ(gen.cold_interval(), 800);
  const int draws = 200000;
  int hot = 0;
  std::vector<int> hot_counts(200);
  for (int i = 0; i < draws; ++i) {
    const int64_t v = gen.Next(rng);
    ASSERT_GE(v, 1000);
    ASSERT_LE(v, 1999);
    if (v < 1200) {
      ++hot;
      ++hot_counts[size_t(v - 1000)];
    }
  }
  EXPECT_NEAR(hot / double(draws), 0.8, 0.01);
  // Uniform within the hot set.
  const auto [mn, mx] = std::minmax_element(hot_counts.begin(), hot_counts.end());
  EXPECT_GT(*mn, 600);
  EXPECT_LT(*mx, 1000);
}

TEST(YcsbGenerators, ExponentialPercentile) {
  SCOPED_TRACE(kSeed);
  Rng rng(kSeed);
  ExponentialGenerator gen = ExponentialGenerator::FromPercentile(95, 1000);
  const int draws = 200000;
  int below = 0;
  double sum = 0;
  for (int i = 0; i < draws; ++i) {
    const double x = gen.Next(rng);
    ASSERT_GE(x, 0);
    ASSERT_TRUE(std::isfinite(x));
    below += x < 1000;
    sum += x;
  }
  EXPECT_NEAR(below / double(draws), 0.95, 0.005);
  EXPECT_NEAR(sum / draws / gen.Mean(), 1.0, 0.02);
}

TEST(YcsbGenerators, SequentialWrapsAndCounterCounts) {
  SequentialGenerator seq(5, 7);
  std::vector<int64_t> got;
  for (int i = 0; i < 7; ++i) got.push_back(seq.Next());
  EXPECT_EQ(got, (std::vector<int64_t>{5, 6, 7, 5, 6, 7, 5}));
  CounterGenerator counter(10);
  EXPECT_EQ(counter.Last(), 9);
  EXPECT_EQ(counter.Next(), 10);
  EXPECT_EQ(counter.Next(), 11);
  EXPECT_EQ(counter.Last(), 11);
}

TEST(YcsbGenerators, DiscreteProportions) {
  SCOPED_TRACE(kSeed);
  Rng rng(kSeed);
  DiscreteGenerator gen;
  gen.Add(0, 0.5);
  gen.Add(1, 0);  // Ignored, like a zero proportion in CoreWorkload.
  gen.Add(2, 0.3);
  gen.Add(3, 0.2);
  EXPECT_EQ(gen.size(), 3);
  int counts[4] = {};
  const int draws = 100000;
  for (int i = 0; i < draws; ++i) ++counts[gen.Next(rng)];
  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(counts[0] / double(draws), 0.5, 0.01);
  EXPECT_NEAR(counts[2] / double(draws), 0.3, 0.01);
  EXPECT_NEAR(counts[3] / double(draws), 0.2, 0.01);
}

TEST(YcsbGenerators, FieldLengths) {
  SCOPED_TRACE(kSeed);
  Rng rng(kSeed);
  FieldLengthGenerator constant(LengthDistribution::kConstant, 1, 100);
  FieldLengthGenerator uniform(LengthDistribution::kUniform, 10, 100);
  FieldLengthGenerator zipf(LengthDistribution::kZipfian, 1, 100);
  int64_t usum = 0, short_zipf = 0;
  const int draws = 50000;
  for (int i = 0; i < draws; ++i) {
    ASSERT_EQ(constant.Next(rng), 100);
    const int64_t u = uniform.Next(rng);
    ASSERT_GE(u, 10);
    ASSERT_LE(u, 100);
    usum += u;
    const int64_t z = zipf.Next(rng);
    ASSERT_GE(z, 1);
    ASSERT_LE(z, 100);
    short_zipf += z <= 10;
  }
  EXPECT_NEAR(usum / double(draws), 55, 1);
  EXPECT_GT(short_zipf / double(draws), 0.4);  // Zipfian favours short fields.
}

TEST(YcsbAcknowledgedCounter, OutOfOrderSingleThread) {
  AcknowledgedCounterGenerator g(100);
  EXPECT_EQ(g.Last(), 99);
  const int64_t a = g.Next(), b = g.Next(), c = g.Next();
  ASSERT_TRUE(g.Acknowledge(c).ok());
  ASSERT_TRUE(g.Acknowledge(b).ok());
  EXPECT_EQ(g.Last(), 99);  // a still pending.
  ASSERT_TRUE(g.Acknowledge(a).ok());
  EXPECT_EQ(g.Last(), 102);
}

TEST(YcsbAcknowledgedCounter, WindowOverflowIsAnError) {
  AcknowledgedCounterGenerator g(0);
  ASSERT_TRUE(g.Acknowledge(1).ok());  // 0 pending, so 1 stays in the window.
  Status s = g.Acknowledge(1 + AcknowledgedCounterGenerator::kWindowSize);
  EXPECT_EQ(s.code(), Status::Code::kResourceExhausted) << s.ToString();
}

TEST(YcsbAcknowledgedCounter, ConcurrentOutOfOrderAcknowledgements) {
  SCOPED_TRACE(kSeed);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 50000;
  constexpr int kBatch = 64;  // Each thread acknowledges its batch in reverse.
  const int64_t start = 1000;
  AcknowledgedCounterGenerator g(start);
  const int64_t total = int64_t(kThreads) * kPerThread;
  std::unique_ptr<std::atomic<bool>[]> acked(new std::atomic<bool>[size_t(total)]);
  for (int64_t i = 0; i < total; ++i) acked[size_t(i)].store(false);
  std::atomic<bool> failed{false};
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Rng rng = Rng::ForClient(kSeed, uint64_t(t));
      int64_t batch[kBatch];
      for (int i = 0; i < kPerThread; i += kBatch) {
        const int n = std::min(kBatch, kPerThread - i);
        for (int k = 0; k < n; ++k) batch[k] = g.Next();
        for (int k = n - 1; k > 0; --k) std::swap(batch[k], batch[rng.Below(uint64_t(k) + 1)]);
        for (int k = 0; k < n; ++k) {
          acked[size_t(batch[k] - start)].store(true);
          if (!g.Acknowledge(batch[k]).ok()) failed = true;
        }
      }
      done.fetch_add(1);
    });
  }
  // Meanwhile Last() only grows and never passes an unacknowledged number.
  int64_t prev = g.Last();
  do {
    const int64_t last = g.Last();
    ASSERT_GE(last, prev);
    if (last >= start) {
      ASSERT_TRUE(acked[size_t(last - start)].load()) << last;
    }
    prev = last;
  } while (done.load() < kThreads);
  for (auto& th : threads) th.join();
  EXPECT_FALSE(failed.load());
  // Every acknowledgement landed: none was stranded by a lost try-lock race.
  EXPECT_EQ(g.Last(), start + total - 1);
}

}  // namespace
}  // namespace wirebench::ycsb
