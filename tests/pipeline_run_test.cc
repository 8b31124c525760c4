// `wirebench run --pipeline N` end to end through the real binary, against
// the co-located server: over the wirebench transport (raw and pb), HBase's
// RPC and gRPC (when built), every operation counted by the server as by the
// client, READ and UPDATE latencies present, the depth in the result's
// config; --thread-model os refusing a pipeline, saying why; and
// `compare --pipelines`, whose cells carry their depth and whose chart
// draws the costs against it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/json_run.h"
#include "tests/silent_listener.h"
#include "transports/transport.h"

namespace wirebench {
namespace {

using testing::WirebenchProcess;

constexpr auto kBound = std::chrono::seconds(120);
using RunOutcome = testing::JsonRun;

// `wirebench run` of workload a on 2 logical clients with `args` added.
RunOutcome RunWirebench(const std::string& name, const std::vector<std::string>& args) {
  std::vector<std::string> all = {"run", "-P", kWorkloadA, "-threads", "2", "-p", "recordcount=1000"};
  all.insert(all.end(), args.begin(), args.end());
  return testing::RunForJson(std::string(WIREBENCH_BINARY_DIR) + "/pipeline_run_" + name, all);
}

// The server's calls of the region's methods over the measured phase.
int64_t ServerCalls(const nlohmann::json& server) {
  int64_t n = 0;
  for (const char* method : {"Get", "Mutate", "Scan", "Multi"}) {
    const auto after = server.at("after").at("calls").value(method, int64_t(0));
    const auto before = server.at("before").at("calls").value(method, int64_t(0));
    n += after - before;
  }
  return n;
}

struct PipelineCase {
  std::string rpc;
  std::string codec;  // Empty: the transport's default.
};

class PipelineRun : public ::testing::TestWithParam<PipelineCase> {};

TEST_P(PipelineRun, ServerCountsEveryOperationOfEveryLane) {
  const PipelineCase& c = GetParam();
  if (Transports().Find(c.rpc) == nullptr) GTEST_SKIP() << "built without --rpc " << c.rpc;
  std::vector<std::string> args = {"--rpc", c.rpc, "--pipeline", "4", "--ops", "400"};
  if (!c.codec.empty()) args.insert(args.end(), {"--codec", c.codec});
  const RunOutcome r = RunWirebench(c.rpc + "_" + (c.codec.empty() ? "default" : c.codec), args);
  ASSERT_EQ(r.rc, 0) << r.err;
  ASSERT_TRUE(r.doc.is_object()) << r.err;
  EXPECT_EQ(r.doc.at("config").at("pipeline"), 4);
  const nlohmann::json& results = r.doc.at("results");
  EXPECT_FALSE(results.at("partial").get<bool>()) << results.dump();
  const int64_t ops = results.at("operations").get<int64_t>();
  EXPECT_EQ(ops, 400);
  EXPECT_EQ(ServerCalls(results.at("server")), ops) << results.at("server").dump();
  for (const char* op : {"READ", "UPDATE"}) {
    ASSERT_TRUE(results.at("ops").contains(op)) << results.at("ops").dump();
    EXPECT_GT(results.at("ops").at(op).at("return").value("OK", int64_t(0)), 0) << op;
    EXPECT_TRUE(results.at("ops").at(op).contains("latency")) << op;
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, PipelineRun,
                         ::testing::Values(PipelineCase{"wirebench", "raw"},
                                           PipelineCase{"wirebench", "pb"},
                                           PipelineCase{"hbase", ""}, PipelineCase{"grpc", "pb"}),
                         [](const ::testing::TestParamInfo<PipelineCase>& i) {
                           return i.param.rpc + "_" + (i.param.codec.empty() ? "default"
                                                                             : i.param.codec);
                         });

TEST(PipelineRefusals, OsThreadModelSaysWhyAndExits2) {
  const RunOutcome r = RunWirebench("os", {"--thread-model", "os", "--pipeline", "2", "--ops", "10"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--pipeline 2 needs --thread-model coroutines"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
}

TEST(PipelineRefusals, ZeroDepthSaysWhatToGive) {
  const RunOutcome r = RunWirebench("zero", {"--pipeline", "0", "--ops", "10"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--pipeline must be 1"), std::string::npos) << r.err;
}

// A depth or batch sweep: each cell runs at its value and says so (its
// group, "workloada-p4" or "workloada-b4", and its result's config), and the
// charts of the costs against it are drawn.
TEST(PipelineCompare, CellsCarryTheirDepthOrBatchAndTheSweepIsCharted) {
  namespace fs = std::filesystem;
  struct Sweep {
    const char* key;
    const char* flag;
    const char* suffix;
    const char* dimension;
  };
  for (const Sweep& sweep : {Sweep{"pipeline", "--pipelines", "-p", "pipeline depth"},
                             Sweep{"batch", "--batches", "-b", "batch size"}}) {
    SCOPED_TRACE(sweep.key);
    const std::string key = sweep.key;
    const std::string out = std::string(WIREBENCH_BINARY_DIR) + "/" + key + "_compare";
    fs::remove_all(out);
    WirebenchProcess p(kBinary,
                       {"compare", "--codecs", "raw", sweep.flag, "1,4", "--threads", "2",
                        "--seconds", "0.5", "--warmup", "0", "--repeat", "1", "--records", "1000",
                        "--no-floor", "--out", out},
                       out + "_process");
    ASSERT_EQ(p.Wait(kBound), 0) << p.Stderr();
    std::ifstream in(out + "/comparison.json");
    const auto j = nlohmann::json::parse(in, nullptr, false);
    ASSERT_TRUE(j.is_object()) << p.Stderr();
    std::vector<int> depths;
    for (const auto& cell : j.at("cells")) {
      const int depth = cell.value(key, 0);
      depths.push_back(depth);
      EXPECT_EQ(cell.at("workload"), "workloada");
      EXPECT_GT(cell.at("results").at("operations").get<int64_t>(), 0) << cell.dump();
      // The cell's own result file ran at that depth.
      std::ifstream cell_file(out + "/cells/workloada" + sweep.suffix + std::to_string(depth) +
                              "-t2-raw-r1.json");
      const auto doc = nlohmann::json::parse(cell_file, nullptr, false);
      ASSERT_TRUE(doc.is_object()) << "depth " << depth;
      EXPECT_EQ(doc.at("config").at(key), depth);
    }
    EXPECT_EQ(depths, (std::vector<int>{1, 4}));
    std::vector<std::string> groups;
    for (const auto& t : j.at("tables")) groups.push_back(t.at("workload"));
    EXPECT_EQ(groups, (std::vector<std::string>{"workloada" + std::string(sweep.suffix) + "1",
                                                "workloada" + std::string(sweep.suffix) + "4"}));
    std::ifstream md(out + "/comparison.md");
    const std::string markdown((std::istreambuf_iterator<char>(md)),
                               std::istreambuf_iterator<char>());
    EXPECT_NE(markdown.find(std::string("by ") + sweep.dimension), std::string::npos) << markdown;
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "no gnuplot: the charts are not drawn";
    for (const char* chart : {"cpu", "throughput", "latency"})
      EXPECT_TRUE(fs::exists(out + "/" + chart + "-by-" + key + ".svg")) << chart << p.Stderr();
  }
}

}  // namespace
}  // namespace wirebench
