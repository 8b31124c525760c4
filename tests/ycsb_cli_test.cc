// YCSB's command line and output, end to end through the `wirebench`
// binary (issue 20): -db and bin/ycsb's binding-name form, -target 0, the
// later of -threads and -p threadcount, the sections a YCSB user's parser
// sees for workloads A-F in both null-read modes (read-modify-write and
// NOT_FOUND accounted as YCSB accounts them), the JSON exporters' stdout,
// the status line, insertstart, and YCSB's own workload files. Also the
// status line's format from YCSB's StatusThread rules.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "bench/loadgen/status_line.h"
#include "tests/silent_listener.h"

namespace wirebench {
namespace {

using testing::WirebenchProcess;

const std::string kBinary = std::string(WIREBENCH_BINARY_DIR) + "/bench/wirebench";
std::string Workload(const std::string& name) {
  return std::string(WIREBENCH_SOURCE_DIR) + "/workloads/" + name;
}

struct Outcome {
  int rc;
  std::string out;
  std::string err;
};

Outcome RunWirebench(const std::string& name, const std::vector<std::string>& args) {
  WirebenchProcess p(kBinary, args, std::string(WIREBENCH_BINARY_DIR) + "/ycsb_cli_" + name);
  const int rc = p.Wait(std::chrono::seconds(120));
  return {rc, p.Stdout(), p.Stderr()};
}

// "[SECTION], name, value" lines: section -> name -> value.
using Sections = std::map<std::string, std::map<std::string, std::string>>;
Sections Parse(const std::string& text) {
  Sections s;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '[') continue;
    const size_t close = line.find("], ");
    const size_t comma = line.find(", ", close + 3);
    if (close == std::string::npos || comma == std::string::npos) continue;
    s[line.substr(1, close - 1)][line.substr(close + 3, comma - close - 3)] = line.substr(comma + 2);
  }
  return s;
}
int64_t Int(const Sections& s, const std::string& section, const std::string& name) {
  auto a = s.find(section);
  if (a == s.end()) return -1;
  auto b = a->second.find(name);
  return b == a->second.end() ? -1 : std::stoll(b->second);
}
std::set<std::string> Names(const Sections& s) {
  std::set<std::string> out;
  for (const auto& [k, v] : s) out.insert(k);
  return out;
}

// Issue 20 item 12: -db crashed with SIGSEGV (the flag wrote into an object
// the parser's callback did not keep alive).
TEST(YcsbCli, DbFlagIsAcceptedInEveryPosition) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"run", "-db", "site.ycsb.BasicDB", "-P", Workload("workloada"), "--ops", "50"},
           {"run", "-P", Workload("workloada"), "--ops", "50", "-db", "site.ycsb.BasicDB"},
           {"load", "-P", Workload("workloada"), "-p", "recordcount=20", "--db", "x.Y"}}) {
    const Outcome o = RunWirebench("db", args);
    EXPECT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.out.find("[OVERALL], RunTime(ms), "), std::string::npos) << o.out;
  }
}

// Issue 20 item 12: bin/ycsb's form, a binding name before the options.
TEST(YcsbCli, BindingNameBeforeTheOptions) {
  Outcome o = RunWirebench("hbase2", {"run", "hbase2", "-P", Workload("workloada"), "--ops", "50"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(Int(Parse(o.out), "OVERALL", "RunTime(ms)") >= 0, true) << o.out;
  o = RunWirebench("mongodb", {"run", "mongodb", "-P", Workload("workloada"), "--ops", "50"});
  EXPECT_NE(o.rc, 0);
  EXPECT_NE(o.err.find("unknown binding 'mongodb'"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("hbase2"), std::string::npos) << o.err;
}

// Issue 20 item 12: -target 0 is YCSB's "unthrottled"; the later of
// -threads and -p threadcount wins.
TEST(YcsbCli, TargetZeroAndThreadPrecedence) {
  Outcome o = RunWirebench("target0", {"run", "-P", Workload("workloada"), "-target", "0", "--ops", "50"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out.find("[SCHEDULE]"), std::string::npos) << "ran open loop:\n" << o.out;
  o = RunWirebench("threads1", {"run", "-P", Workload("workloada"), "-threads", "2", "-p", "threadcount=3",
                       "--ops", "60"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_NE(o.err.find(" threads=3 "), std::string::npos) << o.err;
  o = RunWirebench("threads2", {"run", "-P", Workload("workloada"), "-p", "threadcount=3", "-threads", "2",
                       "--ops", "60"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_NE(o.err.find(" threads=2 "), std::string::npos) << o.err;
}

// Issue 20 item 1 (and 2): workload F as YCSB counts it. Every operation
// reads (a read, or the read half of a read-modify-write), each
// read-modify-write's update is an UPDATE, and READ-MODIFY-WRITE has
// latencies only. With the null region's empty reads the read latencies
// are READ-FAILED's; with canned reads they are READ's.
TEST(YcsbCli, WorkloadFCountsAsYcsbCountsIt) {
  for (const std::string reads : {"empty", "canned"}) {
    SCOPED_TRACE(reads);
    const Outcome o = RunWirebench("f_" + reads, {"run", "-P", Workload("workloadf"), "--ops", "1000",
                                         "--null-reads", reads});
    ASSERT_EQ(o.rc, 0) << o.err;
    const Sections s = Parse(o.out);
    const int64_t rmw = Int(s, "READ-MODIFY-WRITE", "Operations");
    EXPECT_GT(rmw, 300);
    EXPECT_LT(rmw, 700);
    const std::string read_return = reads == "empty" ? "Return=NOT_FOUND" : "Return=OK";
    EXPECT_EQ(Int(s, "READ", read_return), 1000) << o.out;
    EXPECT_EQ(Int(s, "UPDATE", "Return=OK"), rmw) << o.out;
    EXPECT_EQ(Int(s, "UPDATE", "Operations"), rmw) << o.out;
    EXPECT_EQ(Int(s, "READ", "Operations"), reads == "empty" ? 0 : 1000) << o.out;
    EXPECT_EQ(Int(s, "READ-FAILED", "Operations"), reads == "empty" ? 1000 : -1) << o.out;
    for (const auto& [name, value] : s.at("READ-MODIFY-WRITE"))
      EXPECT_EQ(name.rfind("Return=", 0), std::string::npos) << name;
  }
}

// Issue 20 target: a YCSB user's parser sees YCSB's sections for A-F in
// both null-read modes (plus wirebench's own CLIENT, SERVER and TOTAL).
TEST(YcsbCli, SectionsOfWorkloadsAToFInBothNullReadModes) {
  const std::set<std::string> own = {"OVERALL", "CLIENT", "SERVER", "TOTAL"};
  const std::map<std::string, std::set<std::string>> expected = {
      {"workloada", {"READ", "UPDATE"}},  {"workloadb", {"READ", "UPDATE"}},
      {"workloadc", {"READ"}},            {"workloadd", {"READ", "INSERT"}},
      {"workloade", {"SCAN", "INSERT"}},  {"workloadf", {"READ", "UPDATE", "READ-MODIFY-WRITE"}}};
  for (const std::string reads : {"empty", "canned"}) {
    for (const auto& [file, ops] : expected) {
      SCOPED_TRACE(file + " with --null-reads " + reads);
      const Outcome o = RunWirebench(file + reads, {"run", "-P", Workload(file), "--ops", "300",
                                           "--null-reads", reads});
      ASSERT_EQ(o.rc, 0) << o.err;
      std::set<std::string> want = own;
      want.insert(ops.begin(), ops.end());
      if (reads == "empty" && ops.count("READ")) want.insert("READ-FAILED");
      EXPECT_EQ(Names(Parse(o.out)), want) << o.out;
    }
  }
}

// Issue 20 item 9: with a JSON exporter and no exportfile, stdout is the
// JSON export alone, integral values as integers.
TEST(YcsbCli, JsonExporterStdoutIsTheJsonAlone) {
  for (const std::string exporter : {"JSONArrayMeasurementsExporter", "JSONMeasurementsExporter"}) {
    SCOPED_TRACE(exporter);
    const Outcome o =
        RunWirebench(exporter, {"run", "-P", Workload("workloada"), "--ops", "100", "-p",
                       "exporter=site.ycsb.measurements.exporter." + exporter});
    ASSERT_EQ(o.rc, 0) << o.err;
    std::istringstream in(o.out);
    std::vector<nlohmann::json> values;
    in >> std::ws;
    while (in.peek() != std::char_traits<char>::eof()) {
      nlohmann::json j;
      ASSERT_NO_THROW(in >> j) << o.out;
      values.push_back(std::move(j));
      in >> std::ws;
    }
    if (exporter == "JSONArrayMeasurementsExporter") {
      ASSERT_EQ(values.size(), 1u);
      ASSERT_TRUE(values[0].is_array());
      values = std::vector<nlohmann::json>(values[0].begin(), values[0].end());
    }
    ASSERT_GT(values.size(), 10u);
    EXPECT_EQ(values[0]["metric"], "OVERALL");
    EXPECT_EQ(values[0]["measurement"], "RunTime(ms)");
    EXPECT_TRUE(values[0]["value"].is_number_integer());
    EXPECT_TRUE(values[1]["value"].is_number_float());  // Throughput(ops/sec).
    for (const auto& v : values) {
      if (v["measurement"] == "Operations") {
        EXPECT_TRUE(v["value"].is_number_integer()) << v;
      }
    }
  }
}

// Issue 20 item 8: -s prints YCSB's lines: the label glued to the
// timestamp, a line at 0 sec, "est completion in" while operations are
// counted, ops/sec as #.##.
TEST(YcsbCli, StatusLinesAreYcsbs) {
  const Outcome o = RunWirebench("status", {"run", "-P", Workload("workloada"), "--ops", "3000", "-s", "-l",
                                   "LBL", "-p", "status.interval=1"});
  ASSERT_EQ(o.rc, 0) << o.err;
  const std::regex line(
      R"(LBL\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3} \d+ sec: \d+ operations; .*)");
  std::istringstream in(o.err);
  std::string l;
  std::vector<std::string> status;
  while (std::getline(in, l))
    if (l.rfind("LBL", 0) == 0) status.push_back(l);
  ASSERT_GE(status.size(), 2u) << o.err;
  for (const auto& s : status) EXPECT_TRUE(std::regex_match(s, line)) << s;
  EXPECT_NE(status.front().find(" 0 sec: 0 operations; est completion in "), std::string::npos)
      << status.front();
  EXPECT_TRUE(std::regex_search(status.back(), std::regex(R"( 3000 operations; \d+(\.\d{1,2})? current ops/sec; \[READ: Count=)")))
      << status.back();
}

// Issue 20 item 6: load with insertstart and no insertcount inserts
// recordcount records.
TEST(YcsbCli, LoadWithInsertstartInsertsRecordcount) {
  const Outcome o = RunWirebench("insertstart", {"load", "-P", Workload("workloada"), "-p",
                                        "recordcount=100", "-p", "insertstart=50"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(Int(Parse(o.out), "INSERT", "Return=OK"), 100) << o.out;
  EXPECT_NE(o.err.find("keys 50 to 149"), std::string::npos) << o.err;
}

// Issue 20 items 3 and 4, and the target: YCSB's workload_template (with
// measurementtype=histogram) and a binding's properties run unchanged; the
// time-series workload is refused naming what is missing.
TEST(YcsbCli, YcsbWorkloadFilesAndBindingPropertiesRun) {
  Outcome o = RunWirebench("template", {"run", "-P", Workload("workload_template"), "--ops", "200", "-p",
                               "hbase.zookeeper.quorum=zk1", "-p", "discardscannedrecord=true"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.err.find("note: property"), std::string::npos) << o.err;
  EXPECT_GE(Int(Parse(o.out), "READ-FAILED", "99thPercentileLatency(us)"), 0) << o.out;
  EXPECT_NE(o.out.find("LatencyVariance(us)"), std::string::npos) << o.out;  // histogram.
  o = RunWirebench("typo", {"run", "-P", Workload("workloada"), "--ops", "20", "-p", "readproprtion=0.5"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_NE(o.err.find("did you mean 'readproportion'"), std::string::npos) << o.err;
  o = RunWirebench("ts", {"run", "-P", Workload("tsworkloada")});
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.err.find("time-series workload is not implemented"), std::string::npos) << o.err;
}

// Issue 20 item 7: with dataintegrity, YCSB checks every read's values and
// times the check under [VERIFY]: ERROR for no data (the null region's empty
// reads), UNEXPECTED_STATE for a wrong value (its canned record), while the
// READ keeps the read's own status.
TEST(YcsbCli, DataIntegrityChecksAreTimedUnderVerify) {
  for (const std::string reads : {"empty", "canned"}) {
    SCOPED_TRACE(reads);
    const Outcome o =
        RunWirebench("verify_" + reads, {"run", "-P", Workload("workloadc"), "--ops", "200",
                                         "-p", "dataintegrity=true", "--null-reads", reads});
    ASSERT_EQ(o.rc, 0) << o.err;
    const Sections s = Parse(o.out);
    EXPECT_EQ(Int(s, "READ", reads == "empty" ? "Return=NOT_FOUND" : "Return=OK"), 200) << o.out;
    EXPECT_EQ(Int(s, "VERIFY", "Operations"), 200) << o.out;
    EXPECT_EQ(Int(s, "VERIFY", reads == "empty" ? "Return=ERROR" : "Return=UNEXPECTED_STATE"),
              200)
        << o.out;
    EXPECT_EQ(Int(s, "READ", "Return=ERROR"), -1) << o.out;
    EXPECT_EQ(s.count("VERIFY-FAILED"), 0u) << o.out;
  }
}

// StatusThread.computeStats and RemainingFormatter, from YCSB's code.
TEST(YcsbStatusLine, FormatFollowsStatusThread) {
  StatusLineFigures f;
  f.label = "L";
  f.timestamp = "2026-12-03 10:00:00:123";
  f.todo_ops = 1000;
  // t=0: 0/0 ops/sec is NaN, (long) ceil(NaN) is 0: "0 second " (YCSB's
  // one-digit quirk).
  EXPECT_EQ(FormatYcsbStatusLine(f),
            "L2026-12-03 10:00:00:123 0 sec: 0 operations; est completion in 0 second ");
  f.elapsed_ms = 10'000;
  f.interval_ms = 10'000;
  f.total_ops = 200;
  f.interval_ops = 200;
  f.todo_ops = 800;
  f.summary = "[READ: Count=200, Max=9, Min=1, Avg=2.5, 90=4, 99=8, 99.9=9, 99.99=9] ";
  EXPECT_EQ(FormatYcsbStatusLine(f),
            "L2026-12-03 10:00:00:123 10 sec: 200 operations; 20 current ops/sec; est "
            "completion in 40 seconds [READ: Count=200, Max=9, Min=1, Avg=2.5, 90=4, 99=8, "
            "99.9=9, 99.99=9] ");
  f.todo_ops = 0;  // Unlimited operationcount: no estimate.
  f.interval_ops = 1;
  f.interval_ms = 3000;
  EXPECT_EQ(FormatYcsbStatusLine(f).find("est completion"), std::string::npos);
  EXPECT_NE(FormatYcsbStatusLine(f).find(" 0.33 current ops/sec; ["), std::string::npos);
  EXPECT_EQ(YcsbRemaining(59), "59 seconds ");
  EXPECT_EQ(YcsbRemaining(61), "1 minute ");
  EXPECT_EQ(YcsbRemaining(7200 + 120), "2 hours 2 minutes ");
  EXPECT_EQ(YcsbRemaining(86400 + 3600 + 60), "1 day 1 hour ");
}

}  // namespace
}  // namespace wirebench
