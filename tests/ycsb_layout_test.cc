// The comparison in the layout of HBase's dev-list release comparisons
// (bench/results/ycsb_layout.h): per workload the two [OVERALL] rows and five
// latency rows per operation it has, in YCSB's order, one column per build,
// each figure the median over that column's runs; the group row states the
// runs present and those cut short; a column without a group shows n/a.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "bench/results/result_json.h"
#include "bench/results/ycsb_layout.h"

namespace wirebench {
namespace {

using nlohmann::json;

// The results of one run: `ops` operations of each type in `types`, every
// one taking `latency_us`, over `runtime_s`.
json Results(const std::vector<OpType>& types, int ops, double latency_us, double runtime_s,
             bool partial = false) {
  RunResult r;
  r.runtime_s = runtime_s;
  r.operations = uint64_t(ops) * types.size();
  for (OpType t : types) {
    for (int i = 0; i < ops; ++i) r.ops[size_t(t)].latency.Record(int64_t(latency_us * 1000));
    r.ops[size_t(t)].results[size_t(OpResult::kOk)] = uint64_t(ops);
  }
  r.partial = partial;
  if (partial) r.error = Status::Aborted("stopped on request (SIGINT)");
  return ResultToJson(r, ComputeCosts(r), ReportOptions{});
}

CompareCell Cell(const std::string& workload, int repeat, json results,
                 const std::string& codec = "raw") {
  CompareCell c;
  c.codec = codec;
  c.workload = workload;
  c.threads = 32;
  c.repeat = repeat;
  c.results = std::move(results);
  return c;
}

const std::vector<OpType> kReadUpdate = {OpType::kRead, OpType::kUpdate};

// Build A: three runs of workload A (runtimes 1, 3, 2 s); build B: two, the
// second cut short, and workload E (scans and inserts) which A lacks.
std::vector<YcsbLayoutColumn> TwoBuilds() {
  YcsbLayoutColumn a{"A", "raw", {}}, b{"B", "raw", {}};
  a.cells = {Cell("workloada", 1, Results(kReadUpdate, 1000, 100, 1.0)),
             Cell("workloada", 2, Results(kReadUpdate, 1000, 300, 3.0)),
             Cell("workloada", 3, Results(kReadUpdate, 1000, 200, 2.0))};
  b.cells = {Cell("workloada", 1, Results(kReadUpdate, 1000, 50, 4.0)),
             Cell("workloada", 2, Results(kReadUpdate, 500, 50, 4.0, /*partial=*/true)),
             Cell("workloade", 1, Results({OpType::kScan, OpType::kInsert}, 100, 1000, 1.0))};
  return {a, b};
}

std::vector<std::string> Labels(const std::vector<YcsbLayoutRow>& rows) {
  std::vector<std::string> out;
  for (const YcsbLayoutRow& r : rows) out.push_back(r.workload + " [" + r.section + "], " + r.figure);
  return out;
}

TEST(CompareYcsbLayout, RowsPerWorkloadAreOverallThenFivePerOperationInYcsbOrder) {
  const auto rows = YcsbLayoutRows(TwoBuilds());
  const std::vector<std::string> five = {"AverageLatency(us)", "MinLatency(us)", "MaxLatency(us)",
                                         "95thPercentileLatency(us)", "99thPercentileLatency(us)"};
  std::vector<std::string> want;
  for (const std::string wl : {"workloada", "workloade"}) {
    want.push_back(wl + " [OVERALL], RunTime(ms)");
    want.push_back(wl + " [OVERALL], Throughput(ops/sec)");
    // YCSB lists INSERT before SCAN, whatever order the result has them in.
    for (const std::string& op : wl == "workloada" ? std::vector<std::string>{"READ", "UPDATE"}
                                                  : std::vector<std::string>{"INSERT", "SCAN"})
      for (const std::string& f : five) want.push_back(wl + " [" + op + "], " + f);
  }
  EXPECT_EQ(Labels(rows), want);
  for (const YcsbLayoutRow& r : rows) {
    EXPECT_EQ(r.medians.size(), 2u);
    EXPECT_EQ(r.threads, 32);
  }
}

TEST(CompareYcsbLayout, EachFigureIsTheMedianOverTheColumnsRuns) {
  const auto rows = YcsbLayoutRows(TwoBuilds());
  ASSERT_GE(rows.size(), 12u);
  EXPECT_DOUBLE_EQ(rows[0].medians[0], 2000);  // RunTime: 1, 3 and 2 s.
  EXPECT_DOUBLE_EQ(rows[0].medians[1], 4000);
  EXPECT_DOUBLE_EQ(rows[1].medians[0], 1000);  // 2000 operations in 2 s.
  // B's two runs: 2000 and 1000 operations in 4 s: the median of two is their mean.
  EXPECT_DOUBLE_EQ(rows[1].medians[1], 375);
  // READ's average: 100, 300 and 200 us (HdrHistogram's precision: within 0.1%).
  EXPECT_NEAR(rows[2].medians[0], 200, 0.2);
  EXPECT_NEAR(rows[2].medians[1], 50, 0.05);
  // A has no workload E: n/a, not zero.
  const auto e = std::find_if(rows.begin(), rows.end(),
                              [](const YcsbLayoutRow& r) { return r.workload == "workloade"; });
  ASSERT_NE(e, rows.end());
  EXPECT_TRUE(std::isnan(e->medians[0]));
  EXPECT_DOUBLE_EQ(e->medians[1], 1000);
}

TEST(CompareYcsbLayout, MarkdownHasABuildPerColumnAndAGroupRowWithTheRuns) {
  const std::string md = YcsbLayoutMarkdown(TwoBuilds(), "YCSB layout", "Two builds.");
  EXPECT_EQ(md.rfind("## YCSB layout\n\nTwo builds.\n\n", 0), 0u) << md;
  EXPECT_NE(md.find("| | A | B |\n|---|---:|---:|\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| **workloada**, 32 threads | 3 runs | 2 runs (1 cut short) |\n"
                    "| [OVERALL], RunTime(ms) | 2000.0 | 4000.0 |\n"
                    "| [OVERALL], Throughput(ops/sec) | 1000.0 | 375.0 |\n"
                    "| [READ], AverageLatency(us) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| **workloade**, 32 threads | 0 runs | 1 run |\n"
                    "| [OVERALL], RunTime(ms) | n/a | 1000.0 |\n"),
            std::string::npos)
      << md;
  // One table: a header and its rule once, 24 figure rows, 2 group rows.
  size_t rows = 0;
  for (size_t p = md.find("\n| "); p != std::string::npos; p = md.find("\n| ", p + 1)) ++rows;
  EXPECT_EQ(rows, 1u + 24u + 2u) << md;
  EXPECT_EQ(md.find("|---|", md.find("|---|") + 1), std::string::npos) << md;
}

TEST(CompareYcsbLayout, AComparisonsColumnsAreSplitByTheirLabels) {
  std::vector<CompareCell> cells = {
      Cell("workloada", 1, Results(kReadUpdate, 100, 100, 1.0), "raw"),
      Cell("workloada", 1, Results(kReadUpdate, 100, 100, 1.0), "pb"),
      Cell("workloada", 2, Results(kReadUpdate, 100, 100, 1.0), "pb")};
  const auto cols = YcsbColumnsOf(cells, {"pb", "raw"});
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(cols[0].label, "pb");
  EXPECT_EQ(cols[0].cells.size(), 2u);
  EXPECT_EQ(cols[1].cells.size(), 1u);
  EXPECT_NE(YcsbLayoutMarkdown(cols, "t", "").find("| **workloada**, 32 threads | 2 runs | 1 run |"),
            std::string::npos);
}

TEST(CompareYcsbLayout, NoCellsSaysSoInsteadOfAnEmptyTable) {
  const std::string md = YcsbLayoutMarkdown({{"A", "raw", {}}, {"B", "raw", {}}}, "t", "");
  EXPECT_NE(md.find("No cell was measured"), std::string::npos) << md;
  EXPECT_EQ(md.find("|---|"), std::string::npos) << md;
}

TEST(CompareYcsbLayout, ACellWithoutFiguresGivesNaNotACrash) {
  YcsbLayoutColumn a{"A", "raw", {Cell("workloada", 1, json::object())}};
  a.cells.push_back(Cell("workloada", 2, json::array()));
  a.cells.push_back(Cell("workloada", 3, json{{"ops", {{"READ", 7}}}, {"runtime_ms", "x"}}));
  const auto rows = YcsbLayoutRows({a});
  ASSERT_EQ(rows.size(), 2u);  // No operation has a latency: the [OVERALL] rows only.
  EXPECT_TRUE(std::isnan(rows[0].medians[0]));
  EXPECT_NE(YcsbLayoutMarkdown({a}, "t", "").find("| [OVERALL], RunTime(ms) | n/a |"),
            std::string::npos);
}

}  // namespace
}  // namespace wirebench
