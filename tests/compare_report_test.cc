// The codec comparison tables (bench/results/compare_tables.h) from typed
// metric definitions (compare_metrics.h): ratio rows where the metric says
// so, summed metrics, a cell cut short marked "(partial)" in Markdown, CSV
// and JSON, and the repeats actually present stated, not the requested count.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/results/compare_report.h"
#include "bench/results/report.h"

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

// pb: two full repeats. raw: one repeat, cut short at 566 of 1000 ms.
std::vector<CompareCell> Cells(int threads = 8) {
  return {CompareCell{"pb", "workloada", threads, 1, Results(1000, 1.0, 2e6, false)},
          CompareCell{"raw", "workloada", threads, 1, Results(700, 0.566, 1e6, true)},
          CompareCell{"pb", "workloada", threads, 2, Results(1100, 1.0, 2e6, false)}};
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
            "workload,threads,metric,unit,pb,pb_min,pb_max,pb_n,pb_partial,raw,raw_min,raw_max,"
            "raw_n,raw_partial");
  // Throughput: pb median of 1000 and 1100, 2 cells, none partial; raw 1 partial cell.
  EXPECT_NE(csv.find("workloada,8,\"Throughput (ops/s)\",ops/s,1050.0,1000.0,1100.0,2,0,"
                     "1236.7,1236.7,1236.7,1,1\n"),
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
  for (const MetricDef& m : MetricsFor(Cells())) {
    const bool has_ratio = md.find("| " + m.name + " vs pb |") != std::string::npos;
    EXPECT_EQ(has_ratio, m.baseline_ratio) << m.name;
  }
  EXPECT_TRUE(MetricOf(Metric::kThroughput).baseline_ratio);
  EXPECT_TRUE(MetricOf(Metric::kThroughput).higher_is_better);
  EXPECT_TRUE(MetricOf(Metric::kTotalCpu).baseline_ratio);
  EXPECT_TRUE(LatencyMetric("READ", LatencyStat::kP99).baseline_ratio);
  EXPECT_FALSE(LatencyMetric("READ", LatencyStat::kP95).baseline_ratio);
  // Throughput raw / pb: 1236.7 / 1050.
  EXPECT_NE(md.find("| Throughput (ops/s) vs pb | 1.00x | 1.18x |"), std::string::npos) << md;
  // Total CPU: client + server, (1e6 + 1e6) / 700 ops against (2e6 + 2e6) / 1000 and / 1100.
  EXPECT_NE(md.find("| Total CPU (us/op) vs pb | 1.00x | 0.75x |"), std::string::npos) << md;
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
  // Table order: throughput, the latency rows of the ops present, then costs.
  const std::vector<MetricDef> rows = MetricsFor(Cells());
  ASSERT_EQ(rows.size(), 1u + 5u + size_t(Metric::kCount) - 1u);
  EXPECT_EQ(rows[0].name, "Throughput (ops/s)");
  EXPECT_EQ(rows[1].name, "READ avg latency (us)");
  EXPECT_EQ(rows[6].name, "Client CPU (us/op)");
  for (const MetricDef& m : rows) EXPECT_FALSE(m.unit.empty()) << m.name;
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

TEST(CompareCharts, RendersEachChartFromTheMetricDefinitions) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) GTEST_SKIP() << "no gnuplot";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("wirebench_compare_charts_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::vector<CompareCell> cells = Cells(8);
  for (CompareCell& c : Cells(16)) cells.push_back(c);
  auto files = WriteCharts(cells, Options(), dir.string());
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ(files->size(), 6u);  // Throughput, latency, CPU; PNG and SVG each.
  for (const std::string& f : *files) EXPECT_GT(std::filesystem::file_size(f), 0u) << f;
  std::ifstream cpu(dir / "cpu.dat");
  std::stringstream ss;
  ss << cpu.rdbuf();
  EXPECT_NE(ss.str().find("pb "), std::string::npos) << ss.str();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wirebench
