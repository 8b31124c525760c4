// The bad-input matrix, end to end: a live rpc::Server with the null region
// on port 0, one well-behaved client making calls on its own connection for
// the whole test, and one misbehaving peer per case on blocking POSIX
// sockets. Every case must leave the well-behaved client with zero failed
// calls (and still being served afterwards), the server with no leftover
// connections, and its memory bounded.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "codecs/codec.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/wirebench/client.h"
#include "transports/wirebench/frame.h"
#include "transports/wirebench/server.h"
#include "tests/heap_bytes.h"
#include "tests/raw_peer.h"
#include "tests/steady_client.h"

namespace wirebench {
namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

using testing::FrameBytes;
using testing::HeapBytesInUse;
using testing::LengthWord;
using testing::PreambleBytes;
using testing::RawPeer;

// Sends a ping on `peer` and checks that it comes back intact.
void ExpectPingWorks(RawPeer* peer, uint32_t call_id) {
  ASSERT_TRUE(peer->Send(FrameBytes(call_id, uint8_t(Method::kPing), "still there?")));
  rpc::FrameHeader h;
  std::string payload;
  ASSERT_EQ(peer->ReadFrame(&h, &payload), RawPeer::Read::kOk);
  EXPECT_EQ(h.call_id, call_id);
  EXPECT_EQ(h.status, uint8_t(CallStatus::kOk)) << payload;
  EXPECT_EQ(payload, "still there?");
}

// Reads the error frame a refused or failed peer gets, then the close.
void ExpectErrorThenClose(RawPeer* peer, CallStatus status, const std::string& reason_part) {
  rpc::FrameHeader h;
  std::string payload;
  ASSERT_EQ(peer->ReadFrame(&h, &payload), RawPeer::Read::kOk);
  EXPECT_EQ(h.status, uint8_t(status)) << payload;
  EXPECT_NE(payload.find(reason_part), std::string::npos) << payload;
  EXPECT_EQ(peer->ReadUntilClosed(), RawPeer::Read::kClosed);
}

// The well-behaved client (tests/steady_client.h) on a wirebench connection.
using SteadyClient = testing::SteadyClient<rpc::ClientConnection>;

std::unique_ptr<SteadyClient> StartSteadyClient(uint16_t port) {
  return std::make_unique<SteadyClient>(
      [port](asio::io_context& ctx) {
        rpc::ClientOptions co;
        co.port = port;
        co.codec_id = uint8_t(CodecId::kRaw);
        return rpc::ClientConnection::Connect(ctx, co);
      },
      /*cancelled_call_still_ends=*/false);
}

// ---------------------------------------------------------------------------

class BadInput : public ::testing::Test {
 protected:
  void StartServer(rpc::ServerOptions o = {}) {
    ::testing::internal::CaptureStderr();
    capturing_ = true;
    region_ = NewNullRegion({});
    service_ = std::make_unique<RegionService>(region_.get());
    server_ = std::make_unique<rpc::Server>(o, service_.get());
    ASSERT_TRUE(server_->Start().ok());
    port_ = server_->port();
    heap_at_start_ = HeapBytesInUse();
    ASSERT_GT(heap_at_start_, 0u) << "the allocator reports no heap statistics";
    client_ = StartSteadyClient(port_);
    // The misbehaving peer starts only once the good client is being served.
    ASSERT_TRUE(client_->WaitForMoreCalls(50)) << client_->first_error();
  }

  void TearDown() override {
    if (client_) {
      // The good client is still being served after the bad peer is done...
      EXPECT_TRUE(client_->WaitForMoreCalls(50)) << client_->first_error();
      client_->Stop();
      // ... and never had a call fail.
      EXPECT_EQ(client_->failed(), 0u) << client_->first_error();
      EXPECT_GT(client_->ok(), 100u);
      // Every misbehaving connection is gone from the server.
      EXPECT_TRUE(WaitForActiveConnections(0)) << server_->StatsJson()["connections"].dump();
      // Bounded memory: nothing a bad peer sent is held on to. Heap bytes
      // in use, not RSS: RSS also counts the allocator's cache and, in the
      // sanitizer stages, shadow memory, neither of which the server holds.
      // Once every bad connection is gone the heap is back within 1 MiB of
      // where it started in every build; the bound leaves room for the
      // largest legitimate buffer here (the 16 MiB max-frame case).
      const size_t heap = HeapBytesInUse();
      EXPECT_LT(heap, heap_at_start_ + (32u << 20))
          << "heap in use grew from " << heap_at_start_ << " to " << heap << " bytes";
    }
    if (server_) server_->Stop();
    if (capturing_) log_ = ::testing::internal::GetCapturedStderr();
    if (HasFailure()) std::printf("server log:\n%.20000s\n", log_.c_str());
  }

  int64_t ActiveConnections() {
    return server_->StatsJson()["connections"]["active"].get<int64_t>();
  }
  // Waits (polling the server's counters) until `n` connections are open.
  bool WaitForActiveConnections(int64_t n) {
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while (ActiveConnections() != n && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return ActiveConnections() == n;
  }
  // The server's log so far (stops capturing it).
  std::string TakeLog() {
    capturing_ = false;
    log_ = ::testing::internal::GetCapturedStderr();
    return log_;
  }
  static int Count(const std::string& haystack, const std::string& needle) {
    int n = 0;
    for (size_t p = haystack.find(needle); p != std::string::npos;
         p = haystack.find(needle, p + 1))
      ++n;
    return n;
  }
  void ExpectLoggedOnce(const std::string& reason_part) {
    std::string log = TakeLog();
    EXPECT_EQ(Count(log, reason_part), 1) << log;
  }

  std::unique_ptr<Region> region_;
  std::unique_ptr<RegionService> service_;
  std::unique_ptr<rpc::Server> server_;
  std::unique_ptr<SteadyClient> client_;
  uint16_t port_ = 0;
  size_t heap_at_start_ = 0;
  bool capturing_ = false;
  std::string log_;
};

TEST_F(BadInput, WrongMagicGetsAReasonAndIsClosed) {
  StartServer();
  RawPeer peer(port_);
  ASSERT_TRUE(peer.connected());
  ASSERT_TRUE(peer.Send("GET / HTTP/1.1\r\n\r\n"));
  ExpectErrorThenClose(&peer, CallStatus::kBadPreamble, "magic is not 'WBNC'");
  ExpectLoggedOnce("magic is not 'WBNC'");
}

TEST_F(BadInput, UnknownVersionGetsAReasonAndIsClosed) {
  StartServer();
  RawPeer peer(port_);
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw), /*version=*/2)));
  ExpectErrorThenClose(&peer, CallStatus::kBadPreamble, "unsupported protocol version 2");
  ExpectLoggedOnce("unsupported protocol version 2");
}

TEST_F(BadInput, UnknownCodecGetsAReasonAndIsClosed) {
  StartServer();
  RawPeer peer(port_);
  ASSERT_TRUE(peer.Send(PreambleBytes(200)));
  ExpectErrorThenClose(&peer, CallStatus::kBadPreamble, "unknown codec id 200");
  ExpectLoggedOnce("unknown codec id 200");
}

TEST_F(BadInput, FrameLengthZeroIsRefused) {
  StartServer();
  RawPeer peer(port_);
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) + LengthWord(0)));
  ExpectErrorThenClose(&peer, CallStatus::kBadRequest, "shorter than the 8-byte call header");
}

TEST_F(BadInput, FrameOfExactlyTheMaximumIsServed) {
  StartServer();
  RawPeer peer(port_);
  const std::string payload(rpc::kDefaultMaxFrame - rpc::kFixedHeaderSize, 'm');
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) +
                        FrameBytes(77, uint8_t(Method::kPing), payload)));
  rpc::FrameHeader h;
  std::string echoed;
  ASSERT_EQ(peer.ReadFrame(&h, &echoed), RawPeer::Read::kOk);
  EXPECT_EQ(h.status, uint8_t(CallStatus::kOk));
  EXPECT_EQ(h.call_id, 77u);
  EXPECT_EQ(h.length, rpc::kDefaultMaxFrame);
  EXPECT_TRUE(echoed == payload);
  ExpectPingWorks(&peer, 78);
}

TEST_F(BadInput, FrameOneByteOverTheMaximumIsRefused) {
  StartServer();
  RawPeer peer(port_);
  // Only the length word is sent: the server must refuse before buffering.
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) +
                        LengthWord(rpc::kDefaultMaxFrame + 1)));
  ExpectErrorThenClose(&peer, CallStatus::kFrameTooLarge, "exceeds the maximum");
}

TEST_F(BadInput, FrameLengthAllOnesIsRefused) {
  StartServer();
  RawPeer peer(port_);
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) + LengthWord(0xFFFFFFFFu)));
  ExpectErrorThenClose(&peer, CallStatus::kFrameTooLarge, "4294967295 bytes exceeds the maximum");
}

TEST_F(BadInput, FrameCutShortThenClosed) {
  StartServer();
  RawPeer peer(port_);
  std::string frame = FrameBytes(5, uint8_t(Method::kPing), std::string(100, 'c'));
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) + frame.substr(0, 40)));
  // Half-close: the server sees EOF mid-frame and must close its side.
  ASSERT_EQ(shutdown(peer.fd(), SHUT_WR), 0);
  EXPECT_EQ(peer.ReadUntilClosed(), RawPeer::Read::kClosed);
}

TEST_F(BadInput, FrameCutShortThenIdleIsClosedByTheIdleTimeout) {
  rpc::ServerOptions o;
  o.idle_timeout_ms = 200;
  StartServer(o);
  RawPeer peer(port_, /*recv_timeout_ms=*/5000);
  std::string frame = FrameBytes(5, uint8_t(Method::kPing), std::string(100, 'c'));
  const auto sent = Clock::now();
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) + frame.substr(0, 40)));
  EXPECT_EQ(peer.ReadUntilClosed(), RawPeer::Read::kClosed);
  const auto waited = Clock::now() - sent;
  EXPECT_GE(waited, std::chrono::milliseconds(150)) << "closed before the idle timeout";
  ExpectLoggedOnce("idle for 200 ms with an incomplete frame");
}

// Issue 18 item 10: a preamble and then nothing was held forever (the idle
// timeout covered only incomplete frames). Until its first call a
// connection is still in its handshake; one that has made a call may then
// idle as long as it likes.
TEST_F(BadInput, PreambleOnlyIsClosedByTheIdleTimeoutButACallerIsNot) {
  rpc::ServerOptions o;
  o.idle_timeout_ms = 200;
  StartServer(o);
  RawPeer caller(port_, /*recv_timeout_ms=*/5000);
  ASSERT_TRUE(caller.Send(PreambleBytes(uint8_t(CodecId::kRaw))));
  ExpectPingWorks(&caller, 1);
  RawPeer silent(port_, /*recv_timeout_ms=*/5000);
  const auto sent = Clock::now();
  ASSERT_TRUE(silent.Send(PreambleBytes(uint8_t(CodecId::kRaw))));
  EXPECT_EQ(silent.ReadUntilClosed(), RawPeer::Read::kClosed);
  EXPECT_GE(Clock::now() - sent, std::chrono::milliseconds(150)) << "closed before the idle timeout";
  // The caller has been idle at least as long, and is still served.
  ExpectPingWorks(&caller, 2);
  ExpectLoggedOnce("idle for 200 ms after its preamble without making a call (--idle-timeout-ms)");
}

// Callers that made a call and then only sit hold connection slots; while
// the server holds over half its limit they are closed after the idle
// timeout, so they cannot lock every new client out (10,000 of them did,
// for as long as they were held).
TEST_F(BadInput, IdleCallersAreClosedOnceTheServerIsCrowded) {
  rpc::ServerOptions o;
  o.idle_timeout_ms = 200;
  o.max_connections = 8;
  StartServer(o);  // The steady client holds one.
  std::vector<std::unique_ptr<RawPeer>> idle;
  for (int i = 0; i < 6; ++i) {
    idle.push_back(std::make_unique<RawPeer>(port_, /*recv_timeout_ms=*/5000));
    ASSERT_TRUE(idle.back()->Send(PreambleBytes(uint8_t(CodecId::kRaw))));
    ExpectPingWorks(idle.back().get(), 1);
  }
  // Seven open of eight: idle ones are closed until half the limit is left.
  auto closed = [&] { return server_->StatsJson()["connections"]["idle_closed"].get<uint64_t>(); };
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (closed() < 3 && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(closed(), 3u);
  EXPECT_EQ(ActiveConnections(), 4);
  // A new client gets in.
  RawPeer late(port_, /*recv_timeout_ms=*/5000);
  ASSERT_TRUE(late.Send(PreambleBytes(uint8_t(CodecId::kRaw))));
  ExpectPingWorks(&late, 1);
}

// Connections that each announce a large call and never finish it: the room
// made for them comes out of --max-buffered-bytes, and past it a connection
// is refused (an error frame naming the flag, then closed) instead of the
// server's memory growing with every such connection.
TEST_F(BadInput, UnfinishedLargeCallsAreBoundedAcrossConnections) {
  rpc::ServerOptions o;
  o.max_buffered_bytes = 8u << 20;
  StartServer(o);
  auto stats = [&] { return server_->StatsJson()["connections"]; };
  std::vector<std::unique_ptr<RawPeer>> peers;
  for (int i = 0; i < 6; ++i) {
    // 1 MiB announced: room of 2 MiB (the buffer doubles), 2 MiB - 64 KiB budgeted.
    peers.push_back(std::make_unique<RawPeer>(port_, /*recv_timeout_ms=*/10000));
    ASSERT_TRUE(peers.back()->Send(PreambleBytes(uint8_t(CodecId::kRaw)) + LengthWord(1u << 20) +
                                   std::string(8, '\x01')));
    // Each is taken in turn: the first four get room, the rest are refused.
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
  for (int i = 4; i < 6; ++i)
    ExpectErrorThenClose(peers[size_t(i)].get(), CallStatus::kOverloaded, "--max-buffered-bytes 8388608");
  peers.clear();
  EXPECT_TRUE(WaitForActiveConnections(1));
  EXPECT_EQ(stats()["buffered_bytes"].get<uint64_t>(), 0u);
}

TEST_F(BadInput, ValidFramesFollowedByGarbage) {
  StartServer();
  RawPeer peer(port_);
  std::string bytes = PreambleBytes(uint8_t(CodecId::kRaw));
  for (uint32_t id = 1; id <= 3; ++id) bytes += FrameBytes(id, uint8_t(Method::kPing), "ping");
  bytes += LengthWord(3) + "garbage garbage garbage";  // Length 3: below the call header.
  ASSERT_TRUE(peer.Send(bytes));
  for (uint32_t id = 1; id <= 3; ++id) {
    rpc::FrameHeader h;
    std::string payload;
    ASSERT_EQ(peer.ReadFrame(&h, &payload), RawPeer::Read::kOk);
    EXPECT_EQ(h.call_id, id);
    EXPECT_EQ(h.status, uint8_t(CallStatus::kOk));
    EXPECT_EQ(payload, "ping");
  }
  ExpectErrorThenClose(&peer, CallStatus::kBadRequest, "bad frame: length 3");
}

TEST_F(BadInput, UnknownMethodGetsAnErrorAndTheConnectionSurvives) {
  StartServer();
  RawPeer peer(port_);
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) + FrameBytes(9, 42, "x")));
  rpc::FrameHeader h;
  std::string payload;
  ASSERT_EQ(peer.ReadFrame(&h, &payload), RawPeer::Read::kOk);
  EXPECT_EQ(h.call_id, 9u);
  EXPECT_EQ(h.status, uint8_t(CallStatus::kUnknownMethod));
  EXPECT_NE(payload.find("unknown method 42"), std::string::npos) << payload;
  ExpectPingWorks(&peer, 10);
}

TEST_F(BadInput, UndecodablePayloadGetsAReasonForEveryCodecAndMethod) {
  StartServer();
  const std::string garbage(64, '\xFF');
  for (const CodecInfo& info : AllCodecs()) {
    SCOPED_TRACE(std::string(info.name));
    RawPeer peer(port_);
    ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(info.id))));
    uint32_t id = 100;
    for (Method m : {Method::kMutate, Method::kGet, Method::kScan, Method::kMulti}) {
      SCOPED_TRACE(std::string(MethodName(m)));
      ASSERT_TRUE(peer.Send(FrameBytes(++id, uint8_t(m), garbage)));
      rpc::FrameHeader h;
      std::string payload;
      ASSERT_EQ(peer.ReadFrame(&h, &payload), RawPeer::Read::kOk);
      EXPECT_EQ(h.call_id, id);
      EXPECT_EQ(h.status, uint8_t(CallStatus::kBadRequest)) << payload;
      EXPECT_NE(payload.find("cannot decode " + std::string(MethodName(m)) + " request"),
                std::string::npos)
          << payload;
    }
    // Framing was intact, so the connection survives.
    ExpectPingWorks(&peer, 999);
  }
}

TEST_F(BadInput, ClientThatPipelinesAndNeverReadsIsHeldBack) {
  rpc::ServerOptions o;
  o.max_queued_bytes = 1u << 20;
  StartServer(o);
  RawPeer peer(port_);
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw))));
  // A send timeout turns "the server stopped reading" into an event.
  timeval tv{1, 0};
  ASSERT_EQ(setsockopt(peer.fd(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)), 0);
  std::string batch;
  for (uint32_t i = 0; i < 64; ++i)
    batch += FrameBytes(i + 1, uint8_t(Method::kPing), std::string(1000, 'p'));
  // Unbounded buffering would swallow all 512 MiB; back-pressure must stop
  // it after the queued-bytes limit plus what the kernel buffers.
  const size_t kOffered = 512u << 20;
  size_t written = 0;
  while (written < kOffered && peer.Send(batch)) written += batch.size();
  EXPECT_LT(written, 64u << 20) << "the server kept reading from a client that never reads";
  EXPECT_LT(HeapBytesInUse(), heap_at_start_ + (128u << 20));
  peer.Reset();
}

TEST_F(BadInput, ThousandsOfConnectionsAtOnce) {
  rlimit rl{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  const rlim_t kWant = 8192;
  if (rl.rlim_cur < kWant && rl.rlim_max >= kWant) {
    rl.rlim_cur = kWant;
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
  }
  ASSERT_GE(rl.rlim_cur, kWant) << "raise the hard fd limit (ulimit -Hn) to " << kWant;
  StartServer();
  constexpr int kConnections = 3000;
  std::vector<std::unique_ptr<RawPeer>> peers;
  for (int i = 0; i < kConnections; ++i) {
    peers.push_back(std::make_unique<RawPeer>(port_));
    ASSERT_TRUE(peers.back()->connected()) << "connection " << i << ": " << std::strerror(errno);
  }
  for (auto& p : peers) {
    ASSERT_TRUE(p->Send(PreambleBytes(uint8_t(CodecId::kRaw)) +
                        FrameBytes(1, uint8_t(Method::kPing), "hi")));
  }
  for (int i = 0; i < kConnections; ++i) {
    rpc::FrameHeader h;
    std::string payload;
    ASSERT_EQ(peers[size_t(i)]->ReadFrame(&h, &payload), RawPeer::Read::kOk) << "connection " << i;
    ASSERT_EQ(payload, "hi");
  }
  EXPECT_EQ(ActiveConnections(), kConnections + 1);
  peers.clear();
}

TEST_F(BadInput, StormOfConnectsAndDisconnects) {
  StartServer();
  const std::string preamble = PreambleBytes(uint8_t(CodecId::kRaw));
  const std::string ping = FrameBytes(1, uint8_t(Method::kPing), std::string(4096, 's'));
  for (int i = 0; i < 2000; ++i) {
    RawPeer peer(port_);
    ASSERT_TRUE(peer.connected()) << "connection " << i << ": " << std::strerror(errno);
    switch (i % 5) {
      case 0:  // Connect and leave at once.
        break;
      case 1:  // Half a preamble.
        ASSERT_TRUE(peer.Send(preamble.substr(0, 3)));
        break;
      case 2:  // A call whose reply is never read.
        ASSERT_TRUE(peer.Send(preamble + ping));
        break;
      case 3:  // A reset in the middle of a frame.
        ASSERT_TRUE(peer.Send(preamble + ping.substr(0, 100)));
        peer.Reset();
        break;
      default:  // A complete exchange.
        ASSERT_TRUE(peer.Send(preamble + ping));
        rpc::FrameHeader h;
        std::string payload;
        ASSERT_EQ(peer.ReadFrame(&h, &payload), RawPeer::Read::kOk);
        break;
    }
  }
}

TEST_F(BadInput, ClientDisconnectsInTheMiddleOfAReply) {
  StartServer();
  const std::string big(8u << 20, 'r');
  for (int i = 0; i < 10; ++i) {
    RawPeer peer(port_);
    ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) +
                          FrameBytes(1, uint8_t(Method::kPing), big)));
    std::string part;
    ASSERT_EQ(peer.ReadExactly(64 * 1024, &part), RawPeer::Read::kOk);
    if (i % 2 == 0) {
      peer.Reset();
    } else {
      peer.Close();
    }
  }
}

}  // namespace
}  // namespace wirebench
