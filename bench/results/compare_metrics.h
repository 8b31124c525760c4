// What a codec comparison measures: the cells of a matrix run (one result
// each), and the metrics of its tables as typed definitions (name, unit, how
// to read the value from a cell's results, whether it gets a ratio row
// against the baseline, which direction is better), with the median and
// spread of a metric over the repeats of one (column, workload, threads),
// and the ratio of a column to the baseline with its confidence interval.
// A column is a codec, or a label for it when one codec appears twice (an
// A/A run: "raw" and "raw#2").
// The Markdown, CSV and JSON tables (compare_tables.h) and the charts
// (compare_charts.h) all take their metrics from here.
// Thread-safety: pure functions; the catalog is immutable.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/results/floor_figure.h"
#include "bench/results/ratio_interval.h"

namespace wirebench {

// One measured run of the matrix.
struct CompareCell {
  std::string codec;
  std::string workload;  // Short name, e.g. "workloada".
  int threads = 0;
  int repeat = 0;
  nlohmann::json results;  // The "results" object of a run's JSON.
  // Stopped early (SIGINT, server lost): its figures cover what ran. A cell
  // whose results say "partial" counts as partial too.
  bool partial = false;
  // The table column this cell belongs to; empty means `codec`. A matrix
  // that runs one codec twice labels the second "raw#2" (ColumnLabels).
  std::string column = {};
  // The record shape of a record-size sweep (--fieldcounts, --fieldlengths):
  // fields per record and bytes per field; 0 = the workload's own (not swept).
  int fieldcount = 0;
  int fieldlength = 0;
  // The host around this repeat (bench/results/host_figures.h: load
  // average, steal, CPU MHz); null when not recorded.
  nlohmann::json host = {};
  // How the cell was measured, for `diff`'s comparability check
  // (MeasurementOf in build_compare.h): its result file's "config"; null
  // when unknown.
  nlohmann::json config = {};
  // The depth of a pipeline-depth sweep (--pipelines): operations each
  // logical client kept in flight; 0 = not swept (the cell's own).
  int pipeline = 0;
  // The size of a batch-size sweep (--batches): operations per Multi call
  // (run's --batch); 0 = not swept.
  int batch = 0;
  // The size of a cluster-size sweep (--servers): co-located null cluster
  // servers (run's --servers); 0 = not swept.
  int servers = 0;
};

// A per-call dimension compare sweeps: how many operations a logical
// client keeps in flight (--pipelines) or sends in one call (--batches), or
// how many servers its calls spread over (--servers, a null cluster).
// Each value is a cell group of its own, named with `suffix`.
struct CallSweep {
  const char* key;        // run's flag without dashes and the result's config key: "pipeline".
  const char* flag;       // compare's flag: "--pipelines".
  const char* suffix;     // In group names: "-p" ("workloada-p8").
  const char* dimension;  // "pipeline depth", in table and chart titles.
  const char* row_unit;   // After the value in a table row: "in flight".
  const char* x_label;    // A chart's x axis.
  const char* latency_note;  // How a chart's latencies are timed.
  int CompareCell::*field;
};
// --pipelines, then --batches, then --servers.
const std::vector<CallSweep>& CallSweeps();

// The workload a cell is grouped by: its workload, with its swept record
// shape when it has one: "workloada-1000B" (--fieldlengths),
// "workloada-20f" (--fieldcounts), "workloada-20x1000B" (both), and its
// swept pipeline depth or batch size: "workloada-p8", "workloada-1000B-b10".
// Tables, charts and `wirebench diff` match cells by it, so each size and
// depth is its own configuration.
std::string CellWorkload(const CompareCell& c);
std::string RecordVariant(const std::string& workload, int fieldcount, int fieldlength);
// `variant` (a workload or RecordVariant) at c's swept pipeline depth and
// batch size: "-p8", "-b10" appended; unchanged when neither is swept.
std::string CallVariant(const std::string& variant, const CompareCell& c);

// The column of `c`: its label, else its codec.
const std::string& CellColumn(const CompareCell& c);
// Distinct column labels for codecs in order: a codec's first column is its
// name, a repeat of it gets "#2", "#3"... ({"raw", "raw"} -> {"raw", "raw#2"}).
std::vector<std::string> ColumnLabels(const std::vector<std::string>& codecs);

// Whether `c` was cut short (its flag, or its results' "partial").
bool CellIsPartial(const CompareCell& c);

// The same repeat indices on both sides, each once: per-repeat figures that
// can be paired by repeat index (`{repeat, value}` pairs, in repeat order).
bool SameRepeats(const std::vector<std::pair<int, double>>& a,
                 const std::vector<std::pair<int, double>>& b);

struct CompareReportOptions {
  std::vector<std::string> codecs;  // Column labels, in order (ColumnLabels).
  // Floors by (workload group, threads, column label); empty = not measured.
  std::map<std::tuple<std::string, int, std::string>, FloorFigure> floors;
  // The column ratios are against. When it is not among `codecs` the
  // tables use the first column and say so (EffectiveBaseline).
  std::string baseline = "pb";
  // Also a table of every column against every other for the headline
  // cost row (compare --pairwise).
  bool pairwise = false;
  std::string title;
  std::string setup;  // One paragraph: region, server threads, machine.
  // Repeats the matrix asked for (0 = not stated); the tables state the
  // repeats actually present, and this only for comparison.
  int requested_repeats = 0;
};

// A metric row of the tables.
struct MetricDef {
  std::string name;  // Row label, e.g. "READ p99 latency (us)".
  std::string unit;  // "ops/s", "us", "us/op", "allocs/op", "bytes/op", "switches/op".
  std::string op;    // Operation type of latency rows ("" for others).
  // The value in one cell's results; NaN when absent.
  std::function<double(const nlohmann::json& results)> extract;
  // Followed by a "<name> vs <baseline>" row with a confidence interval.
  bool baseline_ratio = false;
  bool higher_is_better = false;
  bool thread_sweep = false;  // Gets a table by thread count per workload.
};

// The fixed metrics, in table order: the costs per operation (what the
// tool is for), then throughput; the latency rows follow.
enum class Metric {
  kClientCpu,
  kServerCpu,
  kTotalCpu,
  kTotalInstructions,   // --instructions (callgrind); hardware counters otherwise.
  kClientInstructions,
  kServerInstructions,
  kClientInstructionsCodec,  // --instructions: the layers of each side.
  kClientInstructionsRpc,
  kClientInstructionsRpcCore,
  kClientInstructionsRpcTransport,
  kClientInstructionsHarness,
  kClientInstructionsOther,
  kServerInstructionsCodec,
  kServerInstructionsRpc,
  kServerInstructionsRpcCore,
  kServerInstructionsRpcTransport,
  kServerInstructionsRegion,
  kServerInstructionsOther,
  kClientAllocs,
  kClientAllocBytes,
  kServerAllocs,
  kServerAllocBytes,
  kClientCopied,
  kServerCopied,
  kWireOut,
  kWireIn,
  kClientSwitches,
  kServerSwitches,
  kThroughput,
  kClusterImbalance,   // A null cluster's (--servers): the busiest server's calls over the mean.
  kOpsPerServerCore,   // Operations per second of server CPU, summed over its servers.
  kCount,
};
const MetricDef& MetricOf(Metric m);

// The latency statistics of each operation type's rows.
enum class LatencyStat { kAvg, kP50, kP95, kP99, kMax, kCount };
MetricDef LatencyMetric(const std::string& op, LatencyStat stat);

// The metrics with a value in some cell, in table order: costs per
// operation, throughput, then the latency rows of each operation type.
std::vector<MetricDef> MetricsFor(const std::vector<CompareCell>& cells);
// The value of one metric in one cell; NaN when absent.
double MetricValue(const MetricDef& m, const nlohmann::json& results);

// The (repeat, value) pairs of metric `m` in the cells `in` takes (a cell
// without the metric gives none), in repeat order.
std::vector<std::pair<int, double>> RepeatValues(const std::vector<CompareCell>& cells,
                                                 const MetricDef& m,
                                                 const std::function<bool(const CompareCell&)>& in);

// The values of (repeat, value) pairs, in their order.
std::vector<double> ValuesOf(const std::vector<std::pair<int, double>>& v);

// Median and spread of a metric over repeats of one (column, workload, threads).
struct Aggregate {
  double median = 0;
  double min = 0, max = 0;
  int n = 0;        // Cells with a value.
  int partial = 0;  // Of them, cells cut short.
};
Aggregate AggregateMetric(const std::vector<CompareCell>& cells, const MetricDef& m,
                          const std::string& column, const std::string& workload, int threads);

// A metric of `column` against `baseline` in one (workload, threads): a 95%
// t-interval on the log ratio over repeats, paired by repeat index when both
// columns have values for the same repeats (drift between repeats then
// cancels, since repeats run interleaved), Welch's otherwise.
RatioInterval CompareRatio(const std::vector<CompareCell>& cells, const MetricDef& m,
                           const std::string& column, const std::string& baseline,
                           const std::string& workload, int threads);

// The (workload, threads) groups, workloads, and a workload's thread counts
// (sorted), in the order the cells first name them. The workload of these
// and of AggregateMetric, CompareRatio and CountCells is CellWorkload's.
std::vector<std::pair<std::string, int>> CompareGroups(const std::vector<CompareCell>& cells);
std::vector<std::string> CompareWorkloads(const std::vector<CompareCell>& cells);
std::vector<int> CompareThreadCounts(const std::vector<CompareCell>& cells, const std::string& wl);

// Cells present, and cut short, for one column in one group.
struct CellCount {
  int present = 0;
  int partial = 0;
};
CellCount CountCells(const std::vector<CompareCell>& cells, const std::string& column,
                     const std::string& workload, int threads);

}  // namespace wirebench
