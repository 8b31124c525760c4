// Open loop (-target): operations start on a schedule, latency is recorded
// from the intended start as well as from the send, and a server slower than
// the schedule shows up as queueing in the intended latency, not hidden.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>

#include "bench/loadgen/driver.h"
#include "bench/loadgen/logical_client.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/wirebench/server.h"
#include "tests/null_server_fixture.h"
#include "tests/test_workloads.h"

namespace wirebench {
namespace {

using Fixture = testing::NullServerFixture;

TEST(OpenLoop, RunsTheScheduledNumberOfOperations) {
  Fixture f;
  testing::MixedWorkload w(/*puts_only=*/true);
  DriverOptions d = f.Options(4);
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
  DriverOptions d = f.Options(2);
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
  DriverOptions d = f.Options(4);
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
  DriverOptions d = f.Options(2);
  d.operations = 200;
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->ops[size_t(OpType::kUpdate)].intended_latency.total_count(), 0);
  EXPECT_EQ(r->schedule_lateness.total_count(), 0);
}

// Read-modify-write: a Get, then a put sent from the Get's reply dispatch.
// Counts what the driver reports back to the stream.
struct TwoCallCounts {
  std::atomic<int64_t> reads{0}, finished{0};
};
class TwoCallStream final : public OpStream {
 public:
  explicit TwoCallStream(TwoCallCounts* counts) : counts_(counts) {}
  bool Next(PlannedOp* op) override {
    op->type = OpType::kReadModifyWrite;
    op->ncalls = 2;
    op->calls[0].method = Method::kGet;
    op->calls[0].get = GetRequest();
    op->calls[0].get.row = ByteView(rec_.row);
    op->calls[1].method = Method::kMutate;
    op->calls[1].mutate.mutation = Mutation{ByteView(rec_.row), MutationType::kPut, 0, rec_.cells};
    return true;
  }
  OpResult OnRead(const PlannedOp& op, const GetResponse& read) override {
    EXPECT_EQ(op.type, OpType::kReadModifyWrite);
    counts_->reads.fetch_add(1);
    return OpResult::kOk;
  }
  void Finish(const PlannedOp&, OpResult result) override {
    EXPECT_EQ(result, OpResult::kOk);
    counts_->finished.fetch_add(1);
  }

 private:
  TwoCallCounts* counts_;
  testing::Record rec_;
};
class TwoCallWorkload final : public Workload {
 public:
  std::unique_ptr<OpStream> NewStream(int, int) override {
    return std::make_unique<TwoCallStream>(&counts);
  }
  TwoCallCounts counts;
};

// Both calls of every operation go out, the second from the first's reply,
// and the operation is recorded once, after the second reply.
void ExpectTwoCallOperations(ThreadModel model, int threads, int64_t operations) {
  Fixture f;
  TwoCallWorkload w;
  DriverOptions d = f.Options(threads);
  d.operations = operations;
  d.thread_model = model;
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->partial) << r->error.ToString();
  EXPECT_EQ(r->operations, uint64_t(operations));
  EXPECT_EQ(r->ops[size_t(OpType::kReadModifyWrite)].latency.total_count(), operations);
  EXPECT_EQ(w.counts.reads.load(), w.counts.finished.load());
  EXPECT_GE(w.counts.finished.load(), operations);
  EXPECT_GE(r->connections.frames_in, uint64_t(2 * operations));
  EXPECT_EQ(r->connections.stray_replies, 0u);
  EXPECT_EQ(r->connections.frames_out % 2, 0u) << "an operation stopped after its first call";
}

TEST(ClosedLoop, SecondCallOfAnOperationIsSentFromTheFirstReply) {
  ExpectTwoCallOperations(ThreadModel::kCoroutines, 5, 1000);
}

// Every closed-loop operation is in exactly one status interval: the
// interval histograms are copied and reset on the client's thread.
TEST(ClosedLoop, StatusIntervalsAddUpToTheRun) {
  Fixture f;
  testing::MixedWorkload w;
  DriverOptions d = f.Options(4);
  d.operations = 20000;
  d.status_interval_s = 0.02;
  int64_t interval_ops = 0, interval_latencies = 0, snapshots = 0;
  d.on_status = [&](double, const StatusSnapshot& snap) {
    ++snapshots;
    for (const OpStats& s : snap.interval) {
      interval_ops += int64_t(s.count());
      interval_latencies += s.latency.total_count() + s.failed_latency.total_count();
    }
  };
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->partial) << r->error.ToString();
  EXPECT_EQ(r->operations, 20000u);
  EXPECT_GE(snapshots, 1);
  EXPECT_EQ(interval_ops, 20000);
  EXPECT_EQ(interval_latencies, 20000);
}

// A request over the frame limit fails inside Send(): the client that sent
// it ends the run with that reason instead of waiting for a reply.
class OversizedStream final : public OpStream {
 public:
  OversizedStream() : value_(size_t(rpc::kDefaultMaxCallBytes) + 1, 'x') {
    cell_ = Cell{ByteView(row_), ByteView(family_), ByteView(qualifier_), 0, CellType::kPut,
                 ByteView(value_)};
  }
  bool Next(PlannedOp* op) override {
    op->type = OpType::kUpdate;
    op->ncalls = 1;
    op->calls[0].method = Method::kMutate;
    op->calls[0].mutate.mutation =
        Mutation{ByteView(row_), MutationType::kPut, 0, std::span<const Cell>(&cell_, 1)};
    return true;
  }

 private:
  std::string row_ = "row", family_ = "f", qualifier_ = "q", value_;
  Cell cell_;
};
class OversizedWorkload final : public Workload {
 public:
  std::unique_ptr<OpStream> NewStream(int, int) override {
    return std::make_unique<OversizedStream>();
  }
};

void ExpectFrameLimitEndsTheRun(ThreadModel model, int threads) {
  Fixture f;
  OversizedWorkload w;
  DriverOptions d = f.Options(threads);
  d.operations = 10;
  d.thread_model = model;
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->partial);
  EXPECT_NE(r->error.ToString().find("frame limit"), std::string::npos) << r->error.ToString();
  EXPECT_EQ(r->operations, 0u);
}

TEST(ClosedLoop, RequestOverTheFrameLimitEndsTheRunWithItsReason) {
  ExpectFrameLimitEndsTheRun(ThreadModel::kCoroutines, 1);
}

// A thread's histograms exist only for what it recorded, and a reset keeps
// them (the client's thread allocates nothing in steady state).
TEST(ThreadOpStats, HistogramsAreAllocatedByTheirFirstValue) {
  ThreadOpStats s;
  EXPECT_EQ(s.latency, nullptr);
  EXPECT_EQ(s.intended_latency, nullptr);
  EXPECT_EQ(s.failed_latency, nullptr);
  RecordLazily(&s.latency, 1500);
  RecordLazily(&s.latency, 2500);
  ++s.results[size_t(OpResult::kOk)];
  ASSERT_NE(s.latency, nullptr);
  const hdr::Histogram* kept = s.latency.get();
  EXPECT_EQ(s.intended_latency, nullptr);
  OpStats out;
  s.AddTo(&out);
  EXPECT_EQ(out.latency.total_count(), 2);
  EXPECT_EQ(out.latency.Max(), out.latency.HighestEquivalentValue(2500));
  EXPECT_EQ(out.intended_latency.total_count(), 0);
  EXPECT_EQ(out.count(), 1u);
  s.Reset();
  EXPECT_EQ(s.latency.get(), kept);
  EXPECT_EQ(s.latency->total_count(), 0);
  EXPECT_EQ(s.results[size_t(OpResult::kOk)], 0u);
}

// One OS thread per logical client, sharing --connections connections,
// each with a reader thread; the readers are client threads in the usage.
TEST(OsThreadModel, OneThreadPerClientSharingTheConnections) {
  Fixture f;
  testing::MixedWorkload w(/*puts_only=*/true);
  DriverOptions d = f.Options(6);
  d.connections = 2;
  d.operations = 600;
  d.thread_model = ThreadModel::kOs;
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->partial) << r->error.ToString();
  EXPECT_EQ(r->operations, 600u);
  EXPECT_EQ(r->client_usage.threads, 6 + 2);
  EXPECT_GT(r->client_usage.cpu_ns, 0);
  const nlohmann::json& after = r->server_after;
  EXPECT_EQ(after["connections"]["accepted"].get<int>(), 2);
  // Every measured operation's frame and reply are in the counters, plus the Stats calls.
  EXPECT_GE(r->connections.frames_out, 600u);
  EXPECT_EQ(r->connections.frames_in, r->connections.frames_out);
  EXPECT_EQ(r->connections.stray_replies, 0u);
  EXPECT_GE(r->connections.writes, 1u);
  EXPECT_LE(r->connections.writes, r->connections.frames_out);
}

// The OS-thread model's shared channel: both calls of an operation, exact
// counts, and the connections' counters in the result.
TEST(OsThreadModel, SharedChannelRunsTwoCallOperations) {
  ExpectTwoCallOperations(ThreadModel::kOs, 3, 300);
}

TEST(OsThreadModel, MoreThreadsThanConnectionsRunTwoCallOperations) {
  ExpectTwoCallOperations(ThreadModel::kOs, 16, 3200);
}

TEST(OsThreadModel, RequestOverTheFrameLimitEndsTheRunWithItsReason) {
  ExpectFrameLimitEndsTheRun(ThreadModel::kOs, 2);
}

}  // namespace
}  // namespace wirebench
