// The gRPC transport at the rpc level, over real loopback gRPC: a
// GrpcServer serving the null region through RegionService (every codec)
// and the grpc-native service, and GrpcConnection / NativeConnection
// clients driven from this thread's io_context. Covers every codec and
// method, the 16 MiB message limit both ways, the server going away under
// load, Stats over gRPC with every thread's CPU, wire bytes from the
// socket, and prints calls/s and CPU per call for 32 concurrent 1 KB
// Mutates over gRPC and over wirebench's own RPC layer (no assertion on
// those figures).
#include <sys/resource.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <jemalloc/jemalloc.h>

#include <boost/asio.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "codecs/codec.h"
#include "common/thread_stats.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/wirebench/client.h"
#include "transports/grpc/grpc_client.h"
#include "transports/grpc/grpc_server.h"
#include "transports/grpc/native_client.h"
#include "transports/grpc/native_service.h"
#include "transports/grpc/process_threads.h"
#include "transports/wirebench/server.h"
#include "tests/call_outcome.h"
#include "tests/codec_test_messages.h"

namespace wirebench {
namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
using grpcrpc::GrpcConnection;
using testing::MessageStore;

constexpr auto kBound = std::chrono::seconds(20);

// Runs `ctx` on this thread until `done()` or kBound passes.
template <typename Done>
bool RunUntil(asio::io_context& ctx, Done done) {
  // The last work guard going away stops the context: start it again.
  if (ctx.stopped()) ctx.restart();
  auto work = asio::make_work_guard(ctx);
  const auto deadline = Clock::now() + kBound;
  while (!done() && Clock::now() < deadline) ctx.run_one_for(std::chrono::milliseconds(20));
  return done();
}

using Outcome = testing::CallOutcome;

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* e = std::getenv(name);
  return e ? std::strtoull(e, nullptr, 10) : fallback;
}

// A Multi of one put and one get.
MultiRequest MultiOf(MessageStore* st, const Mutation& put, const GetRequest& get) {
  std::vector<Action> actions(2);
  actions[0].index = 0;
  actions[0].kind = ActionKind::kMutation;
  actions[0].mutation = put;
  actions[1].index = 1;
  actions[1].kind = ActionKind::kGet;
  actions[1].get = get;
  return MultiRequest{st->Array(std::move(actions))};
}

class GrpcTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    NullRegionOptions n;
    n.reads = NullRegionOptions::Reads::kCanned;
    region_ = NewNullRegion(n);
    service_ = std::make_unique<RegionService>(region_.get());
    native_ = std::make_unique<NativeRegionService>(region_.get(), nullptr);
    grpcrpc::GrpcServerOptions so;
    // The figures' server side; the other tests use the default (1).
    so.cq_threads = int(EnvOr("WIREBENCH_GRPC_BENCH_SERVER_CQ", 1));
    server_ = std::make_unique<grpcrpc::GrpcServer>(so, service_.get(), native_.get());
    ASSERT_TRUE(server_->Start().ok());
  }

  grpcrpc::GrpcClientOptions Options(uint8_t codec_id = uint8_t(CodecId::kRaw)) {
    grpcrpc::GrpcClientOptions o;
    o.port = server_->port();
    o.codec_id = codec_id;
    return o;
  }

  std::shared_ptr<GrpcConnection> Connect(const grpcrpc::GrpcClientOptions& o) {
    auto c = GrpcConnection::Connect(ctx_, o);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : nullptr;
  }

  // One call whose payload is `payload`, run to its end.
  Outcome Call(GrpcConnection* conn, Method m, ByteView payload) {
    Outcome out;
    ByteBuffer* buf = conn->BeginCall(uint8_t(m), &out);
    EXPECT_NE(buf, nullptr);
    if (buf == nullptr) return out;
    buf->Append(payload);
    conn->Send();
    EXPECT_TRUE(RunUntil(ctx_, [&] { return out.done; }));
    return out;
  }

  // A Ping of `payload` on `conn` is answered kCallTooLarge (printed, with
  // `side`, the one that refused it), in a message that says each of `says`.
  void ExpectCallTooLarge(GrpcConnection* conn, const std::string& payload, const char* side,
                          std::initializer_list<const char*> says) {
    Outcome refused = Call(conn, Method::kPing, payload);
    ASSERT_FALSE(refused.failed) << refused.failure.ToString();
    EXPECT_EQ(refused.header.status, uint8_t(CallStatus::kCallTooLarge));
    std::printf("[oversized] %s: %s\n", side, refused.payload.c_str());
    for (const char* part : says)
      EXPECT_NE(refused.payload.find(part), std::string::npos) << refused.payload;
  }

  // One region call encoded with `codec`; the reply decoded into `resp`.
  template <typename Req, typename Resp>
  void RoundTrip(GrpcConnection* conn, Codec* codec, Method m, const Req& req, Resp* resp) {
    Outcome out;
    uint32_t call_id = 0;
    ByteBuffer* buf = conn->BeginCall(uint8_t(m), &out, &call_id);
    ASSERT_NE(buf, nullptr);
    ASSERT_TRUE(codec->EncodeRequest(call_id, req, buf).ok());
    conn->Send();
    ASSERT_TRUE(RunUntil(ctx_, [&] { return out.done; }));
    ASSERT_FALSE(out.failed) << out.failure.ToString();
    ASSERT_EQ(out.header.status, uint8_t(CallStatus::kOk)) << out.payload;
    EXPECT_EQ(out.header.call_id, call_id);
    ASSERT_TRUE(codec->DecodeResponse(ByteView(out.payload), resp).ok());
  }

  asio::io_context ctx_{1};
  std::unique_ptr<Region> region_;
  std::unique_ptr<RegionService> service_;
  std::unique_ptr<NativeRegionService> native_;
  std::unique_ptr<grpcrpc::GrpcServer> server_;
};

TEST_F(GrpcTransportTest, EveryCodecAndMethodRoundTrips) {
  for (const CodecInfo* entry : Codecs()) {
    const CodecInfo& info = *entry;
    SCOPED_TRACE(std::string(info.name()));
    std::unique_ptr<Codec> codec = info.factory();
    auto conn = Connect(Options(uint8_t(info.id)));
    ASSERT_NE(conn, nullptr);
    MessageStore st;
    MutateRequest mutate{testing::YcsbPut(&st, 1)};
    MutateResponse mutated;
    RoundTrip(conn.get(), codec.get(), Method::kMutate, mutate, &mutated);
    EXPECT_TRUE(mutated.processed);

    GetRequest get = testing::GetOf(&st, mutate.mutation.row, /*with_columns=*/true);
    GetResponse got;
    RoundTrip(conn.get(), codec.get(), Method::kGet, get, &got);
    EXPECT_TRUE(got.result.exists);
    EXPECT_EQ(got.result.cells.size(), 10u);

    ScanRequest scan;
    scan.start_row = mutate.mutation.row;
    scan.number_of_rows = 3;
    ScanResponse scanned;
    RoundTrip(conn.get(), codec.get(), Method::kScan, scan, &scanned);

    MultiRequest multi = MultiOf(&st, mutate.mutation, get);
    MultiResponse multied;
    RoundTrip(conn.get(), codec.get(), Method::kMulti, multi, &multied);
    ASSERT_EQ(multied.results.size(), 2u);
    for (const ActionResult& r : multied.results) EXPECT_TRUE(r.ok);

    Outcome ping = Call(conn.get(), Method::kPing, "are you there?");
    EXPECT_EQ(ping.header.status, uint8_t(CallStatus::kOk));
    EXPECT_EQ(ping.payload, "are you there?");
    EXPECT_EQ(conn->inflight(), 0u);
    conn->Close();
  }
}

TEST_F(GrpcTransportTest, UnknownCodecIsRefusedPerCall) {
  auto conn = Connect(Options(200));
  ASSERT_NE(conn, nullptr);
  Outcome out = Call(conn.get(), Method::kMutate, "whatever");
  ASSERT_FALSE(out.failed) << out.failure.ToString();
  EXPECT_EQ(out.header.status, uint8_t(CallStatus::kBadPreamble));
  EXPECT_NE(out.payload.find("200"), std::string::npos) << out.payload;
  EXPECT_TRUE(conn->ok());
  EXPECT_EQ(Call(conn.get(), Method::kPing, "x").payload, "x");
}

TEST_F(GrpcTransportTest, UnknownMethodIsRefusedByTheServer) {
  auto conn = Connect(Options());
  ASSERT_NE(conn, nullptr);
  Outcome out = Call(conn.get(), Method(9), "payload");
  ASSERT_FALSE(out.failed) << out.failure.ToString();
  EXPECT_EQ(out.header.status, uint8_t(CallStatus::kUnknownMethod));
  EXPECT_NE(out.payload.find("Method9"), std::string::npos) << out.payload;
  EXPECT_TRUE(conn->ok());
  nlohmann::json j = server_->StatsJson();
  EXPECT_EQ(j["unknown_method_calls"], 1);
  EXPECT_EQ(j["failed_calls"], 1);
}

TEST_F(GrpcTransportTest, OversizedMessageFailsCleanlyAndServerKeepsServing) {
  const std::string big((16u << 20) + 1024, 'x');
  // A client allowed to send it: the server refuses it (its limit).
  grpcrpc::GrpcClientOptions lax = Options();
  lax.max_message = 32u << 20;
  auto conn = Connect(lax);
  ASSERT_NE(conn, nullptr);
  ASSERT_NO_FATAL_FAILURE(
      ExpectCallTooLarge(conn.get(), big, "server", {"RESOURCE_EXHAUSTED", "16777216"}));
  EXPECT_TRUE(conn->ok());
  EXPECT_EQ(Call(conn.get(), Method::kPing, "after").payload, "after");

  // A client with the default limit refuses to send it.
  auto strict = Connect(Options());
  ASSERT_NE(strict, nullptr);
  ASSERT_NO_FATAL_FAILURE(
      ExpectCallTooLarge(strict.get(), big, "client", {"Sent message larger than max"}));
  EXPECT_EQ(Call(strict.get(), Method::kPing, "after").payload, "after");
}

// 32 logical clients each keeping one Mutate in flight on `conn` until
// told to stop, counting how their calls ended.
template <typename Channel>
struct ClosedLoop {
  struct Client final : rpc::PendingCall {
    ClosedLoop* loop = nullptr;
    void OnReply(const rpc::CallHeader& h, ByteView) override {
      ++(h.status == uint8_t(CallStatus::kOk) ? loop->ok : loop->refused);
      --loop->pending;
      loop->Issue(this);
    }
    void OnFailure(const Status& s) override {
      ++loop->failed;
      --loop->pending;
      if (loop->first_failure.ok()) loop->first_failure = s;
    }
  };
  ClosedLoop(Channel* conn, Codec* codec, MutateRequest req)
      : conn(conn), codec(codec), req(req) {}
  Channel* conn;
  Codec* codec;
  MutateRequest req;
  uint64_t limit = UINT64_MAX;  // Calls to start in all.
  uint64_t started = 0, ok = 0, refused = 0, failed = 0, not_started = 0;
  int pending = 0;
  Status first_failure;
  std::vector<Client> clients = std::vector<Client>(32);

  void Start() {
    for (Client& c : clients) {
      c.loop = this;
      Issue(&c);
    }
  }
  void Issue(Client* c) {
    if (started >= limit) return;
    uint32_t id = 0;
    ByteBuffer* out = conn->BeginCall(uint8_t(Method::kMutate), c, &id);
    if (out == nullptr) {
      ++not_started;
      return;
    }
    if (!codec->EncodeRequest(id, req, out).ok()) {
      conn->Abandon();
      return;
    }
    ++started;
    ++pending;
    conn->Send();
  }
};

TEST_F(GrpcTransportTest, ServerShutdownFailsPendingCallsPromptly) {
  auto conn = Connect(Options());
  ASSERT_NE(conn, nullptr);
  auto codec = NewCodec("raw");
  ASSERT_TRUE(codec.ok());
  MessageStore st;
  ClosedLoop<GrpcConnection> loop(conn.get(), codec->get(), {testing::YcsbPut(&st, 7)});
  loop.Start();
  ASSERT_TRUE(RunUntil(ctx_, [&] { return loop.ok >= 200; }));
  std::thread stopper([&] { server_->Stop(); });
  // Every call in flight ends (fails), and no call is left pending.
  EXPECT_TRUE(RunUntil(ctx_, [&] { return !conn->ok() && loop.pending == 0; }))
      << loop.pending << " calls still pending";
  stopper.join();
  EXPECT_EQ(loop.refused, 0u);
  EXPECT_GE(loop.failed, 1u);
  EXPECT_FALSE(conn->ok());
  EXPECT_EQ(conn->inflight(), 0u);
  EXPECT_NE(conn->error().ToString().find("127.0.0.1:" + std::to_string(server_->port())),
            std::string::npos)
      << conn->error().ToString();
  EXPECT_EQ(conn->BeginCall(uint8_t(Method::kPing), nullptr), nullptr);
}

TEST_F(GrpcTransportTest, StatsOverGrpcListsEveryThreadsCpu) {
  auto conn = Connect(Options());
  ASSERT_NE(conn, nullptr);
  for (int i = 0; i < 20; ++i) Call(conn.get(), Method::kPing, "x");
  auto reply = grpcrpc::GrpcCallOnce(Options(), Method::kStats, "");
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  nlohmann::json j = nlohmann::json::parse(*reply);
  EXPECT_EQ(j["server"]["rpc"], "grpc");
  EXPECT_GE(j["calls"]["Ping"].get<uint64_t>(), 20u);
  bool cq_thread = false, grpc_own = false, allocs_entry = false;
  for (const auto& t : j["threads"]) {
    const std::string name = t["name"];
    if (t["role"] == "server-io" && name == "grpc-cq-0") {
      cq_thread = true;
      EXPECT_GT(t["cpu_ns"].get<double>(), 0);
    }
    // gRPC names its own threads ("grpc_global_tim", "default-executo", ...):
    // any unregistered thread other than this test's main thread counts.
    if (t["role"] == "unregistered" && name != "unregistered-allocations" &&
        t["tid"].get<int>() != int(getpid())) {
      grpc_own = true;
      EXPECT_GE(t["cpu_ns"].get<double>(), 0);
      EXPECT_GT(t["tid"].get<int>(), 0);
    }
    if (name == "unregistered-allocations") allocs_entry = true;
  }
  for (const auto& t : j["threads"])
    std::printf("[threads] %s %s cpu_ns=%.0f\n", t["role"].get<std::string>().c_str(),
                t["name"].get<std::string>().c_str(), t["cpu_ns"].get<double>());
  EXPECT_TRUE(cq_thread) << j["threads"].dump();
  EXPECT_TRUE(grpc_own) << j["threads"].dump();
  EXPECT_TRUE(allocs_entry);
  EXPECT_TRUE(j.contains("process"));
  EXPECT_TRUE(j.contains("region"));
}

TEST_F(GrpcTransportTest, WireBytesComeFromTheSocket) {
  auto conn = Connect(Options());
  ASSERT_NE(conn, nullptr);
  const std::string payload(1000, 'p');
  for (int i = 0; i < 50; ++i) Call(conn.get(), Method::kPing, payload);
  EXPECT_TRUE(conn->wire_bytes_from_socket());
  const rpc::ClientConnectionStats& s = conn->stats();
  EXPECT_EQ(s.frames_out, 50u);
  EXPECT_EQ(s.frames_in, 50u);
  EXPECT_EQ(conn->payload_bytes_out(), 50u * 1000u);
  // Wire bytes carry HTTP/2 and gRPC framing on top of the payloads.
  EXPECT_GT(s.bytes_out, conn->payload_bytes_out());
  EXPECT_GT(s.bytes_in, conn->payload_bytes_in());
}

TEST_F(GrpcTransportTest, BadSettingsAndUnreachableServerGiveClearErrors) {
  grpcrpc::GrpcServerOptions bad;
  bad.host = "not-an-address";
  grpcrpc::GrpcServer server(bad, service_.get());
  Status s = server.Start();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("not-an-address"), std::string::npos) << s.ToString();

  grpcrpc::GrpcServerOptions no_threads;
  no_threads.cq_threads = 0;
  grpcrpc::GrpcServer idle(no_threads, service_.get());
  s = idle.Start();
  EXPECT_NE(s.ToString().find("--grpc-cq-threads"), std::string::npos) << s.ToString();

  grpcrpc::GrpcClientOptions o = Options();
  server_->Stop();
  o.connect_timeout_ms = 300;
  auto c = GrpcConnection::Connect(ctx_, o);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().ToString().find("cannot connect to gRPC server 127.0.0.1:" +
                                       std::to_string(o.port)),
            std::string::npos)
      << c.status().ToString();
}

struct NativeOutcome final : NativePendingCall {
  bool done = false;
  Status status;
  bool processed = false, exists = false;
  size_t cells = 0, results = 0;
  void OnNativeReply(const Status& s, const NativeReply& r) override {
    done = true;
    status = s;
    if (r.mutate) processed = r.mutate->processed;
    if (r.get) {
      exists = r.get->result.exists;
      cells = r.get->result.cells.size();
    }
    if (r.scan) results = r.scan->results.size();
    if (r.multi) results = r.multi->results.size();
  }
};

TEST_F(GrpcTransportTest, NativeServiceRoundTripsEveryMethod) {
  auto made = NativeConnection::Connect(ctx_, Options());
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  std::shared_ptr<NativeConnection> conn = *made;
  MessageStore st;
  MutateRequest mutate{testing::YcsbPut(&st, 3)};
  GetRequest get = testing::GetOf(&st, mutate.mutation.row, true);
  ScanRequest scan;
  scan.start_row = mutate.mutation.row;
  scan.number_of_rows = 2;
  MultiRequest multi = MultiOf(&st, mutate.mutation, get);

  NativeOutcome m, g, s, mu;
  ASSERT_TRUE(conn->Call(mutate, &m).ok());
  ASSERT_TRUE(conn->Call(get, &g).ok());
  ASSERT_TRUE(conn->Call(scan, &s).ok());
  ASSERT_TRUE(conn->Call(multi, &mu).ok());
  ASSERT_TRUE(RunUntil(ctx_, [&] { return m.done && g.done && s.done && mu.done; }));
  EXPECT_TRUE(m.status.ok()) << m.status.ToString();
  EXPECT_TRUE(m.processed);
  EXPECT_TRUE(g.status.ok()) << g.status.ToString();
  EXPECT_TRUE(g.exists);
  EXPECT_EQ(g.cells, 10u);
  EXPECT_TRUE(s.status.ok()) << s.status.ToString();
  EXPECT_TRUE(mu.status.ok()) << mu.status.ToString();
  EXPECT_EQ(mu.results, 2u);
  EXPECT_EQ(conn->inflight(), 0u);
  EXPECT_TRUE(conn->wire_bytes().available);
  EXPECT_GT(conn->wire_bytes().bytes_out, 0u);
  auto stats = grpcrpc::GrpcCallOnce(Options(), Method::kStats, "");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  nlohmann::json j = nlohmann::json::parse(*stats);
  for (const char* m : {"Mutate", "Get", "Scan", "Multi"}) EXPECT_EQ(j["native_calls"][m], 1) << m;
  EXPECT_EQ(j["native_failed_calls"], 0);
  conn->Close();
}

// ---- The figure: 32 concurrent 1 KB Mutates (raw codec, null region) ----

// Where the CPU of a figure went: the client (this thread, which runs the
// io_context, and the connection's completion-queue threads: client-loop),
// the server (server-io), and every unregistered thread (gRPC's own), with
// process totals.
// Every malloc of the process (jemalloc's cumulative allocation requests
// over all arenas, tcache included once merged), which also sees gRPC
// core's gpr_malloc calls that the operator-new hook does not.
double JemallocRequests() {
  uint64_t epoch = 1;
  size_t len = sizeof(epoch);
  mallctl("epoch", &epoch, &len, &epoch, len);
  double total = 0;
  for (const char* name : {"stats.arenas.4096.small.nrequests", "stats.arenas.4096.large.nrequests"}) {
    uint64_t v = 0;
    len = sizeof(v);
    if (mallctl(name, &v, &len, nullptr, 0) == 0) total += double(v);
  }
  return total;
}

struct CpuSnapshot {
  double process_us = 0, client_cq_us = 0, server_us = 0, unregistered_us = 0;
  double voluntary_switches = 0, allocs = 0, mallocs = 0;
  static CpuSnapshot Take() {
    // This thread runs the client io_context: count it with the client.
    static const bool registered = [] {
      RegisterThisThread(ThreadRole::kClientLoop, "test-client-io");
      return true;
    }();
    (void)registered;
    CpuSnapshot s;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    s.process_us = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
                   double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    s.voluntary_switches = double(ru.ru_nvcsw);
    s.client_cq_us = RoleUsage({ThreadRole::kClientLoop}).cpu_ns / 1e3;
    s.server_us = RoleUsage({ThreadRole::kServerIo}).cpu_ns / 1e3;
    s.unregistered_us = grpcrpc::UnregisteredThreadsUsage().cpu_ns / 1e3;
    s.allocs = double(ProcessTotals().allocs);
    s.mallocs = JemallocRequests();
    return s;
  }
};

// Prints a figure's line: calls/s and per-call costs since `before`.
void PrintFigure(const char* label, uint64_t calls, Clock::time_point t0,
                 const CpuSnapshot& before) {
  const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const CpuSnapshot after = CpuSnapshot::Take();
  const double n = double(calls);
  std::printf("[figure] %s: %llu calls, 32 concurrent, 1 KB Mutate: %.0f calls/s, %.1f us host "
              "CPU per call (client %.1f, server %.1f, gRPC's own threads %.1f), %.1f voluntary switches, "
              "%.1f operator-new and %.1f malloc (jemalloc) allocations per call (one process)\n",
              label, (unsigned long long)calls, n / wall_s,
              (after.process_us - before.process_us) / n,
              (after.client_cq_us - before.client_cq_us) / n,
              (after.server_us - before.server_us) / n,
              (after.unregistered_us - before.unregistered_us) / n,
              (after.voluntary_switches - before.voluntary_switches) / n,
              (after.allocs - before.allocs) / n, (after.mallocs - before.mallocs) / n);
}

uint64_t BenchCalls() { return EnvOr("WIREBENCH_GRPC_BENCH_CALLS", 10000); }
int BenchClientCqThreads() { return int(EnvOr("WIREBENCH_GRPC_BENCH_CLIENT_CQ", 1)); }

// Runs the closed loop for `calls` calls and prints the figures.
template <typename Channel>
void MeasureClosedLoop(const char* label, asio::io_context& ctx, Channel* conn) {
  auto codec = NewCodec("raw");
  ASSERT_TRUE(codec.ok());
  MessageStore st;
  ClosedLoop<Channel> loop(conn, codec->get(), {testing::YcsbPut(&st, 9)});
  loop.limit = BenchCalls();
  const CpuSnapshot before = CpuSnapshot::Take();
  const auto t0 = Clock::now();
  loop.Start();
  ASSERT_TRUE(RunUntil(ctx, [&] { return loop.started == loop.limit && loop.pending == 0; }));
  EXPECT_EQ(loop.ok, loop.limit);
  EXPECT_EQ(loop.failed + loop.refused, 0u);
  PrintFigure(label, loop.limit, t0, before);
}

TEST_F(GrpcTransportTest, Figure32ConcurrentMutatesOverGrpc) {
  grpcrpc::GrpcClientOptions o = Options();
  o.cq_threads = BenchClientCqThreads();
  auto conn = Connect(o);
  ASSERT_NE(conn, nullptr);
  MeasureClosedLoop("grpc (generic, raw codec)", ctx_, conn.get());
  std::printf("[figure] grpc wire bytes per call: out %.0f, in %.0f (payload out %.0f)\n",
              double(conn->stats().bytes_out) / double(conn->stats().frames_out),
              double(conn->stats().bytes_in) / double(conn->stats().frames_in),
              double(conn->payload_bytes_out()) / double(conn->stats().frames_out));
}

TEST_F(GrpcTransportTest, Figure32ConcurrentMutatesOverWirebenchRpc) {
  wbrpc::Server server(rpc::ServerOptions{}, service_.get());
  ASSERT_TRUE(server.Start().ok());
  wbrpc::ClientOptions o;
  o.port = server.port();
  std::shared_ptr<wbrpc::ClientConnection> conn;
  asio::co_spawn(
      ctx_,
      [&]() -> asio::awaitable<void> {
        auto c = co_await wbrpc::ClientConnection::Connect(ctx_, o);
        if (c.ok()) conn = *c;
      },
      asio::detached);
  ASSERT_TRUE(RunUntil(ctx_, [&] { return conn != nullptr; }));
  MeasureClosedLoop("wirebench rpc (raw codec)", ctx_, conn.get());
  conn->Close();
}

TEST_F(GrpcTransportTest, Figure32ConcurrentMutatesOverGrpcNative) {
  grpcrpc::GrpcClientOptions o = Options();
  o.cq_threads = BenchClientCqThreads();
  auto made = NativeConnection::Connect(ctx_, o);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  std::shared_ptr<NativeConnection> conn = *made;
  MessageStore st;
  const MutateRequest req{testing::YcsbPut(&st, 9)};
  struct Client final : NativePendingCall {
    NativeConnection* conn;
    const MutateRequest* req;
    uint64_t* started;
    uint64_t* ok;
    uint64_t limit;
    void Issue() {
      if (*started >= limit) return;
      ++*started;
      EXPECT_TRUE(conn->Call(*req, this).ok());
    }
    void OnNativeReply(const Status& s, const NativeReply&) override {
      if (s.ok()) ++*ok;
      Issue();
    }
  };
  uint64_t started = 0, ok = 0;
  const uint64_t limit = BenchCalls();
  std::vector<Client> clients(32, Client{});
  const CpuSnapshot before = CpuSnapshot::Take();
  const auto t0 = Clock::now();
  for (Client& c : clients) {
    c.conn = conn.get();
    c.req = &req;
    c.started = &started;
    c.ok = &ok;
    c.limit = limit;
    c.Issue();
  }
  ASSERT_TRUE(RunUntil(ctx_, [&] { return started == limit && conn->inflight() == 0; }));
  EXPECT_EQ(ok, limit);
  PrintFigure("grpc-native (pb serialized by gRPC)", limit, t0, before);
  conn->Close();
}

}  // namespace
}  // namespace wirebench
