// `wirebench run --rpc NAME` end to end through the real binary, for every
// registered transport (tests/transport_cases.h): a co-located server
// started with the same --rpc, every codec the transport carries with a
// small operation count and zero failed operations, server figures from the
// Stats call over the transport; and the refusals: every codec it refuses
// (named, with what to use), server flags it refuses (--handlers), and an
// --rpc no transport has.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "codecs/codec.h"
#include "tests/json_run.h"
#include "tests/shell.h"
#include "tests/silent_listener.h"
#include "tests/transport_cases.h"
#include "transports/transport.h"

namespace wirebench {
namespace {

using testing::TransportCodec;
using testing::WirebenchProcess;

constexpr auto kBound = std::chrono::seconds(120);

std::string Stem(const std::string& name) {
  return std::string(WIREBENCH_BINARY_DIR) + "/transport_run_" + testing::ParamName(name);
}

struct RunOutcome {
  int rc = -1;
  std::string err;
  nlohmann::json results;
};

// `wirebench run` with a co-located server over `rpc`, `ops` operations on 4
// clients, plus `extra`; its files are named after rpc, codec and `tag` (so
// tests that run at once do not share them).
RunOutcome RunOver(const std::string& rpc, const std::string& codec, int64_t ops,
                   const std::vector<std::string>& extra = {}, const std::string& tag = "") {
  std::vector<std::string> args = {"run",    "-P",    kWorkloadA,          "--rpc",
                                   rpc,      "--codec", codec,             "-threads",
                                   "4",      "--ops", std::to_string(ops), "-p",
                                   "recordcount=1000"};
  args.insert(args.end(), extra.begin(), extra.end());
  testing::JsonRun run = testing::RunForJson(Stem(rpc + "_" + codec + tag), args);
  return RunOutcome{run.rc, std::move(run.err), run.doc.is_object()
                                                    ? run.doc.value("results", nlohmann::json())
                                                    : nlohmann::json()};
}

int64_t Count(const nlohmann::json& results, const std::string& what) {
  int64_t n = 0;
  for (const auto& [op, e] : results.at("ops").items()) n += e.at("return").value(what, int64_t(0));
  return n;
}

class TransportRun : public ::testing::TestWithParam<TransportCodec> {
 protected:
  // RunOver with this test's transport and codec.
  RunOutcome RunThisPair(int64_t ops, const std::vector<std::string>& extra,
                         const std::string& tag) {
    return RunOver(std::string(GetParam().transport->name()),
                   std::string(GetParam().codec->name()), ops, extra, tag);
  }
};

TEST_P(TransportRun, RunsWithoutFailedOperations) {
  const Transport& t = *GetParam().transport;
  const testing::TransportCase& c = testing::CaseOf(t);
  const RunOutcome r =
      RunOver(std::string(t.name()), std::string(GetParam().codec->name()), c.run_ops, c.run_args);
  ASSERT_EQ(r.rc, 0) << r.err;
  ASSERT_TRUE(r.results.is_object()) << r.err;
  EXPECT_FALSE(r.results.at("partial").get<bool>()) << r.results.dump();
  const int64_t ops = r.results.at("operations").get<int64_t>();
  if (c.ops_rounded_up) {
    EXPECT_GE(ops, c.run_ops);
  } else {
    EXPECT_EQ(ops, c.run_ops);
  }
  EXPECT_EQ(Count(r.results, "ERROR"), 0) << r.results.at("ops").dump();
  if (c.every_op_ok) {
    EXPECT_EQ(Count(r.results, "OK"), ops) << r.results.at("ops").dump();
  } else {
    EXPECT_EQ(Count(r.results, "OK") + Count(r.results, "NOT_FOUND"), ops)
        << r.results.at("ops").dump();
  }
  // Server figures came from the Stats call over the transport, before and after.
  const auto& after = r.results.at("server").at("after");
  ASSERT_TRUE(after.is_object()) << r.results.at("server").dump();
  EXPECT_EQ(after.at("failed_calls").get<int64_t>(), 0) << after.dump();
  EXPECT_GT(r.results.at("client_raw").at("cpu_ns").get<double>(), 0);
  if (c.check_run_server) c.check_run_server(after);
}

// `--batch B`: every logical client's puts go out B to a Multi call, on every
// transport and codec. The server stores as many puts as the client counted
// UPDATEs (a buffered put is one operation, as YCSB counts it), in Multi
// calls only, and reads and updates both have latencies.
TEST_P(TransportRun, EveryReadAndPutArrivesInMultiCallsOfTheBatch) {
  const RunOutcome r = RunThisPair(400, {"--batch", "8"}, "_batch");
  ASSERT_EQ(r.rc, 0) << r.err;
  ASSERT_TRUE(r.results.is_object()) << r.err;
  const nlohmann::json& ops = r.results.at("ops");
  const int64_t updates = ops.at("UPDATE").at("return").at("OK").get<int64_t>();
  EXPECT_GT(updates, 0) << ops.dump();
  EXPECT_EQ(Count(r.results, "ERROR"), 0) << ops.dump();
  for (const char* op : {"READ", "UPDATE"})
    EXPECT_GT(ops.at(op).at("latency").at("operations").get<int64_t>(), 0) << op;
  const int64_t reads = ops.at("READ").at("return").at("OK").get<int64_t>();
  const nlohmann::json region = r.results.at("server").at("after").at("region");
  EXPECT_EQ(region.at("puts").get<int64_t>(), updates) << region.dump();
  EXPECT_EQ(region.at("gets").get<int64_t>(), reads) << region.dump();
  // Four clients, each sending every eighth read or put and the rest at its end.
  const int64_t multis = region.at("multis").get<int64_t>();
  EXPECT_GE(multis, (reads + updates) / 8) << region.dump();
  EXPECT_LE(multis, (reads + updates) / 8 + 4) << region.dump();
}

// `--servers 3`: a co-located null cluster. Every call reaches the server
// holding its row's region (none is refused: a server answers another's row
// with NotServingRegionException, counted as a failed call), every server
// answers some, and the servers' calls add up to the client's operations.
TEST_P(TransportRun, EachCallReachesItsRowsServerInAThreeServerCluster) {
  const RunOutcome r = RunThisPair(600, {"--servers", "3"}, "_cluster");
  ASSERT_EQ(r.rc, 0) << r.err;
  ASSERT_TRUE(r.results.is_object()) << r.err;
  EXPECT_EQ(Count(r.results, "ERROR"), 0) << r.results.at("ops").dump();
  EXPECT_EQ(r.results.at("error_replies").get<int64_t>(), 0)
      << r.results.at("first_error_reply").dump();
  const nlohmann::json& servers = r.results.at("cluster").at("servers");
  ASSERT_EQ(servers.size(), 3u) << r.results.at("cluster").dump();
  double calls = 0;
  for (const nlohmann::json& s : servers) {
    EXPECT_GT(s.at("calls").get<double>(), 0) << s.at("address");
    EXPECT_EQ(s.at("after").at("failed_calls").get<int64_t>(), 0) << s.at("address");
    calls += s.at("calls").get<double>();
  }
  EXPECT_EQ(int64_t(calls), r.results.at("operations").get<int64_t>());
  // The run's server figures are the cluster's: every server's threads.
  EXPECT_GE(r.results.at("server").at("after").at("threads").size(), 3u);
  EXPECT_GE(r.results.at("cluster").at("imbalance").get<double>(), 1.0);
  // HBase's protocol: the client read the table's regions from hbase:meta
  // once, at connect, and looked nothing up while measured. The others route
  // from the plan and look nothing up.
  const nlohmann::json& cluster = r.results.at("cluster");
  if (GetParam().transport->name() == "hbase") {
    EXPECT_GE(cluster.at("meta_lookups_before_measuring").get<int64_t>(), 1) << cluster.dump();
    EXPECT_EQ(cluster.at("meta_lookups_per_op").get<double>(), 0.0);
  } else {
    EXPECT_FALSE(cluster.contains("meta_lookups_per_op"));
  }
}

// `--servers 3 --batch 8`: a batch's rows fall in several of the cluster's
// twelve regions, so it goes out as one Multi per region, in server order:
// every read and put still arrives once, at the server holding its row (none
// refused), and every server answers Multis.
TEST_P(TransportRun, ABatchIsSplitByRegionOverAThreeServerCluster) {
  const RunOutcome r = RunThisPair(400, {"--servers", "3", "--batch", "8"}, "_cluster_batch");
  ASSERT_EQ(r.rc, 0) << r.err;
  ASSERT_TRUE(r.results.is_object()) << r.err;
  const nlohmann::json& ops = r.results.at("ops");
  EXPECT_EQ(Count(r.results, "ERROR"), 0) << ops.dump();
  EXPECT_EQ(r.results.at("error_replies").get<int64_t>(), 0)
      << r.results.at("first_error_reply").dump();
  const int64_t updates = ops.at("UPDATE").at("return").at("OK").get<int64_t>();
  const int64_t reads = ops.at("READ").at("return").at("OK").get<int64_t>();
  int64_t puts = 0, gets = 0, multis = 0;
  const nlohmann::json& servers = r.results.at("cluster").at("servers");
  ASSERT_EQ(servers.size(), 3u) << r.results.at("cluster").dump();
  for (const nlohmann::json& s : servers) {
    const nlohmann::json& region = s.at("after").at("region");
    EXPECT_GT(region.at("multis").get<int64_t>(), 0) << s.at("address");
    EXPECT_EQ(s.at("after").at("failed_calls").get<int64_t>(), 0) << s.at("address");
    puts += region.at("puts").get<int64_t>();
    gets += region.at("gets").get<int64_t>();
    multis += region.at("multis").get<int64_t>();
  }
  EXPECT_EQ(puts, updates);
  EXPECT_EQ(gets, reads);
  // More Multis than batches: most batches of eight rows span several regions.
  EXPECT_GT(multis, (reads + updates) / 8 + 4);
  EXPECT_LE(multis, reads + updates);
}

INSTANTIATE_TEST_SUITE_P(EveryCarriedCodec, TransportRun,
                         ::testing::ValuesIn(testing::CarriedCodecs()),
                         testing::TransportCodecParamName());

// A codec the transport does not carry: refused before anything starts,
// naming the transport and what to use instead.
class TransportRefusesCodec : public ::testing::TestWithParam<TransportCodec> {};

TEST_P(TransportRefusesCodec, NamingTheOnesThatWork) {
  const Transport& t = *GetParam().transport;
  const std::string codec(GetParam().codec->name());
  const RunOutcome r = RunOver(std::string(t.name()), codec, 300);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--rpc " + std::string(t.name())), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(t.CheckCodec(*GetParam().codec).message()), std::string::npos) << r.err;
  for (const std::string& word : testing::CaseOf(t).codec_refusal_words)
    EXPECT_NE(r.err.find(word), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(EveryRefusedCodec, TransportRefusesCodec,
                         ::testing::ValuesIn(testing::RefusedCodecs()),
                         testing::TransportCodecParamName());
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TransportRefusesCodec);  // Every one carries all.

// Server flags a transport refuses (its CheckServerOptions): `server` and a
// co-located `run` both exit 2 with its reason.
std::vector<const Transport*> RefusingHandlerThreads() {
  std::vector<const Transport*> out;
  rpc::ServerOptions o;
  o.handlers = 4;
  for (const Transport* t : Transports())
    if (!t->CheckServerOptions(o).ok()) out.push_back(t);
  return out;
}

class TransportServerOptions : public ::testing::TestWithParam<const Transport*> {};

TEST_P(TransportServerOptions, HandlerThreadsAreRefusedByServerAndRun) {
  const Transport& t = *GetParam();
  rpc::ServerOptions o;
  o.handlers = 4;
  const Status refusal = t.CheckServerOptions(o);
  ASSERT_FALSE(refusal.ok());
  WirebenchProcess server(kBinary,
                          {"server", "--rpc", std::string(t.name()), "--handlers", "4", "--quiet"},
                          Stem(std::string(t.name()) + "_server_handlers"));
  EXPECT_EQ(server.Wait(kBound), 2);
  EXPECT_NE(server.Stderr().find(refusal.message()), std::string::npos) << server.Stderr();

  o.handlers = 2;
  const std::string codec(FindCodec(uint8_t(testing::ClientCodecOf(t)))->name());
  const RunOutcome r = RunOver(std::string(t.name()), codec, 300, {"--handlers", "2"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(t.CheckServerOptions(o).message()), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(RefusingHandlerThreads, TransportServerOptions,
                         ::testing::ValuesIn(RefusingHandlerThreads()),
                         testing::TransportParamName());
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TransportServerOptions);

TEST(TransportRunRefusals, UnknownRpcIsRefusedNamingTheValues) {
  const RunOutcome r = RunOver("http", "raw", 300);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--rpc must be one of " + TransportNames()), std::string::npos) << r.err;
}

// A cluster server killed mid-run: the run ends partial (exit 3), the error
// names the server that died, its clients' failures are counted against it
// with the time of the first, and the other servers' figures are intact.
TEST(TransportRunCluster, AServerLostMidRunIsNamedAndTheOthersFiguresKept) {
  const std::string stem = Stem("cluster_lost");
  const std::string json_path = stem + ".json";
  std::remove(json_path.c_str());
  // fieldlength 997 marks this test's servers ("--canned-field-length 997").
  WirebenchProcess run(kBinary,
                       {"run", "-P", kWorkloadA, "--servers", "3", "-threads", "4", "-p",
                        "operationcount=0", "-p", "fieldlength=997", "--seconds", "30",
                        "--json", json_path},
                       stem);
  const std::string server1 = "'[c]anned-field-length 997 .*--cluster-index 1 '";
  bool killed = false;
  for (int i = 0; i < 200 && !killed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (testing::Sh("pgrep -f " + server1 + " >/dev/null") != 0) continue;
    std::this_thread::sleep_for(std::chrono::seconds(1));  // Into the measured phase.
    killed = testing::Sh("pkill -9 -f " + server1) == 0;
  }
  ASSERT_TRUE(killed) << "cluster server 1 never started: " << run.Stderr();
  EXPECT_EQ(run.Wait(kBound), 3) << run.Stderr();
  std::ifstream in(json_path);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << run.Stderr();
  const nlohmann::json& results = doc.at("results");
  EXPECT_TRUE(results.at("partial").get<bool>());
  EXPECT_NE(results.at("error").dump().find("cluster server 1"), std::string::npos)
      << results.at("error").dump();
  const nlohmann::json& servers = results.at("cluster").at("servers");
  ASSERT_EQ(servers.size(), 3u);
  EXPECT_GT(servers[1].at("client_failures").get<int64_t>(), 0) << servers[1].dump();
  EXPECT_GE(servers[1].at("first_failure_s").get<double>(), 0) << servers[1].dump();
  EXPECT_TRUE(servers[1].at("after").is_null());
  for (int k : {0, 2}) {
    EXPECT_EQ(servers[k].at("client_failures").get<int64_t>(), 0) << servers[k].dump();
    EXPECT_TRUE(servers[k].at("after").is_object()) << k;
    EXPECT_GT(servers[k].at("calls").get<double>(), 0) << k;
  }
  EXPECT_NE(results.at("server").at("stats_error").get<std::string>().find("2 of its 3 servers"),
            std::string::npos)
      << results.at("server").dump().substr(0, 400);
}

// What a cluster's client does not do is refused before anything starts,
// saying what to do instead.
TEST(TransportRunRefusals, ClusterFlagsThatCannotGoTogetherAreRefused) {
  const struct {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"--servers", "3", "--server", "127.0.0.1:1"}, "give one of them"},
      {{"--servers", "65"}, "--servers must be 1 to 64"},
      {{"--servers", "3", "--cluster-regions", "2"}, "without a region"},
      {{"--servers", "2", "--cluster-split", "uniform"}, "--cluster-split uniform"},
      {{"--servers", "2", "--thread-model", "os"}, "--thread-model coroutines"},
      {{"--cluster", "127.0.0.1:1,127.0.0.1:1"}, "twice"},
  };
  for (const auto& c : cases) {
    const RunOutcome r = RunOver("wirebench", "raw", 10, c.args, "_refused");
    EXPECT_EQ(r.rc, 2) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace wirebench
