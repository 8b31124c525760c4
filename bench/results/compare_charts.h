// The codec comparison charts, drawn with gnuplot from the cells of a matrix
// run: throughput (a bar per codec with min-max error bars at one thread
// count, lines against threads for a sweep), latency percentile
// distribution, and CPU (and instructions, when measured) per op stacked
// client/server, labelled (metrics from compare_metrics.h). A thread sweep
// draws CPU (and instructions) per op, client and server, and p50/p99
// latency against the thread count, one line per column
// (cpu-per-op, latency-by-clients, instructions-per-op); a record-size sweep
// draws CPU, instructions and bytes copied per op against the size
// (cpu-by-size, instructions-by-size, copied-by-size). Every axis has
// explicit ticks with distinct labels (ChooseTicks).
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

// An axis's ticks: its range, the tick values and their labels, which are
// distinct (as many decimals as that takes, k/M for large values).
struct AxisTicks {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<double> values;
  std::vector<std::string> labels;
};
// Linear: from 0 to just above `hi` in 1/2/2.5/5 x 10^k steps. Log: 1-2-5
// (or decade) ticks from just below `lo` to just above `hi`.
AxisTicks ChooseTicks(double lo, double hi, bool log);
// "set ytics ("0" 0, "500k" 500000, ...)".
std::string TicsCommand(const std::string& axis, const AxisTicks& a);

// Writes data files and gnuplot scripts into `dir` and renders PNG and SVG
// charts. Returns the files written, or an error saying gnuplot is missing.
StatusOr<std::vector<std::string>> WriteCharts(const std::vector<CompareCell>& cells,
                                               const CompareReportOptions& o,
                                               const std::string& dir);

}  // namespace wirebench
