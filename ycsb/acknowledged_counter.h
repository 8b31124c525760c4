// CounterGenerator and AcknowledgedCounterGenerator: YCSB's insert-key
// counters (site.ycsb.generator.CounterGenerator / AcknowledgedCounterGenerator).
//
// CounterGenerator hands out start, start+1, ... The acknowledged variant
// hands out numbers the same way but its Last() only advances over a
// contiguous run of acknowledged numbers, so readers never pick a key whose
// insert has not completed, even when inserts finish out of order. Pending
// acknowledgements live in YCSB's window of 2^20 slots.
// Thread-safety: both classes are safe to share between threads; Next(),
// Acknowledge() and Last() take no mutex and allocate nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "common/status.h"

namespace wirebench::ycsb {

class CounterGenerator {
 public:
  explicit CounterGenerator(int64_t start) : counter_(start) {}
  CounterGenerator(const CounterGenerator&) = delete;
  CounterGenerator& operator=(const CounterGenerator&) = delete;

  // The next number; each call returns a different one.
  int64_t Next() { return counter_.fetch_add(1, std::memory_order_relaxed); }
  // The last number handed out (start - 1 before the first Next()).
  int64_t Last() const { return counter_.load(std::memory_order_relaxed) - 1; }

 private:
  std::atomic<int64_t> counter_;
};

class AcknowledgedCounterGenerator {
 public:
  // YCSB's WINDOW_SIZE: at most this many numbers may be handed out and not
  // yet acknowledged beyond the contiguous acknowledged prefix.
  static constexpr int64_t kWindowSize = int64_t(1) << 20;

  explicit AcknowledgedCounterGenerator(int64_t start);
  AcknowledgedCounterGenerator(const AcknowledgedCounterGenerator&) = delete;
  AcknowledgedCounterGenerator& operator=(const AcknowledgedCounterGenerator&) = delete;

  // The next number to insert.
  int64_t Next() { return counter_.fetch_add(1, std::memory_order_relaxed); }
  // The highest number h such that every number in [start, h] is acknowledged
  // (start - 1 before any). This is YCSB's lastValue() for this generator.
  int64_t Last() const { return limit_.load(std::memory_order_acquire); }
  // Marks `value` (a number returned by Next()) as inserted. Fails, like
  // YCSB's "Too many unacknowledged insertion keys.", when `value` is a full
  // window ahead of the acknowledged prefix.
  [[nodiscard]] Status Acknowledge(int64_t value);

 private:
  static constexpr int64_t kWindowMask = kWindowSize - 1;

  std::atomic<int64_t> counter_;
  std::atomic<int64_t> limit_;
  // Taken with try-lock semantics only: whoever holds it moves limit_ forward.
  std::atomic<bool> advancing_{false};
  std::unique_ptr<std::atomic<bool>[]> window_;
};

}  // namespace wirebench::ycsb
