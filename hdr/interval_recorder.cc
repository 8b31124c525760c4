#include "hdr/interval_recorder.h"

#include <utility>

namespace wirebench::hdr {

StatusOr<IntervalRecorder> IntervalRecorder::Create(const IntervalRecorderOptions& options,
                                                    int64_t start_ns) {
  StatusOr<Histogram> prototype = Histogram::Create(options.histogram);
  if (!prototype.ok()) return prototype.status();
  return IntervalRecorder(options, std::move(prototype).value(), start_ns);
}

IntervalRecorder::IntervalRecorder(const IntervalRecorderOptions& options, Histogram prototype,
                                   int64_t start_ns)
    : options_(options), current_(prototype), total_(std::move(prototype)), current_start_ns_(start_ns) {}

void IntervalRecorder::TakeInterval(int64_t now_ns, RecordedInterval* out) {
  std::swap(out->histogram, current_);
  if (current_.SameLayout(out->histogram)) {
    current_.Reset();  // Recycled: same layout, same memory.
  } else {
    current_ = total_;  // First use with a foreign histogram: copy the layout once.
    current_.Reset();
  }
  out->start_ns = current_start_ns_;
  out->end_ns = now_ns;
  current_start_ns_ = now_ns;
  if (options_.keep_total) total_.Add(out->histogram);
}

}  // namespace wirebench::hdr
