// LogHistogram: a small log-bucketed histogram of non-negative integers
// (latencies in ns, appends per sync). Values below 128 are exact; above,
// each power of two is split into 32 buckets (about 3% relative error).
// Percentiles report the upper edge of the bucket, clamped to [min, max].
// Not HdrHistogram: walpe and the WAL need only a summary.
// Thread-safety: Record() may be called from any number of threads (relaxed
// atomics); readers see a consistent-enough snapshot.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace wirebench {

class LogHistogram {
 public:
  LogHistogram() = default;
  LogHistogram(const LogHistogram&) = delete;
  LogHistogram& operator=(const LogHistogram&) = delete;

  void Record(uint64_t v);
  // Adds every sample of other.
  void Merge(const LogHistogram& other);

  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  uint64_t min() const;
  uint64_t max() const { return max_.load(std::memory_order_relaxed); }
  double mean() const;
  // REQUIRES: 0 <= p <= 100. 0 when empty.
  uint64_t Percentile(double p) const;
  // "count=N, min=.., mean=.., p50=.., p95=.., p99=.., p99.9=.., max=..".
  std::string Summary() const;

 private:
  static constexpr int kExact = 128;
  static constexpr int kSubBits = 5;
  static constexpr int kBuckets = kExact + (64 - 7) * (1 << kSubBits);
  static int BucketOf(uint64_t v);
  static uint64_t UpperEdge(int bucket);

  std::atomic<uint64_t> buckets_[kBuckets] = {};
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_{0};
  std::atomic<uint64_t> min_{UINT64_MAX};
  std::atomic<uint64_t> max_{0};
};

}  // namespace wirebench
