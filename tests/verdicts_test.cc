// Verdicts a user can trust, on hand-made cells:
// - % diff is of the medians printed beside it; max latency is shown,
//   never tested; rows that cannot be tested say why and are not counted
//   as passing; Holm's correction over the tested rows of a side.
// - The instruction gate: side totals by count past a floor, layers never
//   (a batching move of the client's `other` layer passes, a region cost
//   fails naming the server's total and its region layer).
// - Pairs measured differently and incomplete sides are found.
// - The host figures' parsers and the repeat outliers.
// - compare's tables: the first column as baseline when pb is absent, the
//   pairwise table, the host table with an outlier flagged.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hdr/histogram_encoding.h"
#include "bench/results/build_compare.h"
#include "bench/results/compare_charts.h"
#include "bench/results/compare_tables.h"
#include "bench/results/host_figures.h"

namespace wirebench {
namespace {

using nlohmann::json;

// A wall-clock cell's results: throughput, total CPU per op, READ latency.
json WallClock(double tput, double cpu, double p95, double max_us) {
  json r;
  r["throughput_ops_per_sec"] = tput;
  r["costs"]["client"]["available"] = true;
  r["costs"]["server"]["available"] = true;
  r["costs"]["client"]["cpu_us_per_op"] = cpu / 2;
  r["costs"]["server"]["cpu_us_per_op"] = cpu / 2;
  r["costs"]["total_cpu_us_per_op"] = cpu;
  r["ops"]["READ"]["latency"] = {{"average_us", p95 / 2}, {"p50_us", p95 / 3},
                                 {"p95_us", p95},         {"p99_us", p95 * 1.5},
                                 {"max_us", max_us}};
  return r;
}

// An --instructions cell: each side's total and layers.
json Counted(double client_other, double server_region) {
  json r = WallClock(1000, 50, 100, 1000);
  const double client_rest = 742 + 289 + 959;
  r["instructions"]["client"] = {{"total", client_rest + client_other}, {"codec", 742},
                                 {"rpc", 289}, {"harness", 959}, {"other", client_other}};
  const double server_rest = 980 + 446 + 103;
  r["instructions"]["server"] = {{"total", server_rest + server_region}, {"codec", 980},
                                 {"rpc", 446}, {"region", server_region}, {"other", 103}};
  return r;
}

CompareCell Cell(int repeat, json results, const std::string& column = "raw") {
  CompareCell c;
  c.codec = column;
  c.workload = "workloada";
  c.threads = 32;
  c.repeat = repeat;
  c.results = std::move(results);
  return c;
}

BuildSide Side(const std::string& label, std::vector<CompareCell> cells) {
  BuildSide s;
  s.label = label;
  s.source = "/tmp/" + label;
  s.cells = std::move(cells);
  return s;
}

const BuildRow& Find(const std::vector<BuildRow>& rows, const std::string& metric) {
  for (const BuildRow& r : rows)
    if (r.metric == metric) return r;
  static BuildRow none;
  ADD_FAILURE() << "no row " << metric;
  return none;
}

TEST(Verdicts, PercentDiffIsOfTheMediansAndMaxLatencyIsNeverTested) {
  // One outlier repeat (5000 us) on the new side: the medians say -1%, the
  // geometric means +80%: the % printed beside the medians is theirs.
  const BuildSide base = Side("base", {Cell(1, WallClock(100, 50, 229.4, 900)),
                                       Cell(2, WallClock(101, 50, 230.0, 950)),
                                       Cell(3, WallClock(99, 50, 228.0, 1000))});
  const BuildSide next = Side("new", {Cell(1, WallClock(100, 50, 226.6, 1000)),
                                      Cell(2, WallClock(100, 50, 227.0, 1100)),
                                      Cell(3, WallClock(100, 50, 5000.0, 1050))});
  const std::vector<BuildRow> rows = BuildRows({base, next}, false);
  const BuildRow& p95 = Find(rows, "READ p95 latency (us)");
  EXPECT_NEAR(p95.median_ratio, 227.0 / 229.4, 1e-9);
  EXPECT_EQ(PercentDiffText(p95), "-1.0%");
  EXPECT_EQ(p95.kind, RowKind::kShown);
  const BuildRow& max = Find(rows, "READ max latency (us)");
  EXPECT_EQ(max.kind, RowKind::kExtreme);
  EXPECT_FALSE(max.ratio.has_interval());
  EXPECT_FALSE(max.gated);
  EXPECT_EQ(TestText(max), "extreme: shown, never tested");
  // p99 is tested: its test column names the geometric means' interval.
  const BuildRow& p99 = Find(rows, "READ p99 latency (us)");
  EXPECT_EQ(p99.kind, RowKind::kTested);
  EXPECT_TRUE(p99.ratio.has_interval());
  const std::string md = BuildsMarkdown({base, next}, BuildTableOptions{});
  EXPECT_NE(md.find("| metric | base | new | % diff (medians) | test |"), std::string::npos) << md;
}

TEST(Verdicts, RowsThatCannotBeTestedSayWhyAndAreNotCountedAsPassing) {
  const BuildSide base = Side("base", {Cell(1, WallClock(100, 50, 200, 900))});
  const BuildSide next = Side("new", {Cell(1, WallClock(90, 60, 200, 900))});
  const std::vector<BuildRow> rows = BuildRows({base, next}, false);
  const BuildRow& cpu = Find(rows, "Total CPU (us/op)");
  EXPECT_EQ(cpu.not_tested, "1 repeat");
  EXPECT_EQ(TestText(cpu), "not tested: 1 repeat");
  const GateCoverage cov = CoverageOf(rows);
  EXPECT_EQ(cov.tested, 0);
  EXPECT_EQ(cov.instruction_totals, 0);
  EXPECT_GT(cov.untestable, 0);
  EXPECT_TRUE(Regressions(rows, 5).empty());  // Nothing regressed, and...
  const std::string md = BuildsMarkdown({base, next}, BuildTableOptions{});
  // ...the table says it is no evidence, and lists the rows not tested.
  EXPECT_NE(md.find("no row could be tested"), std::string::npos) << md;
  EXPECT_NE(md.find("not tested ("), std::string::npos) << md;
  EXPECT_NE(md.find("Total CPU (us/op) (1 repeat)"), std::string::npos) << md;
}

TEST(Verdicts, HolmDecidesDifferentOverTheTestedRowsOfASide) {
  // Five paired repeats; throughput 20% lower in every repeat (different),
  // CPU wobbling both ways (not different).
  std::vector<CompareCell> a, b;
  const double wobble[] = {1.02, 0.97, 1.01, 0.99, 1.03};
  for (int i = 0; i < 5; ++i) {
    const double drift = 1.0 + 0.1 * i;  // Shared by both sides of a repeat.
    a.push_back(Cell(i + 1, WallClock(1000 * drift, 50, 200, 900)));
    b.push_back(Cell(i + 1, WallClock(800 * drift, 50 * wobble[i], 200, 900)));
  }
  BuildTableOptions paired;
  const std::vector<BuildRow> rows = BuildRows({Side("x", a), Side("y", b)}, true);
  const BuildRow& tput = Find(rows, "Throughput (ops/s)");
  EXPECT_TRUE(tput.different);
  EXPECT_EQ(tput.ratio.method, IntervalMethod::kPaired);
  EXPECT_NE(TestText(tput).find("**different**"), std::string::npos);
  EXPECT_FALSE(Find(rows, "Total CPU (us/op)").different);
  // The throughput row regresses past 5%; its interval is past it too.
  const std::vector<BuildRow> bad = Regressions(rows, 5);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].metric, "Throughput (ops/s)");
  const std::string md = BuildsMarkdown({Side("x", a), Side("y", b)}, paired);
  EXPECT_NE(md.find("1 tested row(s) different"), std::string::npos) << md;
}

TEST(Verdicts, TheGateTakesSideTotalsByCountAndNeverALayer) {
  // An A/A whose client `other` layer moved by +2.8 instructions (+6%), as
  // the reply batching moves it on a busy machine: passes a 2% gate.
  const BuildSide base = Side("baseline", {Cell(1, Counted(46, 47))});
  const BuildSide aa = Side("pr", {Cell(1, Counted(48.8, 47))});
  std::vector<BuildRow> rows = BuildRows({base, aa}, false);
  EXPECT_EQ(Find(rows, "Client instructions/op: other").kind, RowKind::kInstructionLayer);
  EXPECT_EQ(Find(rows, "Client instructions/op").kind, RowKind::kInstructionTotal);
  EXPECT_TRUE(Regressions(rows, 2).empty());
  EXPECT_TRUE(Regressions(rows, 0).empty());  // Within the floor even at 0%.
  EXPECT_EQ(CoverageOf(rows).instruction_totals, 3);
  // The largest move of a side total between two runs of the same binary
  // measured for docs/verdicts.md (pb's client, +18.6): within the floor.
  rows = BuildRows({base, Side("pr", {Cell(1, Counted(46 + 18.6, 47))})}, false);
  EXPECT_TRUE(Regressions(rows, 0).empty());
  // A region cost of 180 instructions (5% of a ~3600-instruction raw op):
  // the server's total (+11%) and the total (+5%) fail; the region layer
  // explains the server's.
  const BuildSide spun = Side("pr", {Cell(1, Counted(46, 47 + 180))});
  rows = BuildRows({base, spun}, false);
  const std::vector<BuildRow> bad = Regressions(rows, 2);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[0].metric, "Total instructions/op");
  EXPECT_EQ(bad[1].metric, "Server instructions/op");
  const std::vector<std::string> why = ExplainRegression(rows, bad[1]);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_EQ(why[0].rfind("Server instructions/op: region +", 0), 0u) << why[0];
}

TEST(Verdicts, FindsPairsMeasuredDifferentlyAndIncompleteSides) {
  CompareCell wall = Cell(1, WallClock(100, 50, 200, 900));
  CompareCell counted = Cell(1, Counted(46, 47));
  wall.config = counted.config = {{"region", "null"}, {"null_reads", "canned"}, {"fieldlength", 100}};
  std::vector<std::string> m = MeasurementMismatches({Side("a", {wall}), Side("b", {counted})});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("measured: by wall clock in a, under Valgrind (--instructions) in b"),
            std::string::npos)
      << m[0];
  CompareCell other_reads = wall;
  other_reads.config["null_reads"] = "empty";
  m = MeasurementMismatches({Side("a", {wall}), Side("b", {other_reads})});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("null_reads: canned in a, empty in b"), std::string::npos) << m[0];
  EXPECT_TRUE(MeasurementMismatches({Side("a", {wall}), Side("b", {wall})}).empty());

  EXPECT_TRUE(IncompleteSides({Side("a", {wall}), Side("b", {wall})}).empty());
  std::vector<std::string> inc = IncompleteSides({Side("a", {wall}), Side("b", {})});
  ASSERT_EQ(inc.size(), 1u);
  EXPECT_EQ(inc[0], "b (/tmp/b) has no cells");
  CompareCell cut = wall;
  cut.partial = true;
  inc = IncompleteSides({Side("a", {wall}), Side("b", {cut})});
  ASSERT_EQ(inc.size(), 1u);
  EXPECT_NE(inc[0].find("stopped early"), std::string::npos);
  BuildSide asked = Side("b", {wall});
  asked.requested_repeats = 3;
  inc = IncompleteSides({Side("a", {wall}), asked});
  ASSERT_EQ(inc.size(), 1u);
  EXPECT_NE(inc[0].find("1 of 3 requested repeats"), std::string::npos) << inc[0];
}

TEST(HostFigures, ParsesProcFilesAndFlagsRepeatsFarFromTheMedian) {
  const auto j = ParseProcStat("cpu  100 5 50 800 10 1 2 32 0 0\ncpu0 1 2 3 4\n");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(j->total, 1000u);
  EXPECT_EQ(j->steal, 32u);
  EXPECT_FALSE(ParseProcStat("intr 1 2 3\n").has_value());
  EXPECT_DOUBLE_EQ(*ParseLoadAverage("2.53 1.10 0.43 3/250 1234\n"), 2.53);
  EXPECT_FALSE(ParseLoadAverage("").has_value());
  EXPECT_DOUBLE_EQ(*ParseCpuInfoMhz("processor : 0\ncpu MHz\t\t: 2000.0\nprocessor : 1\n"
                                    "cpu MHz\t\t: 3000.0\n"),
                   2500.0);
  EXPECT_FALSE(ParseCpuInfoMhz("processor : 0\n").has_value());
  // A 328 ms stall seen in a real run: 42,774 against ~108k ops/s.
  const std::vector<std::string> flags = RepeatOutliers(
      {{1, 108012, 10}, {2, 42774, 10.5}, {3, 107500, 9.8}, {4, 109000, 10.1}});
  EXPECT_TRUE(flags[0].empty());
  EXPECT_EQ(flags[1].rfind("throughput 0.40x the median", 0), 0u) << flags[1];
  EXPECT_TRUE(flags[2].empty() && flags[3].empty());
  // Two repeats have no median to stand out from.
  EXPECT_TRUE(RepeatOutliers({{1, 100, 1}, {2, 10, 1}})[1].empty());
  EXPECT_EQ(HostText({{"load1", 2.1}, {"steal_percent", 0.0}, {"cpu_mhz", 2994.4}}),
            "load 2.10, steal 0.0%, 2994 MHz");
  EXPECT_EQ(HostText(json()), "host not recorded");
  EXPECT_EQ(j->idle, 810u);  // idle + iowait.
}

// Other processes' CPU is the machine's busy time less this process's and its
// reaped children's: a cell's own client and co-located server never make
// its host busy; another process does.
TEST(HostFigures, ABusyHostIsOtherProcessesCpuOrSteal) {
  // utime 120, stime 30, cutime 40, cstime 10 (fields 14-17), a name with a space.
  EXPECT_EQ(ParseOwnTicks("4242 (wire bench) S 1 2 3 4 5 6 7 8 9 10 120 30 40 10 20 0 1"), 200u);
  EXPECT_FALSE(ParseOwnTicks("garbage").has_value());
  EXPECT_EQ(BusyHost({{"other_cpus", 0.05}, {"steal_percent", 0.5}}), "");
  EXPECT_EQ(BusyHost({{"other_cpus", 0.85}, {"steal_percent", 0.5}}),
            "other processes used 0.85 CPUs");
  EXPECT_EQ(BusyHost({{"other_cpus", 0.0}, {"steal_percent", 4.1}}), "steal 4.1%");
  EXPECT_EQ(BusyHost(json()), "");
  EXPECT_EQ(HostText({{"load1", 2.0}, {"other_cpus", 0.5}}), "load 2.00, other processes 0.50 CPUs");
  // A real second of this (sleeping) process: its own CPU is not "other".
  const json sample = SampleHost(0.2);
  EXPECT_TRUE(sample.contains("cpus"));
  EXPECT_TRUE(sample.contains("load1"));
}

std::vector<CompareCell> TwoColumns() {
  std::vector<CompareCell> cells;
  for (int rep = 1; rep <= 3; ++rep) {
    cells.push_back(Cell(rep, WallClock(1000, 50 + rep, 200, 900), "raw"));
    cells.push_back(Cell(rep, WallClock(900, 40 + rep, 210, 900), "cellblock"));
    cells.back().codec = "cellblock";
    cells.back().host = {{"load1", 1.5}, {"steal_percent", 0.2}};
  }
  cells[0].results["throughput_ops_per_sec"] = 400.0;  // Raw's repeat 1 stalled.
  return cells;
}

TEST(CompareTables, FirstColumnIsTheBaselineWhenTheDefaultIsAbsentAndSaysSo) {
  CompareReportOptions o;
  o.codecs = {"raw", "cellblock"};  // The default baseline pb is absent.
  const std::string md = CompareMarkdown(TwoColumns(), o);
  EXPECT_NE(md.find("The default baseline `pb` is not among the columns: the first column, "
                    "`raw`, is the baseline"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| Total CPU (us/op) vs raw |"), std::string::npos) << md;
  EXPECT_EQ(md.find("against `pb`"), std::string::npos) << md;
  EXPECT_NE(md.find("would exclude 1.0 by chance alone"), std::string::npos) << md;
  EXPECT_EQ(CompareJson(TwoColumns(), o)["baseline"], "raw");
  // --baseline: any column.
  o.baseline = "cellblock";
  EXPECT_NE(CompareMarkdown(TwoColumns(), o).find("| Total CPU (us/op) vs cellblock |"),
            std::string::npos);
}

TEST(CompareTables, PairwiseTableAndHostTableWithTheOutlierFlagged) {
  CompareReportOptions o;
  o.codecs = {"raw", "cellblock"};
  o.pairwise = true;
  const std::string md = CompareMarkdown(TwoColumns(), o);
  EXPECT_NE(md.find("Total CPU (us/op), pairwise (row against column)"), std::string::npos) << md;
  EXPECT_NE(md.find("| cellblock | 0."), std::string::npos) << md;  // Cheaper than raw.
  EXPECT_NE(md.find("| raw | 1.00x | 1."), std::string::npos) << md;
  EXPECT_NE(md.find("load 1.50, steal 0.2%"), std::string::npos) << md;
  EXPECT_NE(md.find("**outlier:** throughput 0.40x the median"), std::string::npos) << md;
  const json j = CompareJson(TwoColumns(), o);
  const json& reps = j["tables"][0]["repeat_host"]["raw"];
  ASSERT_EQ(reps.size(), 3u);
  EXPECT_TRUE(reps[0]["outlier"].is_string());
  EXPECT_TRUE(reps[1]["outlier"].is_null());
  EXPECT_EQ(j["tables"][0]["repeat_host"]["cellblock"][0]["host"]["load1"], 1.5);
}

std::string Histogram(int64_t ns, int n) {
  hdr::Histogram h;
  for (int i = 0; i < n; ++i) h.Record(ns + i);
  return hdr::EncodeCompressedBase64(h);
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Two workloads, each with READ samples about 100 us and CLEANUP samples of
// 20 ns; the second run under callgrind.
TEST(CompareCharts, EveryWorkloadChartedFromMeasuredOpsLabelledAndOpaque) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps installs it)";
  namespace fs = std::filesystem;
  const std::string dir = ::testing::TempDir() + "/verdicts-charts";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<CompareCell> cells;
  for (const char* wl : {"workloada", "workloadb"})
    for (const char* codec : {"raw", "pb"}) {
      json r = Counted(46, 47);
      r["ops"]["READ"]["latency"]["histogram_ns"] = Histogram(100000, 500);
      r["ops"]["CLEANUP"]["latency"]["histogram_ns"] = Histogram(20, 32);
      CompareCell c = Cell(1, r, codec);
      c.workload = wl;
      cells.push_back(c);
    }
  CompareReportOptions o;
  o.codecs = {"raw", "pb"};
  auto files = WriteCharts(cells, o, dir);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  for (const char* wl : {"workloada", "workloadb"})
    for (const char* chart : {"throughput", "latency-percentiles", "cpu-per-op", "instructions-per-op"})
      EXPECT_TRUE(fs::exists(dir + "/" + chart + "-" + wl + ".png")) << chart << " " << wl;
  // The percentile curve starts at the READs' ~100 us, not CLEANUP's 0.02 us.
  std::istringstream dat(ReadText(dir + "/latency-raw-workloada.dat"));
  std::string line;
  std::getline(dat, line);  // Header.
  double pct = 0, inv = 0, us = 0;
  ASSERT_TRUE(dat >> pct >> inv >> us);
  EXPECT_GT(us, 90.0);
  // Under Valgrind, the wall-clock charts' titles say so; the SVGs are opaque.
  const std::string gp = ReadText(dir + "/charts.gp");
  EXPECT_NE(gp.find("UNDER VALGRIND"), std::string::npos);
  EXPECT_NE(gp.find("CLEANUP excluded"), std::string::npos);
  const std::string svg = ReadText(dir + "/throughput-workloada.svg");
  EXPECT_NE(svg.find("fill=\"#ffffff\""), std::string::npos) << svg.substr(0, 800);
}

}  // namespace
}  // namespace wirebench
