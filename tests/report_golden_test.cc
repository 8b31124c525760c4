// YCSB's text output, line for line, against a golden file; the cost lines
// say "unavailable" (never 0) when a figure could not be measured; and
// YCSB's JSON exporters, rendered from the same measurements, give what
// re-parsing the text report gave (bench/cli/ycsb_command.cc's ExportJson).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bench/results/report.h"

namespace wirebench {
namespace {

RunResult MakeResult() {
  RunResult r;
  r.runtime_s = 2.5;
  r.operations = 1000;
  OpStats& read = r.ops[size_t(OpType::kRead)];
  OpStats& update = r.ops[size_t(OpType::kUpdate)];
  for (int i = 1; i <= 600; ++i) read.latency.Record(int64_t(i) * 1000);  // 1..600 us
  read.results[size_t(OpResult::kOk)] = 550;
  read.results[size_t(OpResult::kNotFound)] = 50;
  for (int i = 1; i <= 399; ++i) update.latency.Record(int64_t(i) * 2000);
  update.failed_latency.Record(5'000'000);
  update.results[size_t(OpResult::kOk)] = 399;
  update.results[size_t(OpResult::kError)] = 1;
  return r;
}

std::string Ycsb(const std::string& text) {
  // The YCSB part: everything before wirebench's own sections.
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("[CLIENT]", 0) != 0 && line.rfind("[SERVER]", 0) != 0 &&
        line.rfind("[TOTAL]", 0) != 0)
      out += line + "\n";
  return out;
}

TEST(ReportText, MatchesYcsbGoldenFile) {
  RunResult r = MakeResult();
  RunCosts c = ComputeCosts(r);
  ReportOptions o;
  const std::string text = FormatTextReport(r, c, o);
  const std::string path = std::string(WIREBENCH_SOURCE_DIR) + "/tests/golden/ycsb_text.txt";
  std::ifstream f(path);
  ASSERT_TRUE(f.good()) << path << "\nfor reference, got:\n" << Ycsb(text);
  std::stringstream golden;
  golden << f.rdbuf();
  EXPECT_EQ(Ycsb(text), golden.str()) << "got:\n" << text;
}

TEST(ReportText, UnmeasuredFiguresSayUnavailable) {
  RunResult r = MakeResult();  // No server Stats snapshots, no client threads.
  RunCosts c = ComputeCosts(r);
  const std::string text = FormatTextReport(r, c, ReportOptions{});
  EXPECT_NE(text.find("[SERVER], CpuPerOp(us), unavailable (server Stats not fetched)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[TOTAL], CpuPerOp(us), unavailable"), std::string::npos);
  EXPECT_NE(text.find("[CLIENT], CyclesPerOp, unavailable ("), std::string::npos) << text;
  EXPECT_EQ(text.find("[CLIENT], CyclesPerOp, 0"), std::string::npos);
  const nlohmann::json j = ResultToJson(r, c, ReportOptions{});
  EXPECT_FALSE(j["costs"]["server"]["available"].get<bool>());
  EXPECT_TRUE(j["costs"]["client"]["cycles_per_op"].is_null());
}

TEST(ReportText, PartialRunIsMarked) {
  RunResult r = MakeResult();
  r.partial = true;
  r.error = Status::Unavailable("connection to server 127.0.0.1:1 lost: closed by the server");
  const std::string text = FormatTextReport(r, ComputeCosts(r), ReportOptions{});
  EXPECT_NE(text.find("[OVERALL], Partial, true (Unavailable: connection to server"),
            std::string::npos)
      << text;
  EXPECT_TRUE(ResultToJson(r, ComputeCosts(r), ReportOptions{})["partial"].get<bool>());
}

// The exporter as it was: parses the text report's lines (kept verbatim
// from bench/cli/ycsb_command.cc as the reference).
std::string ExportJsonFromText(const std::string& text, bool array) {
  std::istringstream in(text);
  std::string line;
  std::vector<nlohmann::json> items;
  while (std::getline(in, line)) {
    if (line.size() < 3 || line[0] != '[') continue;
    size_t close = line.find("], ");
    size_t comma = line.find(", ", close + 3);
    if (close == std::string::npos || comma == std::string::npos) continue;
    nlohmann::json j;
    j["metric"] = line.substr(1, close - 1);
    j["measurement"] = line.substr(close + 3, comma - close - 3);
    std::string v = line.substr(comma + 2);
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (end && *end == 0 && !v.empty()) {
      j["value"] = d;
    } else {
      j["value"] = v;
    }
    items.push_back(j);
  }
  std::string out;
  if (array) return nlohmann::json(items).dump(2) + "\n";
  for (auto& j : items) out += j.dump() + "\n";
  return out;
}

TEST(ReportExport, JsonExportersMatchTheTextReport) {
  RunResult r = MakeResult();
  r.partial = true;
  r.error = Status::Aborted("stopped on request (SIGINT)");
  for (int i = 1; i <= 50; ++i) {
    r.schedule_lateness.Record(int64_t(i) * 777);
    r.timer_lateness.Record(int64_t(i) * 333);
    r.ops[size_t(OpType::kRead)].intended_latency.Record(int64_t(i) * 5000);
  }
  r.behind_schedule = 7;
  r.client_usage.threads = 1;
  r.client_usage.cpu_ns = 123456.789;
  r.server_before = {{"threads", nlohmann::json::array()}};
  r.server_after = {{"threads", nlohmann::json::array({{{"role", "server-io"}, {"tid", 1},
                                                        {"cpu_ns", 5e5}}})}};
  ReportOptions o;
  o.percentiles = {50, 99.9};
  o.measurement_interval = "both";
  const RunCosts c = ComputeCosts(r);
  const std::string text = FormatTextReport(r, c, o);
  for (bool array : {false, true})
    EXPECT_EQ(YcsbJsonExport(r, c, o, array), ExportJsonFromText(text, array)) << array;
  // Numbers are numbers, text stays text.
  const nlohmann::json a = nlohmann::json::parse(YcsbJsonExport(r, c, o, true));
  EXPECT_EQ(a[0]["metric"], "OVERALL");
  EXPECT_EQ(a[0]["measurement"], "RunTime(ms)");
  EXPECT_DOUBLE_EQ(a[0]["value"].get<double>(), 2500.0);
  EXPECT_TRUE(a.back()["value"].is_string());  // "true (Aborted: ...)".
  // And the text report is the measurements, one line each.
  const std::vector<Measurement> ms = ReportMeasurements(r, c, o);
  EXPECT_EQ(size_t(std::count(text.begin(), text.end(), '\n')), ms.size());
}

}  // namespace
}  // namespace wirebench
