// The codec comparison charts, drawn with gnuplot from the cells of a matrix
// run: throughput (a bar per codec with min-max error bars at one thread
// count, lines against threads for a sweep), latency percentile
// distribution, and CPU (and instructions, when measured) per op stacked
// client/server, labelled (metrics from compare_metrics.h).
// Thread-safety: runs gnuplot; call from one thread per directory.
#pragma once

#include <string>
#include <vector>

#include "bench/results/compare_metrics.h"
#include "common/status.h"

namespace wirebench {

// How the throughput chart is drawn: bars for a single thread count (a line
// over one x value says nothing), lines for a sweep.
enum class ChartKind { kBars, kLines };
ChartKind ThroughputChartKind(const std::vector<CompareCell>& cells, const std::string& workload);

// Writes data files and gnuplot scripts into `dir` and renders PNG and SVG
// charts. Returns the files written, or an error saying gnuplot is missing.
StatusOr<std::vector<std::string>> WriteCharts(const std::vector<CompareCell>& cells,
                                               const CompareReportOptions& o,
                                               const std::string& dir);

}  // namespace wirebench
