// Builds side by side: the before/after table of `wirebench compare --builds`
// and `wirebench diff`, in the layout of the HBase patch comparisons
// (HBASE-10156: nopatch / withpatch / % diff), one column per build and a
// "% diff" column against the first build for each later one.
//
// A side is one build's cells: run just now by that build's binary
// (compare --builds), or read back from a saved compare folder or result
// file (diff). Cells are matched across sides by their configuration
// (workload with its record size when swept, as CellWorkload names it:
// "workloada-1000B"; logical clients; column: codec or codec@rpc); a configuration
// present on one side only is listed, not compared. Region options are not
// part of the key, so a run with a known extra cost in the region
// (--spin-instructions) still meets its baseline.
//
// Each % diff is of the medians printed beside it. Tested rows (wall-clock
// costs, throughput, p99) also get a test: the ratio of the geometric
// means over repeats with a 95% interval, paired by repeat index when the
// sides' repeats ran interleaved (compare --builds), Welch's otherwise
// (saved results run at different times), and a verdict "different" after
// Holm's correction over the tested rows of that side. Instruction rows
// (callgrind) are counts: the totals are gated, the layers shown. Max
// latency is shown, never tested. docs/verdicts.md says why.
// Thread-safety: pure functions, apart from ReadSavedSide (reads files).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/results/compare_metrics.h"
#include "common/status.h"

namespace wirebench {

struct BuildSide {
  std::string label;   // "before", "after"; for diff "BASE"/"NEW" or the path.
  std::string source;  // The binary, folder or file it came from.
  // The environment block of its results (git_revision, build_type,
  // compiler...); null when unknown.
  nlohmann::json environment;
  int result_version = 0;  // wirebench_result_version; 0 = unknown.
  std::vector<CompareCell> cells;
  // The repeats its compare asked for (comparison.json's
  // requested_repeats); 0 when unknown.
  int requested_repeats = 0;
};

// One (workload, threads, column): where cells are matched across sides.
// The workload is CellWorkload's: a record-size sweep's size is part of it.
struct BuildGroup {
  std::string workload;
  int threads = 0;
  std::string column;
  bool operator==(const BuildGroup& o) const {
    return workload == o.workload && threads == o.threads && column == o.column;
  }
};

// What a row's figures are for: gated, tested, or shown only.
enum class RowKind {
  // A callgrind total (Total, Client, Server instructions/op): a count, not
  // a sample; gated by its median difference against kInstructionGateFloor.
  kInstructionTotal,
  // A callgrind layer (codec, rpc, region, harness, other of a side):
  // shown to explain the totals, never gated (the client's harness and
  // other layers move with the reply batching).
  kInstructionLayer,
  // A wall-clock cost, throughput or p99 row: tested (a t-test on the log
  // ratio over repeats), in the Holm family of its side.
  kTested,
  // An extreme (max latency): one sample decides it; shown, never tested.
  kExtreme,
  // Descriptive (average, p50, p95 latency; context switches): shown.
  kShown,
};
const char* RowKindName(RowKind k);  // "instruction total", "tested"...

// One metric of one group, a later side against the first.
struct BuildRow {
  BuildGroup group;
  std::string metric;
  std::string unit;
  std::string side;  // The later side's label.
  double base = 0, value = 0;  // Medians over repeats.
  // value / base: the % diff printed beside the medians. NaN without one.
  double median_ratio = 0;
  // The test (kTested rows): the ratio of geometric means with its 95%
  // interval and p-value, paired or Welch's.
  RatioInterval ratio;
  RowKind kind = RowKind::kShown;
  // A kTested row that cannot be tested, and why ("1 repeat", "a zero
  // value", "no value on one side"); empty otherwise.
  std::string not_tested;
  // Different after Holm's correction over the tested rows of its side.
  bool different = false;
  bool instructions = false;   // A callgrind count (deterministic).
  bool higher_is_better = false;
  bool gated = false;  // Considered by --fail-above (instruction totals, tested rows).
};

struct BuildTableOptions {
  std::string title = "wirebench build comparison";
  std::string setup;  // A paragraph on how the cells ran.
  // The sides' repeats ran interleaved (compare --builds): intervals are
  // paired by repeat index. False for saved results: Welch's.
  bool paired = true;
};

// Refuses sides whose result schemas this wirebench cannot compare: a side
// at a wirebench_result_version other than this build's, or two sides at
// different ones. The error names the side, its version and what to do.
Status CheckComparable(const std::vector<BuildSide>& sides);

// Warnings for instruction counts across builds made differently (another
// compiler or build type), one per later side that differs from the first;
// empty when none.
std::vector<std::string> EnvironmentWarnings(const std::vector<BuildSide>& sides);

// The groups in every side (in the first side's order, then the others'),
// and one line per group present in some sides only.
std::vector<BuildGroup> CommonGroups(const std::vector<BuildSide>& sides);
std::vector<std::string> OneSideOnly(const std::vector<BuildSide>& sides);

// Every metric row of every common group, for each later side.
std::vector<BuildRow> BuildRows(const std::vector<BuildSide>& sides, bool paired);

// An instruction total fails the gate only when it also rose by more than
// this many instructions per operation. Measured on 22 runs of the README's
// gate recipe (11 with a busy loop beside them), every pair of them
// (docs/verdicts.md): a side total of the same binary moved by at most 18.7
// instructions/op (pb's client, the reply batching: 0.09% of it), the
// server's by at most 0.6. Twice the largest move.
inline constexpr double kInstructionGateFloor = 40.0;

// The family-wise error rate of the tested rows of one side (Holm).
inline constexpr double kFamilyAlpha = 0.05;

// The rows that regressed by more than `pct` percent (--fail-above):
// instruction totals by their median difference (and by more than
// kInstructionGateFloor); tested wall-clock rows (costs, throughput, p99)
// only when different after Holm and the whole 95% interval is past the
// threshold. Costs regress upwards, throughput downwards. Layers, extremes
// and descriptive rows are never gated.
std::vector<BuildRow> Regressions(const std::vector<BuildRow>& rows, double pct);

// For a regressed instruction total: the layers of its side in its group
// that moved by more than kInstructionGateFloor ("Server instructions/op:
// region +190.0"), largest first.
std::vector<std::string> ExplainRegression(const std::vector<BuildRow>& rows, const BuildRow& r);

// What the gate considered: rows gated (instruction totals, tested rows),
// and the tested rows that could not be tested.
struct GateCoverage {
  int instruction_totals = 0;
  int tested = 0;      // kTested rows with a test.
  int untestable = 0;  // kTested rows without one (not_tested says why).
};
GateCoverage CoverageOf(const std::vector<BuildRow>& rows);

// The % diff of the medians: "+0.02% (+1.0)" (instruction rows: percent
// and count), "-1.2%", "n/a".
std::string PercentDiffText(const BuildRow& r);
// The test column: "~+0.4% [-2.1, +1.3]", "+3.0% [+1.1, +4.9] different",
// "not tested: 1 repeat", "gated: count", "layer: not gated", "extreme:
// not tested", "shown, not tested".
std::string TestText(const BuildRow& r);

// Pairs measured differently, per common group: under Valgrind against wall
// clock, another record shape, region, null-reads mode, workload file or
// client threads/connections. One line per difference, naming the sides
// and what differs; empty when every common group matches.
std::vector<std::string> MeasurementMismatches(const std::vector<BuildSide>& sides);
// The settings of a cell that must match across sides (key -> value).
std::vector<std::pair<std::string, std::string>> MeasurementOf(const CompareCell& c);

// Sides that cannot make a verdict: no cells, cells cut short (partial),
// fewer repeats than their compare asked for. One line each; empty when
// both sides are whole.
std::vector<std::string> IncompleteSides(const std::vector<BuildSide>& sides);

std::string BuildsMarkdown(const std::vector<BuildSide>& sides, const BuildTableOptions& o);
nlohmann::json BuildsJson(const std::vector<BuildSide>& sides, const BuildTableOptions& o);

// A saved side: a `compare` output folder (its comparison.json cells, with
// the environment and schema version of its cells/*.json results) or one
// result file (`wirebench run --json`; its cell's workload is "run", its
// column the codec, "codec@rpc" off `default_rpc`, as compare labels them).
// Errors name the path and say what to give instead.
StatusOr<BuildSide> ReadSavedSide(const std::string& path, const std::string& label,
                                  const std::string& default_rpc);

}  // namespace wirebench
