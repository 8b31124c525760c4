// How latency summaries are shaped in the text report and the result JSON:
// YCSB's hdrhistogram.percentiles and measurement.interval.
// Thread-safety: plain values.
#pragma once

#include <string>
#include <vector>

namespace wirebench {

struct ReportOptions {
  std::vector<double> percentiles = {50, 95, 99};
  // Which latencies to print: "op", "intended" or "both" (measurement.interval).
  std::string measurement_interval = "op";
};

}  // namespace wirebench
