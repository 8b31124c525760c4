// The server's limits (rpc::ServerOptions): maximum connections, calls in
// flight per connection, queued reply bytes per connection, frame size and
// the idle timeout are each enforced, and their defaults are sane. Also the
// rate limit on the log lines a hostile peer can trigger (rpc/log.h).
// Peers are blocking POSIX sockets against an in-process server on port 0.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "codecs/codec.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/wirebench/frame.h"
#include "rpc/log.h"
#include "transports/wirebench/server.h"
#include "tests/active_connections.h"
#include "tests/raw_peer.h"
#include "tests/test_workloads.h"

namespace wirebench {
namespace {

using Clock = std::chrono::steady_clock;

using testing::FrameBytes;
using testing::PreambleBytes;
using Peer = testing::RawPeer;

class ServerLimits : public ::testing::Test {
 protected:
  void StartServer(rpc::ServerOptions o, NullRegionOptions n = {}) {
    region_ = NewNullRegion(n);
    service_ = std::make_unique<RegionService>(region_.get());
    server_ = std::make_unique<wbrpc::Server>(o, service_.get());
    ASSERT_TRUE(server_->Start().ok());
    port_ = server_->port();
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }
  int64_t ActiveConnections() { return testing::ActiveConnections(*server_); }
  bool WaitForActiveConnections(int64_t n) {
    return testing::WaitForActiveConnections(*server_, n);
  }

  std::unique_ptr<Region> region_;
  std::unique_ptr<RegionService> service_;
  std::unique_ptr<wbrpc::Server> server_;
  uint16_t port_ = 0;
};

TEST_F(ServerLimits, DefaultsAreSane) {
  rpc::ServerOptions o;
  EXPECT_EQ(o.max_call_bytes, 16u << 20);
  EXPECT_GE(o.max_connections, 1000);
  EXPECT_GE(o.max_inflight_per_connection, 64);
  // A reply of the largest frame must fit in the queue, or it could never be sent.
  EXPECT_GE(o.max_queued_bytes, size_t(o.max_call_bytes) + wbrpc::kLengthSize);
  EXPECT_GT(o.idle_timeout_ms, 0);
  EXPECT_EQ(o.host, "127.0.0.1");
}

TEST_F(ServerLimits, MaxConnectionsRefusesTheNextOneWithAReason) {
  rpc::ServerOptions o;
  o.max_connections = 3;
  StartServer(o);
  ::testing::internal::CaptureStderr();
  std::unique_ptr<Peer> peers[3];
  for (int i = 0; i < 3; ++i) {
    peers[i] = std::make_unique<Peer>(port_);
    ASSERT_TRUE(peers[i]->Send(PreambleBytes(uint8_t(CodecId::kRaw))));
    ASSERT_TRUE(peers[i]->Ping(uint32_t(i + 1)));
  }
  {
    Peer fourth(port_);
    ASSERT_TRUE(fourth.connected());
    wbrpc::FrameHeader h;
    std::string reason;
    ASSERT_EQ(fourth.ReadFrame(&h, &reason), Peer::Read::kOk);
    EXPECT_EQ(h.status, uint8_t(CallStatus::kOverloaded));
    EXPECT_EQ(h.call_id, 0u);
    EXPECT_NE(reason.find("connection limit (3)"), std::string::npos) << reason;
    EXPECT_EQ(fourth.ReadUntilClosed(), Peer::Read::kClosed);
  }
  std::string log = ::testing::internal::GetCapturedStderr();
  size_t first = log.find("refused connection from 127.0.0.1:");
  EXPECT_NE(first, std::string::npos) << log;
  EXPECT_EQ(log.find("refused connection from", first + 1), std::string::npos) << log;
  // The three admitted connections are unaffected.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(peers[i]->Ping(uint32_t(10 + i)));
  // A slot freed is a slot available.
  peers[0].reset();
  ASSERT_TRUE(WaitForActiveConnections(2));
  Peer again(port_);
  ASSERT_TRUE(again.Send(PreambleBytes(uint8_t(CodecId::kRaw))));
  EXPECT_TRUE(again.Ping(20));
  EXPECT_EQ(server_->StatsJson()["connections"]["refused"].get<int>(), 1);
}

TEST_F(ServerLimits, MaxFrameIsEnforcedAtItsExactValue) {
  rpc::ServerOptions o;
  o.max_call_bytes = 1024;
  StartServer(o);
  Peer peer(port_);
  const std::string at_limit(1024 - wbrpc::kFixedHeaderSize, 'a');
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) +
                        FrameBytes(1, uint8_t(Method::kPing), at_limit)));
  wbrpc::FrameHeader h;
  std::string payload;
  ASSERT_EQ(peer.ReadFrame(&h, &payload), Peer::Read::kOk);
  EXPECT_EQ(h.status, 0);
  EXPECT_EQ(payload, at_limit);
  // One byte more, sent whole: refused, closed.
  ASSERT_TRUE(peer.Send(FrameBytes(2, uint8_t(Method::kPing), at_limit + "b")));
  ASSERT_EQ(peer.ReadFrame(&h, &payload), Peer::Read::kOk);
  EXPECT_EQ(h.status, uint8_t(CallStatus::kCallTooLarge));
  EXPECT_EQ(h.call_id, 2u);
  EXPECT_NE(payload.find("frame of 1025 bytes exceeds the maximum of 1024 bytes"),
            std::string::npos)
      << payload;
  EXPECT_EQ(peer.ReadUntilClosed(), Peer::Read::kClosed);
}

// Calls held by the region (delay_us) count as in flight; with a limit of 4
// and each reply held 100 ms, 20 pipelined calls need at least 5 rounds.
class InflightLimit : public ServerLimits, public ::testing::WithParamInterface<int> {};

TEST_P(InflightLimit, CallsInFlightPerConnectionAreCapped) {
  rpc::ServerOptions o;
  o.handlers = GetParam();
  o.max_inflight_per_connection = 4;
  NullRegionOptions n;
  n.delay_us = 100000;
  StartServer(o, n);
  auto codec = NewCodec(uint8_t(CodecId::kRaw));
  ASSERT_TRUE(codec.ok());
  testing::Record rec;
  ByteBuffer calls;
  constexpr uint32_t kCalls = 20;
  for (uint32_t id = 1; id <= kCalls; ++id) {
    size_t off = wbrpc::BeginFrame(&calls, id, uint8_t(Method::kMutate), 0);
    MutateRequest req;
    req.mutation = Mutation{ByteView(rec.row), MutationType::kPut, 0, rec.cells};
    ASSERT_TRUE((*codec)->EncodeRequest(id, req, &calls).ok());
    wbrpc::EndFrame(&calls, off);
  }
  Peer peer(port_);
  const auto start = Clock::now();
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) + calls.view().ToString()));
  uint64_t seen = 0;
  for (uint32_t i = 0; i < kCalls; ++i) {
    wbrpc::FrameHeader h;
    std::string payload;
    ASSERT_EQ(peer.ReadFrame(&h, &payload), Peer::Read::kOk) << "after " << i << " replies";
    EXPECT_EQ(h.status, 0) << payload;
    ASSERT_GE(h.call_id, 1u);
    ASSERT_LE(h.call_id, kCalls);
    seen |= uint64_t(1) << h.call_id;
  }
  const auto took = Clock::now() - start;
  EXPECT_EQ(seen, ((uint64_t(1) << (kCalls + 1)) - 1) & ~uint64_t(1)) << "a call id is missing";
  EXPECT_GE(took, std::chrono::milliseconds(450))
      << "20 calls of 100 ms each finished faster than 4 at a time allows";
  EXPECT_TRUE(peer.Ping(100));
}

INSTANTIATE_TEST_SUITE_P(InlineAndPool, InflightLimit, ::testing::Values(0, 2),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return p.param == 0 ? std::string("Inline")
                                               : "Handlers" + std::to_string(p.param);
                         });

TEST_F(ServerLimits, QueuedBytesLimitStopsReadingAndEverythingIsAnsweredOnceTheClientReads) {
  rpc::ServerOptions o;
  o.max_queued_bytes = 256u << 10;
  StartServer(o);
  Peer peer(port_);
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw))));
  ASSERT_TRUE(peer.SetSendTimeout(1));
  const std::string one = FrameBytes(7, uint8_t(Method::kPing), std::string(1000, 'q'));
  std::string batch;
  for (int i = 0; i < 256; ++i) batch += one;
  // Write until the server stops reading (a send blocks for a whole second).
  size_t written = 0;
  for (;;) {
    size_t n = peer.SendSome(batch);
    written += n;
    if (n < batch.size() || written > (256u << 20)) break;
  }
  EXPECT_LT(written, 64u << 20) << "the server never stopped reading";
  // Now read: every whole frame that was written is answered.
  const size_t frames = written / one.size();
  ASSERT_EQ(shutdown(peer.fd(), SHUT_WR), 0);
  for (size_t i = 0; i < frames; ++i) {
    wbrpc::FrameHeader h;
    std::string payload;
    ASSERT_EQ(peer.ReadFrame(&h, &payload), Peer::Read::kOk)
        << "reply " << i << " of " << frames << " never came";
    ASSERT_EQ(h.call_id, 7u);
    ASSERT_EQ(payload.size(), 1000u);
  }
  EXPECT_EQ(peer.ReadUntilClosed(), Peer::Read::kClosed);
}

TEST_F(ServerLimits, IdleTimeoutClosesOnlyConnectionsPartWayThroughSomething) {
  rpc::ServerOptions o;
  o.idle_timeout_ms = 200;
  StartServer(o);
  // Part of a preamble, then nothing.
  Peer half_preamble(port_, 5000);
  ASSERT_TRUE(half_preamble.Send(PreambleBytes(uint8_t(CodecId::kRaw)).substr(0, 5)));
  // A complete exchange, then nothing: not part-way through anything.
  Peer quiet(port_, 600);
  ASSERT_TRUE(quiet.Send(PreambleBytes(uint8_t(CodecId::kRaw))));
  ASSERT_TRUE(quiet.Ping(1));
  const auto start = Clock::now();
  EXPECT_EQ(half_preamble.ReadUntilClosed(), Peer::Read::kClosed);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(100));
  std::string nothing;
  EXPECT_EQ(quiet.ReadExactly(1, &nothing), Peer::Read::kTimeout);  // 600 ms: 3 timeouts.
  EXPECT_TRUE(quiet.Ping(2));
}

// Past half of --max-connections, connections idle between calls are
// closed, the longest-idle first and only as many as bring the server back
// to half its limit. Each connection used to decide alone when its own
// timer fired, so the server closed whichever fired first once crowded:
// here the second peer, idle for one timeout, while the first had sat
// silent since before it came.
TEST_F(ServerLimits, CrowdedServerClosesTheLongestIdleConnectionFirst) {
  rpc::ServerOptions o;
  o.max_connections = 4;  // Crowded at 3: one too many.
  o.idle_timeout_ms = 1000;
  StartServer(o);
  std::vector<std::unique_ptr<Peer>> peers;
  for (uint32_t i = 0; i < 3; ++i) {
    // The third comes once the first's timer has fired (not crowded: it
    // stayed) and before the second's does.
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(i == 1 ? 400 : 800));
    peers.push_back(std::make_unique<Peer>(port_, 10000));
    ASSERT_TRUE(peers.back()->Send(PreambleBytes(uint8_t(CodecId::kRaw))));
    ASSERT_TRUE(peers.back()->Ping(i + 1));
  }
  EXPECT_EQ(peers[0]->ReadUntilClosed(), Peer::Read::kClosed);
  // The others stay: the server is back at half its limit.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(ActiveConnections(), 2);
  EXPECT_TRUE(peers[1]->Ping(11));
  EXPECT_TRUE(peers[2]->Ping(12));
  EXPECT_EQ(server_->StatsJson()["connections"]["idle_closed"].get<uint64_t>(), 1u);
}

TEST_F(ServerLimits, IdleTimeoutZeroNeverCloses) {
  rpc::ServerOptions o;
  o.idle_timeout_ms = 0;
  StartServer(o);
  Peer peer(port_, 500);
  const std::string frame = FrameBytes(3, uint8_t(Method::kPing), "ping");
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) + frame.substr(0, 6)));
  std::string nothing;
  EXPECT_EQ(peer.ReadExactly(1, &nothing), Peer::Read::kTimeout);
  ASSERT_TRUE(peer.Send(frame.substr(6)));
  wbrpc::FrameHeader h;
  std::string payload;
  ASSERT_EQ(peer.ReadFrame(&h, &payload), Peer::Read::kOk);
  EXPECT_EQ(payload, "ping");
}

TEST(ServerLog, RateLimitedLinesAreCappedAndTheRestCounted) {
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 1000; ++i) rpc::LogRateLimited("hostile peer " + std::to_string(i));
  rpc::LogRateLimited("after the flood");  // May report the suppressed count.
  std::string log = ::testing::internal::GetCapturedStderr();
  int lines = 0;
  for (char c : log) lines += c == '\n';
  // 1001 calls within (at most) a couple of one-second windows.
  EXPECT_GE(lines, 1);
  EXPECT_LE(lines, 3 * rpc::kLogBurst) << log;
  EXPECT_NE(log.find("hostile peer 0"), std::string::npos);
}

}  // namespace
}  // namespace wirebench
