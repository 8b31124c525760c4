// The comparison in the layout of HBase's dev-list comparisons of releases
// (YCSB against each release, one table): per workload, YCSB's [OVERALL]
// RunTime(ms) and Throughput(ops/sec), then for each operation the workload
// has (READ, UPDATE, INSERT, SCAN, READ-MODIFY-WRITE, DELETE, in YCSB's
// order) its AverageLatency(us), MinLatency(us), MaxLatency(us),
// 95thPercentileLatency(us) and 99thPercentileLatency(us): one row per
// figure, one column per build (compare --builds) or per column of a
// comparison. Each figure is the median over the column's repeats of that
// figure taken on its own (a row's median may come from another repeat than
// the row above it), as a release comparison would quote a typical run's
// line; the workload's row says how many repeats each column has, and how
// many were cut short. RunTime is the measured phase (warm-up left out).
// Latency is from each operation's actual send, NOT_FOUND included (what
// the compare tables report), not YCSB's OK-only <OP> lines.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "bench/results/compare_metrics.h"

namespace wirebench {

// One column of the table: the cells of `column` (a CellColumn label) in
// `cells`, headed `label`.
struct YcsbLayoutColumn {
  std::string label;
  std::string column;
  std::vector<CompareCell> cells;
};

// One row: a figure of one (workload group, threads), its median in each
// column (NaN where the column has none).
struct YcsbLayoutRow {
  std::string workload;  // CellWorkload's: "workloada", "workloada-s5".
  int threads = 0;
  std::string section;  // "OVERALL" or an operation: "READ".
  std::string figure;   // YCSB's name: "RunTime(ms)", "95thPercentileLatency(us)".
  std::vector<double> medians;
};

// The columns of a comparison's cells: one per label in `columns`, headed
// by it.
std::vector<YcsbLayoutColumn> YcsbColumnsOf(const std::vector<CompareCell>& cells,
                                            const std::vector<std::string>& columns);

// Every row, group by group in the order the columns' cells first name the
// groups: the two [OVERALL] rows, then five per operation some column has.
std::vector<YcsbLayoutRow> YcsbLayoutRows(const std::vector<YcsbLayoutColumn>& columns);

// The Markdown: a heading ("## " + title), `setup` as a paragraph, a note
// on what the figures are, and one table: a bold row per group naming it
// and each column's repeats, then its figures' rows ("[READ],
// AverageLatency(us)"). A comparison without cells says so instead.
std::string YcsbLayoutMarkdown(const std::vector<YcsbLayoutColumn>& columns,
                               const std::string& title, const std::string& setup);

}  // namespace wirebench
