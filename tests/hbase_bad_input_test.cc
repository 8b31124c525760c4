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

#include <boost/asio.hpp>
#include <nlohmann/json.hpp>

#include "codecs/codec.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "rpc/client.h"
#include "tests/raw_peer.h"
#include "transports/hbase/hbase_client.h"
#include "transports/hbase/hbase_server.h"

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
    void OnReply(const rpc::FrameHeader& h, ByteView payload) override {
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

}  // namespace
}  // namespace wirebench
