// StatusLine: turns the driver's interval snapshots into YCSB's -s status
// lines on stderr (every status.interval seconds) and into an HdrHistogram
// interval log (one interval per second, one tag per operation type).
// Thread-safety: used from the driver's thread only (its on_status callback).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "bench/hdr/histogram_log.h"
#include "bench/results/run_result.h"

namespace wirebench {

class StatusLine {
 public:
  // `print`: write status lines, prefixed by `label`, every `interval_s`.
  // `hlog`, if not null, gets every snapshot (and must outlive this object).
  StatusLine(bool print, double interval_s, std::string label, hdr::HistogramLogWriter* hlog);

  // How often the driver should take snapshots (0 = never).
  double snapshot_interval_s() const;
  void OnSnapshot(double elapsed_s, const StatusSnapshot& s);

 private:
  void WriteIntervals(double elapsed_s, const StatusSnapshot& s);
  void Print(double elapsed_s, const StatusSnapshot& s);

  bool print_;
  double interval_s_;
  std::string label_;
  hdr::HistogramLogWriter* hlog_;
  uint64_t last_ops_ = 0;
  double last_t_ = 0;
  double last_hlog_t_ = 0;
  std::array<OpStats, kOpTypes> pending_;  // Since the last printed line.
};

}  // namespace wirebench
