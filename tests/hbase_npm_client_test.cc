// The unmodified npm client hbase-rpc-client@0.1.15 (tests/hbase_client,
// installed by scripts/install-deps) against `wirebench server --rpc hbase
// --zookeeper ...` and Debian's ZooKeeper (started once for this binary):
// it finds the server through ZooKeeper, scans hbase:meta, then runs put, get,
// mput, mget, delete, mdelete, scan, checkAndPut and increment
// (tests/hbase_client/ops.js). Driven through `wirebench measure`, which
// also checks the server's counters and the per-op report for a client
// wirebench did not write. Then a null cluster of three servers in this
// process (tests/hbase_cluster.h), registered in ZooKeeper as HBase's master
// and region servers: the client learns each region's server from
// hbase:meta and goes to it on its own (tests/hbase_client/cluster.js, then
// semantics.js and ops.js). Skips when node, the client or ZooKeeper is
// missing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <set>

#include "regions/memstore/memstore_region.h"
#include "tests/hbase_cluster.h"
#include "tests/read_file.h"
#include "tests/silent_listener.h"
#include "tests/zookeeper_fixture.h"
#include "transports/hbase/zookeeper_registration.h"

namespace wirebench {
namespace {

using testing::ZooKeeperEnvironment;

const std::string kBinary = WIREBENCH_BINARY_DIR "/bench/wirebench";
const std::string kClientDir = WIREBENCH_SOURCE_DIR "/tests/hbase_client";

std::string SkipReason() {
  if (std::string why = ZooKeeperEnvironment::SkipReason(); !why.empty()) return why;
  if (testing::FindOnPath("node").empty())
    return "node is not installed (apt-get install nodejs npm, or scripts/install-deps)";
  if (access((kClientDir + "/node_modules/hbase-rpc-client/package.json").c_str(), R_OK) != 0)
    return "hbase-rpc-client is not installed: run scripts/install-deps (npm ci in " + kClientDir +
           ")";
  return "";
}

#define SKIP_UNLESS_READY()                                          \
  do {                                                               \
    if (std::string why = SkipReason(); !why.empty()) GTEST_SKIP() << why; \
  } while (0)

using testing::ReadFile;

// ops.js's per-kind lines, by kind, and its summary.
std::map<std::string, nlohmann::json> OpLines(const std::string& out) {
  std::map<std::string, nlohmann::json> ops;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '{') continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    if (j.contains("op")) ops[j["op"].get<std::string>()] = j;
    if (j.contains("summary")) ops["summary"] = j["summary"];
  }
  return ops;
}

std::string Stem(const char* name) {
  return ::testing::TempDir() + "/hbase_npm_" + name + "_" + std::to_string(getpid());
}

// The server registered under `target`, looked up every 100 ms for up to
// 15 s (a server registers once it listens).
StatusOr<hbase::ServerName> WaitForRegistration(const hbase::ZooKeeperTarget& target) {
  StatusOr<hbase::ServerName> found = Status::NotFound("not yet");
  for (int i = 0; i < 150 && !found.ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    found = hbase::LookupMetaRegionServer(target, std::chrono::milliseconds(5000));
  }
  return found;
}

TEST(HBaseNpmClient, EveryOperationThroughZooKeeperMeasuredPerOp) {
  SKIP_UNLESS_READY();
  const std::string zk = ZooKeeperEnvironment::Instance()->quorum() + "/npm-measure";
  const std::string stem = Stem("measure");
  const int n = 5;
  testing::WirebenchProcess p(kBinary,
                              {"measure", "--rpc", "hbase", "--zookeeper", zk, "--null-reads",
                               "empty", "--json", stem + ".json", "--", "node",
                               kClientDir + "/ops.js",
                               "--zookeeper", "{zookeeper}", "--n", std::to_string(n),
                               "--timeout-ms", "60000"},
                              stem);
  ASSERT_EQ(p.Wait(std::chrono::seconds(120)), 0) << ReadFile(stem + ".err") << ReadFile(stem + ".out");
  const std::string out = ReadFile(stem + ".out");
  auto ops = OpLines(out);
  // What the client saw.
  ASSERT_TRUE(ops.count("summary")) << out;
  EXPECT_TRUE(ops["summary"]["ok"].get<bool>()) << out;
  for (const char* kind : {"put", "get", "delete", "checkAndPut", "increment"}) {
    ASSERT_TRUE(ops.count(kind)) << kind << "\n" << out;
    EXPECT_EQ(ops[kind]["ok"], n) << kind << ": " << ops[kind].dump();
  }
  for (const char* kind : {"mput", "mget", "mdelete", "scan"}) {
    ASSERT_TRUE(ops.count(kind)) << kind << "\n" << out;
    EXPECT_EQ(ops[kind]["ok"], 1) << kind << ": " << ops[kind].dump();
  }
  EXPECT_EQ(ops["put"]["sample"]["processed"], true) << ops["put"].dump();
  EXPECT_EQ(ops["checkAndPut"]["sample"]["processed"], true)
      << "the null region's rows are empty: a check for an absent cell passes";
  EXPECT_TRUE(ops["get"]["sample"].is_null()) << "the null region answers reads empty";
  EXPECT_EQ(ops["mget"]["sample"].size(), size_t(n));
  EXPECT_EQ(ops["mput"]["sample"].size(), size_t(n)) << "one result per action, by index";
  EXPECT_EQ(ops["scan"]["sample"].size(), 0u);
  EXPECT_EQ(ops["increment"]["sample"]["counter"], 5) << "an increment returns the delta";

  // What the server counted between measure's two Stats snapshots.
  auto doc = nlohmann::json::parse(ReadFile(stem + ".json"), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  const auto& calls = doc["measure"]["calls"];
  EXPECT_EQ(calls["Mutate"], 4 * n) << "put, delete, checkAndPut, increment: " << calls.dump();
  EXPECT_EQ(calls["Multi"], 3) << "mput, mget, mdelete: " << calls.dump();
  EXPECT_EQ(calls["Get"], n) << calls.dump();
  const auto& hb = doc["results"]["server"]["after"]["hbase"];
  EXPECT_GT(hb["meta_calls"].get<uint64_t>(), 0u) << "the client located its region in hbase:meta";
  EXPECT_EQ(hb["refused_method_calls"], 0);
  EXPECT_EQ(hb["open_scanners"], 0);
  // The per-op report of a client wirebench did not write.
  const auto& costs = doc["results"]["costs"];
  EXPECT_GT(costs["client"]["cpu_us_per_op"].get<double>(), 0) << "node's CPU";
  EXPECT_GT(costs["server"]["cpu_us_per_op"].get<double>(), 0);
  EXPECT_FALSE(costs["client"]["allocs_available"].get<bool>());
  EXPECT_EQ(doc["measure"]["command"]["exit_status"], 0);
  EXPECT_GE(doc["measure"]["command"]["processes_seen"].get<int>(), 1);
  EXPECT_NE(out.find("[CLIENT], CpuPerOp(us), "), std::string::npos) << out;
  EXPECT_NE(out.find("[SERVER], IoThreadCpuPerOp(us), "), std::string::npos) << out;
}

// What node printed and how it ended.
struct NodeRun {
  int rc = -1;
  std::string out, err;
};

// semantics.js with `node_args` against a memstore-region server with
// `server_args`, registered under QUORUM/npm-NAME; the server is stopped
// after it, and must exit cleanly. Nothing when the server never registered.
std::optional<NodeRun> RunSemantics(const std::string& name,
                                    const std::vector<std::string>& server_args,
                                    const std::vector<std::string>& node_args,
                                    std::chrono::seconds bound) {
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const std::string root = "/npm-" + name;
  const std::string stem = Stem(name.c_str());
  std::vector<std::string> args = {"server", "--rpc",    "hbase",       "--port", "0",
                                   "--region", "memstore", "--zookeeper", quorum + root};
  args.insert(args.end(), server_args.begin(), server_args.end());
  testing::WirebenchProcess server(kBinary, args, stem);
  const StatusOr<hbase::ServerName> found = WaitForRegistration({quorum, root});
  EXPECT_TRUE(found.ok()) << found.status().ToString() << ReadFile(stem + ".err");
  if (!found.ok()) return std::nullopt;
  std::vector<std::string> node = {"node", kClientDir + "/semantics.js", "--zookeeper",
                                   quorum + root};
  node.insert(node.end(), node_args.begin(), node_args.end());
  testing::WirebenchProcess p("/usr/bin/env", node, stem + "_node");
  NodeRun run;
  run.rc = p.Wait(bound);
  run.out = ReadFile(stem + "_node.out");
  run.err = ReadFile(stem + "_node.err");
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(std::chrono::seconds(30)), 0) << ReadFile(stem + ".err");
  return run;
}

// semantics.js's JSON lines: how many checks (each expected ok here), the
// summary, and the errors.
struct SemanticsLines {
  int checks = 0;
  nlohmann::json summary;
  std::vector<std::string> errors;
};

SemanticsLines ReadSemanticsLines(const std::string& out) {
  SemanticsLines lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    if (j.contains("check")) {
      ++lines.checks;
      EXPECT_TRUE(j["ok"].get<bool>()) << j["check"].get<std::string>() << ": got "
                                       << j["got"].dump() << ", want " << j["want"].dump();
    }
    if (j.contains("summary")) lines.summary = j["summary"];
    if (j.contains("error")) lines.errors.push_back(j["error"].get<std::string>());
  }
  return lines;
}

// HBase's client-API semantics (tests/hbase_client/semantics.js) through
// the npm client against the memstore region keeping three versions: every
// check compares what the client got back with what HBase answers.
TEST(HBaseNpmClient, MemstoreRegionAnswersAsHBaseDoes) {
  SKIP_UNLESS_READY();
  const std::optional<NodeRun> run =
      RunSemantics("semantics", {"--max-versions", "3"}, {"--timeout-ms", "60000"},
                   std::chrono::seconds(120));
  ASSERT_TRUE(run.has_value()) << "the server never registered";
  const SemanticsLines lines = ReadSemanticsLines(run->out);
  for (const std::string& error : lines.errors) ADD_FAILURE() << error;
  EXPECT_EQ(run->rc, 0) << run->out << run->err;
  ASSERT_TRUE(lines.summary.is_object()) << run->out << run->err;
  EXPECT_EQ(lines.summary["checks"].get<int>(), lines.checks);
  EXPECT_GE(lines.checks, 40) << "every check of semantics.js ran";
}

// --regions-per-table 4: hbase:meta lists four regions per table at
// HexStringSplit's points; the npm client locates each row's region, sends
// one Multi per region and scans across regions, forward and reversed; scans
// of 8,000 and 100,000 rows with caching 1000 return every row both ways.
TEST(HBaseNpmClient, SeveralRegionsPerTable) {
  SKIP_UNLESS_READY();
  const std::optional<NodeRun> run =
      RunSemantics("regions", {"--regions-per-table", "4"},
                   {"--regions", "4", "--large-scans", "8000,100000", "--timeout-ms", "240000"},
                   std::chrono::seconds(300));
  ASSERT_TRUE(run.has_value()) << "the server never registered";
  const SemanticsLines lines = ReadSemanticsLines(run->out);
  EXPECT_EQ(run->rc, 0) << run->out << run->err;
  EXPECT_EQ(lines.checks, 9) << run->out;  // 5, and each large scan both ways.
}

// ---- A null cluster of three ----

// The children of a ZooKeeper node, read with ZooKeeper's own C client;
// empty when the node is missing or ZooKeeper did not answer.
std::vector<std::string> Children(const std::string& quorum, const std::string& path) {
  struct Session {
    std::mutex mu;
    std::condition_variable cv;
    bool connected = false;
  } session;
  zoo_set_debug_level(ZOO_LOG_LEVEL_WARN);
  zhandle_t* zh = zookeeper_init(
      quorum.c_str(),
      [](zhandle_t*, int type, int state, const char*, void* ctx) {
        auto* s = static_cast<Session*>(ctx);
        if (type != ZOO_SESSION_EVENT) return;
        std::lock_guard<std::mutex> lock(s->mu);
        s->connected = state == ZOO_CONNECTED_STATE;
        s->cv.notify_all();
      },
      10000, nullptr, &session, 0);
  std::vector<std::string> out;
  {
    std::unique_lock<std::mutex> lock(session.mu);
    session.cv.wait_for(lock, std::chrono::seconds(20), [&] { return session.connected; });
  }
  String_vector children{};
  if (zoo_get_children(zh, path.c_str(), 0, &children) == ZOK) {
    for (int i = 0; i < children.count; ++i) out.push_back(children.data[i]);
    deallocate_String_vector(&children);
  }
  zookeeper_close(zh);
  std::sort(out.begin(), out.end());
  return out;
}

// node SCRIPT ARGS... from tests/hbase_client, its output kept under `stem`.
NodeRun RunNode(const std::string& script, const std::vector<std::string>& args,
                const std::string& stem, std::chrono::seconds bound) {
  std::vector<std::string> node = {"node", kClientDir + "/" + script};
  node.insert(node.end(), args.begin(), args.end());
  testing::WirebenchProcess p("/usr/bin/env", node, stem);
  NodeRun run;
  run.rc = p.Wait(bound);
  run.out = ReadFile(stem + ".out");
  run.err = ReadFile(stem + ".err");
  return run;
}

uint64_t Calls(testing::HBaseCluster& c, uint32_t k, const char* method) {
  return c.Stats(k)["calls"][method].get<uint64_t>();
}

// Three servers over memstore regions keeping three versions, 12 regions
// per table at YCSB's split points, registered under QUORUM/npm-cluster:
// ZooKeeper names server 0 as meta's server and every server as a region
// server; the client finds server 0 there, and from hbase:meta the server
// of each region. 10,000 rows written, read and scanned both ways across
// every server (cluster.js), then the client's own suites.
TEST(HBaseNpmClient, ClusterOfThreeServersEachServingItsRegions) {
  SKIP_UNLESS_READY();
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const std::string root = "/npm-cluster";
  testing::HBaseCluster cluster(
      {.servers = 3, .regions = 12, .split = SplitAlgorithm::kYcsb, .zookeeper = quorum + root,
       .region = [] { return NewMemstoreRegion({.max_versions = 3}); }});
  ASSERT_TRUE(cluster.ok()) << cluster.why();
  auto meta = hbase::LookupMetaRegionServer({quorum, root}, std::chrono::milliseconds(20000));
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(meta->port, cluster.port(0));
  EXPECT_EQ(uint64_t(meta->start_code), cluster.plan().StartCode(0));
  std::vector<std::string> want_rs;
  for (uint32_t k = 0; k < 3; ++k)
    want_rs.push_back("127.0.0.1," + std::to_string(cluster.port(k)) + "," +
                      std::to_string(cluster.plan().StartCode(k)));
  std::sort(want_rs.begin(), want_rs.end());
  EXPECT_EQ(Children(quorum, root + "/rs"), want_rs);

  std::map<std::string, std::vector<uint64_t>> before;
  for (const char* m : {"Mutate", "Get", "Multi", "Scan"})
    for (uint32_t k = 0; k < 3; ++k) before[m].push_back(Calls(cluster, k, m));
  std::vector<uint64_t> codec_before;
  for (uint32_t k = 0; k < 3; ++k)
    codec_before.push_back(cluster.HBaseStats(k)["codec_path_calls"].get<uint64_t>());
  const NodeRun run = RunNode("cluster.js",
                              {"--zookeeper", quorum + root, "--servers", "3", "--regions", "12",
                               "--rows", "10000", "--timeout-ms", "240000"},
                              Stem("cluster"), std::chrono::seconds(300));
  const SemanticsLines lines = ReadSemanticsLines(run.out);
  for (const std::string& error : lines.errors) ADD_FAILURE() << error;
  EXPECT_EQ(run.rc, 0) << run.out << run.err;
  EXPECT_EQ(lines.checks, 10) << run.out;
  // cluster.js's rows, user0000..user9999, by server: its puts and gets
  // each; and its mput/mget batches of 1000 consecutive rows, each a Multi
  // to every server holding one of them.
  std::vector<uint64_t> rows(3, 0), batches(3, 0);
  for (uint32_t b = 0; b < 10; ++b) {
    std::set<uint32_t> servers;
    for (uint32_t i = b * 1000; i < (b + 1) * 1000; ++i) {
      char row[16];
      std::snprintf(row, sizeof row, "user%04u", i);
      ++rows[cluster.plan().ServerOfRow(row)];
      servers.insert(cluster.plan().ServerOfRow(row));
    }
    for (uint32_t k : servers) ++batches[k];
  }
  for (uint32_t k = 0; k < 3; ++k) {
    SCOPED_TRACE("server " + std::to_string(k));
    EXPECT_GE(rows[k], 3000u) << "a share of every region";
    EXPECT_EQ(Calls(cluster, k, "Mutate") - before["Mutate"][k], rows[k]);
    EXPECT_EQ(Calls(cluster, k, "Get") - before["Get"][k], rows[k]);
    EXPECT_EQ(Calls(cluster, k, "Multi") - before["Multi"][k], 2 * batches[k])
        << "a Multi of puts and one of gets for each batch holding rows of this server";
    EXPECT_GT(Calls(cluster, k, "Scan") - before["Scan"][k], 0u);
    // Its puts took the codec's path; the client's gets carry a TimeRange
    // (empty), which the codec leaves to the full path, one server or three.
    EXPECT_GE(cluster.HBaseStats(k)["codec_path_calls"].get<uint64_t>() - codec_before[k], rows[k]);
    if (k > 0) {
      EXPECT_EQ(cluster.HBaseStats(k)["meta_calls"], 0) << "meta is server 0's";
    }
  }
  EXPECT_GT(cluster.HBaseStats(0)["meta_calls"].get<uint64_t>(), 0u);

  // The client's own suites, now over three servers: semantics.js's rows
  // fall in the first and last regions (servers 0 and 2), its mixed Multi
  // spans both, and its unbounded scans cross every region.
  const NodeRun semantics = RunNode("semantics.js", {"--zookeeper", quorum + root,
                                                     "--timeout-ms", "120000"},
                                    Stem("cluster_semantics"), std::chrono::seconds(150));
  const SemanticsLines checks = ReadSemanticsLines(semantics.out);
  for (const std::string& error : checks.errors) ADD_FAILURE() << error;
  EXPECT_EQ(semantics.rc, 0) << semantics.out << semantics.err;
  EXPECT_GE(checks.checks, 40) << semantics.out;
  const NodeRun ops = RunNode("ops.js", {"--zookeeper", quorum + root, "--n", "5",
                                         "--timeout-ms", "60000"},
                              Stem("cluster_ops"), std::chrono::seconds(90));
  EXPECT_EQ(ops.rc, 0) << ops.out << ops.err;
  auto summary = OpLines(ops.out);
  ASSERT_TRUE(summary.count("summary")) << ops.out;
  EXPECT_TRUE(summary["summary"]["ok"].get<bool>()) << ops.out;

  // A clean stop removes every server's nodes.
  cluster.StopAll();
  auto gone = hbase::LookupMetaRegionServer({quorum, root}, std::chrono::milliseconds(20000));
  EXPECT_EQ(gone.status().code(), Status::Code::kNotFound) << gone.status().ToString();
  EXPECT_TRUE(Children(quorum, root + "/rs").empty());
}

TEST(HBaseNpmClient, ServerRegistersAndRemovesItsNodesOnACleanStop) {
  SKIP_UNLESS_READY();
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const hbase::ZooKeeperTarget target{quorum, "/npm-stop"};
  const std::string stem = Stem("stop");
  testing::WirebenchProcess server(
      kBinary, {"server", "--rpc", "hbase", "--port", "0", "--zookeeper", quorum + "/npm-stop"},
      stem);
  // Registered once it listens: wait for the node.
  const StatusOr<hbase::ServerName> found = WaitForRegistration(target);
  ASSERT_TRUE(found.ok()) << found.status().ToString() << ReadFile(stem + ".err");
  // The server registers as it starts and prints its address just after: on
  // a loaded machine the node can be there before the line is.
  std::string listening;
  for (int i = 0; i < 300 && (listening = ReadFile(stem + ".out")).find('\n') == std::string::npos;
       ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_NE(listening.find("listening on 127.0.0.1:" + std::to_string(found->port)),
            std::string::npos)
      << "ZooKeeper names the port the server listens on: " << listening;
  server.Signal(SIGTERM);
  ASSERT_EQ(server.Wait(std::chrono::seconds(30)), 0) << ReadFile(stem + ".err");
  auto gone = hbase::LookupMetaRegionServer(target, std::chrono::milliseconds(5000));
  EXPECT_EQ(gone.status().code(), Status::Code::kNotFound) << gone.status().ToString();
}

// wirebench's own HBase-protocol client finds the server as the npm client
// does: `run --rpc hbase --zookeeper QUORUM/ROOT` reads meta-region-server.
TEST(HBaseNpmClient, WirebenchRunFindsTheServerThroughZooKeeper) {
  if (std::string why = ZooKeeperEnvironment::SkipReason(); !why.empty()) GTEST_SKIP() << why;
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const std::string zk = quorum + "/wb-client";
  const std::string stem = Stem("wbrun");
  testing::WirebenchProcess server(
      kBinary, {"server", "--rpc", "hbase", "--port", "0", "--zookeeper", zk}, stem);
  const StatusOr<hbase::ServerName> found = WaitForRegistration({quorum, "/wb-client"});
  ASSERT_TRUE(found.ok()) << found.status().ToString() << ReadFile(stem + ".err");
  const std::string wl = WIREBENCH_SOURCE_DIR "/workloads/workloada";
  testing::WirebenchProcess run(kBinary,
                                {"run", "-P", wl, "--rpc", "hbase", "--codec", "cellblock",
                                 "--zookeeper", zk, "--ops", "300", "-p", "recordcount=100"},
                                stem + "_run");
  ASSERT_EQ(run.Wait(std::chrono::seconds(60)), 0) << ReadFile(stem + "_run.err");
  const std::string out = ReadFile(stem + "_run.out");
  EXPECT_NE(out.find("[MEASURED], Operations, 300"), std::string::npos) << out;
  EXPECT_EQ(out.find("Return=ERROR"), std::string::npos) << out;
  // Where the server is comes from one place; other transports are not there.
  testing::WirebenchProcess both(kBinary,
                                 {"run", "-P", wl, "--rpc", "hbase", "--zookeeper", zk, "--server",
                                  "127.0.0.1:1", "--ops", "10"},
                                 stem + "_both");
  EXPECT_EQ(both.Wait(std::chrono::seconds(30)), 2);
  EXPECT_NE(ReadFile(stem + "_both.err").find("give one of them"), std::string::npos);
  testing::WirebenchProcess wb(kBinary, {"run", "-P", wl, "--zookeeper", zk, "--ops", "10"},
                               stem + "_wb");
  EXPECT_EQ(wb.Wait(std::chrono::seconds(30)), 2);
  EXPECT_NE(ReadFile(stem + "_wb.err").find("use --rpc hbase"), std::string::npos);
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(std::chrono::seconds(30)), 0) << ReadFile(stem + ".err");
}

TEST(HBaseNpmClient, UnreachableZooKeeperFailsTheServerStartClearly) {
  const std::string stem = Stem("dead");
  const std::string dead = "127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  testing::WirebenchProcess server(kBinary,
                                   {"server", "--rpc", "hbase", "--zookeeper", dead,
                                    "--zookeeper-timeout-ms", "1500"},
                                   stem);
  const int rc = server.Wait(std::chrono::seconds(30));
  EXPECT_EQ(rc, 1) << "not a hang, not a crash";
  const std::string err = ReadFile(stem + ".err");
  EXPECT_NE(err.find("ZooKeeper at " + dead + " did not answer within 1500 ms"), std::string::npos)
      << err;
  // Other transports refuse the flag, saying which one takes it.
  testing::WirebenchProcess wb(kBinary, {"server", "--zookeeper", dead}, stem + "_wb");
  EXPECT_EQ(wb.Wait(std::chrono::seconds(30)), 2);
  EXPECT_NE(ReadFile(stem + "_wb.err").find("use --rpc hbase"), std::string::npos);
}

}  // namespace
}  // namespace wirebench
