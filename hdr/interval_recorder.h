// IntervalRecorder: the per-thread recording side of interval histograms
// (.hlog lines and YCSB's 10-second status lines). It holds the histogram of
// the interval being recorded and, optionally, the running total of all
// finished intervals; the owning thread records into it and, on its own
// schedule (every N seconds of its event loop), takes the finished interval
// out by swapping in a recycled histogram, so neither Record() nor the swap
// takes a lock or allocates. The finished interval is then the caller's to
// hand to a reporter thread through whatever queue it already has.
//
// This is HdrHistogram's Recorder without its WriterReaderPhaser: wirebench
// runs one recorder per client thread, so reader and writer are the same
// thread and need no synchronization.
// Thread-safety: none; one owning thread.
#pragma once

#include <cstdint>

#include "hdr/histogram.h"
#include "common/status.h"

namespace wirebench::hdr {

struct IntervalRecorderOptions {
  // Layout of the interval (and total) histograms.
  HistogramOptions histogram;
  // Keep a running total of every taken interval (YCSB's totalHistogram).
  bool keep_total = true;
};

// A finished interval: [start_ns, end_ns) on the caller's clock, and what
// was recorded in it.
struct RecordedInterval {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  Histogram histogram;
};

class IntervalRecorder {
 public:
  // Starts the first interval at start_ns.
  [[nodiscard]] static StatusOr<IntervalRecorder> Create(const IntervalRecorderOptions& options,
                                                         int64_t start_ns);

  IntervalRecorder(IntervalRecorder&&) noexcept = default;
  IntervalRecorder& operator=(IntervalRecorder&&) noexcept = default;
  IntervalRecorder(const IntervalRecorder&) = delete;
  IntervalRecorder& operator=(const IntervalRecorder&) = delete;

  void Record(int64_t value_ns) { current_.Record(value_ns); }

  // Ends the current interval at now_ns and starts the next one there.
  // `*out` receives the finished interval; the histogram it held before is
  // reset and reused for the next interval, so when it already has this
  // recorder's layout (a RecordedInterval passed back in each time) nothing
  // is allocated. Adds the finished interval to total() when keep_total.
  void TakeInterval(int64_t now_ns, RecordedInterval* out);

  // The interval being recorded so far, and when it started.
  const Histogram& current() const { return current_; }
  int64_t current_start_ns() const { return current_start_ns_; }
  // Sum of every interval taken so far (empty unless keep_total).
  const Histogram& total() const { return total_; }
  const IntervalRecorderOptions& options() const { return options_; }

 private:
  IntervalRecorder(const IntervalRecorderOptions& options, Histogram prototype, int64_t start_ns);

  IntervalRecorderOptions options_;
  Histogram current_;
  Histogram total_;
  int64_t current_start_ns_ = 0;
};

}  // namespace wirebench::hdr
