#include "ycsb/acknowledged_counter.h"

#include <string>

namespace wirebench::ycsb {

AcknowledgedCounterGenerator::AcknowledgedCounterGenerator(int64_t start)
    : counter_(start), limit_(start - 1), window_(new std::atomic<bool>[kWindowSize]) {
  for (int64_t i = 0; i < kWindowSize; ++i) window_[i].store(false, std::memory_order_relaxed);
}

Status AcknowledgedCounterGenerator::Acknowledge(int64_t value) {
  std::atomic<bool>& slot = window_[value & kWindowMask];
  // seq_cst throughout: a slot set by a thread whose try-lock fails is seen by
  // the lock holder's re-check after it unlocks, so no acknowledgement is lost
  // (YCSB's version can strand one until the next acknowledgement arrives).
  if (slot.exchange(true)) {
    return Status::ResourceExhausted(
        "too many unacknowledged insertion keys (more than " + std::to_string(kWindowSize) +
        " inserts in flight beyond the last contiguous acknowledgement); key " +
        std::to_string(value));
  }
  while (!advancing_.exchange(true)) {
    // Move the contiguous run of acknowledged slots over to limit_, looking at
    // the whole window at most once.
    const int64_t limit = limit_.load(std::memory_order_relaxed);
    const int64_t before_first_slot = limit & kWindowMask;
    int64_t index = limit + 1;
    for (; (index & kWindowMask) != before_first_slot; ++index) {
      std::atomic<bool>& s = window_[index & kWindowMask];
      if (!s.load()) break;
      s.store(false);
    }
    limit_.store(index - 1);
    advancing_.store(false);
    // Someone may have acknowledged the next number while we held the lock
    // and given up on it; if so, take another turn.
    if (!window_[index & kWindowMask].load()) break;
  }
  return Status::Ok();
}

}  // namespace wirebench::ycsb
