// The result file's schema (bench/results/result_json.h): write, read, write
// again gives the same bytes, for open-loop figures, partial results, server
// Stats, hardware counters available and not; every field the writer stores
// is read back (the drift that made merged open-loop runs show 0 and merge
// read hardware counters nobody wrote); files from before run_id/runtime_s
// still read.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench/results/report.h"
#include "bench/results/result_json.h"

namespace wirebench {
namespace {

using nlohmann::json;

json Stats(double uptime, double cpu_ns, bool hw) {
  return {{"server", {{"bind", "127.0.0.1"}, {"port", 4000}, {"io_threads", 1}, {"uptime_s", uptime}}},
          {"bytes_in", uint64_t(uptime * 1000)},
          {"bytes_out", uint64_t(uptime * 100)},
          {"allocation_counting", true},
          {"threads", json::array({{{"role", "server-io"}, {"tid", 7}, {"cpu_ns", cpu_ns},
                                     {"hw_available", hw}, {"cycles", cpu_ns * 3}}})}};
}

// An open-loop, partial run with every field set.
RunResult OpenLoopPartial() {
  RunResult r;
  r.partial = true;
  r.error = Status::Aborted("stopped on request (SIGINT)");
  r.runtime_s = 0.566;  // Not a multiple of 1 ms / 1000 exactly.
  for (int i = 1; i <= 300; ++i) {
    r.ops[size_t(OpType::kRead)].latency.Record(int64_t(i) * 1733);
    r.ops[size_t(OpType::kRead)].intended_latency.Record(int64_t(i) * 2111);
  }
  r.ops[size_t(OpType::kRead)].results = {290, 7, 3};
  r.ops[size_t(OpType::kRead)].failed_latency.Record(9'999'999);
  r.ops[size_t(OpType::kUpdate)].latency.Record(123'456);
  r.ops[size_t(OpType::kUpdate)].results = {1, 0, 0};
  r.operations = 301;
  for (int i = 1; i <= 301; ++i) r.schedule_lateness.Record(int64_t(i) * 97);
  for (int i = 1; i <= 120; ++i) r.timer_lateness.Record(int64_t(i) * 31);
  r.behind_schedule = 181;
  r.client_usage.cpu_ns = 1.25e6;
  r.client_usage.user_ns = 1e6;
  r.client_usage.sys_ns = 0.25e6;
  r.client_usage.voluntary_switches = 11;
  r.client_usage.involuntary_switches = 3;
  r.client_usage.hw_available = true;
  r.client_usage.cycles = 4.5e6;
  r.client_usage.instructions = 9.1e6;
  r.client_usage.cache_misses = 1234;
  r.client_usage.threads = 2;
  r.client_counters = {.allocs = 5, .alloc_bytes = 320, .frees = 4, .encode_copied = 17,
                       .decode_copied = 19};
  r.connections = {.frames_out = 301, .frames_in = 300, .bytes_out = 30100, .bytes_in = 9000,
                   .writes = 150, .reads = 149, .stray_replies = 1};
  r.server_before = Stats(10, 1e6, true);
  r.server_after = Stats(11, 3e6, true);
  return r;
}

// Closed loop, complete, no hardware counters, no server Stats.
RunResult ClosedLoopNoServer() {
  RunResult r;
  r.runtime_s = 2;
  for (int i = 1; i <= 100; ++i) r.ops[size_t(OpType::kInsert)].latency.Record(int64_t(i) * 1000);
  r.ops[size_t(OpType::kInsert)].results[size_t(OpResult::kOk)] = 100;
  r.operations = 100;
  r.client_usage.cpu_ns = 5e5;
  r.client_usage.threads = 1;
  r.server_stats_error = "Unavailable: Stats call timed out";
  return r;
}

std::string Write(const RunResult& r, const ReportOptions& o) {
  return ResultToJson(r, ComputeCosts(r), o).dump(2);
}

RunResult Read(const std::string& text) {
  auto r = RunResultFromJson(json::parse(text), "test.json");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : RunResult{};
}

TEST(ResultJson, WriteReadWriteIsByteIdentical) {
  ReportOptions both;
  both.percentiles = {50, 99.9};
  both.measurement_interval = "both";
  for (const RunResult& r : {OpenLoopPartial(), ClosedLoopNoServer()}) {
    const std::string first = Write(r, both);
    const std::string second = Write(Read(first), both);
    EXPECT_EQ(first, second);
    // And the run id survives: the second write did not make a new one.
    EXPECT_EQ(json::parse(first)["run_id"], json::parse(second)["run_id"]);
  }
}

TEST(ResultJson, EveryStoredFieldIsReadBack) {
  const RunResult r = OpenLoopPartial();
  const RunResult back = Read(Write(r, {}));
  // Open-loop figures (merge used to drop these).
  EXPECT_EQ(back.timer_lateness.total_count(), 120);
  EXPECT_EQ(back.timer_lateness.Max(), r.timer_lateness.Max());
  EXPECT_EQ(back.behind_schedule, 181u);
  EXPECT_EQ(back.schedule_lateness.total_count(), 301);
  // Hardware counters (merge used to read them though nobody wrote them).
  EXPECT_TRUE(back.client_usage.hw_available);
  EXPECT_DOUBLE_EQ(back.client_usage.cycles, 4.5e6);
  EXPECT_DOUBLE_EQ(back.client_usage.instructions, 9.1e6);
  EXPECT_DOUBLE_EQ(back.client_usage.cache_misses, 1234);
  // The rest of the model.
  EXPECT_TRUE(back.partial);
  EXPECT_EQ(back.error.code(), Status::Code::kAborted);
  EXPECT_EQ(back.error.message(), "stopped on request (SIGINT)");
  EXPECT_DOUBLE_EQ(back.runtime_s, 0.566);
  EXPECT_EQ(back.client_counters.frees, 4u);
  EXPECT_EQ(back.connections.frames_in, 300u);
  EXPECT_EQ(back.connections.reads, 149u);
  EXPECT_EQ(back.connections.stray_replies, 1u);
  EXPECT_EQ(back.ops[size_t(OpType::kRead)].results, r.ops[size_t(OpType::kRead)].results);
  EXPECT_EQ(back.ops[size_t(OpType::kRead)].intended_latency.total_count(), 300);
  EXPECT_EQ(back.ops[size_t(OpType::kRead)].failed_latency.total_count(), 1);
  EXPECT_EQ(back.server_after, r.server_after);
  EXPECT_FALSE(back.run_id.empty());

  const RunResult none = Read(Write(ClosedLoopNoServer(), {}));
  EXPECT_FALSE(none.client_usage.hw_available);
  EXPECT_TRUE(none.server_before.is_null());
  EXPECT_EQ(none.server_stats_error, "Unavailable: Stats call timed out");
  EXPECT_EQ(none.timer_lateness.total_count(), 0);
}

TEST(ResultJson, EachWriteOfANewResultGetsItsOwnRunId) {
  const RunResult r = ClosedLoopNoServer();
  const json a = json::parse(Write(r, {}));
  const json b = json::parse(Write(r, {}));
  ASSERT_TRUE(a["run_id"].is_string());
  EXPECT_NE(a["run_id"], b["run_id"]);
  RunResult named = r;
  named.run_id = "fixed";
  EXPECT_EQ(json::parse(Write(named, {}))["run_id"], "fixed");
}

TEST(ResultJson, FilesFromBeforeRunIdsAndRuntimeSecondsStillRead) {
  json old = json::parse(Write(ClosedLoopNoServer(), {}));
  for (const char* k : {"run_id", "runtime_s", "merged_run_ids", "behind_schedule"}) old.erase(k);
  old["server"].erase("stats_error");
  auto r = RunResultFromJson(old, "old.json");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_DOUBLE_EQ(r->runtime_s, 2.0);
  EXPECT_TRUE(r->run_id.empty());
  // The reason the server figures are missing, from the costs section.
  EXPECT_EQ(r->server_stats_error, "Unavailable: Stats call timed out");
  // Identity of an old document: client host and start.
  json doc = {{"environment", {{"hostname", "h1"}}}, {"results", old}};
  EXPECT_NE(RunIdentity(doc).find("client h1"), std::string::npos) << RunIdentity(doc);
}

TEST(ResultJson, MalformedFieldsAreCorruptionNamingTheFile) {
  json j = json::parse(Write(OpenLoopPartial(), {}));
  j["timer_lateness"]["histogram_ns"] = "AAAA";
  auto r = RunResultFromJson(j, "bad.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kCorruption);
  EXPECT_NE(r.status().ToString().find("bad.json: results.timer_lateness.histogram_ns"),
            std::string::npos)
      << r.status().ToString();
  j = json::parse(Write(OpenLoopPartial(), {}));
  j["client_raw"]["cycles"] = "many";
  r = RunResultFromJson(j, "bad.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("bad.json"), std::string::npos);
}

}  // namespace
}  // namespace wirebench
