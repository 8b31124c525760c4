// The codec comparison charts, drawn with gnuplot from the cells of a matrix
// run: throughput against threads, latency percentile distribution, and CPU
// per op stacked client/server (metrics from compare_metrics.h).
// Thread-safety: runs gnuplot; call from one thread per directory.
#pragma once

#include <string>
#include <vector>

#include "bench/results/compare_metrics.h"
#include "common/status.h"

namespace wirebench {

// Writes data files and gnuplot scripts into `dir` and renders PNG and SVG
// charts. Returns the files written, or an error saying gnuplot is missing.
StatusOr<std::vector<std::string>> WriteCharts(const std::vector<CompareCell>& cells,
                                               const CompareReportOptions& o,
                                               const std::string& dir);

}  // namespace wirebench
