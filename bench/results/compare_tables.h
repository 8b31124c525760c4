// The codec comparison tables: one column per codec and one row per metric
// (compare_metrics.h), as the HBase mailing-list comparisons lay out one
// column per release, with ratio rows against a baseline column, and
// thread-sweep tables; as Markdown, CSV and JSON. Cost rows come first
// (CPU, instructions, allocations, copies), then throughput and latency.
// Each ratio carries a 95% confidence interval over the repeats
// (CompareRatio): Markdown "0.33x [0.30, 0.37]", "~1.02x [0.97, 1.08]" when
// the interval contains 1.0 (not distinguishable), "1.18x (1 repeat: no
// interval)"; CSV columns <col>_ratio, _lo, _hi, _distinguishable; JSON
// "vs_baseline" {ratio, lo, hi, distinguishable, method}. Each group states the
// repeats actually present per codec, and a codec whose cells were cut
// short is marked "(partial)" (Markdown column and footnote, CSV and JSON
// counts).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/results/compare_metrics.h"

namespace wirebench {

// A figure as the tables print it: "n/a" for NaN, else 0-3 decimals by size
// (12345, 123.4, 12.34, 0.123).
std::string FormatFigure(double v);

// `o` with its baseline resolved: o.baseline when it is a column, else the
// first column (and `note` says so; empty otherwise).
CompareReportOptions EffectiveBaseline(const CompareReportOptions& o, std::string* note);

std::string CompareMarkdown(const std::vector<CompareCell>& cells, const CompareReportOptions& o);
// Per column: median, min, max, cells with a value, cells cut short, and
// ratio, lo, hi, distinguishable (empty where the row has no ratio).
std::string CompareCsv(const std::vector<CompareCell>& cells, const CompareReportOptions& o);
nlohmann::json CompareJson(const std::vector<CompareCell>& cells, const CompareReportOptions& o);

}  // namespace wirebench
