// The codec comparison tables (bench/results/compare_tables.h) from typed
// metric definitions (compare_metrics.h): ratio rows where the metric says
// so, summed metrics, a cell cut short marked "(partial)" in Markdown, CSV
// and JSON, and the repeats actually present stated, not the requested count.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <random>
#include <sstream>

#include "bench/results/compare_report.h"
#include "bench/results/host_figures.h"
#include "bench/results/report.h"
#include "tests/fake_host_env.h"

namespace wirebench {
namespace {

using nlohmann::json;

json Stats(double cpu_ns) {
  return {{"server", {{"bind", "127.0.0.1"}, {"port", 4000}, {"io_threads", 1}, {"uptime_s", 1}}},
          {"threads", json::array({{{"role", "server-io"}, {"tid", 7}, {"cpu_ns", cpu_ns}}})}};
}

// The results of one cell: `ops` reads of 100 us each over `runtime_s`,
// with server Stats unless `server` is false.
json Results(int ops, double runtime_s, double cpu_ns, bool partial, bool server = true) {
  RunResult r;
  if (server) {
    r.server_before = Stats(0);
    r.server_after = Stats(cpu_ns);
  }
  r.runtime_s = runtime_s;
  r.operations = uint64_t(ops);
  for (int i = 0; i < ops; ++i) r.ops[size_t(OpType::kRead)].latency.Record(100'000);
  r.ops[size_t(OpType::kRead)].results[size_t(OpResult::kOk)] = uint64_t(ops);
  r.client_usage.cpu_ns = cpu_ns;
  r.client_usage.threads = 1;
  r.client_counters.encode_copied = uint64_t(ops) * 10;
  r.client_counters.decode_copied = uint64_t(ops) * 5;
  r.partial = partial;
  if (partial) r.error = Status::Aborted("stopped on request (SIGINT)");
  return ResultToJson(r, ComputeCosts(r), ReportOptions{});
}

CompareCell Cell(const std::string& codec, int threads, int repeat, json results,
                 const std::string& column = "") {
  CompareCell c;
  c.codec = codec;
  c.column = column;
  c.workload = "workloada";
  c.threads = threads;
  c.repeat = repeat;
  c.results = std::move(results);
  return c;
}

// pb: two full repeats. raw: one repeat, cut short at 566 of 1000 ms.
std::vector<CompareCell> Cells(int threads = 8) {
  return {Cell("pb", threads, 1, Results(1000, 1.0, 2e6, false)),
          Cell("raw", threads, 1, Results(700, 0.566, 1e6, true)),
          Cell("pb", threads, 2, Results(1100, 1.0, 2e6, false))};
}

CompareReportOptions Options() {
  CompareReportOptions o;
  o.codecs = {"pb", "raw"};
  o.baseline = "pb";
  o.requested_repeats = 2;
  return o;
}

TEST(CompareTables, PartialCellIsMarkedAndRepeatsPresentAreStated) {
  const std::string md = CompareMarkdown(Cells(), Options());
  EXPECT_NE(md.find("| metric | pb | raw (partial) |"), std::string::npos) << md;
  EXPECT_NE(md.find("Repeats present: pb 2, raw 1 (of 2 requested)."), std::string::npos) << md;
  EXPECT_NE(md.find("(partial) raw: 1 of 1 repeats stopped early (measured 566.0 ms)"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("pb (partial)"), std::string::npos) << md;

  const std::string csv = CompareCsv(Cells(), Options());
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "workload,threads,fieldcount,fieldlength,metric,unit,pb,pb_min,pb_max,pb_n,pb_partial,pb_ratio,pb_lo,pb_hi,"
            "pb_distinguishable,raw,raw_min,raw_max,raw_n,raw_partial,raw_ratio,raw_lo,raw_hi,"
            "raw_distinguishable");
  // Throughput: pb median of 1000 and 1100, 2 cells, none partial; raw 1
  // partial cell, its ratio to pb's geometric mean sqrt(1000 * 1100), no interval.
  EXPECT_NE(csv.find("workloada,8,,,\"Throughput (ops/s)\",ops/s,1050.0,1000.0,1100.0,2,0,,,,,"
                     "1236.7,1236.7,1236.7,1,1,1.1792,,,\n"),
            std::string::npos)
      << csv;

  const json j = CompareJson(Cells(), Options());
  EXPECT_EQ(j["requested_repeats"], 2);
  EXPECT_EQ(j["tables"][0]["repeats"]["pb"], 2);
  EXPECT_EQ(j["tables"][0]["repeats"]["raw"], 1);
  EXPECT_EQ(j["tables"][0]["partial_cells"]["raw"], 1);
  EXPECT_EQ(j["tables"][0]["partial_cells"]["pb"], 0);
  EXPECT_EQ(j["tables"][0]["metrics"]["Throughput (ops/s)"]["raw"]["partial"], 1);
  EXPECT_TRUE(j["cells"][1]["partial"].get<bool>());
  EXPECT_FALSE(j["cells"][0]["partial"].get<bool>());
}

// A repeat whose host (read through the host seam, here a fed one) had
// other processes on it is stamped busy in the host table; the quiet
// repeat beside it is not.
TEST(CompareTables, ARepeatOnABusyHostIsStampedBusy) {
  std::vector<CompareCell> cells = Cells();
  for (const uint64_t own : {uint64_t(100), uint64_t(25)}) {  // Quiet, then 0.75 CPU of others'.
    testing::FakeHostEnv host;
    host.cpu_times = {CpuJiffies{1000, 0, 800}, CpuJiffies{1200, 0, 900}};
    host.own_ticks = {uint64_t(0), own};
    HostProbe probe(host);
    probe.Start();
    cells[own == 100 ? 0 : 2].host = probe.Finish();
  }
  const std::string md = CompareMarkdown(cells, Options());
  EXPECT_THAT(md, ::testing::HasSubstr("| pb | 2 | 1100.0 | 3.64 | load 0.20, steal 0.0%, other "
                                       "processes 0.75 CPUs, 2400 MHz | **busy host:** other "
                                       "processes used 0.75 CPUs |"));
  EXPECT_THAT(md, ::testing::HasSubstr("| pb | 1 | 1000.0 | 4.00 | load 0.20, steal 0.0%, other "
                                       "processes 0.00 CPUs, 2400 MHz |  |"));
}

TEST(CompareTables, TheCellFlagAloneMarksPartial) {
  std::vector<CompareCell> cells = Cells();
  cells[1].results = Results(700, 0.566, 1e6, false);
  EXPECT_EQ(CompareMarkdown(cells, Options()).find("(partial)  raw"), std::string::npos);
  EXPECT_EQ(CompareMarkdown(cells, Options()).find("raw (partial)"), std::string::npos);
  cells[1].partial = true;
  EXPECT_NE(CompareMarkdown(cells, Options()).find("raw (partial)"), std::string::npos);
}

TEST(CompareTables, RatioRowsComeFromTheMetricDefinitions) {
  const std::string md = CompareMarkdown(Cells(), Options());
  int zero_everywhere = 0;
  for (const MetricDef& m : MetricsFor(Cells())) {
    const bool has_ratio = md.find("| " + m.name + " vs pb |") != std::string::npos;
    // A metric zero in every column (here the
    // allocations, which these cells do not count) gets no row of
    // "0.00x (a zero value: no interval)".
    bool all_zero = true;
    for (const CompareCell& c : Cells()) {
      const double v = MetricValue(m, c.results);
      if (!std::isnan(v) && v != 0) all_zero = false;
    }
    if (m.baseline_ratio && all_zero) ++zero_everywhere;
    EXPECT_EQ(has_ratio, m.baseline_ratio && !all_zero) << m.name;
  }
  EXPECT_GT(zero_everywhere, 0) << "no metric of these cells is zero everywhere";
  EXPECT_EQ(md.find("a zero value: no interval"), std::string::npos) << md;
  EXPECT_TRUE(MetricOf(Metric::kThroughput).baseline_ratio);
  EXPECT_TRUE(MetricOf(Metric::kThroughput).higher_is_better);
  EXPECT_TRUE(MetricOf(Metric::kTotalCpu).baseline_ratio);
  EXPECT_TRUE(LatencyMetric("READ", LatencyStat::kP99).baseline_ratio);
  EXPECT_FALSE(LatencyMetric("READ", LatencyStat::kP95).baseline_ratio);
  // Throughput raw / pb: 1236.7 / sqrt(1000 * 1100); one raw repeat.
  EXPECT_NE(md.find("| Throughput (ops/s) vs pb | 1.00x | 1.18x (1 repeat: no interval) |"),
            std::string::npos)
      << md;
  // Total CPU: client + server, (1e6 + 1e6) / 700 ops against (2e6 + 2e6) / 1000 and / 1100.
  EXPECT_NE(md.find("| Total CPU (us/op) vs pb | 1.00x | 0.75x (1 repeat: no interval) |"),
            std::string::npos)
      << md;
}

TEST(CompareTables, MetricsReadTheirCellsByDefinition) {
  const json r = Results(1000, 1.0, 2e6, false, /*server=*/false);
  EXPECT_DOUBLE_EQ(MetricValue(MetricOf(Metric::kThroughput), r), 1000.0);
  EXPECT_DOUBLE_EQ(MetricValue(MetricOf(Metric::kClientCopied), r), 15.0);  // 10 + 5.
  EXPECT_DOUBLE_EQ(MetricValue(LatencyMetric("READ", LatencyStat::kP99), r),
                   r["ops"]["READ"]["latency"]["p99_us"].get<double>());
  EXPECT_TRUE(std::isnan(MetricValue(LatencyMetric("SCAN", LatencyStat::kP99), r)));
  // Figures that were not measured read as n/a, not 0: no server Stats here.
  EXPECT_TRUE(std::isnan(MetricValue(MetricOf(Metric::kServerCpu), r)));
  EXPECT_TRUE(std::isnan(MetricValue(MetricOf(Metric::kTotalCpu), r)));
  EXPECT_DOUBLE_EQ(MetricValue(MetricOf(Metric::kClientCpu), r), 2.0);
  // Table order: the costs per operation (CPU client, server, total first),
  // then throughput, then the latency rows of the ops present. Figures no
  // cell has (instructions, without hardware counters or Valgrind) get no row.
  const std::vector<MetricDef> rows = MetricsFor(Cells());
  // Less the 15 instruction rows (no counters, no callgrind), server allocations (the server
  // Stats here do not count them) and the cluster's imbalance (one server).
  ASSERT_EQ(rows.size(), size_t(Metric::kCount) - 18u + 5u);
  EXPECT_EQ(rows[0].name, "Client CPU (us/op)");
  EXPECT_EQ(rows[1].name, "Server CPU (us/op)");
  EXPECT_EQ(rows[2].name, "Total CPU (us/op)");
  EXPECT_EQ(rows[3].name, "Client allocations/op");
  EXPECT_EQ(rows[rows.size() - 7].name, "Throughput (ops/s)");
  EXPECT_EQ(rows[rows.size() - 6].name, "Ops per server core-second");
  EXPECT_EQ(rows[rows.size() - 5].name, "READ avg latency (us)");
  for (const MetricDef& m : rows) EXPECT_FALSE(m.unit.empty()) << m.name;
  for (const MetricDef& m : rows) EXPECT_EQ(m.name.find("instructions"), std::string::npos);
}

TEST(CompareTables, ThreadSweepsForTheSweepMetrics) {
  std::vector<CompareCell> cells = Cells(8);
  for (CompareCell& c : Cells(16)) cells.push_back(c);
  const std::string md = CompareMarkdown(cells, Options());
  EXPECT_NE(md.find("## workloada: Throughput (ops/s) by thread count"), std::string::npos) << md;
  EXPECT_NE(md.find("## workloada: Total CPU (us/op) by thread count"), std::string::npos);
  EXPECT_EQ(md.find("## workloada: Client CPU (us/op) by thread count"), std::string::npos);
  // The partial cell is marked in the sweep too.
  EXPECT_NE(md.find("| 8 | 1050.0 | 1236.7 (partial) |"), std::string::npos) << md;
}

TEST(CompareTables, InstructionRowsFollowTheCpuRowsWhenMeasured) {
  std::vector<CompareCell> cells = Cells();
  for (CompareCell& c : cells) {
    c.results["costs"]["client"]["instructions_per_op"] = 5123.4;
    c.results["costs"]["server"]["instructions_per_op"] = 3210.9;
  }
  const std::vector<MetricDef> rows = MetricsFor(cells);
  ASSERT_GE(rows.size(), 5u);
  EXPECT_EQ(rows[2].name, "Total CPU (us/op)");
  EXPECT_EQ(rows[3].name, "Client instructions/op");
  EXPECT_EQ(rows[4].name, "Server instructions/op");
  EXPECT_TRUE(rows[3].baseline_ratio);
}

// ---- Confidence intervals and the A/A check ----

// A small deterministic generator (the same figures on every platform):
// uniform in [-1, 1].
// (The engine's output is fixed by the standard; distributions are not.)
double Noise(std::mt19937& rng) { return double(rng()) / 2147483648.0 - 1.0; }

// Realistic figures of one cell of a codec that costs `scale` times raw's
// per operation, each moved by up to `noise` (CPU, throughput, switches,
// latency) or a fiftieth of it (allocations, copies, wire bytes: counts).
json CostResults(double scale, double noise, std::mt19937& rng) {
  const auto jitter = [&](double v, double amplitude) { return v * (1 + amplitude * Noise(rng)); };
  const double client = jitter(1.45 * scale, noise), server = jitter(1.40 * scale, noise);
  const auto count = [&](double v) { return jitter(v * scale, noise / 50); };
  json side = {{"available", true}, {"allocs_available", true}};
  json r = {{"throughput_ops_per_sec", jitter(140000 / scale, noise)},
            {"costs",
             {{"total_cpu_us_per_op", client + server},
              {"client", side},
              {"server", side}}},
            {"ops",
             {{"READ",
               {{"latency",
                 {{"average_us", jitter(220, noise)},
                  {"p50_us", jitter(200, noise)},
                  {"p95_us", jitter(400, 4 * noise)},
                  {"p99_us", jitter(900, 10 * noise)},
                  {"max_us", jitter(5000, 20 * noise)}}}}}}}};
  json& c = r["costs"]["client"];
  json& s = r["costs"]["server"];
  c["cpu_us_per_op"] = client;
  s["cpu_us_per_op"] = server;
  c["allocs_per_op"] = count(2.0);
  c["alloc_bytes_per_op"] = count(180);
  s["allocs_per_op"] = count(3.0);
  s["alloc_bytes_per_op"] = count(240);
  for (json* side_costs : {&c, &s}) {
    (*side_costs)["encode_copied_bytes_per_op"] = count(64);
    (*side_costs)["decode_copied_bytes_per_op"] = count(32);
    (*side_costs)["voluntary_switches_per_op"] = jitter(0.3, noise);
    (*side_costs)["involuntary_switches_per_op"] = jitter(0.01, noise);
  }
  c["wire_bytes_out_per_op"] = count(90);
  c["wire_bytes_in_per_op"] = count(120);
  return r;
}

// `repeats` of raw and of a second column: `other` (its codec) labelled
// `label`, costing `scale` times raw, in interleaved repeats as the runner
// runs them.
std::vector<CompareCell> TwoColumns(const std::string& other, const std::string& label,
                                    double scale, int repeats, double noise) {
  std::mt19937 rng(12345);
  std::vector<CompareCell> cells;
  for (int rep = 1; rep <= repeats; ++rep) {
    cells.push_back(Cell("raw", 32, rep, CostResults(1.0, noise, rng)));
    cells.push_back(Cell(other, 32, rep, CostResults(scale, noise, rng), label));
  }
  return cells;
}

CompareReportOptions RawAgainst(const std::string& label) {
  CompareReportOptions o;
  o.codecs = {"raw", label};
  o.baseline = "raw";
  return o;
}

bool IsCostRow(const MetricDef& m) { return m.unit.size() > 3 && m.unit.ends_with("/op"); }

TEST(CompareTables, SweepPercentagesCarryTheirIntervals) {
  // raw is 30% dearer than pb at 8 clients (3 repeats, 2% noise) and the
  // same at 16: "+30% [..]" and "~+x% [..]".
  std::vector<CompareCell> cells;
  std::mt19937 rng(3);
  for (int t : {8, 16})
    for (int rep = 1; rep <= 3; ++rep) {
      cells.push_back(Cell("pb", t, rep, CostResults(1.0, 0.02, rng)));
      cells.push_back(Cell("raw", t, rep, CostResults(t == 8 ? 1.3 : 1.0, 0.02, rng)));
    }
  const std::string md = CompareMarkdown(cells, Options());
  const size_t sweep = md.find("## workloada: Total CPU (us/op) by thread count");
  ASSERT_NE(sweep, std::string::npos) << md;
  const std::string table = md.substr(sweep);
  EXPECT_NE(table.find("| raw vs pb |"), std::string::npos) << table;
  const RatioInterval at8 =
      CompareRatio(cells, MetricOf(Metric::kTotalCpu), "raw", "pb", "workloada", 8);
  const RatioInterval at16 =
      CompareRatio(cells, MetricOf(Metric::kTotalCpu), "raw", "pb", "workloada", 16);
  ASSERT_TRUE(at8.distinguishable());
  ASSERT_FALSE(at16.distinguishable());
  char row8[64], row16[64];
  std::snprintf(row8, sizeof(row8), " %+.1f%% [%+.1f, %+.1f] |", 100 * (at8.ratio - 1),
                100 * (at8.lo - 1), 100 * (at8.hi - 1));
  std::snprintf(row16, sizeof(row16), " ~%+.1f%% [%+.1f, %+.1f] |", 100 * (at16.ratio - 1),
                100 * (at16.lo - 1), 100 * (at16.hi - 1));
  EXPECT_NE(table.find(row8), std::string::npos) << row8 << "\n" << table;
  EXPECT_NE(table.find(row16), std::string::npos) << row16 << "\n" << table;
}

TEST(CompareTables, OneCodecTwiceGetsTwoColumns) {
  EXPECT_EQ(ColumnLabels({"raw", "raw"}), (std::vector<std::string>{"raw", "raw#2"}));
  EXPECT_EQ(ColumnLabels({"raw", "pb", "raw", "raw"}),
            (std::vector<std::string>{"raw", "pb", "raw#2", "raw#3"}));
  const std::vector<CompareCell> cells = TwoColumns("raw", "raw#2", 1.0, 3, 0.03);
  EXPECT_EQ(CellColumn(cells[0]), "raw");
  EXPECT_EQ(CellColumn(cells[1]), "raw#2");
  const std::string md = CompareMarkdown(cells, RawAgainst("raw#2"));
  EXPECT_NE(md.find("| metric | raw | raw#2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("Repeats present: raw 3, raw#2 3."), std::string::npos) << md;
  EXPECT_EQ(AggregateMetric(cells, MetricOf(Metric::kClientCpu), "raw#2", "workloada", 32).n, 3);
  const json j = CompareJson(cells, RawAgainst("raw#2"));
  EXPECT_EQ(j["cells"][1]["codec"], "raw");
  EXPECT_EQ(j["cells"][1]["column"], "raw#2");
}

// A/A: the same codec twice, 5 repeats of up to 3% noise: every cost row
// comes out not distinguishable (a 95% interval flags an A/A row 5% of the
// time by construction; these fixed figures are checked, and each interval
// is narrower than the noise allows a real difference to hide in).
TEST(CompareTables, AACheckEveryCostRowIsNotDistinguishable) {
  const std::vector<CompareCell> cells = TwoColumns("raw", "raw#2", 1.0, 5, 0.03);
  int cost_rows = 0;
  for (const MetricDef& m : MetricsFor(cells)) {
    if (!m.baseline_ratio || !IsCostRow(m)) continue;
    ++cost_rows;
    const RatioInterval r = CompareRatio(cells, m, "raw#2", "raw", "workloada", 32);
    EXPECT_EQ(r.method, IntervalMethod::kPaired) << m.name;
    EXPECT_FALSE(r.distinguishable()) << m.name << " " << r.lo << " " << r.hi;
    EXPECT_LT(r.hi / r.lo, 1.15) << m.name;
  }
  EXPECT_EQ(cost_rows, 11);  // CPU x3, allocations x4, copies x2, wire x2.
  const std::string md = CompareMarkdown(cells, RawAgainst("raw#2"));
  EXPECT_NE(md.find("| Total CPU (us/op) vs raw | 1.00x | ~"), std::string::npos) << md;
  EXPECT_NE(md.find("| Client allocations/op vs raw | 1.00x | ~"), std::string::npos) << md;
  EXPECT_NE(md.find("Intervals against `raw`: paired by repeat index for raw#2."),
            std::string::npos)
      << md;
}

// A real 30% difference (3 repeats, 2% noise) is distinguishable on every
// cost row and on throughput, and each ratio is near the true one.
TEST(CompareTables, ARealThirtyPercentDifferenceIsDistinguishable) {
  const std::vector<CompareCell> cells = TwoColumns("slow", "slow", 1.3, 3, 0.02);
  for (const MetricDef& m : MetricsFor(cells)) {
    if (!m.baseline_ratio || m.op == "READ") continue;
    const RatioInterval r = CompareRatio(cells, m, "slow", "raw", "workloada", 32);
    EXPECT_TRUE(r.distinguishable()) << m.name << " " << r.lo << " " << r.hi;
    const double truth = m.higher_is_better ? 1 / 1.3 : 1.3;
    EXPECT_NEAR(r.ratio, truth, 0.03 * truth) << m.name;
    EXPECT_LT(r.hi / r.lo, 1.2) << m.name;
  }
  const std::string md = CompareMarkdown(cells, RawAgainst("slow"));
  EXPECT_NE(md.find("| Total CPU (us/op) vs raw | 1.00x | 1.29x [1.26, 1.32] |"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("| Total CPU (us/op) vs raw | 1.00x | ~"), std::string::npos) << md;
}

// pb at 10 us/op total CPU in each repeat, raw at `raw_cpu[i]` in repeat i + 1.
std::vector<CompareCell> TotalCpuCells(const std::vector<double>& raw_cpu) {
  std::vector<CompareCell> cells;
  const auto costs = [](double total) {
    return json{{"costs",
                 {{"total_cpu_us_per_op", total},
                  {"client", {{"available", true}}},
                  {"server", {{"available", true}}}}}};
  };
  for (size_t i = 0; i < raw_cpu.size(); ++i) {
    cells.push_back(Cell("pb", 8, int(i) + 1, costs(10.0)));
    cells.push_back(Cell("raw", 8, int(i) + 1, costs(raw_cpu[i])));
  }
  return cells;
}

TEST(CompareTables, IntervalsInMarkdownCsvAndJson) {
  // raw: total CPU 4.0, 4.4, 4.2 us/op; pb: 10.0, 10.0, 10.0 over the same
  // repeats: paired log differences of ln(0.4), ln(0.44), ln(0.42).
  std::vector<CompareCell> cells = TotalCpuCells({4.0, 4.4, 4.2});
  const RatioInterval r =
      PairedRatioInterval({4.0, 4.4, 4.2}, {10.0, 10.0, 10.0});  // Checked in ratio_interval_test.
  char expect[96];
  std::snprintf(expect, sizeof(expect), "| Total CPU (us/op) vs pb | 1.00x | %.2fx [%.2f, %.2f] |",
                r.ratio, r.lo, r.hi);
  const std::string md = CompareMarkdown(cells, Options());
  EXPECT_NE(md.find(expect), std::string::npos) << expect << "\n" << md;
  EXPECT_NE(md.find("| Total CPU (us/op) vs pb | 1.00x | 0.42x [0.37, 0.47] |"),
            std::string::npos)
      << md;

  const std::string csv = CompareCsv(cells, Options());
  char row[160];
  std::snprintf(row, sizeof(row),
                "workloada,8,,,\"Total CPU (us/op)\",us/op,10.00,10.00,10.00,3,0,,,,,4.20,4.00,4.40,"
                "3,0,%.4f,%.4f,%.4f,true\n",
                r.ratio, r.lo, r.hi);
  EXPECT_NE(csv.find(row), std::string::npos) << row << "\n" << csv;

  const json j = CompareJson(cells, Options());
  const json& v = j["tables"][0]["metrics"]["Total CPU (us/op)"]["raw"]["vs_baseline"];
  EXPECT_NEAR(v["ratio"].get<double>(), r.ratio, 1e-9);
  EXPECT_NEAR(v["lo"].get<double>(), r.lo, 1e-9);
  EXPECT_NEAR(v["hi"].get<double>(), r.hi, 1e-9);
  EXPECT_TRUE(v["distinguishable"].get<bool>());
  EXPECT_EQ(v["method"], "paired");
  EXPECT_FALSE(j["tables"][0]["metrics"]["Total CPU (us/op)"]["pb"].contains("vs_baseline"));

  // One raw repeat fewer: Welch, and still in all three outputs.
  cells.pop_back();
  const json w = CompareJson(cells, Options());
  EXPECT_EQ(w["tables"][0]["metrics"]["Total CPU (us/op)"]["raw"]["vs_baseline"]["method"],
            "welch");
  EXPECT_NE(CompareMarkdown(cells, Options()).find("Welch (unequal repeats) for raw."),
            std::string::npos);
}

TEST(CompareTables, NotDistinguishableIsMarkedInEveryOutput) {
  // raw within 2% of pb, both ways: the interval contains 1.0.
  std::vector<CompareCell> cells = TotalCpuCells({10.2, 9.8, 10.1});
  const std::string md = CompareMarkdown(cells, Options());
  EXPECT_NE(md.find("| Total CPU (us/op) vs pb | 1.00x | ~1.00x ["), std::string::npos) << md;
  EXPECT_NE(CompareCsv(cells, Options()).find(",false\n"), std::string::npos);
  EXPECT_FALSE(CompareJson(cells, Options())["tables"][0]["metrics"]["Total CPU (us/op)"]["raw"]
                   ["vs_baseline"]["distinguishable"]
                       .get<bool>());
  // A 1-repeat column: a ratio, no interval, null in JSON.
  std::vector<CompareCell> one = {cells[0], cells[1]};
  const json j = CompareJson(one, Options());
  const json& v = j["tables"][0]["metrics"]["Total CPU (us/op)"]["raw"]["vs_baseline"];
  EXPECT_TRUE(v["lo"].is_null());
  EXPECT_TRUE(v["distinguishable"].is_null());
  EXPECT_EQ(v["no_interval"], "1 repeat: no interval");
  EXPECT_NE(CompareMarkdown(one, Options())
                .find("| Total CPU (us/op) vs pb | 1.00x | 1.02x (1 repeat: no interval) |"),
            std::string::npos);
}

// A fresh chart directory, kept (for looking at the PNGs) when
// WIREBENCH_KEEP_CHARTS names a parent directory.
class ChartDir {
 public:
  explicit ChartDir(const std::string& name) {
    const char* keep = std::getenv("WIREBENCH_KEEP_CHARTS");
    keep_ = keep != nullptr && *keep != '\0';
    path_ = keep_ ? std::filesystem::path(keep) / name
                  : std::filesystem::temp_directory_path() /
                        ("wirebench_" + name + "_" + std::to_string(getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ChartDir() {
    if (!keep_) std::filesystem::remove_all(path_);
  }
  std::string str() const { return path_.string(); }
  std::string Read(const std::string& file) const {
    std::ifstream in(path_ / file);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  bool keep_ = false;
  std::filesystem::path path_;
};

bool HaveGnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

// The "ops" of a result with 2000 READs whose latencies spread like a real
// run's: a body around 150 us times `scale` and a long tail.
json LatencyOps(double scale, std::mt19937& rng) {
  RunResult r;
  std::exponential_distribution<double> tail(1.0);
  for (int i = 0; i < 2000; ++i) {
    const double us = 150 * scale * (0.8 + 0.4 * (Noise(rng) + 1) / 2) + 40 * tail(rng) * tail(rng);
    r.ops[size_t(OpType::kRead)].latency.Record(int64_t(us * 1000));
  }
  r.ops[size_t(OpType::kRead)].results[size_t(OpResult::kOk)] = 2000;
  r.operations = 2000;
  r.runtime_s = 1;
  return ResultToJson(r, ComputeCosts(r), ReportOptions{})["ops"];
}

// Five codecs at one thread count, 3 repeats, costing 1x to 2.4x raw, with
// latency histograms, and instructions when asked.
std::vector<CompareCell> FiveCodecs(bool instructions, std::vector<int> threads = {32}) {
  const std::vector<std::pair<std::string, double>> codecs = {
      {"raw", 1.0}, {"pb", 2.4}, {"pb-arena", 2.0}, {"cellblock", 1.3}, {"flatbuffers", 1.6}};
  std::mt19937 rng(7);
  std::vector<CompareCell> cells;
  for (int t : threads)
    for (int rep = 1; rep <= 3; ++rep)
      for (const auto& [codec, scale] : codecs) {
        json r = CostResults(scale, 0.04, rng);
        r["throughput_ops_per_sec"] = r["throughput_ops_per_sec"].get<double>() * std::sqrt(t / 32.0);
        r["ops"] = LatencyOps(scale, rng);
        if (instructions) {
          r["costs"]["client"]["instructions_per_op"] = 5123.4 * scale;
          r["costs"]["server"]["instructions_per_op"] = 3210.9 * scale;
        }
        cells.push_back(Cell(codec, t, rep, r));
      }
  return cells;
}

CompareReportOptions FiveOptions() {
  CompareReportOptions o;
  o.codecs = {"raw", "pb", "pb-arena", "cellblock", "flatbuffers"};
  o.baseline = "raw";
  return o;
}

TEST(CompareCharts, OneThreadCountDrawsBarsASweepDrawsLines) {
  EXPECT_EQ(ThroughputChartKind(FiveCodecs(false), "workloada"), ChartKind::kBars);
  EXPECT_EQ(ThroughputChartKind(FiveCodecs(false, {1, 32, 200}), "workloada"), ChartKind::kLines);
  if (!HaveGnuplot()) GTEST_SKIP() << "no gnuplot";
  const ChartDir bars("compare_charts_bars");
  ASSERT_TRUE(WriteCharts(FiveCodecs(false), FiveOptions(), bars.str()).ok());
  std::string gp = bars.Read("charts.gp");
  EXPECT_NE(gp.find("with boxes"), std::string::npos) << gp;
  EXPECT_NE(gp.find("with yerrorbars"), std::string::npos) << gp;
  EXPECT_EQ(gp.find("with yerrorlines"), std::string::npos) << gp;
  EXPECT_EQ(gp.find("logscale x 2"), std::string::npos) << gp;
  // One row per codec: median, min, max, repeats.
  EXPECT_NE(bars.Read("throughput.dat").find("\"flatbuffers\" "), std::string::npos);

  const ChartDir lines("compare_charts_sweep");
  ASSERT_TRUE(WriteCharts(FiveCodecs(false, {1, 32, 200}), FiveOptions(), lines.str()).ok());
  gp = lines.Read("charts.gp");
  EXPECT_NE(gp.find("with yerrorlines"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set xtics (\"1\" 1, \"32\" 32, \"200\" 200)"), std::string::npos) << gp;
}

TEST(CompareCharts, RendersEachChartFromTheMetricDefinitions) {
  if (!HaveGnuplot()) GTEST_SKIP() << "no gnuplot";
  const ChartDir dir("compare_charts");
  auto files = WriteCharts(FiveCodecs(false), FiveOptions(), dir.str());
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ(files->size(), 6u);  // Throughput, latency, CPU; PNG and SVG each.
  for (const std::string& f : *files) EXPECT_GT(std::filesystem::file_size(f), 0u) << f;
  EXPECT_EQ(dir.Read("gnuplot.log"), "");  // No gnuplot warnings either.
  const std::string cpu = dir.Read("cpu-per-op.dat");
  EXPECT_NE(cpu.find("\"pb\" "), std::string::npos) << cpu;
  EXPECT_NE(dir.Read("charts.gp").find("rowstacked"), std::string::npos);
  // The latency chart says it pools the repeats, where the table takes medians.
  EXPECT_NE(dir.Read("charts.gp").find("every repeat's operations in one histogram"),
            std::string::npos);
}

// The stacked CPU chart's total is the table's: the median of the repeats'
// totals, not the sum of the two sides' medians (which need not add up to it).
TEST(CompareCharts, TheCpuBarsTotalIsTheTablesMedianTotal) {
  if (!HaveGnuplot()) GTEST_SKIP() << "no gnuplot";
  std::mt19937 rng(7);
  std::vector<CompareCell> cells;
  // (client, server) per repeat: medians 2 + 2 = 4; totals 2, 7, 5: median 5.
  const double sides[3][2] = {{1, 1}, {2, 5}, {3, 2}};
  for (int rep = 1; rep <= 3; ++rep) {
    json r = CostResults(1.0, 0, rng);
    r["costs"]["client"]["cpu_us_per_op"] = sides[rep - 1][0];
    r["costs"]["server"]["cpu_us_per_op"] = sides[rep - 1][1];
    r["costs"]["total_cpu_us_per_op"] = sides[rep - 1][0] + sides[rep - 1][1];
    cells.push_back(Cell("raw", 32, rep, r));
  }
  CompareReportOptions o;
  o.codecs = {"raw"};
  o.baseline = "raw";
  const ChartDir dir("compare_charts_total");
  ASSERT_TRUE(WriteCharts(cells, o, dir.str()).ok());
  const std::string dat = dir.Read("cpu-per-op.dat");
  EXPECT_NE(dat.find("\"raw\" 2 2 \"5.00\""), std::string::npos) << dat;
  EXPECT_NE(CompareMarkdown(cells, o).find("| Total CPU (us/op) | 5.00"), std::string::npos);
}

TEST(CompareCharts, InstructionsChartOnlyWhenMeasured) {
  if (!HaveGnuplot()) GTEST_SKIP() << "no gnuplot";
  const ChartDir dir("compare_charts_instructions");
  auto files = WriteCharts(FiveCodecs(true), FiveOptions(), dir.str());
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ(files->size(), 8u);
  EXPECT_NE(dir.Read("instructions-per-op.dat").find("\"raw\" 5123.4 3210.9"), std::string::npos);
  EXPECT_EQ(dir.Read("gnuplot.log"), "");
}

// A compare interrupted before its first operation completed: no cost has
// a figure (none is its whole cost taken as one op's), so there is no CPU
// chart; a column without server figures gets its client bar labelled so.
TEST(CompareCharts, CellsWithoutFiguresAreNotDrawnAsFigures) {
  const json none = Results(0, 0.0001, 92826, true);
  EXPECT_FALSE(none["costs"]["client"]["available"].get<bool>());
  EXPECT_EQ(none["costs"]["client"]["unavailable_reason"], "no operation was measured");
  EXPECT_TRUE(std::isnan(MetricValue(MetricOf(Metric::kClientCpu), none)));
  if (!HaveGnuplot()) GTEST_SKIP() << "no gnuplot";
  CompareReportOptions o;
  o.codecs = {"raw"};
  o.baseline = "raw";
  const ChartDir empty("compare_charts_no_ops");
  auto files = WriteCharts({Cell("raw", 1, 1, none)}, o, empty.str());
  ASSERT_TRUE(files.ok()) << files.status().ToString() << "\n" << empty.Read("gnuplot.log");
  for (const std::string& f : *files) EXPECT_EQ(f.find("cpu-per-op"), std::string::npos) << f;

  o.codecs = {"pb", "raw"};
  const ChartDir half("compare_charts_no_server");
  files = WriteCharts({Cell("pb", 1, 1, Results(1000, 1.0, 2e6, false)),
                       Cell("raw", 1, 1, Results(1000, 1.0, 1e6, false, false))},
                      o, half.str());
  ASSERT_TRUE(files.ok()) << files.status().ToString() << "\n" << half.Read("gnuplot.log");
  const std::string cpu = half.Read("cpu-per-op.dat");
  EXPECT_NE(cpu.find("\"raw\" 1 0 \"1.00 (server n/a)\""), std::string::npos) << cpu;
  EXPECT_NE(cpu.find("\"pb\" 2 "), std::string::npos) << cpu;
}


// --- Sweeps: ticks, thread sweeps and record-size sweeps. ---

// The labels of every "set <axis>tics (...)" line of a script, one list per line.
std::vector<std::vector<std::string>> TickLabels(const std::string& gp, const std::string& axis) {
  std::vector<std::vector<std::string>> out;
  const std::string key = "set " + axis + "tics (";
  for (size_t at = gp.find(key); at != std::string::npos; at = gp.find(key, at + 1)) {
    const size_t end = gp.find(")\n", at);
    std::vector<std::string> labels;
    for (size_t q = gp.find('"', at); q != std::string::npos && q < end;) {
      const size_t close = gp.find('"', q + 1);
      labels.push_back(gp.substr(q + 1, close - q - 1));
      q = gp.find('"', close + 1);
    }
    out.push_back(labels);
  }
  return out;
}

bool Distinct(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return std::adjacent_find(v.begin(), v.end()) == v.end();
}

TEST(ChartTicks, LabelsAreDistinctWhereRoundingWouldRepeatThem) {
  // The throughput axis that read "2M, 2M, 1M, 1M, 1M, 800k".
  AxisTicks a = ChooseTicks(0, 2.2e6, false);
  EXPECT_TRUE(Distinct(a.labels));
  EXPECT_GE(a.hi, 2.2e6);
  EXPECT_EQ(a.labels.front(), "0");
  EXPECT_NE(std::find(a.labels.begin(), a.labels.end(), "1.5M"), a.labels.end())
      << ::testing::PrintToString(a.labels);
  for (double top : {0.37, 3.9, 41.0, 987.0, 12345.0, 151000.0, 8.8e6}) {
    a = ChooseTicks(0, top, false);
    EXPECT_TRUE(Distinct(a.labels)) << top << ": " << ::testing::PrintToString(a.labels);
    EXPECT_GE(a.values.size(), 4u) << top;
    EXPECT_LE(a.values.size(), 9u) << top;
    EXPECT_GE(a.hi, top);
  }
  // Log: 1-2-5 over a short range, decades over a long one; always around the data.
  a = ChooseTicks(0.97, 40, true);
  EXPECT_TRUE(Distinct(a.labels)) << ::testing::PrintToString(a.labels);
  EXPECT_LE(a.lo, 0.97);
  EXPECT_GE(a.hi, 40);
  EXPECT_NE(std::find(a.labels.begin(), a.labels.end(), "0.5"), a.labels.end())
      << ::testing::PrintToString(a.labels);
  a = ChooseTicks(30, 250000, true);
  EXPECT_TRUE(Distinct(a.labels)) << ::testing::PrintToString(a.labels);
  EXPECT_EQ(a.labels, (std::vector<std::string>{"10", "100", "1k", "10k", "100k", "1M"}));
  // No figure, or none finite: a plain axis, never a crash.
  for (double bad : {0.0, std::nan(""), double(INFINITY)}) {
    a = ChooseTicks(0, bad, false);
    EXPECT_TRUE(Distinct(a.labels));
    EXPECT_TRUE(std::isfinite(a.hi));
  }
}

// A thread sweep draws CPU per op (client, server) and p50/p99 latency
// against the thread count, one point per thread count per column, and
// every axis of every chart has distinct labels.
TEST(CompareCharts, AThreadSweepDrawsCostsAndLatencyAgainstThreads) {
  if (!HaveGnuplot()) GTEST_SKIP() << "no gnuplot";
  const std::vector<int> ts = {1, 8, 32, 128};
  const ChartDir dir("compare_charts_thread_sweep");
  auto files = WriteCharts(FiveCodecs(true, ts), FiveOptions(), dir.str());
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ(dir.Read("gnuplot.log"), "");
  const std::string gp = dir.Read("charts.gp");
  EXPECT_EQ(gp.find("rowstacked"), std::string::npos) << "a sweep draws no bars of one count";
  for (const std::string base : {"cpu-per-op", "latency-by-clients", "instructions-per-op"}) {
    const std::string dat = dir.Read(base + ".dat");
    std::istringstream lines(dat);
    std::string line;
    std::vector<std::string> rows;
    while (std::getline(lines, line))
      if (!line.empty() && line[0] != '#') rows.push_back(line);
    ASSERT_EQ(rows.size(), ts.size()) << base << "\n" << dat;
    for (size_t i = 0; i < rows.size(); ++i) {
      std::istringstream row(rows[i]);
      std::vector<std::string> fields{std::istream_iterator<std::string>(row), {}};
      EXPECT_EQ(fields.size(), 1 + 2 * FiveOptions().codecs.size()) << rows[i];
      EXPECT_EQ(fields[0], std::to_string(ts[i]));
      for (const auto& f : fields) EXPECT_NE(f, "?") << base << ": " << rows[i];
    }
    EXPECT_NE(std::find_if(files->begin(), files->end(),
                           [&](const std::string& f) { return f.ends_with(base + ".png"); }),
              files->end())
        << base;
  }
  EXPECT_NE(dir.Read("cpu-per-op.dat").find("# x client:raw client:pb"), std::string::npos);
  for (const std::string axis : {"x", "y"}) {
    const auto all = TickLabels(gp, axis);
    EXPECT_GE(all.size(), 7u) << axis;  // Throughput + two panels of three charts.
    for (const auto& labels : all) EXPECT_TRUE(Distinct(labels)) << ::testing::PrintToString(labels);
  }
}

// Cells of a record-size sweep: `sizes` field lengths, costs and copies
// growing with the size (raw by 1 byte copied per byte, pb by 3).
std::vector<CompareCell> SizeCells(const std::vector<int>& sizes) {
  std::mt19937 rng(11);
  std::vector<CompareCell> cells;
  for (int size : sizes)
    for (int rep = 1; rep <= 2; ++rep)
      for (const auto& [codec, per_byte] : {std::pair{"raw", 1.0}, {"pb", 3.0}}) {
        json r = CostResults(1 + per_byte * size / 1000.0, 0.04, rng);
        for (const char* side : {"client", "server"}) {
          r["costs"][side]["encode_copied_bytes_per_op"] = per_byte * size * 10;
          r["costs"][side]["decode_copied_bytes_per_op"] = 0;
        }
        r["costs"]["client"]["wire_bytes_in_per_op"] = 10.0 * size + 200;
        CompareCell c = Cell(codec, 32, rep, r);
        c.fieldlength = size;
        cells.push_back(c);
      }
  return cells;
}

TEST(CompareCharts, ARecordSizeSweepDrawsCostsAgainstSize) {
  const std::vector<int> sizes = {10, 100, 1000, 10000};
  const auto cells = SizeCells(sizes);
  EXPECT_EQ(CellWorkload(cells.front()), "workloada-10B");
  if (!HaveGnuplot()) GTEST_SKIP() << "no gnuplot";
  const ChartDir dir("compare_charts_size_sweep");
  auto files = WriteCharts(cells, Options(), dir.str());
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ(dir.Read("gnuplot.log"), "");
  const std::string copied = dir.Read("copied-by-size.dat");
  std::istringstream lines(copied);
  std::string line;
  std::vector<std::vector<double>> rows;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    rows.emplace_back(std::istream_iterator<double>(row), std::istream_iterator<double>());
  }
  ASSERT_EQ(rows.size(), sizes.size()) << copied;
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 5u) << copied;  // x, client pb raw, server pb raw.
    EXPECT_EQ(rows[i][0], sizes[i]);
    EXPECT_EQ(rows[i][1], 3.0 * sizes[i] * 10) << "pb's client copies";
    EXPECT_EQ(rows[i][2], 1.0 * sizes[i] * 10) << "raw's client copies";
  }
  EXPECT_FALSE(dir.Read("cpu-by-size.dat").empty());
  const std::string gp = dir.Read("charts.gp");
  EXPECT_NE(gp.find("set xtics (\"10\" 10, \"100\" 100, \"1000\" 1000, \"10000\" 10000)"),
            std::string::npos)
      << gp;
  for (const std::string axis : {"x", "y"})
    for (const auto& labels : TickLabels(gp, axis))
      EXPECT_TRUE(Distinct(labels)) << ::testing::PrintToString(labels);
}

TEST(CompareTables, ARecordSizeSweepHasATablePerSizeAndBySize) {
  const auto cells = SizeCells({10, 1000});
  const std::string md = CompareMarkdown(cells, Options());
  EXPECT_NE(md.find("## workloada-10B, 32 logical clients"), std::string::npos) << md;
  EXPECT_NE(md.find("## workloada-1000B, 32 logical clients"), std::string::npos) << md;
  EXPECT_NE(md.find("## workloada, 32 logical clients: Client payload bytes copied/op by record size"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 1000 B | 30000 |"), std::string::npos) << md;
  const std::string csv = CompareCsv(cells, Options());
  EXPECT_NE(csv.find("\nworkloada-1000B,32,,1000,\"Throughput (ops/s)\""), std::string::npos) << csv;
  const json j = CompareJson(cells, Options());
  ASSERT_EQ(j["tables"].size(), 2u);
  EXPECT_EQ(j["tables"][1]["workload"], "workloada-1000B");
  EXPECT_EQ(j["tables"][1]["fieldlength"], 1000);
  EXPECT_EQ(j["cells"][0]["fieldlength"], 10);
  EXPECT_EQ(j["cells"][0]["workload"], "workloada");
}

// Cells of a pipeline-depth or batch-size sweep at two record sizes: each
// value and size its own group, CPU per op falling with the value.
std::vector<CompareCell> DepthCells(const CallSweep& sweep) {
  std::mt19937 rng(13);
  std::vector<CompareCell> cells;
  for (int size : {10, 1000})
    for (int depth : {1, 8, 64})
      for (int rep = 1; rep <= 2; ++rep)
        for (const char* codec : {"raw", "pb"}) {
          CompareCell c = Cell(codec, 4, rep, CostResults(4.0 / depth, 0.04, rng));
          c.fieldlength = size;
          c.*sweep.field = depth;
          cells.push_back(c);
        }
  return cells;
}

TEST(CompareTables, APipelineOrBatchSweepIsItsOwnGroupPerValueWithATableByIt) {
  for (const CallSweep& sweep : CallSweeps()) {
    SCOPED_TRACE(sweep.key);
    const std::string p = sweep.suffix;
    const auto cells = DepthCells(sweep);
    EXPECT_EQ(CellWorkload(cells.front()), "workloada-10B" + p + "1");
    const std::string md = CompareMarkdown(cells, Options());
    EXPECT_NE(md.find("## workloada-1000B" + p + "64, 4 logical clients"), std::string::npos)
        << md;
    EXPECT_NE(md.find("## workloada-10B, 4 logical clients: Total CPU (us/op) by " +
                      std::string(sweep.dimension)),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("| 64 " + std::string(sweep.row_unit) + " |"), std::string::npos) << md;
    // The size sweep at one depth keeps that depth in its groups.
    EXPECT_NE(md.find("## workloada" + p + "8, 4 logical clients: Total CPU (us/op) by record size"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("| 1000 B | "), std::string::npos) << md;
    const json j = CompareJson(cells, Options());
    ASSERT_EQ(j["tables"].size(), 6u);
    EXPECT_EQ(j["tables"][1]["workload"], "workloada-10B" + p + "8");
    EXPECT_EQ(j["tables"][1][sweep.key], 8);
    EXPECT_EQ(j["cells"][0][sweep.key], 1);
    EXPECT_EQ(j["cells"][0]["workload"], "workloada");
  }
}

TEST(CompareCharts, APipelineOrBatchSweepDrawsCostsAgainstIt) {
  if (!HaveGnuplot()) GTEST_SKIP() << "no gnuplot";
  for (const CallSweep& sweep : CallSweeps()) {
    SCOPED_TRACE(sweep.key);
    const auto cells = DepthCells(sweep);
    const ChartDir dir(std::string("compare_charts_") + sweep.key + "_sweep");
    auto files = WriteCharts(cells, Options(), dir.str());
    ASSERT_TRUE(files.ok()) << files.status().ToString();
    EXPECT_EQ(dir.Read("gnuplot.log"), "");
    // One series per record size: the depth charts are named after it.
    for (const char* chart : {"cpu", "allocs", "copied", "wire", "throughput"})
      for (const char* series : {"-workloada-10B-t4", "-workloada-1000B-t4"}) {
        const std::string name = std::string(chart) + "-by-" + sweep.key + series + ".dat";
        EXPECT_FALSE(dir.Read(name).empty()) << name;
      }
    const std::string gp = dir.Read("charts.gp");
    EXPECT_NE(gp.find("set xtics (\"1\" 1, \"8\" 8, \"64\" 64)"), std::string::npos) << gp;
  }
}

}  // namespace
}  // namespace wirebench
