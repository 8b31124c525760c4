// The codec comparison report: one column per codec and one row per metric,
// as the HBase mailing-list comparisons lay out one column per release, with
// ratios against a baseline codec; thread-sweep tables; CSV and JSON; and
// gnuplot charts. Built from the JSON results of the cells of a matrix run.
// Thread-safety: pure functions (the chart writer runs gnuplot).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace wirebench {

// One measured run of the matrix.
struct CompareCell {
  std::string codec;
  std::string workload;  // Short name, e.g. "workloada".
  int threads = 0;
  int repeat = 0;
  nlohmann::json results;  // The "results" object of a run's JSON.
  // Stopped early (SIGINT, server lost): its figures cover `runtime_s` only.
  bool partial = false;
};

struct CompareReportOptions {
  std::vector<std::string> codecs;  // Column order.
  std::string baseline = "pb";
  std::string title;
  std::string setup;  // One paragraph: region, server threads, machine.
};

// A metric row: name, unit, and how to read it from a cell's results.
struct MetricDef {
  std::string name;
  std::string op;     // Operation type for latency rows ("" for others).
  std::string field;  // Latency field or cost path.
};
// The metrics present in these cells, in table order.
std::vector<MetricDef> MetricsFor(const std::vector<CompareCell>& cells);
// The value of one metric in one cell; NaN when absent.
double MetricValue(const MetricDef& m, const nlohmann::json& results);

// Median and spread of a metric over repeats of one (codec, workload, threads).
struct Aggregate {
  double median = 0;
  double min = 0, max = 0;
  int n = 0;
};
Aggregate AggregateMetric(const std::vector<CompareCell>& cells, const MetricDef& m,
                          const std::string& codec, const std::string& workload, int threads);

std::string CompareMarkdown(const std::vector<CompareCell>& cells, const CompareReportOptions& o);
std::string CompareCsv(const std::vector<CompareCell>& cells, const CompareReportOptions& o);
nlohmann::json CompareJson(const std::vector<CompareCell>& cells, const CompareReportOptions& o);

// Writes data files and gnuplot scripts into `dir` and renders PNG and SVG
// charts (throughput against threads; latency percentile distribution;
// CPU per op stacked client/server). Returns the files written, or an error
// saying gnuplot is missing.
StatusOr<std::vector<std::string>> WriteCharts(const std::vector<CompareCell>& cells,
                                               const CompareReportOptions& o,
                                               const std::string& dir);

}  // namespace wirebench
