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
// Each % diff is the ratio of the geometric means over repeats, minus one,
// with a 95% interval: paired by repeat index when the sides' repeats ran
// interleaved (compare --builds), Welch's otherwise (saved results run at
// different times). Instruction rows (callgrind) are deterministic counts:
// their % diff is the point difference, no interval.
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

// One metric of one group, a later side against the first.
struct BuildRow {
  BuildGroup group;
  std::string metric;
  std::string unit;
  std::string side;  // The later side's label.
  double base = 0, value = 0;  // Medians over repeats.
  RatioInterval ratio;         // value/base.
  bool instructions = false;   // A callgrind count (deterministic).
  bool higher_is_better = false;
  bool gated = false;  // Considered by --fail-above (instruction and ratio rows).
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

// Instruction rows rise by less than this (instructions/op) without a code
// change: how many replies one client read brings moves the client's
// smallest layers (other: ~40/op) by a fraction of an instruction.
inline constexpr double kInstructionNoiseFloor = 1.0;

// The rows that regressed by more than `pct` percent (--fail-above):
// instruction rows by their point difference (and by more than
// kInstructionNoiseFloor); the other gated rows (the
// costs and throughput with ratio rows in `compare`) only where the whole
// 95% interval is past the threshold. Costs regress upwards, throughput
// downwards.
std::vector<BuildRow> Regressions(const std::vector<BuildRow>& rows, double pct);

// "+0.02% (+1.0)" (instruction rows: percent and count), "~-0.4% [-2.1, +1.3]", "+3.0% [+1.1, +4.9]", "+2.0% (1 repeat: no
// interval)", "n/a".
std::string PercentDiffText(const BuildRow& r);

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
