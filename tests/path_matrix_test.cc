// The path matrix: every YCSB workload (a-f) over every registered transport
// with every codec it carries, against the null region (canned reads) and
// the memstore region (loaded first), through the real binary: one
// `wirebench server` per transport, codec and region, then `wirebench load`
// (memstore) and one `wirebench run` per workload against it. Each run must
// end with no failed operation, measure every operation type its workload
// mixes, and agree with the server on the calls made (the server's Stats
// before and after, per method). Workload E runs long enough that one
// connection asks for more than 1,100 scans (HBase's server caps the
// scanners one connection keeps open at 1,000).
//
// This is the first thing to run after a change to a transport, a region or
// the load generator. Its quick form (operation counts) fits CI;
// scripts/soak runs the same cells for WIREBENCH_MATRIX_SECONDS each and
// prints the table WIREBENCH_MATRIX_TABLE collects (one line per cell).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codecs/codec.h"
#include "regions/registry.h"
#include "tests/read_file.h"
#include "tests/silent_listener.h"
#include "tests/transport_cases.h"
#include "tests/wirebench_paths.h"
#include "transports/transport.h"

namespace wirebench {
namespace {

using testing::WirebenchProcess;
using Clock = std::chrono::steady_clock;

const std::string kWorkloads = std::string(WIREBENCH_SOURCE_DIR) + "/workloads/";
constexpr int64_t kRecords = 1000;
// Operations per workload in the quick form; E's count gives one connection
// more than 1,100 scans (95% of them are scans).
constexpr int64_t kQuickOps = 400;
constexpr int64_t kQuickScanOps = 1200;

// WIREBENCH_MATRIX_SECONDS: run each cell this long instead (scripts/soak).
int SoakSeconds() {
  const char* s = std::getenv("WIREBENCH_MATRIX_SECONDS");
  return s == nullptr ? 0 : std::atoi(s);
}

struct Cell {
  const Transport* transport;
  const CodecInfo* codec;
  const RegionEntry* region;
};

std::vector<Cell> Cells() {
  std::vector<Cell> out;
  for (const testing::TransportCodec& tc : testing::CarriedCodecs())
    for (const char* region : {"null", "memstore"})
      if (const RegionEntry* r = Regions().Find(region)) out.push_back({tc.transport, tc.codec, r});
  return out;
}

struct CellName {
  std::string operator()(const ::testing::TestParamInfo<Cell>& info) const {
    return testing::ParamName(info.param.transport->name()) + "_" +
           testing::ParamName(info.param.codec->name()) + "_" +
           testing::ParamName(info.param.region->name());
  }
};

std::string Stem(const std::string& name) {
  return std::string(WIREBENCH_BINARY_DIR) + "/path_matrix_" + name;
}

// A workload file's proportions: the operation types it mixes, as the
// report names them.
std::vector<std::string> MixedOperations(const std::string& workload) {
  static const std::map<std::string, std::string> kNames = {
      {"readproportion", "READ"},
      {"updateproportion", "UPDATE"},
      {"insertproportion", "INSERT"},
      {"scanproportion", "SCAN"},
      {"readmodifywriteproportion", "READ-MODIFY-WRITE"}};
  std::vector<std::string> out;
  std::ifstream in(kWorkloads + workload);
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    auto it = kNames.find(line.substr(0, eq));
    if (it != kNames.end() && std::atof(line.c_str() + eq + 1) > 0) out.push_back(it->second);
  }
  return out;
}

// A server process and its address.
class Server {
 public:
  Server(const Cell& c, const std::string& stem) : p_(kBinary, Args(c), stem) {
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    std::string out;
    while ((out = p_.Stdout()).find('\n') == std::string::npos) {
      if (p_.Wait(std::chrono::milliseconds(10)) != -1 || Clock::now() > deadline) {
        error_ = "the server did not start: " + p_.Stderr();
        return;
      }
    }
    const size_t at = out.find("127.0.0.1:");
    if (at == std::string::npos) {
      error_ = "no address in the server's first line: " + out;
      return;
    }
    address_ = out.substr(at, out.find('\n', at) - at);
  }
  ~Server() {
    p_.Signal(SIGTERM);
    if (p_.Wait(std::chrono::seconds(30)) == -1) p_.Signal(SIGKILL);
  }
  // The null region cans its reads here, as `run`'s co-located server does
  // (`server` answers empty reads by default, HBASE-10001's).
  static std::vector<std::string> Args(const Cell& c) {
    std::vector<std::string> a = {"server", "--rpc",  std::string(c.transport->name()),
                                  "--region", std::string(c.region->name()),
                                  "--port", "0", "--bind", "127.0.0.1"};
    if (c.region->name() == "null") a.insert(a.end(), {"--null-reads", "canned"});
    return a;
  }
  const std::string& address() const { return address_; }
  const std::string& error() const { return error_; }
  std::string Stderr() const { return p_.Stderr(); }

 private:
  WirebenchProcess p_;
  std::string address_;
  std::string error_;
};

struct Outcome {
  int rc = -1;
  std::string err;
  nlohmann::json results;
  double seconds = 0;
};

Outcome Wirebench(const std::vector<std::string>& args, const std::string& stem,
                  std::chrono::seconds bound) {
  const std::string json_path = stem + ".json";
  std::remove(json_path.c_str());
  std::vector<std::string> all = args;
  all.insert(all.end(), {"--json", json_path});
  const auto start = Clock::now();
  WirebenchProcess p(kBinary, all, stem);
  Outcome o;
  o.rc = p.Wait(bound);
  o.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  o.err = p.Stderr();
  std::ifstream in(json_path);
  if (in) o.results = nlohmann::json::parse(in, nullptr, false).value("results", nlohmann::json());
  return o;
}

// Operations of one type with Return `what` (all returns when empty).
int64_t Returns(const nlohmann::json& op, const std::string& what = "") {
  int64_t n = 0;
  for (const auto& [name, count] : op.at("return").items())
    if (what.empty() || name == what) n += count.get<int64_t>();
  return n;
}

// The server's calls of `method` between the two Stats replies.
int64_t CallsBetween(const nlohmann::json& server, const std::string& key,
                     const std::string& method) {
  const auto calls = [&](const char* when) {
    const nlohmann::json& s = server.at(when);
    return s.contains(key) ? s[key].value(method, int64_t(0)) : 0;
  };
  return calls("after") - calls("before");
}

int64_t HBaseBetween(const nlohmann::json& server, const std::string& figure) {
  const auto of = [&](const char* when) {
    const nlohmann::json& s = server.at(when);
    return s.contains("hbase") ? s["hbase"].value(figure, int64_t(0)) : 0;
  };
  return of("after") - of("before");
}

// The soak table's lines, when WIREBENCH_MATRIX_TABLE names a file.
void RecordCell(const std::string& cell, int64_t ops, int64_t failed, double seconds) {
  const char* path = std::getenv("WIREBENCH_MATRIX_TABLE");
  if (path == nullptr) return;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::ofstream out(path, std::ios::app);
  char line[512];
  std::snprintf(line, sizeof line, "%s\t%lld\t%lld\t%.1f\n", cell.c_str(),
                static_cast<long long>(ops), static_cast<long long>(failed), seconds);
  out << line;
}

class PathMatrix : public ::testing::TestWithParam<Cell> {};

TEST_P(PathMatrix, EveryWorkloadRunsWhole) {
  const Cell& c = GetParam();
  const std::string rpc(c.transport->name());
  const std::string codec(c.codec->name());
  const std::string region(c.region->name());
  const std::string name = CellName()(::testing::TestParamInfo<Cell>(c, 0));
  const testing::TransportCase& tc = testing::CaseOf(*c.transport);
  Server server(c, Stem(name + "_server"));
  ASSERT_TRUE(server.error().empty()) << server.error();
  const std::vector<std::string> common = {"--server", server.address(), "--rpc", rpc,
                                           "--codec",  codec,            "-p",
                                           "recordcount=" + std::to_string(kRecords)};
  if (region == "memstore") {
    std::vector<std::string> load = {"load", "-P", kWorkloads + "workloada"};
    load.insert(load.end(), common.begin(), common.end());
    const Outcome l = Wirebench(load, Stem(name + "_load"), std::chrono::seconds(120));
    ASSERT_EQ(l.rc, 0) << l.err;
    ASSERT_TRUE(l.results.is_object()) << l.err;
    EXPECT_EQ(l.results.at("operations").get<int64_t>(), kRecords) << l.err;
    EXPECT_EQ(Returns(l.results.at("ops").at("INSERT"), "OK"), kRecords)
        << l.results.at("ops").dump();
  }
  const int soak = SoakSeconds();
  for (const char* w : {"workloada", "workloadb", "workloadc", "workloadd", "workloade",
                        "workloadf"}) {
    SCOPED_TRACE(std::string(w) + " over --rpc " + rpc + " --codec " + codec + " --region " +
                 region);
    const bool e = std::string(w) == "workloade";
    std::vector<std::string> run = {"run", "-P", kWorkloads + w, "-threads", "4"};
    run.insert(run.end(), common.begin(), common.end());
    if (soak > 0) {
      run.insert(run.end(), {"--seconds", std::to_string(soak), "--warmup", "0"});
    } else {
      run.insert(run.end(), {"--ops", std::to_string(e ? kQuickScanOps : kQuickOps)});
    }
    const Outcome r = Wirebench(run, Stem(name + "_" + w),
                                std::chrono::seconds(soak > 0 ? 3 * soak + 120 : 120));
    const int64_t ops = r.results.is_object() ? r.results.value("operations", int64_t(0)) : 0;
    int64_t failed = 0;
    if (r.results.is_object())
      for (const auto& [op, e2] : r.results.at("ops").items())
        if (op != "SCAN-LATENCY-PER-RECORD") failed += Returns(e2) - Returns(e2, "OK");
    RecordCell(name + "/" + w, ops, r.rc == 0 ? failed : std::max<int64_t>(failed, 1), r.seconds);
    ASSERT_EQ(r.rc, 0) << r.err << server.Stderr();
    ASSERT_TRUE(r.results.is_object()) << r.err;
    EXPECT_FALSE(r.results.at("partial").get<bool>()) << r.err;
    if (soak == 0) {
      EXPECT_EQ(ops, e ? kQuickScanOps : kQuickOps);
    }
    const nlohmann::json& measured = r.results.at("ops");
    // No failed operation: every Return of every type is OK (reads find
    // their rows: the memstore was loaded, the null region cans them).
    for (const auto& [op, entry] : measured.items())
      EXPECT_EQ(Returns(entry, "OK"), Returns(entry)) << op << ": " << entry.at("return").dump();
    // Every operation type the workload mixes was measured.
    for (const std::string& op : MixedOperations(w)) {
      ASSERT_TRUE(measured.contains(op)) << op << " not measured: " << measured.dump();
      EXPECT_GT(Returns(measured.at(op)), 0) << op << " not measured: " << measured.dump();
    }
    // The server counted the calls the client made: a READ (also READ-MODIFY-WRITE's read) is a
    // Get, an UPDATE or INSERT a Mutate, a SCAN a Scan (over HBase's protocol, less the
    // hbase:meta lookups the client made first).
    const nlohmann::json& s = r.results.at("server");
    ASSERT_TRUE(s.at("after").is_object()) << s.dump();
    const auto count = [&](const char* op) {
      return measured.contains(op) ? Returns(measured.at(op)) : 0;
    };
    const std::string key(tc.stats_calls);
    EXPECT_EQ(CallsBetween(s, key, "Get"), count("READ")) << s.at("after").at(key).dump();
    EXPECT_EQ(CallsBetween(s, key, "Mutate"), count("UPDATE") + count("INSERT"))
        << s.at("after").at(key).dump();
    EXPECT_EQ(CallsBetween(s, key, "Scan") - HBaseBetween(s, "meta_calls"), count("SCAN"))
        << s.at("after").at(key).dump();
    EXPECT_EQ(CallsBetween(s, key, "Multi"), 0) << s.at("after").at(key).dump();
    EXPECT_EQ(s.at("after").value("failed_calls", int64_t(-1)), 0) << s.at("after").dump();
    // Over HBase's protocol no scanner stays open after a workload's scans.
    if (s.at("after").contains("hbase")) {
      EXPECT_EQ(s.at("after").at("hbase").value("open_scanners", int64_t(-1)), 0);
      EXPECT_EQ(HBaseBetween(s, "refused_scanners"), 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPath, PathMatrix, ::testing::ValuesIn(Cells()), CellName());

// Workload E over HBase's protocol and the memstore region at length:
// 20,000 scans on one connection (1 and 16 logical clients share it), every
// one OK and none leaving a scanner open on the server. wirebench's client
// asks for its rows and the scanner's close in one call, as HBase's small
// scans do; a client that left scanners open hit the server's 1,000 open
// scanners per connection after about 1,000 scans.
class WorkloadEOverHBase : public ::testing::TestWithParam<int> {};

TEST_P(WorkloadEOverHBase, TwentyThousandScansOnOneConnection) {
  const int threads = GetParam();
  const Transport* hbase = Transports().Find("hbase");
  if (hbase == nullptr) GTEST_SKIP() << "this build has no hbase transport";
  const Cell c{hbase, FindCodec(uint8_t(CodecId::kCellBlock)), Regions().Find("memstore")};
  const std::string name = "e_hbase_" + std::to_string(threads);
  Server server(c, Stem(name + "_server"));
  ASSERT_TRUE(server.error().empty()) << server.error();
  const std::vector<std::string> common = {"hbase2", "-P", kWorkloads + "workloade", "--server",
                                           server.address(), "--rpc", "hbase", "-p",
                                           "recordcount=5000"};
  std::vector<std::string> load = {"load"};
  load.insert(load.end(), common.begin(), common.end());
  const Outcome l = Wirebench(load, Stem(name + "_load"), std::chrono::seconds(120));
  ASSERT_EQ(l.rc, 0) << l.err;
  std::vector<std::string> run = {"run"};
  run.insert(run.end(), common.begin(), common.end());
  run.insert(run.end(), {"-threads", std::to_string(threads), "--ops", "21100", "-p",
                         "maxscanlength=10", "--connections", "1"});
  const Outcome r = Wirebench(run, Stem(name + "_run"), std::chrono::seconds(240));
  ASSERT_EQ(r.rc, 0) << r.err << server.Stderr();
  const nlohmann::json& scan = r.results.at("ops").at("SCAN");
  EXPECT_GE(Returns(scan), 20000) << scan.dump();
  EXPECT_EQ(Returns(scan, "OK"), Returns(scan)) << scan.dump();
  for (const auto& [op, entry] : r.results.at("ops").items())
    EXPECT_EQ(Returns(entry, "OK"), Returns(entry)) << op;
  const nlohmann::json& after = r.results.at("server").at("after");
  EXPECT_EQ(after.at("hbase").value("open_scanners", int64_t(-1)), 0) << after.dump();
  EXPECT_EQ(after.at("hbase").value("refused_scanners", int64_t(-1)), 0) << after.dump();
  // One connection carried them: the load's and the run's, one each.
  EXPECT_EQ(after.at("connections").value("accepted", int64_t(0)), 2) << after.dump();
  EXPECT_EQ(r.err.find("SCANs returned no records"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Threads, WorkloadEOverHBase, ::testing::Values(1, 16));

// Scans that return nothing get a note naming why: here a loaded memstore
// server whose rows lie before every key scanned (the note once always blamed
// the null region).
TEST(EmptyScanNote, NamesTheRealCause) {
  const Cell c{Transports().Find("wirebench"), FindCodec(uint8_t(CodecId::kRaw)),
               Regions().Find("memstore")};
  Server server(c, Stem("note_server"));
  ASSERT_TRUE(server.error().empty()) << server.error();
  // An empty table first.
  const std::vector<std::string> run = {"run",  "-P", kWorkloads + "workloade", "--server",
                                        server.address(), "--ops", "200", "-p",
                                        "recordcount=100", "-p", "scanproportion=1", "-p",
                                        "insertproportion=0"};
  Outcome r = Wirebench(run, Stem("note_empty"), std::chrono::seconds(60));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("table 'usertable' on the memstore server holds no rows"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("null region"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace wirebench
