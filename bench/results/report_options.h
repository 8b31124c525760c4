// How latency summaries are shaped in the text report and the result JSON:
// YCSB's hdrhistogram.percentiles and measurement.interval.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wirebench {

struct ReportOptions {
  std::vector<double> percentiles = {50, 95, 99};
  // Which latencies to print: "op", "intended" or "both" (measurement.interval).
  // "intended" prints them under the operation's own name, as YCSB does.
  std::string measurement_interval = "op";
  // measurementtype: "hdrhistogram", "histogram", "hdrhistogram+histogram",
  // "hdrhistogram+raw", "raw", "timeseries". raw and timeseries read
  // RunResult::samples.
  std::string measurement_type = "hdrhistogram";
  // timeseries: the averaging unit in ms (timeseries.granularity). No
  // percentiles: YCSB master's OneMeasurementTimeSeries prints none.
  int64_t timeseries_granularity_ms = 1000;
  // raw: no summary lines, only Total Operations (measurement.raw.no_summary).
  bool raw_no_summary = false;
  // histogram: milliseconds of 1 ms buckets (histogram.buckets), and whether
  // to print each bucket (measurement.histogram.verbose).
  int64_t histogram_buckets = 1000;
  bool histogram_verbose = false;
  // Latency of non-OK operations: under <OP>-<STATUS> for every status
  // (reportlatencyforeacherror) or for these (latencytrackederrors), else
  // under <OP>-FAILED.
  bool report_latency_for_each_error = false;
  std::vector<std::string> latency_tracked_errors;
  // The run had no server (the basic binding, YCSB's BasicDB, answered in
  // the client's process): [SERVER] says so instead of giving figures, and
  // [TOTAL] is the client's own cost.
  bool no_server = false;
};

}  // namespace wirebench
