// YCSB's text output, line for line, against a golden file; and the cost
// lines say "unavailable" (never 0) when a figure could not be measured.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace wirebench
