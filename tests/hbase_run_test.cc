// `wirebench run --rpc hbase` end to end through the real binary: a
// co-located `server --rpc hbase`, wirebench's HBase client with codecs pb
// (no cell codec) and cellblock (KeyValueCodec), a small operation count and
// zero failed operations, server figures from the Stats call carried over
// HBase's protocol; and the refusals (another codec, --handlers).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/silent_listener.h"

namespace wirebench {
namespace {

using testing::WirebenchProcess;

const std::string kBinary = std::string(WIREBENCH_BINARY_DIR) + "/bench/wirebench";
const std::string kWorkloadA = std::string(WIREBENCH_SOURCE_DIR) + "/workloads/workloada";
constexpr auto kBound = std::chrono::seconds(120);

struct RunOutcome {
  int rc = -1;
  std::string err;
  nlohmann::json results;
};

RunOutcome RunHBase(const std::string& codec, std::vector<std::string> extra = {}) {
  const std::string stem = std::string(WIREBENCH_BINARY_DIR) + "/hbase_run_" + codec;
  const std::string json_path = stem + ".json";
  std::remove(json_path.c_str());
  std::vector<std::string> args = {"run", "-P", kWorkloadA, "--rpc", "hbase", "--codec", codec,
                                   "-threads", "4", "--ops", "400", "-p", "recordcount=1000",
                                   "-p", "clientbuffering=true", "--json", json_path};
  args.insert(args.end(), extra.begin(), extra.end());
  WirebenchProcess p(kBinary, args, stem);
  RunOutcome out;
  out.rc = p.Wait(kBound);
  out.err = p.Stderr();
  std::ifstream in(json_path);
  if (in) out.results = nlohmann::json::parse(in, nullptr, false).value("results", nlohmann::json());
  return out;
}

int64_t Count(const nlohmann::json& results, const std::string& what) {
  int64_t n = 0;
  for (const auto& [op, e] : results.at("ops").items()) n += e.at("return").value(what, int64_t(0));
  return n;
}

TEST(HBaseRun, PbAndCellBlockRunWithoutFailedOperations) {
  for (const std::string codec : {"pb", "cellblock"}) {
    SCOPED_TRACE(codec);
    const RunOutcome r = RunHBase(codec, {"--null-reads", "canned"});
    ASSERT_EQ(r.rc, 0) << r.err;
    ASSERT_TRUE(r.results.is_object()) << r.err;
    EXPECT_FALSE(r.results.at("partial").get<bool>());
    // Client buffering (Multi) may round the count up to whole flushes.
    const int64_t ops = r.results.at("operations").get<int64_t>();
    EXPECT_GE(ops, 400);
    EXPECT_EQ(Count(r.results, "ERROR"), 0) << r.results.at("ops").dump();
    EXPECT_EQ(Count(r.results, "OK"), ops) << r.results.at("ops").dump();
    // The server's figures came over HBase's protocol (WirebenchStats).
    const auto& after = r.results.at("server").at("after");
    ASSERT_TRUE(after.is_object()) << r.results.at("server").dump();
    EXPECT_EQ(after.at("server").at("rpc").get<std::string>(), "hbase");
    EXPECT_GT(after.at("hbase").at("codec_path_calls").get<int64_t>(), 0) << after.dump();
    EXPECT_EQ(after.at("failed_calls").get<int64_t>(), 0) << after.dump();
  }
}

TEST(HBaseRun, OtherCodecsAreRefusedNamingTheOnesThatWork) {
  const RunOutcome r = RunHBase("raw");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--rpc hbase"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--codec cellblock"), std::string::npos) << r.err;
}

TEST(HBaseRun, HandlerThreadsAreRefused) {
  const RunOutcome r = RunHBase("pb", {"--handlers", "2"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--handlers"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace wirebench
