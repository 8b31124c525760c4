// The bad-input matrix (bad_input_test.cc) on the `--rpc hbase` port: while
// a good HBase client (the transport's own, codec cellblock) keeps putting
// and reading, misbehaving peers send garbage, huge lengths, truncated
// preambles, headers and calls, and leave connections half-open. The server
// stays up, the good client sees no failed call, and every bad connection
// is gone from the server afterwards.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio.hpp>
#include <nlohmann/json.hpp>

#include "codecs/codec.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/wirebench/client.h"
#include "tests/raw_peer.h"
#include "transports/hbase/hbase_client.h"
#include "transports/hbase/hbase_server.h"
#include "transports/hbase/hbase_wire.pb.h"

namespace wirebench {
namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
using testing::RawPeer;
constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);

std::string Be32(uint32_t v) {
  std::string s(4, '\0');
  StoreBE32(reinterpret_cast<uint8_t*>(s.data()), v);
  return s;
}

// A good client: puts and gets one after the other until stopped.
class SteadyHBaseClient {
 public:
  explicit SteadyHBaseClient(uint16_t port) : port_(port) {
    asio::co_spawn(ctx_, Run(), asio::detached);
    thread_ = std::thread([this] { ctx_.run(); });
  }
  ~SteadyHBaseClient() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  uint64_t ok() const { return ok_.load(); }
  uint64_t failed() const { return failed_.load(); }
  std::string first_error() {
    std::lock_guard<std::mutex> lock(mu_);
    return first_error_;
  }
  bool WaitForMoreCalls(uint64_t n) {
    const uint64_t target = ok() + n;
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while (ok() < target && failed() == 0 && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return ok() >= target;
  }

 private:
  struct Waiter final : rpc::PendingCall {
    asio::steady_timer* wake = nullptr;
    Codec* codec = nullptr;
    Method method = Method::kMutate;
    bool done = false;
    std::string error;
    void OnReply(const rpc::CallHeader& h, ByteView payload) override {
      done = true;
      if (h.status != uint8_t(CallStatus::kOk)) {
        error = "call failed: " + payload.ToString();
      } else if (method == Method::kMutate) {
        MutateResponse resp;
        Status s = codec->DecodeResponse(payload, &resp);
        if (!s.ok() || !resp.processed) error = "bad Mutate reply: " + s.ToString();
      } else {
        GetResponse resp;
        Status s = codec->DecodeResponse(payload, &resp);
        if (!s.ok()) error = "bad Get reply: " + s.ToString();
      }
      wake->cancel();
    }
    void OnFailure(const Status& status) override {
      done = true;
      error = status.ToString();
      wake->cancel();
    }
  };

  void Fail(const std::string& why) {
    failed_.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu_);
    if (first_error_.empty()) first_error_ = why;
  }

  asio::awaitable<void> Run() {
    hbaserpc::HBaseClientOptions o;
    o.port = port_;
    o.cell_blocks = true;
    auto made = co_await hbaserpc::ConnectHBase(ctx_, o);
    if (!made.ok()) {
      Fail(made.status().ToString());
      co_return;
    }
    std::shared_ptr<rpc::CallChannel> conn = *made;
    auto codec = NewCodec(uint8_t(CodecId::kCellBlock));
    if (!codec.ok()) {
      Fail(codec.status().ToString());
      co_return;
    }
    const std::string row = "user1000", value(100, 'v');
    const Cell cells[2] = {{ByteView(row), ByteView("family"), ByteView("field0"), 0,
                            CellType::kPut, ByteView(value)},
                           {ByteView(row), ByteView("family"), ByteView("field1"), 0,
                            CellType::kPut, ByteView(value)}};
    asio::steady_timer wake(ctx_);
    Waiter w;
    w.wake = &wake;
    w.codec = codec->get();
    for (uint64_t n = 0; !stop_.load(); ++n) {
      w.done = false;
      w.error.clear();
      w.method = n % 2 == 0 ? Method::kMutate : Method::kGet;
      uint32_t id = 0;
      ByteBuffer* out = conn->BeginCall(uint8_t(w.method), &w, &id);
      if (out == nullptr) {
        Fail("BeginCall failed: " + conn->error().ToString());
        break;
      }
      Status s;
      if (w.method == Method::kMutate) {
        MutateRequest req;
        req.mutation = Mutation{ByteView(row), MutationType::kPut, 0, cells};
        s = (*codec)->EncodeRequest(id, req, out);
      } else {
        GetRequest req;
        req.row = ByteView(row);
        s = (*codec)->EncodeRequest(id, req, out);
      }
      if (!s.ok()) {
        conn->Abandon();
        Fail("encode failed: " + s.ToString());
        break;
      }
      conn->Send();
      wake.expires_after(std::chrono::seconds(10));
      if (!w.done) co_await wake.async_wait(kNoThrow);
      if (!w.done) {
        Fail("no reply within 10 s");
        conn->Cancel(id);
        break;
      }
      if (!w.error.empty()) {
        Fail(w.error);
        break;
      }
      ok_.fetch_add(1);
    }
    conn->Close();
  }

  uint16_t port_;
  asio::io_context ctx_{1};
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> ok_{0}, failed_{0};
  std::mutex mu_;
  std::string first_error_;
};

class HBaseBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    ::testing::internal::CaptureStderr();
    region_ = NewNullRegion({});
    service_ = std::make_unique<RegionService>(region_.get());
    rpc::ServerOptions o;
    o.max_frame = 1 << 20;
    o.idle_timeout_ms = 300;
    server_ = std::make_unique<hbaserpc::HBaseServer>(o, region_.get(), service_.get());
    ASSERT_TRUE(server_->Start().ok());
    hbaserpc::ClearRegionCache();
    client_ = std::make_unique<SteadyHBaseClient>(server_->port());
    ASSERT_TRUE(client_->WaitForMoreCalls(50)) << client_->first_error();
  }
  void TearDown() override {
    if (client_) {
      EXPECT_TRUE(client_->WaitForMoreCalls(50)) << client_->first_error();
      client_->Stop();
      EXPECT_EQ(client_->failed(), 0u) << client_->first_error();
    }
    // Only the good client's connection was left; now none.
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while (Active() != 0 && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    EXPECT_EQ(Active(), 0) << server_->StatsJson()["connections"].dump();
    server_->Stop();
    const std::string log = ::testing::internal::GetCapturedStderr();
    if (HasFailure()) std::printf("server log:\n%.20000s\n", log.c_str());
  }
  int64_t Active() { return server_->StatsJson()["connections"]["active"].get<int64_t>(); }
  uint16_t port() const { return server_->port(); }

  std::unique_ptr<Region> region_;
  std::unique_ptr<RegionService> service_;
  std::unique_ptr<hbaserpc::HBaseServer> server_;
  std::unique_ptr<SteadyHBaseClient> client_;
};

const std::string kHello = std::string("HBas\x00\x50", 6);

std::string Header() {
  // ConnectionHeader { service_name: "ClientService" } by hand: field 2, length 13.
  const std::string h = std::string("\x12\x0d", 2) + "ClientService";
  return Be32(uint32_t(h.size())) + h;
}

TEST_F(HBaseBadInput, GarbageIsAnsweredAndClosed) {
  RawPeer peer(port());
  ASSERT_TRUE(peer.Send(std::string(4096, '\xA5')));
  EXPECT_EQ(peer.ReadUntilClosed(), RawPeer::Read::kClosed);
}

TEST_F(HBaseBadInput, HugeConnectionHeaderLengthIsRefused) {
  RawPeer peer(port());
  ASSERT_TRUE(peer.Send(kHello + Be32(0xFFFFFFFFu)));
  EXPECT_EQ(peer.ReadUntilClosed(), RawPeer::Read::kClosed);
}

TEST_F(HBaseBadInput, HugeCallLengthIsRefused) {
  RawPeer peer(port());
  ASSERT_TRUE(peer.Send(kHello + Header() + Be32(0x7FFFFFFFu) + "xx"));
  EXPECT_EQ(peer.ReadUntilClosed(), RawPeer::Read::kClosed);
}

TEST_F(HBaseBadInput, GarbageCallBodiesGetExceptionsAndTheConnectionSurvives) {
  RawPeer peer(port());
  ASSERT_TRUE(peer.Send(kHello + Header()));
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

TEST_F(HBaseBadInput, TruncatedPreambleHeaderAndCallAreClosedWhenIdle) {
  RawPeer a(port()), b(port()), c(port());
  ASSERT_TRUE(a.Send("HBa"));
  ASSERT_TRUE(b.Send(kHello + Be32(40) + "\x12"));
  ASSERT_TRUE(c.Send(kHello + Header() + Be32(100) + "partial"));
  // The idle timeout (300 ms here) closes all three.
  EXPECT_EQ(a.ReadUntilClosed(), RawPeer::Read::kClosed);
  EXPECT_EQ(b.ReadUntilClosed(), RawPeer::Read::kClosed);
  EXPECT_EQ(c.ReadUntilClosed(), RawPeer::Read::kClosed);
}

TEST_F(HBaseBadInput, HalfOpenConnectionsAreClosed) {
  for (int i = 0; i < 20; ++i) {
    RawPeer p(port());
    ASSERT_TRUE(p.Send(kHello + Header() + Be32(64)));
    shutdown(p.fd(), SHUT_WR);  // Half-closed with a call outstanding.
    EXPECT_EQ(p.ReadUntilClosed(), RawPeer::Read::kClosed);
  }
}

// A Get of row "r" in usertable whose ValueFilter compares with
// RegexStringComparator(pattern), as a call body with its length word.
std::string RegexGetCall(uint32_t call_id, const std::string& pattern) {
  namespace pbw = hbasewire;
  pbw::RequestHeader h;
  h.set_call_id(call_id);
  h.set_method_name("Get");
  h.set_request_param(true);
  pbw::RegexStringComparator rc;
  rc.set_pattern(pattern);
  rc.set_pattern_flags(0);
  rc.set_charset("UTF-8");
  pbw::RowFilter vf;  // ValueFilter has RowFilter's layout.
  vf.mutable_compare_filter()->set_compare_op(pbw::EQUAL);
  vf.mutable_compare_filter()->mutable_comparator()->set_name(
      "org.apache.hadoop.hbase.filter.RegexStringComparator");
  vf.mutable_compare_filter()->mutable_comparator()->set_serialized_comparator(
      rc.SerializeAsString());
  pbw::GetRequest g;
  g.mutable_region()->set_type(pbw::RegionSpecifier::REGION_NAME);
  g.mutable_region()->set_value("usertable,,1");
  g.mutable_get()->set_row("r");
  pbw::Filter f;
  f.set_name("org.apache.hadoop.hbase.filter.ValueFilter");
  f.set_serialized_filter(vf.SerializeAsString());
  g.mutable_get()->set_filter(f.SerializeAsString());
  auto delimited = [](const std::string& m) {
    std::string out;
    uint64_t n = m.size();
    do {
      out.push_back(char((n & 0x7F) | (n > 0x7F ? 0x80 : 0)));
      n >>= 7;
    } while (n != 0);
    return out + m;
  };
  const std::string body = delimited(h.SerializeAsString()) + delimited(g.SerializeAsString());
  return Be32(uint32_t(body.size())) + body;
}

// One reply's bytes (after its length word).
std::string ReadReply(RawPeer* peer) {
  std::string len, reply;
  if (peer->ReadExactly(4, &len) != RawPeer::Read::kOk) return "(no reply)";
  if (peer->ReadExactly(LoadBE32(reinterpret_cast<const uint8_t*>(len.data())), &reply) !=
      RawPeer::Read::kOk)
    return "(cut short)";
  return reply;
}

// A RegexStringComparator nested 30,000 deep overflowed std::regex's
// compiler's stack and killed the server; `(a+)+$` held the I/O thread for
// seconds. Now the pattern is refused with its reason, the rest are matched
// by RE2 on a handler thread, and the good client never fails.
TEST_F(HBaseBadInput, RegexFiltersAreRefusedOrRunOnHandlerThreads) {
  RawPeer peer(port());
  ASSERT_TRUE(peer.Send(kHello + Header()));
  const std::string deep = std::string(30000, '(') + "a" + std::string(30000, ')');
  ASSERT_TRUE(peer.Send(RegexGetCall(1, deep)));
  std::string reply = ReadReply(&peer);
  EXPECT_NE(reply.find("DoNotRetryIOException"), std::string::npos) << reply.substr(0, 300);
  EXPECT_NE(reply.find("nest 30000 deep"), std::string::npos) << reply.substr(0, 300);
  for (const char* pattern : {"(a+)+$", ".*error.*", "(a|b)*c"}) {
    ASSERT_TRUE(peer.Send(RegexGetCall(2, pattern)));
    reply = ReadReply(&peer);
    EXPECT_EQ(reply.find("Exception"), std::string::npos) << pattern << ": " << reply;
  }
  // Each filtered Get ran on a handler thread, none on the I/O thread.
  EXPECT_EQ(server_->StatsJson()["hbase"]["handler_calls"].get<uint64_t>(), 4u);
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
  o.max_frame = 1 << 20;
  hbaserpc::HBaseServer server(o, region.get(), &service);
  ASSERT_TRUE(server.Start().ok());
  RawPeer peer(server.port());
  ASSERT_TRUE(peer.Send(kHello + Header()));
  struct Case {
    const char* pattern;
    bool passes;
  };
  for (const Case& c : {Case{".*error.*", false}, Case{"(v|w)*c", false}, Case{"(v+)+x$", false},
                        Case{"^(v|w)*$", true}, Case{"v{1000}$", true}}) {
    ASSERT_TRUE(peer.Send(RegexGetCall(7, c.pattern)));
    const std::string reply = ReadReply(&peer);
    EXPECT_EQ(reply.find("Exception"), std::string::npos) << c.pattern << ": " << reply.substr(0, 300);
    // A passing value comes back in the reply; a filtered-out one does not.
    EXPECT_EQ(reply.size() > 100000, c.passes) << c.pattern << ": " << reply.size() << " bytes";
  }
  EXPECT_EQ(server.StatsJson()["hbase"]["handler_calls"].get<uint64_t>(), 5u);
  server.Stop();
}

// Connections past their connection header that only sit: once the server
// holds over half its limit they are closed after the idle timeout, and a
// new client gets in.
TEST(HBaseIdleConnections, ClosedOnceTheServerIsCrowded) {
  auto region = NewNullRegion({});
  RegionService service(region.get());
  rpc::ServerOptions o;
  o.idle_timeout_ms = 200;
  o.max_connections = 8;
  hbaserpc::HBaseServer server(o, region.get(), &service);
  ASSERT_TRUE(server.Start().ok());
  hbaserpc::ClearRegionCache();
  SteadyHBaseClient client(server.port());
  ASSERT_TRUE(client.WaitForMoreCalls(50)) << client.first_error();
  std::vector<std::unique_ptr<RawPeer>> idle;
  for (int i = 0; i < 6; ++i) {
    idle.push_back(std::make_unique<RawPeer>(server.port()));
    ASSERT_TRUE(idle.back()->Send(kHello + Header()));
  }
  // Seven open of eight: idle ones are closed until half the limit is left.
  auto closed = [&] { return server.StatsJson()["connections"]["idle_closed"].get<uint64_t>(); };
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (closed() < 3 && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(closed(), 3u);
  EXPECT_EQ(server.StatsJson()["connections"]["active"].get<int64_t>(), 4);
  RawPeer late(server.port());
  ASSERT_TRUE(late.Send(kHello + Header()));
  ASSERT_TRUE(late.Send(RegexGetCall(1, "a")));
  EXPECT_EQ(ReadReply(&late).find("Exception"), std::string::npos);
  EXPECT_TRUE(client.WaitForMoreCalls(50)) << client.first_error();
  client.Stop();
  EXPECT_EQ(client.failed(), 0u) << client.first_error();
  server.Stop();
}

// The same on the HBase port: calls announced and never finished take room
// from --max-buffered-bytes; past it a connection gets HBase's
// CallQueueTooBigException and is closed.
TEST_F(HBaseBadInput, UnfinishedLargeCallsAreBoundedAcrossConnections) {
  client_->Stop();
  client_.reset();
  server_->Stop();
  rpc::ServerOptions o;
  o.max_frame = 4 << 20;
  o.max_buffered_bytes = 8u << 20;
  server_ = std::make_unique<hbaserpc::HBaseServer>(o, region_.get(), service_.get());
  ASSERT_TRUE(server_->Start().ok());
  auto stats = [&] { return server_->StatsJson()["connections"]; };
  std::vector<std::unique_ptr<RawPeer>> peers;
  for (int i = 0; i < 6; ++i) {
    peers.push_back(std::make_unique<RawPeer>(port()));
    ASSERT_TRUE(peers.back()->Send(kHello + Header() + Be32(1u << 20) + "xxxx"));
    const uint64_t held = uint64_t(std::min(i + 1, 4)) * ((2u << 20) - (64u << 10));
    const uint64_t refused = uint64_t(std::max(0, i - 3));
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while ((stats()["buffered_bytes"].get<uint64_t>() != held ||
            stats()["budget_refused"].get<uint64_t>() != refused) &&
           Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(stats()["buffered_bytes"].get<uint64_t>(), 4u * ((2u << 20) - (64u << 10)));
  EXPECT_EQ(stats()["budget_refused"].get<uint64_t>(), 2u);
  for (int i = 4; i < 6; ++i) {
    const std::string reply = ReadReply(peers[size_t(i)].get());
    EXPECT_NE(reply.find("CallQueueTooBigException"), std::string::npos) << reply;
    EXPECT_NE(reply.find("--max-buffered-bytes 8388608"), std::string::npos) << reply;
    EXPECT_EQ(peers[size_t(i)]->ReadUntilClosed(), RawPeer::Read::kClosed);
  }
  peers.clear();
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Active() != 0 && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(stats()["buffered_bytes"].get<uint64_t>(), 0u);
}

}  // namespace
}  // namespace wirebench
