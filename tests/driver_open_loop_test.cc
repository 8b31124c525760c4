// Open loop (-target): operations start on a schedule, latency is recorded
// from the intended start as well as from the send, and a server slower than
// the schedule shows up as queueing in the intended latency, not hidden.
#include <gtest/gtest.h>

#include <chrono>

#include "bench/loadgen/driver.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "rpc/server.h"
#include "tests/test_workloads.h"

namespace wirebench {
namespace {

struct Fixture {
  explicit Fixture(NullRegionOptions n = {}) : region(NewNullRegion(n)), service(region.get()) {
    server = std::make_unique<rpc::Server>(rpc::ServerOptions{}, &service);
    EXPECT_TRUE(server->Start().ok());
  }
  std::unique_ptr<Region> region;
  RegionService service;
  std::unique_ptr<rpc::Server> server;
};

TEST(OpenLoop, RunsTheScheduledNumberOfOperations) {
  Fixture f;
  testing::MixedWorkload w(/*puts_only=*/true);
  DriverOptions d;
  d.port = f.server->port();
  d.threads = 4;
  d.target_ops = 2000;
  d.operations = 1000;  // Half a second of schedule.
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->partial);
  EXPECT_EQ(r->operations, 1000u);
  // 1000 operations at 2000/s take 0.5 s of schedule: the run cannot be much
  // shorter than the schedule (it would mean the pacing is not applied).
  EXPECT_GE(r->runtime_s, 0.45);
  const OpStats& s = r->ops[size_t(OpType::kUpdate)];
  EXPECT_EQ(s.intended_latency.total_count(), 1000);
  EXPECT_EQ(r->schedule_lateness.total_count(), 1000);
  // Intended latency includes the wait for the send, so it is never below it.
  EXPECT_GE(s.intended_latency.ValueAtPercentile(50), s.latency.ValueAtPercentile(50));
}

// A client sleeping until its next scheduled operation (here 60 s away) is
// woken when the run ends, instead of holding the run open until then.
TEST(OpenLoop, EndOfRunWakesClientsWaitingForTheirSchedule) {
  Fixture f;
  testing::MixedWorkload w(/*puts_only=*/true);
  DriverOptions d;
  d.port = f.server->port();
  d.threads = 2;
  d.target_ops = 2.0 / 60;  // One operation per client per minute.
  d.max_seconds = 0.2;
  const auto start = std::chrono::steady_clock::now();
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->partial) << r->error.ToString();
  EXPECT_LE(r->operations, 2u);  // Each client's first operation, at most.
  // Far below the 60 s schedule; loose for a loaded machine.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(OpenLoop, SlowServerShowsQueueingDelayInIntendedLatency) {
  NullRegionOptions slow;
  slow.delay_us = 2000;  // Each reply held 2 ms: 4 clients can do at most ~2000 ops/s.
  Fixture f(slow);
  testing::MixedWorkload w(/*puts_only=*/true);
  DriverOptions d;
  d.port = f.server->port();
  d.threads = 4;
  d.target_ops = 8000;  // Four times what the server can answer.
  d.operations = 800;
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok());
  const OpStats& s = r->ops[size_t(OpType::kUpdate)];
  const int64_t op_p50 = s.latency.ValueAtPercentile(50);
  const int64_t intended_p50 = s.intended_latency.ValueAtPercentile(50);
  // Op latency stays about the server's 2 ms; the schedule falls further
  // behind with every operation, so the intended latency grows far beyond it.
  EXPECT_GE(op_p50, 1'900'000);
  EXPECT_GT(intended_p50, 5 * op_p50) << "coordinated omission would hide this";
  EXPECT_GT(r->schedule_lateness.ValueAtPercentile(50), 10'000'000);
}

TEST(ClosedLoop, RecordsNoIntendedLatency) {
  Fixture f;
  testing::MixedWorkload w(/*puts_only=*/true);
  DriverOptions d;
  d.port = f.server->port();
  d.threads = 2;
  d.operations = 200;
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->ops[size_t(OpType::kUpdate)].intended_latency.total_count(), 0);
  EXPECT_EQ(r->schedule_lateness.total_count(), 0);
}

TEST(OsThreadModel, OneThreadAndConnectionPerClient) {
  Fixture f;
  testing::MixedWorkload w(/*puts_only=*/true);
  DriverOptions d;
  d.port = f.server->port();
  d.threads = 6;
  d.operations = 600;
  d.thread_model = ThreadModel::kOs;
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->partial);
  EXPECT_EQ(r->operations, 600u);
  EXPECT_EQ(r->client_usage.threads, 6);
  const nlohmann::json& after = r->server_after;
  EXPECT_GE(after["connections"]["accepted"].get<int>(), 6);
}

}  // namespace
}  // namespace wirebench
