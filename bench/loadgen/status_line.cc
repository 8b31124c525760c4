#include "bench/loadgen/status_line.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "bench/hdr/ycsb_summary.h"
#include "common/local_time.h"
#include "common/str_cat.h"

namespace wirebench {

namespace {

std::string YcsbTimestamp() { return LocalTimestamp(':'); }

}  // namespace

StatusLine::StatusLine(bool print, double interval_s, std::string label,
                       hdr::HistogramLogWriter* hlog)
    : print_(print),
      interval_s_(interval_s),
      label_(label.empty() ? "" : label + " "),
      hlog_(hlog) {}

double StatusLine::snapshot_interval_s() const {
  if (hlog_) return std::min(1.0, interval_s_);
  return print_ ? interval_s_ : 0;
}

void StatusLine::OnSnapshot(double elapsed_s, const StatusSnapshot& s) {
  if (hlog_) WriteIntervals(elapsed_s, s);
  if (!print_) return;
  for (int t = 0; t < kOpTypes; ++t) pending_[size_t(t)].Add(s.interval[size_t(t)]);
  if (!s.final && elapsed_s - last_t_ + 1e-3 < interval_s_) return;
  Print(elapsed_s, s);
}

void StatusLine::WriteIntervals(double elapsed_s, const StatusSnapshot& s) {
  for (int t = 0; t < kOpTypes; ++t) {
    const hdr::Histogram& h = s.interval[size_t(t)].latency;
    if (h.total_count() == 0) continue;
    (void)hlog_->WriteInterval(OpTypeName(OpType(t)), last_hlog_t_, elapsed_s - last_hlog_t_, h);
  }
  last_hlog_t_ = elapsed_s;
}

void StatusLine::Print(double elapsed_s, const StatusSnapshot& s) {
  const double rate =
      elapsed_s > last_t_ ? double(s.operations - last_ops_) / (elapsed_s - last_t_) : 0;
  std::string line = label_ + YcsbTimestamp() + " " + std::to_string(int64_t(elapsed_s)) +
                     " sec: " + std::to_string(s.operations) + " operations; " +
                     hdr::JavaDoubleToString(rate) + " current ops/sec;";
  for (int t = 0; t < kOpTypes; ++t) {
    if (pending_[size_t(t)].latency.total_count() == 0) continue;
    line += StrCat(" ", hdr::FormatYcsbStatusSummary(OpTypeName(OpType(t)),
                                                     pending_[size_t(t)].latency));
  }
  std::fprintf(stderr, "%s\n", line.c_str());
  pending_ = {};
  last_ops_ = s.operations;
  last_t_ = elapsed_s;
}

}  // namespace wirebench
