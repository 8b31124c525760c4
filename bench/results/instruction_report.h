// The `--instructions` figures as report lines (`[CLIENT], InstructionsPerOp,
// ...`, in the text report's `[SECTION], name, value` shape) and as the
// result JSON's "instructions" object; their `compare` rows and chart.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "bench/results/compare_report.h"
#include "bench/results/run_result.h"

namespace wirebench {

// The instruction lines of both sides, then the kernel-side figures that
// instructions leave out (socket calls per op; context switches are in the
// side's own lines).
std::string FormatInstructionLines(const RunResult& r, const InstructionFigures& f);

// {"operations", "scope", "client": {...}, "server": {...}} with per-op
// "total", "codec", "rpc", "region", "harness", "other" (null when a side
// is unavailable, with "unavailable_reason").
nlohmann::json InstructionsToJson(const InstructionFigures& f);

// `compare` rows of the instruction figures, in table order: total (both
// sides), then each side and its layers; empty when no cell has them.
std::vector<MetricDef> InstructionMetrics(const std::vector<CompareCell>& cells);

// The instructions chart: one bar per codec and side, stacked by layer.
// Writes its data file (instructions.dat) in `dir` and returns the gnuplot
// commands that plot it; "" when no cell of `workload`/`threads` has figures.
std::string InstructionChartPlot(const std::vector<CompareCell>& cells,
                                 const CompareReportOptions& o, const std::string& dir,
                                 const std::string& workload, int threads);

}  // namespace wirebench
