// wirebench merge (bench/results/merge.h): merging two client results equals one run
// holding both histograms, bucket for bucket, with counters summed and the
// server's figures taken once; bad inputs give errors that say what is wrong.
// Also two real runs against one in-process server, and the command itself.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "hdr/histogram_encoding.h"
#include "bench/results/merge.h"
#include "bench/results/report.h"
#include "tests/null_server_fixture.h"
#include "tests/test_workloads.h"
#include "tests/wirebench_paths.h"

namespace wirebench {
namespace {

using nlohmann::json;

json Snapshot(int port, double uptime, double io_cpu_ns, uint64_t mutates) {
  return {{"server", {{"bind", "10.0.0.1"}, {"port", port}, {"io_threads", 2}, {"uptime_s", uptime}}},
          {"calls", {{"Mutate", mutates}}},
          {"bytes_in", mutates * 1000},
          {"bytes_out", mutates * 20},
          {"allocation_counting", true},
          {"threads", json::array({{{"role", "server-io"}, {"tid", 7}, {"cpu_ns", io_cpu_ns}}})}};
}

// A client's run with `n` updates and `m` reads of random latencies
// (seeded: printed on failure through the test name and seed).
RunResult MakeRun(uint32_t seed, int n, int m, double runtime_s, double before_uptime,
                  double after_uptime) {
  RunResult r;
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> lat(11.0, 1.0);  // Around 60 us, long tail.
  for (int i = 0; i < n; ++i) r.ops[size_t(OpType::kUpdate)].latency.Record(int64_t(lat(rng)));
  for (int i = 0; i < m; ++i) r.ops[size_t(OpType::kRead)].latency.Record(int64_t(lat(rng)));
  for (int i = 0; i < m / 10; ++i)
    r.ops[size_t(OpType::kRead)].failed_latency.Record(int64_t(lat(rng)));
  r.ops[size_t(OpType::kUpdate)].results[size_t(OpResult::kOk)] = uint64_t(n);
  r.ops[size_t(OpType::kRead)].results[size_t(OpResult::kNotFound)] = uint64_t(m);
  r.ops[size_t(OpType::kRead)].results[size_t(OpResult::kError)] = uint64_t(m / 10);
  r.operations = uint64_t(n + m + m / 10);
  r.runtime_s = runtime_s;
  r.client_usage.cpu_ns = 1000.0 * seed;
  r.client_usage.user_ns = 600.0 * seed;
  r.client_usage.sys_ns = 400.0 * seed;
  r.client_usage.voluntary_switches = seed;
  r.client_usage.involuntary_switches = 2 * seed;
  r.client_usage.threads = 2;
  r.client_counters.allocs = 3 * seed;
  r.client_counters.alloc_bytes = 300 * seed;
  r.client_counters.encode_copied = 5 * seed;
  r.client_counters.decode_copied = 7 * seed;
  r.connections.frames_out = r.operations;
  r.connections.writes = r.operations / 2;
  r.connections.bytes_out = r.operations * 1000;
  r.connections.bytes_in = r.operations * 20;
  r.server_before = Snapshot(4000, before_uptime, 1e6 * before_uptime, uint64_t(before_uptime));
  r.server_after = Snapshot(4000, after_uptime, 1e6 * after_uptime, uint64_t(after_uptime) * 1000);
  return r;
}

NamedResult Document(const std::string& name, const RunResult& r) {
  NamedResult n;
  n.name = name;
  n.doc["wirebench_result_version"] = kResultVersion;
  n.doc["config"] = {{"codec", "raw"}, {"threads", 8}, {"phase", "run"}, {"seed", name}};
  n.doc["environment"] = {{"hostname", name}};
  n.doc["results"] = ResultToJson(r, ComputeCosts(r), ReportOptions{});
  return n;
}

void ExpectSameBuckets(const hdr::Histogram& got, const hdr::Histogram& want) {
  ASSERT_EQ(got.total_count(), want.total_count());
  ASSERT_EQ(got.counts_array_length(), want.counts_array_length());
  for (int32_t i = 0; i < want.counts_array_length(); ++i)
    ASSERT_EQ(got.CountAtIndex(i), want.CountAtIndex(i)) << "bucket " << i;
  EXPECT_EQ(got.Max(), want.Max());
  EXPECT_EQ(got.Min(), want.Min());
}

TEST(Merge, TwoResultsEqualOneRunHoldingBothHistograms) {
  const RunResult a = MakeRun(11, 5000, 3000, 2.0, 10.0, 13.0);
  const RunResult b = MakeRun(12, 4000, 6000, 2.5, 10.5, 14.0);
  RunResult both = a;
  for (size_t t = 0; t < both.ops.size(); ++t) both.ops[t].Add(b.ops[t]);

  auto m = MergeResults({Document("a.json", a), Document("b.json", b)});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  for (size_t t = 0; t < both.ops.size(); ++t) {
    SCOPED_TRACE(std::string(OpTypeName(OpType(t))));
    ExpectSameBuckets(m->result.ops[t].latency, both.ops[t].latency);
    ExpectSameBuckets(m->result.ops[t].failed_latency, both.ops[t].failed_latency);
    EXPECT_EQ(m->result.ops[t].results, both.ops[t].results);
  }
  // And the merged document's histograms decode to the same buckets.
  const json& ops = m->json["results"]["ops"];
  for (const char* name : {"UPDATE", "READ"}) {
    auto h = hdr::DecodeCompressedBase64(ops[name]["latency"]["histogram_ns"].get<std::string>());
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    const OpType t = std::string(name) == "READ" ? OpType::kRead : OpType::kUpdate;
    ExpectSameBuckets(*h, both.ops[size_t(t)].latency);
    // Summaries recomputed from the merged histogram.
    EXPECT_DOUBLE_EQ(ops[name]["latency"]["p99_us"].get<double>(),
                     double(both.ops[size_t(t)].latency.ValueAtPercentile(99)) / 1000.0);
    EXPECT_EQ(ops[name]["latency"]["operations"].get<int64_t>(),
              both.ops[size_t(t)].latency.total_count());
  }
  EXPECT_EQ(ops["READ"]["return"]["ERROR"].get<uint64_t>(), 300u + 600u);

  // Counters summed.
  EXPECT_EQ(m->result.operations, a.operations + b.operations);
  const json& raw = m->json["results"]["client_raw"];
  EXPECT_DOUBLE_EQ(raw["cpu_ns"].get<double>(), 23000.0);
  EXPECT_DOUBLE_EQ(raw["user_ns"].get<double>(), 600.0 * 23);
  EXPECT_EQ(raw["voluntary_switches"].get<uint64_t>(), 23u);
  EXPECT_EQ(raw["involuntary_switches"].get<uint64_t>(), 46u);
  EXPECT_EQ(raw["allocs"].get<uint64_t>(), 69u);
  EXPECT_EQ(raw["alloc_bytes"].get<uint64_t>(), 6900u);
  EXPECT_EQ(raw["encode_copied"].get<uint64_t>(), 115u);
  EXPECT_EQ(raw["decode_copied"].get<uint64_t>(), 161u);
  EXPECT_EQ(raw["bytes_out"].get<uint64_t>(), (a.operations + b.operations) * 1000);
  EXPECT_EQ(raw["frames_out"].get<uint64_t>(), a.operations + b.operations);
  EXPECT_EQ(raw["threads"].get<int>(), 4);

  // Throughput over the longest runtime.
  EXPECT_DOUBLE_EQ(m->json["results"]["runtime_ms"].get<double>(), 2500.0);
  EXPECT_DOUBLE_EQ(m->json["results"]["throughput_ops_per_sec"].get<double>(),
                   double(a.operations + b.operations) / 2.5);

  // Server figures once: a's before (uptime 10) to b's after (uptime 14):
  // 4 s of io CPU over the summed operations.
  EXPECT_DOUBLE_EQ(m->result.server_before["server"]["uptime_s"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(m->result.server_after["server"]["uptime_s"].get<double>(), 14.0);
  const double ops_sum = double(a.operations + b.operations);
  EXPECT_DOUBLE_EQ(m->costs.server.cpu_us, 4e6 / 1000.0 / ops_sum);
  EXPECT_DOUBLE_EQ(m->json["results"]["costs"]["server"]["cpu_us_per_op"].get<double>(),
                   m->costs.server.cpu_us);
  EXPECT_DOUBLE_EQ(m->costs.client.cpu_us, 23000.0 / 1000.0 / ops_sum);

  // The same shape as a single run's result.
  const json single = Document("a.json", a).doc["results"];
  for (const auto& [k, v] : single.items())
    EXPECT_TRUE(m->json["results"].contains(k)) << "merged result lacks " << k;
  EXPECT_EQ(m->json["wirebench_result_version"], kResultVersion);
  EXPECT_EQ(m->json["config"]["codec"], "raw");          // Agreed by both.
  EXPECT_FALSE(m->json["config"].contains("seed"));      // Differs: only per input.
  EXPECT_EQ(m->json["config"]["threads"].get<int>(), 16);  // Summed.
  EXPECT_EQ(m->json["config"]["merge"]["inputs"].size(), 2u);
  EXPECT_TRUE(m->warnings.empty());
  EXPECT_NE(m->text.find("[UPDATE], Operations, 9000"), std::string::npos) << m->text;
  EXPECT_NE(m->text.find("[READ], Return=NOT_FOUND, 9000"), std::string::npos) << m->text;
  EXPECT_NE(m->text.find("[MERGE], Inputs, 2"), std::string::npos);
}

TEST(Merge, MergingIsOrderIndependentAndSingleInputIsIdentity) {
  const RunResult a = MakeRun(21, 700, 300, 1.0, 5.0, 6.0);
  const RunResult b = MakeRun(22, 900, 100, 1.5, 5.2, 6.5);
  auto ab = MergeRunResults({a, b});
  auto ba = MergeRunResults({b, a});
  ASSERT_TRUE(ab.ok() && ba.ok());
  ExpectSameBuckets(ab->ops[size_t(OpType::kUpdate)].latency,
                    ba->ops[size_t(OpType::kUpdate)].latency);
  EXPECT_EQ(ab->server_before, ba->server_before);
  EXPECT_EQ(ab->server_after, ba->server_after);
  auto one = MergeResults({Document("a.json", a)});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->json["results"]["ops"], Document("a.json", a).doc["results"]["ops"]);
  EXPECT_DOUBLE_EQ(one->costs.server.cpu_us, ComputeCosts(a).server.cpu_us);
}

// Clients of one null cluster (--mpi's ranks): each server's figures from
// its earliest "before" and latest "after" snapshot, failed calls per
// server summed, the first failure the earliest; a result that ran against
// other servers is refused, naming both lists.
TEST(Merge, ClusterServersAreMergedServerByServer) {
  RunResult a = MakeRun(31, 100, 100, 1.0, 5.0, 6.0);
  RunResult b = MakeRun(32, 100, 100, 1.0, 5.0, 6.0);
  a.cluster_servers = {{"10.0.0.1:1", Snapshot(1, 5.0, 1e6, 5), Snapshot(1, 6.0, 2e6, 50), 0, -1},
                       {"10.0.0.2:1", Snapshot(2, 5.0, 1e6, 5), Snapshot(2, 6.0, 2e6, 60), 2, 0.5}};
  // b read no Stats (another rank did): only its failures count.
  b.cluster_servers = {{"10.0.0.1:1", {}, {}, 0, -1}, {"10.0.0.2:1", {}, {}, 3, 0.25}};
  auto m = MergeRunResults({b, a});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->cluster_servers.size(), 2u);
  EXPECT_EQ(m->cluster_servers[0].address, "10.0.0.1:1");
  EXPECT_EQ(m->cluster_servers[0].after, a.cluster_servers[0].after);
  EXPECT_EQ(m->cluster_servers[1].before, a.cluster_servers[1].before);
  EXPECT_EQ(m->cluster_servers[0].client_failures, 0u);
  EXPECT_EQ(m->cluster_servers[1].client_failures, 5u);
  EXPECT_DOUBLE_EQ(m->cluster_servers[1].first_failure_s, 0.25);
  auto doc = MergeResults({Document("a.json", a), Document("b.json", b)});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->json["results"]["cluster"]["servers"].size(), 2u);
  EXPECT_NE(doc->text.find("[CLUSTER], Servers, 2"), std::string::npos) << doc->text;
  b.cluster_servers[1].address = "10.0.0.3:1";
  auto other = MergeRunResults({a, b}, {"a.json", "b.json"});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("different clusters"), std::string::npos)
      << other.status().ToString();
  EXPECT_NE(other.status().message().find("10.0.0.3:1"), std::string::npos);
}

TEST(Merge, DifferentServersAreRefused) {
  const RunResult a = MakeRun(1, 10, 10, 1, 1, 2);
  RunResult b = MakeRun(2, 10, 10, 1, 1, 2);
  b.server_after["server"]["port"] = 4001;
  auto m = MergeResults({Document("a.json", a), Document("b.json", b)});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Status::Code::kInvalidArgument);
  const std::string msg(m.status().message());
  EXPECT_NE(msg.find("different servers"), std::string::npos) << msg;
  EXPECT_NE(msg.find("a.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("10.0.0.1:4001"), std::string::npos) << msg;
  b = MakeRun(2, 10, 10, 1, 1, 2);
  b.server_after["server"]["io_threads"] = 1;
  EXPECT_FALSE(MergeRunResults({a, b}).ok());
}

// The same host and port, but a new server process (a
// restart between the runs): refused, naming both processes.
TEST(Merge, ResultsFromDifferentServerProcessesAreRefused) {
  RunResult a = MakeRun(1, 10, 10, 1, 1, 2);
  RunResult b = MakeRun(2, 10, 10, 1, 1, 2);
  for (RunResult* r : {&a, &b})
    for (nlohmann::json* s : {&r->server_before, &r->server_after})
      (*s)["server"]["instance"] =
          r == &a ? "pid 10 started 1 ns, 0000000a" : "pid 20 started 2 ns, 0000000b";
  auto m = MergeResults({Document("a.json", a), Document("b.json", b)});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().ToString().find("different server processes"), std::string::npos)
      << m.status().ToString();
  EXPECT_NE(m.status().ToString().find("pid 10 started 1 ns"), std::string::npos);
  EXPECT_NE(m.status().ToString().find("pid 20 started 2 ns"), std::string::npos);
  // One process: merged, error replies summed (the first one's text kept).
  for (nlohmann::json* s : {&b.server_before, &b.server_after})
    (*s)["server"]["instance"] = "pid 10 started 1 ns, 0000000a";
  b.error_replies = 3;
  b.first_error_reply = "Mutate: ServerError: region 'wal' failed Mutate";
  auto merged = MergeResults({Document("a.json", a), Document("b.json", b)});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->result.error_replies, 3u);
  EXPECT_EQ(merged->result.first_error_reply, b.first_error_reply);
}

TEST(Merge, RunsThatDidNotOverlapAreWarnedAbout) {
  const RunResult a = MakeRun(1, 10, 10, 1, 1, 2);
  const RunResult b = MakeRun(2, 10, 10, 1, 3, 4);
  auto m = MergeResults({Document("a.json", a), Document("b.json", b)});
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->warnings.size(), 1u);
  EXPECT_NE(m->warnings[0].find("a.json finished before b.json began"), std::string::npos);
}

TEST(Merge, MissingServerStatsLeaveServerFiguresUnavailable) {
  const RunResult a = MakeRun(1, 10, 10, 1, 1, 2);
  RunResult b = MakeRun(2, 10, 10, 1, 1, 2);
  b.server_before = json();
  b.server_after = json();
  b.server_stats_error = "Unavailable: timed out";
  auto m = MergeResults({Document("a.json", a), Document("b.json", b)});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_FALSE(m->costs.server.available);
  EXPECT_NE(m->costs.server.unavailable_reason.find("b.json has no server Stats"),
            std::string::npos)
      << m->costs.server.unavailable_reason;
  EXPECT_EQ(m->result.operations, a.operations + b.operations);
}

TEST(Merge, PartialInputMakesAPartialResult) {
  const RunResult a = MakeRun(1, 10, 10, 1, 1, 2);
  RunResult b = MakeRun(2, 10, 10, 1, 1, 2);
  b.partial = true;
  b.error = Status::Unavailable("server lost");
  auto m = MergeResults({Document("a.json", a), Document("b.json", b)});
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->result.partial);
  EXPECT_NE(m->result.error.ToString().find("b.json"), std::string::npos);
  EXPECT_TRUE(m->json["results"]["partial"].get<bool>());
}

// Clients that did not measure the same thing (another workload, codec or
// region), partial or not, are refused with what differs: merging a
// workloadc/cellblock run with a partial workloada/raw run once gave one
// report of both.
TEST(Merge, RunsNotMeasuredAlikeAreRefusedNamingWhatDiffers) {
  NamedResult a = Document("a.json", MakeRun(1, 10, 10, 1, 1, 2));
  a.doc["config"]["codec"] = "cellblock";
  a.doc["config"]["batch"] = 10;
  a.doc["config"]["properties"] = {{"workload", "site.ycsb.workloads.CoreWorkload"},
                                   {"readproportion", "1"}};
  RunResult partial = MakeRun(2, 10, 10, 1, 1, 2);
  partial.partial = true;
  partial.error = Status::Unavailable("server lost");
  NamedResult b = Document("b.json", partial);
  b.doc["config"]["batch"] = 0;
  b.doc["config"]["properties"] = {{"workload", "site.ycsb.workloads.CoreWorkload"},
                                   {"readproportion", "0.5"},
                                   {"updateproportion", "0.5"}};
  auto m = MergeResults({a, b});
  ASSERT_FALSE(m.ok());
  const std::string why = m.status().ToString();
  EXPECT_NE(why.find("a.json and b.json were not measured alike"), std::string::npos) << why;
  EXPECT_NE(why.find("codec cellblock vs raw"), std::string::npos) << why;
  EXPECT_NE(why.find("batch 10 vs 0"), std::string::npos) << why;
  EXPECT_NE(why.find("properties.readproportion 1 vs 0.5"), std::string::npos) << why;
  EXPECT_NE(why.find("properties.updateproportion (default) vs 0.5"), std::string::npos) << why;
  // Alike but for the seed and host: merged.
  b.doc["config"] = a.doc["config"];
  b.doc["config"]["seed"] = "b";
  EXPECT_TRUE(MergeResults({a, b}).ok());
}

TEST(Merge, TheSameRunTwiceIsRefused) {
  const NamedResult a = Document("a.json", MakeRun(1, 10, 10, 1, 1, 2));
  NamedResult again = a;
  again.name = "copy-of-a.json";
  auto m = MergeResults({a, Document("b.json", MakeRun(2, 10, 10, 1, 1, 2)), again});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Status::Code::kInvalidArgument);
  const std::string msg(m.status().message());
  EXPECT_NE(msg.find("a.json and copy-of-a.json are the same run"), std::string::npos) << msg;
  EXPECT_NE(msg.find(a.doc["results"]["run_id"].get<std::string>()), std::string::npos) << msg;
  EXPECT_NE(msg.find("double"), std::string::npos) << msg;
}

TEST(Merge, AMergedResultCannotBeMergedWithItsOwnInput) {
  const NamedResult a = Document("a.json", MakeRun(1, 10, 10, 1, 1, 2));
  const NamedResult b = Document("b.json", MakeRun(2, 10, 10, 1, 1, 2));
  auto ab = MergeResults({a, b});
  ASSERT_TRUE(ab.ok()) << ab.status().ToString();
  EXPECT_EQ(ab->json["results"]["merged_run_ids"].size(), 2u);
  const NamedResult merged{"ab.json", ab->json};
  auto again = MergeResults({merged, b});
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().ToString().find("ab.json and b.json share a run"), std::string::npos)
      << again.status().ToString();
  // A third client's result merges with the merged one.
  auto abc = MergeResults({merged, Document("c.json", MakeRun(3, 10, 10, 1, 1, 2))});
  ASSERT_TRUE(abc.ok()) << abc.status().ToString();
  EXPECT_EQ(abc->json["results"]["merged_run_ids"].size(), 3u);
}

TEST(Merge, FilesWithoutRunIdsAreToldApartByClientAndStart) {
  NamedResult a = Document("a.json", MakeRun(1, 10, 10, 1, 1, 2));
  NamedResult b = Document("b.json", MakeRun(2, 10, 10, 1, 1.5, 2));
  for (NamedResult* d : {&a, &b}) d->doc["results"].erase("run_id");
  ASSERT_TRUE(MergeResults({a, b}).ok());
  auto m = MergeResults({a, a});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().ToString().find("client a.json, started at server uptime 1"),
            std::string::npos)
      << m.status().ToString();
}

TEST(Merge, OpenLoopFiguresAreMerged) {
  RunResult a = MakeRun(1, 10, 10, 1, 1, 2);
  RunResult b = MakeRun(2, 10, 10, 1, 1, 2);
  for (int i = 1; i <= 30; ++i) {
    a.schedule_lateness.Record(i * 1000);
    a.timer_lateness.Record(i * 100);
    b.schedule_lateness.Record(i * 2000);
    b.timer_lateness.Record(i * 200);
  }
  a.behind_schedule = 5;
  b.behind_schedule = 7;
  auto m = MergeResults({Document("a.json", a), Document("b.json", b)});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->result.timer_lateness.total_count(), 60);
  EXPECT_EQ(m->result.behind_schedule, 12u);
  EXPECT_EQ(m->json["results"]["behind_schedule"].get<uint64_t>(), 12u);
  EXPECT_EQ(m->json["results"]["timer_lateness"]["operations"].get<int64_t>(), 60);
  EXPECT_NE(m->text.find("[SCHEDULE], BehindSchedule(%), 20.000"), std::string::npos) << m->text;
}

class MergeFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("wirebench_merge_test_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& contents) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p) << contents;
    return p;
  }
  std::filesystem::path dir_;
};

TEST_F(MergeFiles, BadInputsGiveClearErrors) {
  auto missing = ReadResultFile((dir_ / "nope.json").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kIoError);
  EXPECT_NE(missing.status().ToString().find("nope.json"), std::string::npos);

  auto garbage = ReadResultFile(Write("garbage.json", "{not json"));
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().ToString().find("is not JSON"), std::string::npos)
      << garbage.status().ToString();

  auto other = ReadResultFile(Write("other.json", R"({"hello": 1})"));
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().ToString().find("not a wirebench result"), std::string::npos);

  NamedResult doc = Document("x", MakeRun(1, 10, 10, 1, 1, 2));
  doc.doc["wirebench_result_version"] = 2;
  auto v2 = ReadResultFile(Write("v2.json", doc.doc.dump()));
  ASSERT_FALSE(v2.ok());
  EXPECT_NE(v2.status().ToString().find("wirebench_result_version 2"), std::string::npos)
      << v2.status().ToString();

  doc.doc["wirebench_result_version"] = 1;
  doc.doc["results"]["ops"]["UPDATE"]["latency"]["histogram_ns"] = "AAAA";
  auto bad_hist = ReadResultFile(Write("badhist.json", doc.doc.dump()));
  ASSERT_TRUE(bad_hist.ok());
  auto m = MergeResults({*bad_hist});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().ToString().find("results.ops.UPDATE.latency.histogram_ns"),
            std::string::npos)
      << m.status().ToString();

  doc = Document("x", MakeRun(1, 10, 10, 1, 1, 2));
  doc.doc["results"]["operations"] = "many";
  m = MergeResults({doc});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Status::Code::kCorruption);

  EXPECT_FALSE(MergeResults({}).ok());
}

// Runs the real binary; returns its exit status, stdout and stderr.
int RunBinary(const std::string& args, std::string* out, std::string* err,
              const std::filesystem::path& dir) {
  const std::string o = (dir / "stdout.txt").string(), e = (dir / "stderr.txt").string();
  const int st = std::system((kBinary + " " + args + " >" + o + " 2>" + e).c_str());
  std::stringstream so, se;
  so << std::ifstream(o).rdbuf();
  se << std::ifstream(e).rdbuf();
  *out = so.str();
  *err = se.str();
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST_F(MergeFiles, CommandWritesMergedJsonAndPrintsText) {
  const std::string a = Write("a.json", Document("a", MakeRun(3, 100, 50, 1, 1, 3)).doc.dump());
  const std::string b = Write("b.json", Document("b", MakeRun(4, 200, 50, 2, 2, 4)).doc.dump());
  const std::string merged = (dir_ / "merged.json").string();
  std::string out, err;
  ASSERT_EQ(RunBinary("merge " + a + " " + b + " --out " + merged + " --text", &out, &err, dir_), 0)
      << err;
  EXPECT_NE(out.find("[OVERALL], Throughput(ops/sec), 205.0"), std::string::npos) << out;
  auto doc = ReadResultFile(merged);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->doc["results"]["operations"].get<uint64_t>(), 410u);

  EXPECT_EQ(RunBinary("merge " + a + " " + (dir_ / "nope.json").string(), &out, &err, dir_), 2);
  EXPECT_NE(err.find("cannot read"), std::string::npos) << err;

  // The same file twice: refused, naming it.
  EXPECT_EQ(RunBinary("merge " + a + " " + a + " --out " + merged, &out, &err, dir_), 2);
  EXPECT_NE(err.find("are the same run"), std::string::npos) << err;

  // A write error is an error, and /dev/full stays a device.
  EXPECT_EQ(RunBinary("merge " + a + " " + b + " --out /dev/full", &out, &err, dir_), 2);
  EXPECT_NE(err.find("/dev/full"), std::string::npos) << err;
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
}

// Two real runs, one after the other, against one in-process server.
TEST(Merge, TwoRealRunsAgainstOneServer) {
  testing::NullServerFixture server;
  testing::MixedWorkload w;
  DriverOptions d = server.Options(4);
  std::vector<NamedResult> docs;
  uint64_t sum = 0;
  for (int i = 0; i < 2; ++i) {
    d.operations = 400 * (i + 1);
    auto r = RunLoad(d, &w);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    sum += r->operations;
    docs.push_back(Document("run" + std::to_string(i), *r));
  }
  auto m = MergeResults(docs);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->result.operations, sum);
  EXPECT_EQ(sum, 1200u);
  uint64_t latency_count = 0;
  // Operations' latencies (CLEANUP's are the clients' cleanups, not operations).
  for (const OpStats& s : m->result.ops)
    if (&s != &m->result.ops[size_t(OpType::kCleanup)])
      latency_count += uint64_t(s.latency.total_count());
  EXPECT_EQ(latency_count, sum);
  // Server figures from the first run's before to the second's after.
  const json& before = m->result.server_before;
  const json& after = m->result.server_after;
  EXPECT_GE(after["calls"]["Mutate"].get<uint64_t>() - before["calls"]["Mutate"].get<uint64_t>(),
            300u);
  EXPECT_GE(after["calls"]["Get"].get<uint64_t>() - before["calls"]["Get"].get<uint64_t>(), 300u);
  EXPECT_TRUE(m->costs.server.available);
  EXPECT_GT(m->costs.server.cpu_us, 0.0);
  // They ran one after the other: the merge says so.
  EXPECT_FALSE(m->warnings.empty());
}

}  // namespace
}  // namespace wirebench
