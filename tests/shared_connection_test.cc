// The OS-thread model's shared connection over wirebench's framing
// (transports/wirebench/shared_connection.h; its channels as the driver sees
// them, rpc/shared_channel.h)
// over real loopback sockets: OS threads sharing one connection each get
// their own replies (call ids and payloads matched, counters exact); a
// server that closes the connection while threads wait fails every call
// with a message naming it, and so does a Close() from another thread; a
// cancelled call's late reply is stray and the next call still goes out.
// No timed assertions: every wait is bounded only to fail instead of hang.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "codecs/codec.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/wirebench/server.h"
#include "transports/wirebench/shared_connection.h"
#include "tests/raw_peer.h"

namespace wirebench {
namespace {

using rpc::SharedChannel;
using wbrpc::WirebenchSharedConnection;
using wbrpc::WirebenchSharedConnectionOptions;

using testing::FrameBytes;
using testing::RawListener;
using testing::RawPeer;

constexpr auto kGenerous = std::chrono::seconds(30);

WirebenchSharedConnectionOptions OptionsFor(uint16_t port, int channels) {
  WirebenchSharedConnectionOptions o;
  o.client.port = port;
  o.client.codec_id = uint8_t(CodecId::kRaw);
  o.max_channels = channels;
  o.reader_name = "test-reader";
  return o;
}

// Records the outcome of one call.
class Outcome final : public rpc::PendingCall {
 public:
  void OnReply(const rpc::CallHeader& h, ByteView payload) override {
    ++replies;
    call_id = h.call_id;
    status = h.status;
    this->payload = payload.ToString();
  }
  void OnFailure(const Status& s) override {
    ++failures;
    error = s;
  }
  int replies = 0, failures = 0;
  uint32_t call_id = 0;
  uint8_t status = 0;
  std::string payload;
  Status error;
};

// Starts a Ping carrying `payload`; returns its call id (0 if refused).
uint32_t SendPing(SharedChannel* c, Outcome* out, const std::string& payload) {
  uint32_t id = 0;
  ByteBuffer* b = c->BeginCall(uint8_t(Method::kPing), out, &id);
  if (b == nullptr) return 0;
  b->Append(ByteView(payload));
  c->Send();
  return id;
}

// Waits (bounded) until the call's outcome is in; false if it never came.
bool AwaitOutcome(SharedChannel* c, std::chrono::seconds bound = kGenerous) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (c->waiting()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    c->WaitReply();
  }
  return true;
}

class AgainstServer : public ::testing::Test {
 protected:
  void SetUp() override {
    region_ = NewNullRegion({});
    service_ = std::make_unique<RegionService>(region_.get());
    server_ = std::make_unique<wbrpc::Server>(rpc::ServerOptions{}, service_.get());
    ASSERT_TRUE(server_->Start().ok());
  }
  std::unique_ptr<Region> region_;
  std::unique_ptr<RegionService> service_;
  std::unique_ptr<wbrpc::Server> server_;
};

TEST_F(AgainstServer, ThreadsSharingOneConnectionEachGetTheirOwnReplies) {
  constexpr int kThreads = 8;
  constexpr int kCalls = 400;
  auto conn = WirebenchSharedConnection::Connect(OptionsFor(server_->port(), kThreads));
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  std::vector<std::unique_ptr<SharedChannel>> channels;
  for (int t = 0; t < kThreads; ++t) {
    channels.push_back((*conn)->NewChannel());
    ASSERT_NE(channels.back(), nullptr);
  }
  EXPECT_EQ((*conn)->NewChannel(), nullptr) << "more channels than max_channels";
  std::atomic<int> good{0};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      SharedChannel* c = channels[size_t(t)].get();
      for (int i = 0; i < kCalls; ++i) {
        Outcome out;
        const std::string payload = "thread " + std::to_string(t) + " call " + std::to_string(i);
        const uint32_t id = SendPing(c, &out, payload);
        if (id == 0 || !AwaitOutcome(c)) {
          errors[size_t(t)] = "call " + std::to_string(i) + " not sent or not answered";
          return;
        }
        if (out.replies != 1 || out.failures != 0 || out.call_id != id || out.status != 0 ||
            out.payload != payload) {
          errors[size_t(t)] = "call " + std::to_string(i) + " got reply '" + out.payload +
                              "' for call id " + std::to_string(out.call_id) + " (sent " +
                              std::to_string(id) + "), error " + out.error.ToString();
          return;
        }
        good.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[size_t(t)], "") << "thread " << t;
  EXPECT_EQ(good.load(), kThreads * kCalls);
  const rpc::ClientConnectionStats s = (*conn)->stats();
  EXPECT_EQ(s.frames_out, uint64_t(kThreads * kCalls));
  EXPECT_EQ(s.frames_in, uint64_t(kThreads * kCalls));
  EXPECT_EQ(s.stray_replies, 0u);
  EXPECT_GE(s.writes, 1u);
  EXPECT_LE(s.writes, s.frames_out);
  EXPECT_GE(s.reads, 1u);
  EXPECT_GT(s.bytes_out, 0u);
  EXPECT_GT(s.bytes_in, 0u);
  EXPECT_EQ((*conn)->inflight(), 0u);
  EXPECT_TRUE((*conn)->ok());
  // A channel reports the whole connection's counters.
  EXPECT_EQ(channels[0]->stats().frames_out, s.frames_out);
  channels.clear();
}

// Runs one Ping per thread on `conn`, returns once every thread's call is
// sent (the threads then wait for their outcomes).
struct WaitingThreads {
  WaitingThreads(WirebenchSharedConnection* conn, int n) : outcomes(size_t(n)), done(size_t(n)) {
    for (int t = 0; t < n; ++t) channels.push_back(conn->NewChannel());
    std::vector<std::promise<void>> sent(static_cast<size_t>(n));
    for (int t = 0; t < n; ++t) {
      threads.emplace_back([this, t, &sent] {
        SharedChannel* c = channels[size_t(t)].get();
        SendPing(c, &outcomes[size_t(t)], "wait " + std::to_string(t));
        sent[size_t(t)].set_value();
        done[size_t(t)] = AwaitOutcome(c);
      });
    }
    for (auto& s : sent) s.get_future().wait();
  }
  void Join() {
    for (auto& th : threads) th.join();
    threads.clear();
  }
  ~WaitingThreads() {
    Join();
    channels.clear();
  }
  std::vector<std::unique_ptr<SharedChannel>> channels;
  std::vector<Outcome> outcomes;
  std::vector<char> done;
  std::vector<std::thread> threads;
};

TEST(SharedConnection, ServerClosingWhileThreadsWaitFailsEveryCall) {
  constexpr int kThreads = 6;
  RawListener listener;
  WirebenchSharedConnectionOptions o = OptionsFor(listener.port(), kThreads);
  o.client.handshake_timeout_ms = 0;  // However slow the machine, the close comes first.
  auto conn = WirebenchSharedConnection::Connect(o);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  std::unique_ptr<RawPeer> peer = listener.Accept();
  ASSERT_NE(peer, nullptr);
  {
    WaitingThreads w(conn->get(), kThreads);
    std::string preamble;
    ASSERT_EQ(peer->ReadExactly(wbrpc::kPreambleSize, &preamble), RawPeer::Read::kOk);
    for (int i = 0; i < kThreads; ++i) {  // Every call reached the "server".
      wbrpc::FrameHeader h;
      std::string payload;
      ASSERT_EQ(peer->ReadFrame(&h, &payload), RawPeer::Read::kOk) << "frame " << i;
    }
    peer->Close();
    w.Join();
    for (int t = 0; t < kThreads; ++t) {
      SCOPED_TRACE("thread " + std::to_string(t));
      EXPECT_TRUE(w.done[size_t(t)]) << "the call was never failed";
      EXPECT_EQ(w.outcomes[size_t(t)].replies, 0);
      EXPECT_EQ(w.outcomes[size_t(t)].failures, 1);
      EXPECT_NE(w.outcomes[size_t(t)].error.message().find("closed by the server"),
                std::string::npos)
          << w.outcomes[size_t(t)].error.ToString();
      EXPECT_FALSE(w.channels[size_t(t)]->ok());
      Outcome late;
      EXPECT_EQ(SendPing(w.channels[size_t(t)].get(), &late, "late"), 0u)
          << "a failed connection refuses new calls";
    }
  }
  EXPECT_FALSE((*conn)->ok());
  EXPECT_NE((*conn)->error().message().find(std::to_string(listener.port())), std::string::npos)
      << (*conn)->error().ToString();
  EXPECT_EQ((*conn)->inflight(), 0u);
}

TEST(SharedConnection, CloseFromAnotherThreadFailsEveryWaitingCall) {
  constexpr int kThreads = 4;
  RawListener listener;  // Accepts (the kernel's backlog) and never answers.
  WirebenchSharedConnectionOptions o = OptionsFor(listener.port(), kThreads);
  o.client.handshake_timeout_ms = 0;
  auto conn = WirebenchSharedConnection::Connect(o);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  {
    WaitingThreads w(conn->get(), kThreads);
    (*conn)->Close();
    w.Join();
    for (int t = 0; t < kThreads; ++t) {
      SCOPED_TRACE("thread " + std::to_string(t));
      EXPECT_TRUE(w.done[size_t(t)]);
      EXPECT_EQ(w.outcomes[size_t(t)].failures, 1);
      EXPECT_EQ(w.outcomes[size_t(t)].error.code(), Status::Code::kAborted)
          << w.outcomes[size_t(t)].error.ToString();
    }
  }
}

// A call given up (Cancel) whose reply comes later: the reply is stray, the
// caller's next call goes out and gets its own reply.
TEST(SharedConnection, CancelledCallsLateReplyIsStray) {
  RawListener listener;
  WirebenchSharedConnectionOptions o = OptionsFor(listener.port(), 1);
  o.client.handshake_timeout_ms = 0;
  auto conn = WirebenchSharedConnection::Connect(o);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  std::unique_ptr<RawPeer> peer = listener.Accept();
  ASSERT_NE(peer, nullptr);
  std::unique_ptr<SharedChannel> c = (*conn)->NewChannel();
  std::string bytes;
  ASSERT_EQ(peer->ReadExactly(wbrpc::kPreambleSize, &bytes), RawPeer::Read::kOk);

  Outcome first;
  const uint32_t first_id = SendPing(c.get(), &first, "first");
  ASSERT_NE(first_id, 0u);
  wbrpc::FrameHeader h;
  ASSERT_EQ(peer->ReadFrame(&h, &bytes), RawPeer::Read::kOk);
  EXPECT_EQ(h.call_id, first_id);
  c->Cancel(first_id);
  EXPECT_FALSE(c->waiting());
  ASSERT_TRUE(peer->Send(FrameBytes(first_id, uint8_t(Method::kPing), "first")));

  Outcome second;
  const uint32_t second_id = SendPing(c.get(), &second, "second");
  ASSERT_NE(second_id, 0u);
  EXPECT_NE(second_id, first_id);
  ASSERT_EQ(peer->ReadFrame(&h, &bytes), RawPeer::Read::kOk);
  EXPECT_EQ(h.call_id, second_id);
  ASSERT_TRUE(peer->Send(FrameBytes(second_id, uint8_t(Method::kPing), "second")));
  ASSERT_TRUE(AwaitOutcome(c.get()));
  EXPECT_EQ(first.replies + first.failures, 0) << "a cancelled call is never told";
  EXPECT_EQ(second.replies, 1);
  EXPECT_EQ(second.payload, "second");
  EXPECT_EQ(second.call_id, second_id);
  EXPECT_EQ((*conn)->stats().stray_replies, 1u);
  c.reset();
}

// A request over the frame limit fails inside Send() and the connection
// stays usable.
TEST_F(AgainstServer, OversizedRequestFailsInSend) {
  WirebenchSharedConnectionOptions o = OptionsFor(server_->port(), 1);
  o.client.max_request_frame = 64;
  auto conn = WirebenchSharedConnection::Connect(o);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  std::unique_ptr<SharedChannel> c = (*conn)->NewChannel();
  Outcome big;
  SendPing(c.get(), &big, std::string(100, 'x'));
  EXPECT_EQ(big.failures, 1);
  EXPECT_NE(big.error.message().find("frame limit"), std::string::npos) << big.error.ToString();
  EXPECT_FALSE(c->waiting());
  Outcome small;
  ASSERT_NE(SendPing(c.get(), &small, "small"), 0u);
  ASSERT_TRUE(AwaitOutcome(c.get()));
  EXPECT_EQ(small.payload, "small");
}

TEST(SharedConnection, ConnectToNothingNamesTheServer) {
  uint16_t port = 0;
  {
    RawListener listener;
    port = listener.port();
  }
  auto conn = WirebenchSharedConnection::Connect(OptionsFor(port, 1));
  ASSERT_FALSE(conn.ok());
  EXPECT_NE(conn.status().message().find("cannot connect to server 127.0.0.1:" +
                                         std::to_string(port)),
            std::string::npos)
      << conn.status().ToString();
}

}  // namespace
}  // namespace wirebench
