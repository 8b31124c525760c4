#include "bench/loadgen/status_line.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "hdr/ycsb_summary.h"
#include "common/local_time.h"
#include "common/str_cat.h"

namespace wirebench {

std::string YcsbRemaining(int64_t seconds) {
  std::string out;
  const int64_t days = seconds / 86400;
  if (days > 0) {
    out += std::to_string(days) + (days == 1 ? " day " : " days ");
    seconds -= days * 86400;
  }
  const int64_t hours = seconds / 3600;
  if (hours > 0) {
    out += std::to_string(hours) + (hours == 1 ? " hour " : " hours ");
    seconds -= hours * 3600;
  }
  if (days < 1) {
    const int64_t minutes = seconds / 60;
    if (minutes > 0) {
      out += std::to_string(minutes) + (minutes == 1 ? " minute " : " minutes ");
      seconds -= minutes * 60;
    }
  }
  if (out.empty()) {
    // YCSB tests the length of what it has just appended: a one-digit
    // count reads "second".
    out = std::to_string(seconds);
    out += out.size() == 1 ? " second " : " seconds ";
  }
  return out;
}

std::string FormatYcsbStatusLine(const StatusLineFigures& f) {
  std::string line = f.label + f.timestamp + " " + std::to_string(f.elapsed_ms / 1000) +
                     " sec: " + std::to_string(f.total_ops) + " operations; ";
  if (f.total_ops != 0) {
    const double current = 1000.0 * double(f.interval_ops) / double(f.interval_ms);
    line += hdr::YcsbDecimalFormat(current) + " current ops/sec; ";
  }
  if (f.todo_ops != 0) {
    // YCSB: ceil(todo / overall rate), cast to long (NaN -> 0, inf -> max).
    const double rate = 1000.0 * double(f.total_ops) / double(f.elapsed_ms);
    const double remaining = std::ceil(double(f.todo_ops) / rate);
    int64_t seconds = 0;
    if (remaining >= 9.2e18) {
      seconds = INT64_MAX;
    } else if (remaining == remaining) {
      seconds = int64_t(remaining);
    }
    line += "est completion in " + YcsbRemaining(seconds);
  }
  return line + f.summary;
}

std::string StatusMeasurementSummary(const std::string& type, const std::string& name,
                                     const hdr::Histogram& h) {
  if (type == "histogram" || type == "timeseries")
    return hdr::FormatYcsbAverageStatusSummary(name, h);
  if (type == "raw") return hdr::FormatYcsbRawStatusSummary(name, h);
  if (type == "hdrhistogram+histogram")
    return hdr::FormatYcsbStatusSummary("Hdr" + name, h) + "\n" +
           hdr::FormatYcsbAverageStatusSummary("Bucket" + name, h);
  if (type == "hdrhistogram+raw")
    return hdr::FormatYcsbStatusSummary("Hdr" + name, h) + "\n" +
           hdr::FormatYcsbRawStatusSummary("Raw" + name, h);
  return hdr::FormatYcsbStatusSummary(name, h);
}

StatusLine::StatusLine(bool print, double interval_s, std::string label, int64_t planned_ops,
                       hdr::HistogramLogWriter* hlog, std::string measurement_type)
    : print_(print),
      interval_s_(interval_s),
      label_(std::move(label)),
      planned_ops_(planned_ops),
      hlog_(hlog),
      measurement_type_(std::move(measurement_type)) {}

double StatusLine::snapshot_interval_s() const {
  if (hlog_) return std::min(1.0, interval_s_);
  return print_ ? interval_s_ : 0;
}

void StatusLine::Start() {
  if (print_) Print(0, 0);
}

void StatusLine::OnSnapshot(double elapsed_s, const StatusSnapshot& s) {
  if (hlog_) WriteIntervals(elapsed_s, s);
  if (!print_) return;
  for (int t = 0; t < kOpTypes; ++t) pending_[size_t(t)].Add(s.interval[size_t(t)]);
  if (!s.final && elapsed_s - last_t_ + 1e-3 < interval_s_) return;
  Print(elapsed_s, s.operations);
}

void StatusLine::WriteIntervals(double elapsed_s, const StatusSnapshot& s) {
  for (int t = 0; t < kOpTypes; ++t) {
    const hdr::Histogram& h = s.interval[size_t(t)].latency;
    if (h.total_count() == 0) continue;
    (void)hlog_->WriteInterval(OpTypeName(OpType(t)), last_hlog_t_, elapsed_s - last_hlog_t_, h);
  }
  last_hlog_t_ = elapsed_s;
}

std::string StatusLine::Summary() {
  std::string out;
  for (int t = 0; t < kOpTypes; ++t) {
    const OpStats& p = pending_[size_t(t)];
    const std::string name(OpTypeName(OpType(t)));
    if (p.count() > 0) seen_[size_t(t)] = true;
    const uint64_t failures =
        p.results[size_t(OpResult::kNotFound)] + p.results[size_t(OpResult::kError)];
    // Measured whatever the status, in one measurement.
    const bool rmw = OpType(t) == OpType::kReadModifyWrite || OpType(t) == OpType::kVerify;
    if (failures > 0 && !rmw) seen_failed_[size_t(t)] = true;
    if (!seen_[size_t(t)]) continue;
    // As the report: <OP> holds the OK latencies, <OP>-FAILED the others
    // (READ-MODIFY-WRITE all of them).
    hdr::Histogram ok;
    for (int32_t i = 0; i < p.latency.counts_array_length(); ++i) {
      const int64_t n = p.latency.CountAtIndex(i) - (rmw ? 0 : p.not_found_latency.CountAtIndex(i));
      if (n > 0) ok.RecordValues(p.latency.ValueFromIndex(i), n);
    }
    if (rmw) ok.Add(p.failed_latency);
    out += StatusMeasurementSummary(measurement_type_, name, ok) + " ";
    if (seen_failed_[size_t(t)]) {
      hdr::Histogram failed = p.not_found_latency;
      failed.Add(p.failed_latency);
      out += StatusMeasurementSummary(measurement_type_, name + "-FAILED", failed) + " ";
    }
  }
  return out;
}

void StatusLine::Print(double elapsed_s, uint64_t total_ops) {
  StatusLineFigures f;
  f.label = label_;
  f.timestamp = LocalTimestamp(':');
  f.elapsed_ms = int64_t(elapsed_s * 1000);
  f.interval_ms = int64_t((elapsed_s - last_t_) * 1000);
  f.total_ops = total_ops;
  f.interval_ops = total_ops - last_ops_;
  f.todo_ops = planned_ops_ > 0 ? std::max<int64_t>(planned_ops_ - int64_t(total_ops), 0) : 0;
  f.summary = Summary();
  const std::string line = FormatYcsbStatusLine(f);
  std::fprintf(stderr, "%s\n", line.c_str());
  if (measurement_type_ == "timeseries") {  // YCSB's standardstatus: stdout too.
    std::fprintf(stdout, "%s\n", line.c_str());
    std::fflush(stdout);
  }
  pending_ = {};
  last_ops_ = total_ops;
  last_t_ = elapsed_s;
}

namespace {
bool StderrIsTerminal() {
  static const bool terminal = isatty(STDERR_FILENO) != 0;
  return terminal;
}
}  // namespace

const char* ProgressBreak() { return StderrIsTerminal() ? "\n" : ""; }

void PrintProgressLine(const std::string& line) {
  if (StderrIsTerminal()) {
    std::fprintf(stderr, "\r%s   ", line.c_str());
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

}  // namespace wirebench
