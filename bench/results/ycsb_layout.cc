#include "bench/results/ycsb_layout.h"

#include <cmath>
#include <set>
#include <sstream>

#include "bench/results/compare_tables.h"

namespace wirebench {

namespace {

using nlohmann::json;

// YCSB's operations in the order its report lists them; the ones a core
// workload issues, DELETE for workload files that ask for it.
const char* const kYcsbOps[] = {"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE",
                                "DELETE"};

// A latency figure: YCSB's name and the result's field under ops/<OP>/latency.
struct LatencyFigure {
  const char* ycsb;
  const char* field;
};
const LatencyFigure kLatencyFigures[] = {{"AverageLatency(us)", "average_us"},
                                         {"MinLatency(us)", "min_us"},
                                         {"MaxLatency(us)", "max_us"},
                                         {"95thPercentileLatency(us)", "p95_us"},
                                         {"99thPercentileLatency(us)", "p99_us"}};

// The number at `pointer` in a cell's results; NaN when absent.
MetricDef FigureAt(const std::string& pointer) {
  MetricDef m;
  m.name = pointer;
  m.extract = [p = json::json_pointer(pointer)](const json& r) {
    try {  // A hand-edited or foreign result may hold anything on the way.
      if (r.is_object() && r.contains(p) && r.at(p).is_number()) return r.at(p).get<double>();
    } catch (const json::exception&) {
    }
    return std::nan("");
  };
  return m;
}

// The operations some column measured in the group, in YCSB's order.
std::vector<std::string> GroupOps(const std::vector<YcsbLayoutColumn>& columns,
                                  const std::string& workload, int threads) {
  std::set<std::string> seen;
  for (const YcsbLayoutColumn& col : columns)
    for (const CompareCell& c : col.cells)
      if (CellWorkload(c) == workload && c.threads == threads && c.results.is_object() &&
          c.results.contains("ops") && c.results["ops"].is_object())
        for (const auto& [op, v] : c.results["ops"].items())
          if (v.is_object() && v.contains("latency")) seen.insert(op);
  std::vector<std::string> ops;
  for (const char* op : kYcsbOps)
    if (seen.count(op)) ops.push_back(op);
  return ops;
}

YcsbLayoutRow RowOf(const std::vector<YcsbLayoutColumn>& columns, const std::string& workload,
                    int threads, const std::string& section, const std::string& figure,
                    const std::string& pointer) {
  YcsbLayoutRow row{workload, threads, section, figure, {}};
  const MetricDef m = FigureAt(pointer);
  for (const YcsbLayoutColumn& col : columns)
    row.medians.push_back(AggregateMetric(col.cells, m, col.column, workload, threads).median);
  return row;
}

std::vector<CompareCell> AllCells(const std::vector<YcsbLayoutColumn>& columns) {
  std::vector<CompareCell> all;
  for (const YcsbLayoutColumn& col : columns) all.insert(all.end(), col.cells.begin(), col.cells.end());
  return all;
}

// A group's bold row: the group, and each column's repeats.
std::string GroupLine(const std::vector<YcsbLayoutColumn>& columns, const std::string& workload,
                      int threads) {
  std::ostringstream s;
  s << "| **" << workload << "**, " << threads << (threads == 1 ? " thread" : " threads") << " |";
  for (const YcsbLayoutColumn& col : columns) {
    const CellCount n = CountCells(col.cells, col.column, workload, threads);
    s << " " << n.present << (n.present == 1 ? " run" : " runs");
    if (n.partial > 0) s << " (" << n.partial << " cut short)";
    s << " |";
  }
  return s.str();
}

}  // namespace

std::vector<YcsbLayoutColumn> YcsbColumnsOf(const std::vector<CompareCell>& cells,
                                            const std::vector<std::string>& columns) {
  std::vector<YcsbLayoutColumn> out;
  for (const std::string& label : columns) {
    YcsbLayoutColumn col{label, label, {}};
    for (const CompareCell& c : cells)
      if (CellColumn(c) == label) col.cells.push_back(c);
    out.push_back(std::move(col));
  }
  return out;
}

std::vector<YcsbLayoutRow> YcsbLayoutRows(const std::vector<YcsbLayoutColumn>& columns) {
  std::vector<YcsbLayoutRow> rows;
  for (const auto& [wl, threads] : CompareGroups(AllCells(columns))) {
    rows.push_back(RowOf(columns, wl, threads, "OVERALL", "RunTime(ms)", "/runtime_ms"));
    rows.push_back(RowOf(columns, wl, threads, "OVERALL", "Throughput(ops/sec)",
                         "/throughput_ops_per_sec"));
    for (const std::string& op : GroupOps(columns, wl, threads))
      for (const LatencyFigure& f : kLatencyFigures)
        rows.push_back(RowOf(columns, wl, threads, op, f.ycsb,
                             "/ops/" + op + "/latency/" + f.field));
  }
  return rows;
}

std::string YcsbLayoutMarkdown(const std::vector<YcsbLayoutColumn>& columns,
                               const std::string& title, const std::string& setup) {
  std::ostringstream s;
  s << "## " << title << "\n\n";
  if (!setup.empty()) s << setup << "\n\n";
  const std::vector<YcsbLayoutRow> rows = YcsbLayoutRows(columns);
  if (rows.empty()) {
    s << "No cell was measured: no table.\n";
    return s.str();
  }
  s << "YCSB's figures, one row each: each the median of that figure over the column's runs "
       "(each row's median taken on its own). RunTime is the measured phase, warm-up left "
       "out; latency is from each operation's send, NOT_FOUND included.\n\n";
  s << "| |";
  for (const YcsbLayoutColumn& col : columns) s << " " << col.label << " |";
  s << "\n|---|";
  for (size_t i = 0; i < columns.size(); ++i) s << "---:|";
  s << "\n";
  std::string group;
  for (const YcsbLayoutRow& r : rows) {
    const std::string key = r.workload + "\n" + std::to_string(r.threads);
    if (key != group) {
      group = key;
      s << GroupLine(columns, r.workload, r.threads) << "\n";
    }
    s << "| [" << r.section << "], " << r.figure << " |";
    for (double v : r.medians) s << " " << FormatFigure(v) << " |";
    s << "\n";
  }
  return s.str();
}

}  // namespace wirebench
