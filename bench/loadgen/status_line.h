// StatusLine: turns the driver's interval snapshots into YCSB's -s status
// lines on stderr (a line at the start, then every status.interval seconds,
// then a final one, as YCSB's StatusThread prints them) and into an
// HdrHistogram interval log (one interval per second, one tag per
// operation type).
// Thread-safety: used from the driver's thread only (its on_status callback).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "hdr/histogram_log.h"
#include "bench/results/run_result.h"

namespace wirebench {

// YCSB's RemainingFormatter: "1 day 2 hours ", "3 minutes ", "42 seconds ",
// including its quirks ("7 second " for a one-digit count of seconds, no
// seconds once there are minutes).
std::string YcsbRemaining(int64_t seconds);

// What one YCSB status line says.
struct StatusLineFigures {
  std::string label;      // -l, glued to the timestamp as YCSB does.
  std::string timestamp;  // "yyyy-MM-dd HH:mm:ss:SSS".
  int64_t elapsed_ms = 0;          // Since the status thread started.
  int64_t interval_ms = 0;         // Since the previous line.
  uint64_t total_ops = 0;          // Done so far.
  uint64_t interval_ops = 0;       // Done since the previous line.
  int64_t todo_ops = 0;            // Left of operationcount (0 when unlimited).
  std::string summary;             // Each measurement's "[NAME: ...]" followed by a space.
};
// StatusThread.computeStats's line: "<label><time> <s> sec: <n> operations;
// [<#.##> current ops/sec; ][est completion in <remaining>]<summary>".
std::string FormatYcsbStatusLine(const StatusLineFigures& f);

// One measurement's part of a status line in the form of YCSB's
// `measurementtype` (hdrhistogram, histogram, timeseries, raw,
// hdrhistogram+histogram, hdrhistogram+raw): see FormatYcsbStatusSummary
// and its siblings in hdr/ycsb_summary.h. The two-in-one types give
// their halves ("Hdr<NAME>", then "Bucket<NAME>" or "Raw<NAME>") joined by a
// line end, as YCSB's TwoInOneMeasurement does. A form without operations
// in the interval is "" (hdrhistogram: "Count=0").
std::string StatusMeasurementSummary(const std::string& measurement_type, const std::string& name,
                                     const hdr::Histogram& interval_ns);

class StatusLine {
 public:
  // `print`: write status lines, prefixed by `label`, every `interval_s`;
  // `planned_ops` is operationcount (0 = unlimited: no estimate);
  // `measurement_type` YCSB's measurementtype, which shapes each
  // measurement's part of the line (timeseries also prints the lines on
  // stdout, as YCSB's StatusThread does with its standardstatus).
  // `hlog`, if not null, gets every snapshot (and must outlive this object).
  StatusLine(bool print, double interval_s, std::string label, int64_t planned_ops,
             hdr::HistogramLogWriter* hlog, std::string measurement_type = "hdrhistogram");

  // How often the driver should take snapshots (0 = never).
  double snapshot_interval_s() const;
  // YCSB's first line, before any operation (call as the run starts).
  void Start();
  void OnSnapshot(double elapsed_s, const StatusSnapshot& s);

 private:
  void WriteIntervals(double elapsed_s, const StatusSnapshot& s);
  void Print(double elapsed_s, uint64_t total_ops);
  std::string Summary();

  bool print_;
  double interval_s_;
  std::string label_;
  int64_t planned_ops_;
  hdr::HistogramLogWriter* hlog_;
  std::string measurement_type_;
  uint64_t last_ops_ = 0;
  double last_t_ = 0;
  double last_hlog_t_ = 0;
  std::array<OpStats, kOpTypes> pending_;  // Since the last printed line.
  // Measurements that exist (YCSB lists them from their first operation on,
  // with Count=0 in an interval without any): per type, its own and its -FAILED.
  std::array<bool, kOpTypes> seen_{};
  std::array<bool, kOpTypes> seen_failed_{};
};

// A progress line on stderr: rewritten in place ("\r") on a terminal; one
// line each otherwise, so a log holds no carriage returns and no line of
// thousands of bytes.
void PrintProgressLine(const std::string& line);
// What ends a progress line before other output: "\n" on a terminal, ""
// otherwise (each line there already ends).
const char* ProgressBreak();

}  // namespace wirebench
