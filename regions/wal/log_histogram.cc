#include "regions/wal/log_histogram.h"

#include <algorithm>
#include <cassert>
#include <cinttypes>
#include <cstdio>

namespace wirebench {

namespace {
void AtomicMin(std::atomic<uint64_t>& a, uint64_t v) {
  uint64_t cur = a.load(std::memory_order_relaxed);
  while (v < cur && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}
void AtomicMax(std::atomic<uint64_t>& a, uint64_t v) {
  uint64_t cur = a.load(std::memory_order_relaxed);
  while (v > cur && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}
}  // namespace

int LogHistogram::BucketOf(uint64_t v) {
  if (v < uint64_t(kExact)) return int(v);
  const int e = 63 - __builtin_clzll(v);  // 7..63
  const int sub = int((v >> (e - kSubBits)) & ((1 << kSubBits) - 1));
  return kExact + (e - 7) * (1 << kSubBits) + sub;
}

uint64_t LogHistogram::UpperEdge(int bucket) {
  if (bucket < kExact) return uint64_t(bucket);
  const int e = (bucket - kExact) / (1 << kSubBits) + 7;
  const uint64_t sub = uint64_t((bucket - kExact) % (1 << kSubBits));
  const uint64_t width = uint64_t(1) << (e - kSubBits);
  const uint64_t lower = (uint64_t(1) << e) + sub * width;
  return lower + (width - 1);
}

void LogHistogram::Record(uint64_t v) {
  buckets_[BucketOf(v)].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
  AtomicMin(min_, v);
  AtomicMax(max_, v);
}

void LogHistogram::Merge(const LogHistogram& other) {
  for (int i = 0; i < kBuckets; ++i) {
    uint64_t n = other.buckets_[i].load(std::memory_order_relaxed);
    if (n) buckets_[i].fetch_add(n, std::memory_order_relaxed);
  }
  count_.fetch_add(other.count(), std::memory_order_relaxed);
  sum_.fetch_add(other.sum_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  if (other.count()) {
    AtomicMin(min_, other.min());
    AtomicMax(max_, other.max());
  }
}

uint64_t LogHistogram::min() const { return count() ? min_.load(std::memory_order_relaxed) : 0; }

double LogHistogram::mean() const {
  const uint64_t n = count();
  return n ? double(sum_.load(std::memory_order_relaxed)) / double(n) : 0.0;
}

uint64_t LogHistogram::Percentile(double p) const {
  assert(p >= 0 && p <= 100);
  const uint64_t n = count();
  if (n == 0) return 0;
  // The smallest value with at least ceil(p% of n) samples at or below it.
  uint64_t rank = uint64_t(p / 100.0 * double(n) + 0.999999);
  rank = std::clamp<uint64_t>(rank, 1, n);
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets_[i].load(std::memory_order_relaxed);
    if (seen >= rank) return std::clamp(UpperEdge(i), min(), max());
  }
  return max();
}

std::string LogHistogram::Summary() const {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "count=%" PRIu64 ", min=%" PRIu64 ", mean=%.2f, p50=%" PRIu64 ", p95=%" PRIu64
                ", p99=%" PRIu64 ", p99.9=%" PRIu64 ", max=%" PRIu64,
                count(), min(), mean(), Percentile(50), Percentile(95), Percentile(99),
                Percentile(99.9), max());
  return buf;
}

}  // namespace wirebench
