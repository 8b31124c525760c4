// --pipeline N in the driver: each logical client is N lanes on its thread
// and connection, each with one operation in flight, so a client never has
// more than N operations outstanding (open loop too); the operation count,
// the CLEANUP samples (one per logical client) and the refusals (N < 1, the
// OS-thread model, more calls than a connection carries).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bench/loadgen/client_limits.h"
#include "bench/loadgen/driver.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "tests/null_server_fixture.h"
#include "tests/test_workloads.h"
#include "transports/wirebench/server.h"

namespace wirebench {
namespace {

// A run of `threads` logical clients, each keeping `pipeline` operations in flight.
struct Fixture : testing::NullServerFixture {
  using NullServerFixture::NullServerFixture;
  DriverOptions Options(int threads, int pipeline) const {
    DriverOptions d = NullServerFixture::Options(threads);
    d.pipeline = pipeline;
    return d;
  }
};

// Operations planned and not yet finished, per logical client. The driver
// gives lane j of client i stream j * threads + i of threads * pipeline
// (DriverOptions::pipeline), so a stream's client is its index modulo the
// client count. A planned operation may still wait for its start time (open
// loop), so this bounds what is in flight from above.
struct Outstanding {
  explicit Outstanding(int clients) : now(size_t(clients)), peak(size_t(clients)) {}
  void Begin(int client) {
    std::lock_guard<std::mutex> lock(mu);
    const int n = ++now[size_t(client)];
    peak[size_t(client)] = std::max(peak[size_t(client)], n);
  }
  void End(int client) {
    std::lock_guard<std::mutex> lock(mu);
    --now[size_t(client)];
  }
  std::mutex mu;
  std::vector<int> now, peak;
};

class CountingStream final : public OpStream {
 public:
  CountingStream(Outstanding* out, int client) : out_(out), client_(client), inner_(true) {}
  bool Next(PlannedOp* op) override {
    if (!inner_.Next(op)) return false;
    out_->Begin(client_);
    return true;
  }
  void Finish(const PlannedOp&, OpResult) override { out_->End(client_); }

 private:
  Outstanding* out_;
  int client_;
  testing::MixedStream inner_;
};

class CountingWorkload final : public Workload {
 public:
  CountingWorkload(Outstanding* out, int threads) : out_(out), threads_(threads) {}
  std::unique_ptr<OpStream> NewStream(int index, int count) override {
    streams.fetch_add(1);
    EXPECT_EQ(count % threads_, 0) << "streams in all: a multiple of -threads";
    return std::make_unique<CountingStream>(out_, index % threads_);
  }
  std::atomic<int> streams{0};

 private:
  Outstanding* out_;
  int threads_;
};

// Closed loop: every operation is counted once by the client and once by
// the server, and the lanes are as many streams as -threads x --pipeline.
TEST(Pipeline, ClosedLoopRunsTheOperationCountOverLanes) {
  Fixture f;
  Outstanding out(3);
  CountingWorkload w(&out, 3);
  DriverOptions d = f.Options(3, 4);
  d.operations = 301;  // Not a multiple of the lanes: the remainder is split too.
  d.binding_times_cleanup = false;  // BasicDB's: one CLEANUP sample per logical client.
  const uint64_t before = f.ServerMutates();
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->partial) << r->error.ToString();
  EXPECT_EQ(w.streams.load(), 12);
  EXPECT_EQ(r->operations, 301u);
  EXPECT_EQ(r->ops[size_t(OpType::kUpdate)].latency.total_count(), 301);
  EXPECT_EQ(f.ServerMutates() - before, 301u);
  // One CLEANUP per logical client, not per lane.
  EXPECT_EQ(r->ops[size_t(OpType::kCleanup)].latency.total_count(), 3);
  for (int c = 0; c < 3; ++c) {
    EXPECT_LE(out.peak[size_t(c)], 4) << "client " << c;
    EXPECT_GE(out.peak[size_t(c)], 1) << "client " << c;
  }
}

// Open loop against a server slower than the schedule: operations queue up
// behind the schedule, yet no client ever has more than N outstanding.
TEST(Pipeline, OpenLoopNeverHasMoreThanTheDepthOutstanding) {
  NullRegionOptions slow;
  slow.delay_us = 2000;  // Each reply held 2 ms.
  Fixture f(slow);
  Outstanding out(2);
  CountingWorkload w(&out, 2);
  DriverOptions d = f.Options(2, 3);
  d.target_ops = 20000;  // Far above what 6 lanes at 2 ms can answer.
  d.operations = 240;
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->partial) << r->error.ToString();
  EXPECT_EQ(r->operations, 240u);
  const OpStats& s = r->ops[size_t(OpType::kUpdate)];
  EXPECT_EQ(s.intended_latency.total_count(), 240);
  EXPECT_EQ(r->schedule_lateness.total_count(), 240);
  for (int c = 0; c < 2; ++c) EXPECT_LE(out.peak[size_t(c)], 3) << "client " << c;
}

TEST(Pipeline, RefusesDepthsBelowOneAndAboveAConnection) {
  for (int bad : {0, -1, kMaxClientsPerConnection + 1}) {
    DriverOptions d;
    d.pipeline = bad;
    const Status s = ValidateDriverOptions(d);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("--pipeline must be 1"), std::string::npos) << s.ToString();
  }
}

TEST(Pipeline, OsThreadModelIsRefusedSayingWhy) {
  DriverOptions d;
  d.pipeline = 2;
  d.thread_model = ThreadModel::kOs;
  const Status s = ValidateDriverOptions(d);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--thread-model coroutines"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("blocks for each reply"), std::string::npos) << s.ToString();
  d.pipeline = 1;
  EXPECT_TRUE(ValidateDriverOptions(d).ok());
}

// A client's lanes share its connection: their calls count against its slots.
TEST(Pipeline, LanesCountAgainstAConnectionsCallSlots) {
  DriverOptions d;
  d.threads = 1000;
  d.pipeline = 100;  // 100000 calls on one connection.
  EXPECT_EQ(PlanLayout(d).max_clients_per_connection, 100000);
  const Status s = CheckClientLimits(d, HostLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--pipeline 100"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("--connections 2"), std::string::npos) << s.ToString();
  d.connections = 2;
  EXPECT_TRUE(CheckClientLimits(d, HostLimits{}).ok());
}

}  // namespace
}  // namespace wirebench
