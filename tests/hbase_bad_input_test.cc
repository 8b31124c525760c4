// The bad-input cases only HBase's RPC has (the matrix every transport
// shares, run over `--rpc hbase` too with its bytes from
// tests/transport_cases.cc, is transport_bad_input_test.cc): while a good
// HBase client (the transport's own, codec cellblock) keeps putting and
// reading, peers send call bodies that are not HBase's and Gets whose regex
// filters would stall or crash a naive server. The server stays up, the good
// client sees no failed call, and every bad connection is gone from the
// server afterwards (tests/bad_input_fixture.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio.hpp>
#include <nlohmann/json.hpp>

#include "codecs/schemas/Client.pb.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "regions/memstore/memstore_region.h"
#include "tests/call_outcome.h"
#include "tests/bad_input_fixture.h"
#include "tests/hbase_raw_wire.h"
#include "tests/raw_peer.h"
#include "tests/region_mutations.h"
#include "transports/hbase/hbase_client.h"
#include "transports/hbase/hbase_server.h"
#include "transports/transport.h"

namespace wirebench {
namespace {

namespace pbw = hbasewire;
using testing::Be32;
using testing::Call;
using testing::HBaseConnectionHeader;
using testing::HBaseReply;
using testing::kHBaseHello;
using testing::MetaLookup;
using testing::NextScan;
using testing::RawPeer;
using testing::ReadHBaseReply;
using testing::ReadParsedHBaseReply;
using testing::RegexGetCall;
using testing::RegexValueFilter;

class HBaseBadInput : public testing::BadInputTest {
 protected:
  void SetUp() override {
    rpc::ServerOptions o;
    o.max_call_bytes = 1 << 20;
    o.idle_timeout_ms = 300;
    StartServerOf("hbase", o);
  }
};

TEST_F(HBaseBadInput, GarbageCallBodiesGetExceptionsAndTheConnectionSurvives) {
  RawPeer peer(port());
  ASSERT_TRUE(peer.Send(kHBaseHello + HBaseConnectionHeader()));
  for (int i = 0; i < 20; ++i) {
    std::string body(size_t(1 + i * 7), char(0x80 | i));
    ASSERT_TRUE(peer.Send(Be32(uint32_t(body.size())) + body));
    std::string len, reply;
    ASSERT_EQ(peer.ReadExactly(4, &len), RawPeer::Read::kOk);
    ASSERT_EQ(peer.ReadExactly(LoadBE32(reinterpret_cast<const uint8_t*>(len.data())), &reply),
              RawPeer::Read::kOk);
    EXPECT_NE(reply.find("DoNotRetryIOException"), std::string::npos);
  }
}

// A RegexStringComparator nested 30,000 deep overflowed std::regex's
// compiler's stack and killed the server; `(a+)+$` held the I/O thread for
// seconds. Now the pattern is refused with its reason, the rest are matched
// by RE2 on a handler thread, and the good client never fails.
TEST_F(HBaseBadInput, RegexFiltersAreRefusedOrRunOnHandlerThreads) {
  RawPeer peer(port());
  ASSERT_TRUE(peer.Send(kHBaseHello + HBaseConnectionHeader()));
  const std::string deep = std::string(30000, '(') + "a" + std::string(30000, ')');
  ASSERT_TRUE(peer.Send(RegexGetCall(1, deep)));
  std::string reply = ReadHBaseReply(&peer);
  EXPECT_NE(reply.find("DoNotRetryIOException"), std::string::npos) << reply.substr(0, 300);
  EXPECT_NE(reply.find("nest 30000 deep"), std::string::npos) << reply.substr(0, 300);
  for (const char* pattern : {"(a+)+$", ".*error.*", "(a|b)*c"}) {
    ASSERT_TRUE(peer.Send(RegexGetCall(2, pattern)));
    reply = ReadHBaseReply(&peer);
    EXPECT_EQ(reply.find("Exception"), std::string::npos) << pattern << ": " << reply;
  }
  // Each filtered Get ran on a handler thread, none on the I/O thread.
  EXPECT_EQ(Stats()["hbase"]["handler_calls"].get<uint64_t>(), 4u);
  EXPECT_TRUE(client_->WaitForMoreCalls(50)) << client_->first_error();
}

// The patterns that crashed std::regex's recursive matcher on large values
// (a 200 KB value here: canned reads) are answered, the server stays up.
TEST(HBaseRegexOnLargeValues, AnsweredWithoutCrashing) {
  NullRegionOptions ro;
  ro.reads = NullRegionOptions::Reads::kCanned;
  ro.canned_fields = 1;
  ro.canned_field_length = 200000;  // 'v' * 200,000.
  auto region = NewNullRegion(ro);
  RegionService service(region.get());
  rpc::ServerOptions o;
  o.max_call_bytes = 1 << 20;
  auto hbase = Transports().Resolve("hbase");
  ASSERT_TRUE(hbase.ok()) << hbase.status().ToString();
  auto started = (*hbase)->StartServer(o, region.get(), &service);
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  rpc::TransportServer& server = **started;
  RawPeer peer(server.port());
  ASSERT_TRUE(peer.Send(kHBaseHello + HBaseConnectionHeader()));
  struct Case {
    const char* pattern;
    bool passes;
  };
  for (const Case& c : {Case{".*error.*", false}, Case{"(v|w)*c", false}, Case{"(v+)+x$", false},
                        Case{"^(v|w)*$", true}, Case{"v{1000}$", true}}) {
    ASSERT_TRUE(peer.Send(RegexGetCall(7, c.pattern)));
    const std::string reply = ReadHBaseReply(&peer);
    EXPECT_EQ(reply.find("Exception"), std::string::npos) << c.pattern << ": " << reply.substr(0, 300);
    // A passing value comes back in the reply; a filtered-out one does not.
    EXPECT_EQ(reply.size() > 100000, c.passes) << c.pattern << ": " << reply.size() << " bytes";
  }
  EXPECT_EQ(server.StatsJson()["hbase"]["handler_calls"].get<uint64_t>(), 5u);
  server.Stop();
}


// ---- Replies a client does not read ----

// A client pipelining Gets of a large row and reading nothing: Consume
// used to answer every call in the read buffer before --max-queued-bytes
// was looked at (1,500 Gets of a 1 MiB row took the server to 2.1 GB).
// Now it stops taking calls while the replies queued are over the limit,
// and answers the rest as the client reads.
TEST(HBaseBackpressure, PipelinedGetsStopAtTheQueuedBytesLimitAndAllAreAnsweredOnceRead) {
  constexpr int kGets = 400;
  constexpr size_t kRow = 256u << 10;  // 400 replies: 100 MiB.
  NullRegionOptions ro;
  ro.reads = NullRegionOptions::Reads::kCanned;
  ro.canned_fields = 1;
  ro.canned_field_length = kRow;
  auto region = NewNullRegion(ro);
  RegionService service(region.get());
  rpc::ServerOptions o;
  o.max_queued_bytes = 1u << 20;
  hbaserpc::HBaseServer server(o, region.get(), &service);
  ASSERT_TRUE(server.Start().ok());
  RawPeer peer(server.port(), /*recv_timeout_ms=*/20000);
  std::string calls = kHBaseHello + HBaseConnectionHeader();
  for (int i = 0; i < kGets; ++i) calls += testing::HBaseGetCall(uint32_t(i + 1));
  ASSERT_TRUE(peer.Send(calls));  // 17 KB: one read of the server's.
  auto gets = [&] { return server.StatsJson()["calls"]["Get"].get<uint64_t>(); };
  // Until the count stops moving: the limit and what the sockets hold.
  uint64_t seen = 0;
  for (int still = 0; still < 10;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const uint64_t now = gets();
    still = now == seen ? still + 1 : 0;
    seen = now;
  }
  // 1 MiB queued, one reply past it, and loopback's socket buffers (a few
  // MiB each way): far below the 400 a read buffer of calls used to make.
  EXPECT_LT(seen, uint64_t(kGets) / 4) << "replies were built past --max-queued-bytes";
  for (int i = 0; i < kGets; ++i) {
    const HBaseReply r = ReadParsedHBaseReply(&peer);
    ASSERT_TRUE(r.ok) << "reply " << i << " of " << kGets << " never came";
    ASSERT_FALSE(r.header.has_exception()) << r.header.exception().stack_trace();
    EXPECT_EQ(r.header.call_id(), uint32_t(i + 1));
  }
  EXPECT_EQ(gets(), uint64_t(kGets));
  server.Stop();
}

// ---- The idle rule and wirebench's HBase client ----

using Outcome = testing::CallOutcome;

// Runs `ctx` on this thread until `done()` or a generous bound passes.
template <typename Done>
bool RunUntil(boost::asio::io_context& ctx, Done done) {
  if (ctx.stopped()) ctx.restart();
  auto work = boost::asio::make_work_guard(ctx);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done() && std::chrono::steady_clock::now() < deadline)
    ctx.run_one_for(std::chrono::milliseconds(20));
  return done();
}

// While the server holds over half its --max-connections, a connection idle
// between calls is closed (here the good client's: a busy peer keeps the
// server crowded). Wirebench's HBase client then opened no new connection
// and failed every later call ("connection lost: closed by the server");
// as HBase's client does, it now connects again for its next call.
TEST(HBaseIdleRule, TheClientReconnectsWhenTheServerClosesItsIdleConnection) {
  auto region = NewNullRegion({});
  RegionService service(region.get());
  rpc::ServerOptions o;
  o.max_connections = 2;  // Crowded with the busy peer and the client.
  o.idle_timeout_ms = 200;
  hbaserpc::HBaseServer server(o, region.get(), &service);
  ASSERT_TRUE(server.Start().ok());
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    RawPeer peer(server.port());
    if (!peer.Send(kHBaseHello + HBaseConnectionHeader())) return;
    for (uint32_t id = 1; !stop.load(); ++id) {
      if (!peer.Send(testing::HBaseGetCall(id)) || ReadHBaseReply(&peer).size() < 4) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  boost::asio::io_context ctx(1);
  hbaserpc::HBaseClientOptions co;
  co.port = server.port();
  std::optional<StatusOr<std::shared_ptr<rpc::CallChannel>>> made;
  boost::asio::co_spawn(
      ctx, [&]() -> boost::asio::awaitable<void> { made = co_await hbaserpc::ConnectHBase(ctx, co); },
      boost::asio::detached);
  ASSERT_TRUE(RunUntil(ctx, [&] { return made.has_value(); }));
  ASSERT_TRUE(made->ok()) << made->status().ToString();
  std::shared_ptr<rpc::CallChannel> channel = **made;
  auto idle_closed = [&] {
    return server.StatsJson()["connections"]["idle_closed"].get<uint64_t>();
  };
  ASSERT_TRUE(RunUntil(ctx, [&] { return idle_closed() >= 1; }));
  // The client sees the close.
  const auto seen = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  RunUntil(ctx, [&] { return std::chrono::steady_clock::now() >= seen; });
  for (int call = 0; call < 2; ++call) {
    ASSERT_TRUE(channel->ok()) << channel->error().ToString();
    Outcome out;
    ByteBuffer* buf = channel->BeginCall(uint8_t(Method::kPing), &out);
    ASSERT_NE(buf, nullptr) << channel->error().ToString();
    buf->Append(ByteView("still there?"));
    channel->Send();
    ASSERT_TRUE(RunUntil(ctx, [&] { return out.done; }));
    ASSERT_FALSE(out.failed) << out.failure.ToString();
    EXPECT_EQ(out.payload, "still there?");
    // Closed again while idle, and reconnected again.
    const uint64_t before = idle_closed();
    ASSERT_TRUE(RunUntil(ctx, [&] { return idle_closed() > before; }));
    const auto again = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    RunUntil(ctx, [&] { return std::chrono::steady_clock::now() >= again; });
  }
  channel->Close();
  stop = true;
  busy.join();
  server.Stop();
}

// ---- Scans that a filter makes long ----

// A memstore server holding kScanRows rows of usertable ("row00000"...,
// family f, qualifier q, 2 KB values), every 100th of which ends in 'c';
// started directly (not through the registry) where a test sets the scan
// time limit.
constexpr int kScanRows = 3000;
constexpr int kPassingEvery = 100;  // Rows 7, 107, 207, ... pass SlowFilter().

class MemstoreScanServer {
 public:
  explicit MemstoreScanServer(rpc::ServerOptions o = {},
                              std::chrono::milliseconds time_limit = hbaserpc::kScanTimeLimit)
      : region_(NewMemstoreRegion()), service_(region_.get()) {
    for (int i = 0; i < kScanRows; ++i) {
      const std::string row = RowName(i);
      const std::string value =
          std::string(2047, 'v') + (i % kPassingEvery == 7 ? 'c' : 'v');
      EXPECT_TRUE(
          testing::PutCell(region_.get(), row, "f", "q", value, 0, ByteView("usertable")).ok());
    }
    o.max_call_bytes = 1 << 20;
    server_ = std::make_unique<hbaserpc::HBaseServer>(o, region_.get(), &service_);
    server_->set_scan_time_limit(time_limit);
    EXPECT_TRUE(server_->Start().ok());
  }
  ~MemstoreScanServer() { server_->Stop(); }

  static std::string RowName(int i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "row%05d", i);
    return buf;
  }
  uint16_t port() const { return server_->port(); }
  hbaserpc::HBaseServer& server() { return *server_; }
  // The region's scan steps so far (a scan of kScanRows rows takes three),
  // read from the region itself: nothing of the server's is locked for it.
  uint64_t RegionScans() const {
    nlohmann::json j;
    region_->AppendStats(&j);
    return j["memstore"]["scans"].get<uint64_t>();
  }
  // A connection past its preamble and header (no cell codec: cells in the messages).
  std::unique_ptr<RawPeer> Open() const {
    auto peer = std::make_unique<RawPeer>(port());
    EXPECT_TRUE(peer->Send(kHBaseHello + HBaseConnectionHeader()));
    return peer;
  }

 private:
  std::unique_ptr<Region> region_;
  RegionService service_;
  std::unique_ptr<hbaserpc::HBaseServer> server_;
};

// FilterList(MUST_PASS_ONE) of 100 ValueFilters matching "(a|v)*c": each
// reads the whole 2 KB value of every row that fails it, so a scan of the
// table takes a while; only the rows ending in 'c' pass.
std::string SlowFilter() { return testing::RegexFilterList("(a|v)*c", 100); }

hbase::ScanRequest OpenFilteredScan(uint32_t rows, bool heartbeats) {
  return testing::OpenFilteredScan(SlowFilter(), rows, heartbeats);
}

// A ScanResponse read back; an exception or a broken reply fails the test.
hbase::ScanResponse ReadScanResponse(RawPeer* peer) {
  const HBaseReply r = ReadParsedHBaseReply(peer);
  hbase::ScanResponse resp;
  EXPECT_TRUE(r.ok);
  EXPECT_FALSE(r.header.has_exception()) << r.header.exception().stack_trace();
  EXPECT_TRUE(resp.ParseFromString(r.message));
  return resp;
}

// Waits (polling the region) until a scan step has begun since `before`.
bool WaitForScanSteps(const MemstoreScanServer& srv, uint64_t before) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (srv.RegionScans() == before && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return srv.RegionScans() > before;
}

// A scanner's next whose filter rejects nearly every row used to run the
// whole table under the server-wide scanner lock, and every other scan
// call (a new client's hbase:meta lookup among them) waited for it. Now a
// scan holds its own scanner's lock only: the lookup is answered while the
// scan (of a client that does not handle heartbeats, so not cut short by
// time) is still reading the region.
TEST(HBaseScanLocks, AMetaLookupIsAnsweredWhileAnotherClientsFilteredScanRuns) {
  MemstoreScanServer srv;
  auto attacker = srv.Open();
  ASSERT_TRUE(attacker->Send(Call(1, "Scan", OpenFilteredScan(0, false))));
  const hbase::ScanResponse opened = ReadScanResponse(attacker.get());
  ASSERT_TRUE(opened.more_results_in_region());
  const uint64_t before = srv.RegionScans();
  ASSERT_TRUE(attacker->Send(Call(2, "Scan", NextScan(opened.scanner_id(), 10000, 0, false))));
  ASSERT_TRUE(WaitForScanSteps(srv, before)) << "the filtered scan never began";

  auto lookup = srv.Open();
  ASSERT_TRUE(lookup->Send(MetaLookup(1)));
  const hbase::ScanResponse where = ReadScanResponse(lookup.get());
  ASSERT_EQ(where.results_size(), 1);
  EXPECT_EQ(where.results(0).cell(0).row(), "usertable,,1");
  // Answered before the scan had read the table (three steps of rows).
  EXPECT_LT(srv.RegionScans(), before + 3);

  // The scan itself went on to the end: every passing row, in one call.
  const hbase::ScanResponse all = ReadScanResponse(attacker.get());
  EXPECT_EQ(all.results_size(), kScanRows / kPassingEvery);
  EXPECT_FALSE(all.more_results());
  EXPECT_FALSE(all.heartbeat_message());
}

// With a client that handles heartbeats, a next stops at the time limit
// (1 ms here, so that this small table takes many calls) with what it has,
// flagged heartbeat_message, more_results and more_results_in_region set;
// the client's calls together return every passing row once, in order.
TEST(HBaseScanHeartbeats, ANextStopsAtTheTimeLimitAndTheScanStillReturnsEveryRow) {
  MemstoreScanServer srv({}, std::chrono::milliseconds(1));
  auto peer = srv.Open();
  ASSERT_TRUE(peer->Send(Call(1, "Scan", OpenFilteredScan(10000, true))));
  hbase::ScanResponse resp = ReadScanResponse(peer.get());
  const uint64_t id = resp.scanner_id();
  std::vector<std::string> rows;
  int calls = 1, heartbeats = 0;
  for (uint64_t seq = 0;; ++seq) {
    for (const auto& r : resp.results()) rows.push_back(r.cell(0).row());
    if (resp.heartbeat_message()) {
      ++heartbeats;
      EXPECT_TRUE(resp.more_results());
      EXPECT_TRUE(resp.more_results_in_region());
    }
    if (!resp.more_results() || calls > kScanRows) break;
    ASSERT_TRUE(peer->Send(Call(uint32_t(2 + seq), "Scan", NextScan(id, 10000, seq, true))));
    resp = ReadScanResponse(peer.get());
    ++calls;
  }
  EXPECT_GT(heartbeats, 0);
  EXPECT_EQ(heartbeats + 1, calls);  // Every call but the last was cut short by time.
  std::vector<std::string> expected;
  for (int i = 7; i < kScanRows; i += kPassingEvery) expected.push_back(srv.RowName(i));
  EXPECT_EQ(rows, expected);
}

// A client that does not say it handles heartbeats (HBase's before 1.1,
// the npm client) gets no call cut short by time: one next returns every
// passing row, as HBase answers it.
TEST(HBaseScanHeartbeats, AClientWithoutHeartbeatsGetsItsWholeBatch) {
  MemstoreScanServer srv({}, std::chrono::milliseconds(1));
  auto peer = srv.Open();
  ASSERT_TRUE(peer->Send(Call(1, "Scan", OpenFilteredScan(10000, false))));
  const hbase::ScanResponse resp = ReadScanResponse(peer.get());
  EXPECT_FALSE(resp.heartbeat_message());
  EXPECT_FALSE(resp.more_results());
  EXPECT_EQ(resp.results_size(), kScanRows / kPassingEvery);
}


// --handlers N is taken with --rpc hbase (it was refused: one thread ran
// every client's filters), and filtered calls spread over the N threads:
// while one client's long filtered scan holds a handler, another client's
// filtered Get is answered on the other.
TEST(HBaseHandlers, FilteredCallsSpreadOverTheHandlerThreads) {
  auto hbase = Transports().Resolve("hbase");
  ASSERT_TRUE(hbase.ok()) << hbase.status().ToString();
  rpc::ServerOptions o;
  o.handlers = 2;
  const Status taken = (*hbase)->CheckServerOptions(o);
  EXPECT_TRUE(taken.ok()) << taken.ToString();
  MemstoreScanServer srv(o);
  EXPECT_EQ(srv.server().StatsJson()["server"]["handlers"].get<int>(), 2);
  auto attacker = srv.Open();
  ASSERT_TRUE(attacker->Send(Call(1, "Scan", OpenFilteredScan(0, false))));
  const hbase::ScanResponse opened = ReadScanResponse(attacker.get());
  const uint64_t before = srv.RegionScans();
  ASSERT_TRUE(attacker->Send(Call(2, "Scan", NextScan(opened.scanner_id(), 10000, 0, false))));
  ASSERT_TRUE(WaitForScanSteps(srv, before)) << "the filtered scan never began";

  hbase::GetRequest g;
  g.mutable_region()->set_type(hbase::RegionSpecifier::REGION_NAME);
  g.mutable_region()->set_value("usertable,,1");
  g.mutable_get()->set_row(MemstoreScanServer::RowName(7));
  g.mutable_get()->set_filter(RegexValueFilter("(a|v)*c"));
  auto good = srv.Open();
  ASSERT_TRUE(good->Send(Call(1, "Get", g)));
  const HBaseReply got = ReadParsedHBaseReply(good.get());
  ASSERT_TRUE(got.ok);
  ASSERT_FALSE(got.header.has_exception()) << got.header.exception().stack_trace();
  hbase::GetResponse resp;
  ASSERT_TRUE(resp.ParseFromString(got.message));
  EXPECT_EQ(resp.result().cell_size(), 1);
  // Answered on the other handler before the scan had read the table.
  EXPECT_LT(srv.RegionScans(), before + 3);
  EXPECT_EQ(ReadScanResponse(attacker.get()).results_size(), kScanRows / kPassingEvery);
  EXPECT_EQ(srv.server().StatsJson()["hbase"]["handler_calls"].get<uint64_t>(), 3u);
}

// A scan with caching 0 whose calls carry no number_of_rows: HBase 2 reads
// one row per call. It was answered with no rows and more_results set, every
// time, and the client asked again forever.
TEST(HBaseScanCaching, CachingZeroWithoutNumberOfRowsReadsOneRowPerCall) {
  MemstoreScanServer srv;
  auto peer = srv.Open();
  hbase::ScanRequest open;
  open.mutable_region()->set_type(hbase::RegionSpecifier::REGION_NAME);
  open.mutable_region()->set_value("usertable,,1");
  open.mutable_scan()->set_start_row(MemstoreScanServer::RowName(0));
  open.mutable_scan()->set_stop_row(MemstoreScanServer::RowName(5));
  open.mutable_scan()->set_caching(0);
  ASSERT_TRUE(peer->Send(Call(1, "Scan", open)));
  hbase::ScanResponse resp = ReadScanResponse(peer.get());
  const uint64_t id = resp.scanner_id();
  std::vector<std::string> rows;
  for (uint32_t call = 2; call < 20; ++call) {
    EXPECT_LE(resp.results_size(), 1);
    for (const auto& r : resp.results()) rows.push_back(r.cell(0).row());
    if (!resp.more_results()) break;
    hbase::ScanRequest next;
    next.set_scanner_id(id);
    ASSERT_TRUE(peer->Send(Call(call, "Scan", next)));
    resp = ReadScanResponse(peer.get());
  }
  EXPECT_FALSE(resp.more_results()) << "the scan never ended";
  std::vector<std::string> expected;
  for (int i = 0; i < 5; ++i) expected.push_back(MemstoreScanServer::RowName(i));
  EXPECT_EQ(rows, expected);
}


// ---- The memstore's limit ----

// A Put of one cell in the call's cell block (KeyValueCodec), as a Mutate or
// as a Multi's only action.
std::string CellBlockPut(uint32_t call_id, const std::string& row, bool in_multi) {
  hbase::MutationProto m;
  m.set_row(row);
  m.set_mutate_type(hbase::MutationProto::PUT);
  m.set_associated_cell_count(1);
  const std::string block = testing::KeyValue(row, "f", "q", 1, 4, "value");
  hbase::RegionSpecifier region;
  region.set_type(hbase::RegionSpecifier::REGION_NAME);
  region.set_value("usertable,,1");
  if (!in_multi) {
    hbase::MutateRequest req;
    *req.mutable_region() = region;
    *req.mutable_mutation() = m;
    return Call(call_id, "Mutate", req, block);
  }
  hbase::MultiRequest req;
  hbase::RegionAction* ra = req.add_regionaction();
  *ra->mutable_region() = region;
  hbase::Action* a = ra->add_action();
  a->set_index(0);
  *a->mutable_mutation() = m;
  return Call(call_id, "Multi", req, block);
}

// Past the memstore's limit a put is refused with HBase's
// RegionTooBusyException as the exception's class, which HBase's clients
// retry by (they never read the text), and the reason as its text: a Mutate
// whose cell is in the cell block, and a Multi's put. They were
// java.io.IOException, and the Multi's lost its reason.
TEST(HBaseMemstoreLimit, PutsPastItGetRegionTooBusyExceptionByClassWithTheReason) {
  MemstoreOptions mo;
  mo.limit_bytes = 1;  // The first put fills it.
  auto region = NewMemstoreRegion(mo);
  RegionService service(region.get());
  rpc::ServerOptions o;
  o.max_call_bytes = 1 << 20;
  hbaserpc::HBaseServer server(o, region.get(), &service);
  ASSERT_TRUE(server.Start().ok());
  RawPeer peer(server.port());
  pbw::ConnectionHeader h;
  h.set_service_name("ClientService");
  h.set_cell_block_codec_class(testing::kKeyValueCodec);
  ASSERT_TRUE(peer.Send(kHBaseHello + Be32(uint32_t(h.ByteSizeLong())) + h.SerializeAsString()));

  ASSERT_TRUE(peer.Send(CellBlockPut(1, "first", false)));
  HBaseReply r = ReadParsedHBaseReply(&peer);
  ASSERT_TRUE(r.ok);
  ASSERT_FALSE(r.header.has_exception()) << r.header.exception().stack_trace();

  ASSERT_TRUE(peer.Send(CellBlockPut(2, "second", false)));
  r = ReadParsedHBaseReply(&peer);
  ASSERT_TRUE(r.ok);
  ASSERT_TRUE(r.header.has_exception());
  EXPECT_EQ(r.header.exception().exception_class_name(),
            "org.apache.hadoop.hbase.RegionTooBusyException");
  EXPECT_NE(r.header.exception().stack_trace().find("Over memstore limit"), std::string::npos)
      << r.header.exception().stack_trace();
  EXPECT_FALSE(r.header.exception().do_not_retry());

  ASSERT_TRUE(peer.Send(CellBlockPut(3, "third", true)));
  r = ReadParsedHBaseReply(&peer);
  ASSERT_TRUE(r.ok);
  ASSERT_FALSE(r.header.has_exception()) << r.header.exception().stack_trace();
  hbase::MultiResponse multi;
  ASSERT_TRUE(multi.ParseFromString(r.message));
  ASSERT_EQ(multi.regionactionresult_size(), 1);
  ASSERT_EQ(multi.regionactionresult(0).resultorexception_size(), 1);
  const hbase::NameBytesPair& e = multi.regionactionresult(0).resultorexception(0).exception();
  EXPECT_EQ(e.name(), "org.apache.hadoop.hbase.RegionTooBusyException");
  EXPECT_NE(e.value().find("Over memstore limit"), std::string::npos) << e.value();
  // The first put and the Multi were answered on the codec's path, where the
  // class was lost (the refused Mutate too, but a failed call is not counted).
  EXPECT_EQ(server.StatsJson()["hbase"]["codec_path_calls"].get<uint64_t>(), 2u);
  server.Stop();
}

}  // namespace
}  // namespace wirebench
