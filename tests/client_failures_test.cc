// The RPC client (transports/wirebench/client.h) against peers that are not, or do not behave
// as, a wirebench server: a listener that accepts and never answers, one that
// answers HTTP or binary garbage, one that answers late (a timed-out call and
// the reuse of its slot), a server that refuses an oversized frame, and a
// request over the frame limit. Plus closing a connection from another
// thread. Real sockets on loopback: the "servers" are RawListener
// connections driven by the test, or an in-process wbrpc::Server.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include <boost/asio.hpp>

#include "codecs/codec.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/wirebench/client.h"
#include "transports/wirebench/server.h"
#include "tests/raw_peer.h"

namespace wirebench {
namespace {

namespace asio = boost::asio;
using ::testing::HasSubstr;
using testing::FrameBytes;
using testing::RawListener;
using testing::RawPeer;

constexpr auto kGenerous = std::chrono::seconds(20);

wbrpc::ClientOptions OptionsFor(uint16_t port) {
  wbrpc::ClientOptions o;
  o.port = port;
  o.codec_id = uint8_t(CodecId::kRaw);
  return o;
}

// One client connection whose io_context runs on its own thread, so the
// test thread can play the server (or call in from outside).
class ConnThread {
 public:
  explicit ConnThread(const wbrpc::ClientOptions& options) : guard_(asio::make_work_guard(ctx_)) {
    thread_ = std::thread([this] { ctx_.run(); });
    std::promise<Status> connected;
    asio::co_spawn(
        ctx_,
        [&]() -> asio::awaitable<void> {
          auto c = co_await wbrpc::ClientConnection::Connect(ctx_, options);
          if (c.ok()) conn_ = *c;
          connected.set_value(c.status());
        },
        asio::detached);
    status_ = connected.get_future().get();
  }
  ~ConnThread() {
    if (conn_) conn_->CloseFromAnyThread();
    guard_.reset();
    thread_.join();
  }
  const Status& status() const { return status_; }
  wbrpc::ClientConnection& conn() { return *conn_; }
  // Runs `fn` on the connection's thread and returns its result.
  template <typename Fn>
  auto On(Fn fn) {
    std::packaged_task<decltype(fn())()> task(fn);
    auto result = task.get_future();
    asio::post(ctx_, [&task] { task(); });
    return result.get();
  }

 private:
  asio::io_context ctx_{1};
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::thread thread_;
  std::shared_ptr<wbrpc::ClientConnection> conn_;
  Status status_;
};

// A raw listener playing the server, a client connected to it and the
// listener's end of that connection.
struct ClientOfRawPeer {
  // Connects the client, with `handshake_timeout_ms`, and accepts it.
  void Connect(int handshake_timeout_ms) {
    wbrpc::ClientOptions o = OptionsFor(listener.port());
    o.handshake_timeout_ms = handshake_timeout_ms;
    client = std::make_unique<ConnThread>(o);
    ASSERT_TRUE(client->status().ok()) << client->status().ToString();
    peer = listener.Accept();
    ASSERT_NE(peer, nullptr);
  }

  RawListener listener;
  std::unique_ptr<ConnThread> client;
  std::unique_ptr<RawPeer> peer;
};

// Starts a call; runs on the connection's thread. Its outcome arrives
// through the future.
std::future<StatusOr<std::string>> StartCallHere(wbrpc::ClientConnection& conn, Method method,
                                                 const std::string& payload) {
  struct Call final : rpc::PendingCall {
    void OnReply(const rpc::CallHeader& h, ByteView p) override {
      if (h.status != 0) {
        done.set_value(Status::Unavailable(std::string(CallStatusName(CallStatus(h.status))) +
                                           ": " + p.ToString()));
      } else {
        done.set_value(p.ToString());
      }
      delete this;
    }
    void OnFailure(const Status& s) override {
      done.set_value(s);
      delete this;
    }
    std::promise<StatusOr<std::string>> done;
  };
  auto* call = new Call;
  auto result = call->done.get_future();
  ByteBuffer* out = conn.BeginCall(uint8_t(method), call);
  if (out == nullptr) {
    call->OnFailure(conn.error());
    return result;
  }
  out->Append(ByteView(payload));
  conn.Send();
  return result;
}

std::future<StatusOr<std::string>> StartCall(ConnThread& c, Method method,
                                             const std::string& payload) {
  return c.On([&] { return StartCallHere(c.conn(), method, payload); });
}

std::string Where(uint16_t port) { return "127.0.0.1:" + std::to_string(port); }

TEST(ClientHandshake, DefaultTimeoutIsTwoSeconds) {
  EXPECT_EQ(wbrpc::ClientOptions().handshake_timeout_ms, 2000);
  EXPECT_EQ(wbrpc::ClientOptions().max_request_frame, rpc::kDefaultMaxCallBytes);
}

// CallOnce(Ping) against `listener`, whose connection `serve` plays (the
// socket stays open until the call ends); returns the call's error message,
// "" when it succeeded.
std::string PingErrorAgainst(RawListener& listener, const std::function<void(RawPeer&)>& serve,
                             int timeout_ms = 10000) {
  auto result = std::async(std::launch::async, [&] {
    return wbrpc::CallOnce(OptionsFor(listener.port()), Method::kPing, ByteView("hi"), timeout_ms);
  });
  std::unique_ptr<RawPeer> peer = listener.Accept();
  if (peer == nullptr) return "no connection arrived";
  serve(*peer);
  if (result.wait_for(kGenerous) != std::future_status::ready) return "CallOnce did not return";
  StatusOr<std::string> r = result.get();
  return r.ok() ? "" : std::string(r.status().message());
}

TEST(ClientHandshake, SilentPeerIsNamedAsNotAWirebenchServer) {
  RawListener listener;
  // Accepted and never answered: the call fails after the 2 s handshake
  // timeout, long before CallOnce's own 60 s.
  EXPECT_EQ(PingErrorAgainst(listener, [](RawPeer&) {}, 60000),
            Where(listener.port()) +
                " did not answer the wirebench preamble within 2 s: is it a wirebench server?");
}

TEST(ClientHandshake, EveryPendingCallFailsAndTheConnectionRefusesNewOnes) {
  ClientOfRawPeer t;
  ASSERT_NO_FATAL_FAILURE(t.Connect(300));
  ConnThread& c = *t.client;
  auto a = StartCall(c, Method::kPing, "a");
  auto b = StartCall(c, Method::kPing, "b");
  for (auto* f : {&a, &b}) {
    ASSERT_EQ(f->wait_for(kGenerous), std::future_status::ready);
    StatusOr<std::string> r = f->get();
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("within 300 ms"));
  }
  EXPECT_FALSE(c.On([&] { return c.conn().ok(); }));
  EXPECT_EQ(c.On([&] { return c.conn().inflight(); }), 0u);
}

TEST(ClientHandshake, HttpAnswerIsNamed) {
  RawListener listener;
  EXPECT_EQ(PingErrorAgainst(listener,
                             [](RawPeer& peer) {
                               peer.Send("HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6\r\n\r\n");
                             }),
            Where(listener.port()) + " is not a wirebench server: it answered 'HTTP/1.0 200 OK'");
}

TEST(ClientHandshake, BinaryGarbageAnswerIsNamed) {
  RawListener listener;
  EXPECT_THAT(PingErrorAgainst(listener,
                               [](RawPeer& peer) {
                                 peer.Send(std::string("\xff\xff\xff\xff\x01\x02\x03\x04", 8));
                               }),
              HasSubstr(Where(listener.port()) + " is not a wirebench server: its first reply is "
                                                 "not a wirebench frame (frame of 4294967295"));
}

TEST(ClientHandshake, CloseBeforeAnsweringIsNamed) {
  RawListener listener;
  EXPECT_THAT(PingErrorAgainst(listener,
                               [](RawPeer& peer) {
                                 // Read everything first: a FIN, not a reset.
                                 std::string preamble, payload;
                                 wbrpc::FrameHeader h;
                                 peer.ReadExactly(wbrpc::kPreambleSize, &preamble);
                                 peer.ReadFrame(&h, &payload);
                                 peer.Close();
                               }),
              HasSubstr("lost: closed by the server before answering the wirebench preamble"));
}

// The Stats-call pattern of the driver: a call made from another thread with
// a timeout. The timed-out call must be unregistered, so its slot's next user
// gets its own reply and the late one is dropped as stray.
TEST(ClientCallFromOtherThread, TimedOutCallIsUnregisteredBeforeItsSlotIsReused) {
  ClientOfRawPeer t;
  ASSERT_NO_FATAL_FAILURE(t.Connect(0));
  ConnThread& c = *t.client;

  StatusOr<std::string> late = wbrpc::CallFromOtherThread(c.conn(), Method::kPing, ByteView("late"),
                                                        std::chrono::milliseconds(100));
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().message(),
            "no Ping reply from server " + Where(t.listener.port()) + " within 100 ms");
  EXPECT_EQ(c.On([&] { return c.conn().inflight(); }), 0u);

  std::string preamble;
  ASSERT_EQ(t.peer->ReadExactly(wbrpc::kPreambleSize, &preamble), RawPeer::Read::kOk);
  wbrpc::FrameHeader first;
  std::string payload;
  ASSERT_EQ(t.peer->ReadFrame(&first, &payload), RawPeer::Read::kOk);
  ASSERT_EQ(payload, "late");

  auto next = std::async(std::launch::async, [&] {
    return wbrpc::CallFromOtherThread(c.conn(), Method::kPing, ByteView("next"),
                                    std::chrono::seconds(20));
  });
  wbrpc::FrameHeader second;
  ASSERT_EQ(t.peer->ReadFrame(&second, &payload), RawPeer::Read::kOk);
  ASSERT_EQ(payload, "next");
  EXPECT_EQ(second.call_id & 0xFFFF, first.call_id & 0xFFFF) << "the slot was reused";
  EXPECT_NE(second.call_id, first.call_id);
  // The late reply to the first call arrives first: it must not complete the second.
  ASSERT_TRUE(t.peer->Send(FrameBytes(first.call_id, uint8_t(Method::kPing), "late")));
  ASSERT_TRUE(t.peer->Send(FrameBytes(second.call_id, uint8_t(Method::kPing), "next")));
  ASSERT_EQ(next.wait_for(kGenerous), std::future_status::ready);
  StatusOr<std::string> r = next.get();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "next");
  EXPECT_EQ(c.On([&] { return c.conn().stats().stray_replies; }), 1u);
}

TEST(ClientClose, FromAnotherThreadFailsEveryPendingCallPromptly) {
  ClientOfRawPeer t;
  ASSERT_NO_FATAL_FAILURE(t.Connect(0));  // Only the close may end these calls.
  ConnThread& c = *t.client;
  auto a = StartCall(c, Method::kPing, "a");
  auto b = StartCall(c, Method::kStats, "");
  c.conn().CloseFromAnyThread();
  for (auto* f : {&a, &b}) {
    ASSERT_EQ(f->wait_for(kGenerous), std::future_status::ready);
    StatusOr<std::string> r = f->get();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(),
              "connection to " + Where(t.listener.port()) + " closed by the client");
  }
}

class ClientFrameLimit : public ::testing::Test {
 protected:
  void StartServer(uint32_t max_frame) {
    region_ = NewNullRegion({});
    service_ = std::make_unique<RegionService>(region_.get());
    rpc::ServerOptions o;
    o.max_call_bytes = max_frame;
    server_ = std::make_unique<wbrpc::Server>(o, service_.get());
    ASSERT_TRUE(server_->Start().ok());
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }
  std::unique_ptr<Region> region_;
  std::unique_ptr<RegionService> service_;
  std::unique_ptr<wbrpc::Server> server_;
};

TEST_F(ClientFrameLimit, OversizedRequestFailsBeforeSendingAndTheConnectionStaysUp) {
  StartServer(rpc::kDefaultMaxCallBytes);
  ConnThread c(OptionsFor(server_->port()));
  ASSERT_TRUE(c.status().ok()) << c.status().ToString();
  const std::string big(rpc::kDefaultMaxCallBytes, 'x');  // Plus the 8-byte call header: 1 over.
  auto r = StartCall(c, Method::kPing, big);
  ASSERT_EQ(r.wait_for(kGenerous), std::future_status::ready);
  StatusOr<std::string> failed = r.get();
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(std::string(failed.status().message()),
              HasSubstr("request of 16777224 bytes exceeds the 16 MiB frame limit (--max-frame "
                        "on the server)"));
  EXPECT_EQ(c.On([&] { return c.conn().stats().frames_out; }), 0u);
  StatusOr<std::string> ok = wbrpc::CallFromOtherThread(c.conn(), Method::kPing, ByteView("small"),
                                                      std::chrono::seconds(20));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*ok, "small");
}

TEST_F(ClientFrameLimit, ServerRefusalReasonReachesEveryStrandedCall) {
  StartServer(1024);  // The client still assumes the default 16 MiB.
  ConnThread c(OptionsFor(server_->port()));
  ASSERT_TRUE(c.status().ok()) << c.status().ToString();
  // Both frames leave in one write: the server refuses the first and closes
  // without reading the second.
  std::future<StatusOr<std::string>> big, small;
  c.On([&] {
    big = StartCallHere(c.conn(), Method::kPing, std::string(4096, 'x'));
    small = StartCallHere(c.conn(), Method::kPing, "small");
    return 0;
  });
  ASSERT_EQ(big.wait_for(kGenerous), std::future_status::ready);
  ASSERT_EQ(small.wait_for(kGenerous), std::future_status::ready);
  StatusOr<std::string> b = big.get(), s = small.get();
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(),
            "CALL_TOO_LARGE: frame of 4104 bytes exceeds the maximum of 1024 bytes");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "server " + Where(server_->port()) +
                                      " closed the connection (CALL_TOO_LARGE): frame of 4104 "
                                      "bytes exceeds the maximum of 1024 bytes");
}

TEST(ClientText, FrameLimitAndPrintablePrefix) {
  EXPECT_EQ(wbrpc::FrameLimitText(16u << 20), "16 MiB");
  EXPECT_EQ(wbrpc::FrameLimitText(64u << 10), "64 KiB");
  EXPECT_EQ(wbrpc::FrameLimitText(1000), "1000 bytes");
  EXPECT_EQ(wbrpc::PrintablePrefix(ByteView("HTTP/1.0 400 Bad\r\nX")), "HTTP/1.0 400 Bad");
  EXPECT_EQ(wbrpc::PrintablePrefix(ByteView("SSH-2.0-OpenSSH"), 7), "SSH-2.0...");
  EXPECT_EQ(wbrpc::PrintablePrefix(ByteView("\x01\x02\x03\x04", 4)), "");
}

}  // namespace
}  // namespace wirebench
