// The driver never blocks for long on a server that does not answer, obeys
// a stop request promptly and reports why it stopped (which signal, or the
// server's silence), refuses loads over the per-connection call limit or
// this host's limits up front, and reaches servers by IPv6 address.
#include <gtest/gtest.h>

#include <future>

#include "bench/loadgen/client_limits.h"
#include "bench/loadgen/driver.h"
#include "bench/loadgen/host_port.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/wirebench/server.h"
#include "tests/silent_listener.h"
#include "tests/test_workloads.h"

namespace wirebench {
namespace {

using std::chrono::steady_clock;

// Runs RunLoad on a thread so that a hang fails the test instead of the suite.
class AsyncLoad {
 public:
  AsyncLoad(DriverOptions d) : d_(std::move(d)) {
    result_ = std::async(std::launch::async, [this] { return RunLoad(d_, &w_); });
  }
  // The result, or an error if RunLoad has not returned within `bound`.
  StatusOr<RunResult> Get(std::chrono::seconds bound) {
    if (result_.wait_for(bound) != std::future_status::ready) {
      ADD_FAILURE() << "RunLoad did not return within " << bound.count() << " s";
      RequestStop();
      result_.wait();
    }
    return result_.get();
  }

 private:
  DriverOptions d_;
  testing::MixedWorkload w_{/*puts_only=*/true};
  std::future<StatusOr<RunResult>> result_;
};

class DriverStop : public ::testing::Test {
 protected:
  void SetUp() override { ResetStopRequest(); }
  void TearDown() override { ResetStopRequest(); }
};

// A listener that accepts and never answers. The run ends
// by itself after --seconds with an error naming the peer, and the Stats
// call that got no answer is unregistered (no crash when the run ends).
void ExpectSilentServerEndsTheRunWithAClearError(ThreadModel model) {
  testing::SilentListener silent;
  DriverOptions d;
  d.port = silent.port();
  d.threads = 4;
  d.thread_model = model;
  d.max_seconds = 0.5;
  AsyncLoad load(d);
  auto r = load.Get(std::chrono::seconds(60));
  const std::string peer = "127.0.0.1:" + std::to_string(silent.port());
  if (!r.ok()) {  // With a handshake timeout in the client, the connection fails first.
    EXPECT_NE(r.status().message().find(peer), std::string::npos) << r.status().ToString();
    return;
  }
  EXPECT_TRUE(r->partial);
  EXPECT_EQ(r->operations, 0u);
  EXPECT_NE(r->error.message().find(peer), std::string::npos) << r->error.ToString();
  EXPECT_EQ(r->error.message().find("SIGINT"), std::string::npos) << r->error.ToString();
}

TEST_F(DriverStop, SilentServerEndsByItselfWithAClearError) {
  ExpectSilentServerEndsTheRunWithAClearError(ThreadModel::kCoroutines);
}

TEST_F(DriverStop, OsModelSilentServerEndsByItselfWithAClearError) {
  ExpectSilentServerEndsTheRunWithAClearError(ThreadModel::kOs);
}

// SIGINT (as the signal watcher reports it) ends a run stuck on a silent
// server promptly, and the result says it was SIGINT.
void ExpectStopEndsARunStuckOnASilentServer(ThreadModel model, int threads) {
  testing::SilentListener silent;
  DriverOptions d;
  d.port = silent.port();
  d.threads = threads;
  d.thread_model = model;
  d.fetch_server_stats = false;  // Straight to the calls that get no answer.
  AsyncLoad load(d);
  ASSERT_TRUE(silent.WaitForBytes(1000));  // Puts sent, waiting for answers.
  const auto asked = steady_clock::now();
  RequestStop(StopReason::kSigint);
  auto r = load.Get(std::chrono::seconds(60));
  // Designed to take ~0.3 s; the bound leaves room for a loaded machine.
  EXPECT_LT(steady_clock::now() - asked, std::chrono::seconds(3));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->partial);
  EXPECT_NE(r->error.message().find("SIGINT"), std::string::npos) << r->error.ToString();
}

TEST_F(DriverStop, StopRequestEndsARunStuckOnASilentServer) {
  ExpectStopEndsARunStuckOnASilentServer(ThreadModel::kCoroutines, 4);
}

// The same with --thread-model os: threads waiting for replies on a shared
// connection see the stop too.
TEST_F(DriverStop, StopRequestEndsAnOsModelRunStuckOnASilentServer) {
  ExpectStopEndsARunStuckOnASilentServer(ThreadModel::kOs, 8);
}

class DriverAgainstServer : public DriverStop {
 protected:
  void Start(const std::string& bind = "127.0.0.1") {
    region_ = NewNullRegion({});
    service_ = std::make_unique<RegionService>(region_.get());
    rpc::ServerOptions o;
    o.host = bind;
    server_ = std::make_unique<wbrpc::Server>(o, service_.get());
    start_status_ = server_->Start();
  }
  // Starts the server on loopback, which must succeed, and points `d` at it
  // with `threads` clients.
  void StartFor(int threads, DriverOptions* d) {
    Start();
    ASSERT_TRUE(start_status_.ok()) << start_status_.ToString();
    d->port = server_->port();
    d->threads = threads;
  }
  // Waits (30 s at most) until the server has answered `n` Mutate calls:
  // the run's calls flow.
  void WaitForMutates(uint64_t n) {
    const auto deadline = steady_clock::now() + std::chrono::seconds(30);
    while (steady_clock::now() < deadline &&
           server_->StatsJson()["calls"]["Mutate"].get<uint64_t>() < n)
      std::this_thread::yield();
  }
  std::unique_ptr<Region> region_;
  std::unique_ptr<RegionService> service_;
  std::unique_ptr<wbrpc::Server> server_;
  Status start_status_;
};

// SIGTERM is reported as SIGTERM, not SIGINT.
TEST_F(DriverAgainstServer, SigtermIsReportedAsSigterm) {
  DriverOptions d;
  ASSERT_NO_FATAL_FAILURE(StartFor(4, &d));
  AsyncLoad load(d);
  WaitForMutates(100);
  RequestStop(StopReason::kSigterm);
  auto r = load.Get(std::chrono::seconds(60));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->partial);
  EXPECT_GT(r->operations, 0u);
  EXPECT_NE(r->error.message().find("SIGTERM"), std::string::npos) << r->error.ToString();
}

// --thread-model os: a server that goes away mid-run fails the threads'
// calls; the run ends by itself, partial, with an error naming the server,
// and keeps what was measured.
TEST_F(DriverAgainstServer, OsModelServerGoneMidRunEndsTheRunWithAClearError) {
  DriverOptions d;
  ASSERT_NO_FATAL_FAILURE(StartFor(8, &d));
  d.connections = 2;
  d.thread_model = ThreadModel::kOs;
  d.max_seconds = 60;
  d.fetch_server_stats = false;
  AsyncLoad load(d);
  WaitForMutates(500);
  server_->Stop();
  auto r = load.Get(std::chrono::seconds(60));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->partial);
  EXPECT_GT(r->operations, 0u);
  EXPECT_NE(r->error.message().find("127.0.0.1:" + std::to_string(d.port)), std::string::npos)
      << r->error.ToString();
  EXPECT_EQ(r->error.message().find("SIGINT"), std::string::npos) << r->error.ToString();
}

// A server reached by IPv6 loopback address.
TEST_F(DriverAgainstServer, ReachesAnIpv6Server) {
  Start("::1");
  if (!start_status_.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << start_status_.ToString();
  std::string host;
  uint16_t port = 0;
  ASSERT_TRUE(ParseHostPort("[::1]:" + std::to_string(server_->port()), &host, &port).ok());
  DriverOptions d;
  d.host = host;
  d.port = port;
  d.threads = 2;
  d.operations = 100;
  AsyncLoad load(d);
  auto r = load.Get(std::chrono::seconds(60));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->partial) << r->error.ToString();
  EXPECT_EQ(r->operations, 100u);
}

TEST(HostPort, AcceptsHostPortAndBracketedIpv6) {
  std::string host;
  uint16_t port = 0;
  ASSERT_TRUE(ParseHostPort("127.0.0.1:16020", &host, &port).ok());
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 16020);
  ASSERT_TRUE(ParseHostPort("[::1]:9", &host, &port).ok());
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 9);
  ASSERT_TRUE(ParseHostPort("localhost:1", &host, &port).ok());
  EXPECT_EQ(host, "localhost");
  for (const char* bad :
       {"::1:80", "[::1]", "[::1]80", "[]:80", "host", ":80", "h:0", "h:65536", "h:80x", "h:"}) {
    Status s = ParseHostPort(bad, &host, &port);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("--server"), std::string::npos) << s.ToString();
  }
}

// More clients than one connection's call slots is refused
// up front, naming --connections; spreading over enough connections passes.
TEST(ClientLimits, CallSlotLimitPerConnection) {
  DriverOptions d;
  d.threads = 70000;
  d.connections = 1;
  Status s = CheckClientLimits(d, HostLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--connections 2"), std::string::npos) << s.ToString();
  d.connections = 2;
  EXPECT_TRUE(CheckClientLimits(d, HostLimits{}).ok());
  d.client_io_threads = 3;  // 3 threads, 3 connections: 23334 clients on the busiest.
  EXPECT_EQ(PlanLayout(d).max_clients_per_connection, 23334);
  EXPECT_TRUE(CheckClientLimits(d, HostLimits{}).ok());
}

// Through RunLoad: refused before connecting anywhere.
TEST(ClientLimits, RunLoadRefusesBeforeConnecting) {
  DriverOptions d;
  d.port = 1;  // Nothing listens; the check comes first.
  d.threads = 70000;
  testing::MixedWorkload w;
  auto r = RunLoad(d, &w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("--connections"), std::string::npos);
}

// OS threads against RLIMIT_NPROC, memory against
// MemAvailable, connections against the descriptor limit.
TEST(ClientLimits, HostLimitsAreCheckedWithClearMessages) {
  DriverOptions d;
  d.thread_model = ThreadModel::kOs;
  d.threads = 100000;
  HostLimits h;
  h.memory_available = 8ull << 30;
  Status s = CheckClientLimits(d, h);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kResourceExhausted);
  EXPECT_NE(s.message().find("MemAvailable"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("--thread-model coroutines"), std::string::npos) << s.ToString();
  h = {};
  h.max_processes = 4096;
  s = CheckClientLimits(d, h);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("ulimit -u"), std::string::npos) << s.ToString();
  // The threads share --connections connections: 100,000 threads on one
  // connection exceed its call slots; 2,000 connections need descriptors.
  h = {};
  s = CheckClientLimits(d, h);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--connections 2"), std::string::npos) << s.ToString();
  d.connections = 2;
  EXPECT_TRUE(CheckClientLimits(d, h).ok());
  d.connections = 2000;
  h.max_open_files = 1024;
  s = CheckClientLimits(d, h);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("ulimit -n"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("--connections"), std::string::npos) << s.ToString();
  // One reader thread per connection counts against the thread limit.
  h = {};
  h.max_processes = 100000 + 64 + 1000;
  EXPECT_FALSE(CheckClientLimits(d, h).ok());
  d.connections = 1;
  h.max_open_files = 1024;
  // 100,000 coroutines fit in memory and descriptors, but need 2 connections.
  d.thread_model = ThreadModel::kCoroutines;
  EXPECT_FALSE(CheckClientLimits(d, h).ok());
  d.connections = 2;
  EXPECT_TRUE(CheckClientLimits(d, h).ok());
}

TEST(DriverOptionsCheck, RangesNameTheFlag) {
  auto message = [](auto change) {
    DriverOptions d;
    change(d);
    return ValidateDriverOptions(d).ToString();
  };
  EXPECT_NE(message([](DriverOptions& d) { d.threads = 0; }).find("-threads"), std::string::npos);
  EXPECT_NE(message([](DriverOptions& d) { d.connections = 0; }).find("--connections"),
            std::string::npos);
  EXPECT_NE(message([](DriverOptions& d) { d.client_io_threads = 0; }).find("--client-io-threads"),
            std::string::npos);
  EXPECT_NE(message([](DriverOptions& d) { d.max_seconds = -1; }).find("--seconds"),
            std::string::npos);
  EXPECT_NE(message([](DriverOptions& d) { d.warmup_seconds = -1; }).find("--warmup"),
            std::string::npos);
  EXPECT_NE(message([](DriverOptions& d) { d.operations = -1; }).find("--ops"), std::string::npos);
  EXPECT_NE(message([](DriverOptions& d) { d.target_ops = std::nan(""); }).find("-target"),
            std::string::npos);
  EXPECT_NE(message([](DriverOptions& d) { d.codec = nullptr; }).find("--codec"),
            std::string::npos);
  EXPECT_TRUE(ValidateDriverOptions(DriverOptions{}).ok());
}

}  // namespace
}  // namespace wirebench
