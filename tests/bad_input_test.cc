// The bad-input cases only wirebench's framing has (the matrix every
// transport shares, run over this one too, is transport_bad_input_test.cc):
// a live server of `--rpc wirebench` started through the registry with the
// null region on port 0, one well-behaved client making calls on its own
// connection for the whole test, and one misbehaving peer per case on
// blocking POSIX sockets (tests/bad_input_fixture.h). Every case must leave
// the well-behaved client with zero failed calls (and still being served
// afterwards), the server with no leftover connections, and its memory
// bounded.
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "codecs/codec.h"
#include "common/calls.h"
#include "tests/bad_input_fixture.h"
#include "tests/heap_bytes.h"
#include "tests/raw_peer.h"
#include "tests/transport_cases.h"

namespace wirebench {
namespace {

using Clock = std::chrono::steady_clock;

using testing::FrameBytes;
using testing::HeapBytesInUse;
using testing::LengthWord;
using testing::PreambleBytes;
using testing::RawPeer;

// Sends a ping on `peer` and checks that it comes back intact.
void ExpectPingWorks(RawPeer* peer, uint32_t call_id) {
  ASSERT_TRUE(peer->Send(testing::WirebenchPing(call_id)));
  testing::ExpectWirebenchPing(peer, call_id);
}

// Reads the error frame a refused or failed peer gets, then the close.
void ExpectErrorThenClose(RawPeer* peer, CallStatus status, const std::string& reason_part) {
  wbrpc::FrameHeader h;
  std::string payload;
  ASSERT_EQ(peer->ReadFrame(&h, &payload), RawPeer::Read::kOk);
  EXPECT_EQ(h.status, uint8_t(status)) << payload;
  EXPECT_NE(payload.find(reason_part), std::string::npos) << payload;
  EXPECT_EQ(peer->ReadUntilClosed(), RawPeer::Read::kClosed);
}

class BadInput : public testing::BadInputTest {
 protected:
  void StartServer(rpc::ServerOptions o = {}) { StartServerOf("wirebench", o); }
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
  const std::string payload(rpc::kDefaultMaxCallBytes - wbrpc::kFixedHeaderSize, 'm');
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) +
                        FrameBytes(77, uint8_t(Method::kPing), payload)));
  wbrpc::FrameHeader h;
  std::string echoed;
  ASSERT_EQ(peer.ReadFrame(&h, &echoed), RawPeer::Read::kOk);
  EXPECT_EQ(h.status, uint8_t(CallStatus::kOk));
  EXPECT_EQ(h.call_id, 77u);
  EXPECT_EQ(h.length, rpc::kDefaultMaxCallBytes);
  EXPECT_TRUE(echoed == payload);
  ExpectPingWorks(&peer, 78);
}

TEST_F(BadInput, FrameOneByteOverTheMaximumIsRefused) {
  StartServer();
  RawPeer peer(port_);
  // Only the length word is sent: the server must refuse before buffering.
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) +
                        LengthWord(rpc::kDefaultMaxCallBytes + 1)));
  ExpectErrorThenClose(&peer, CallStatus::kCallTooLarge, "exceeds the maximum");
}

TEST_F(BadInput, FrameLengthAllOnesIsRefused) {
  StartServer();
  RawPeer peer(port_);
  ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(CodecId::kRaw)) + LengthWord(0xFFFFFFFFu)));
  ExpectErrorThenClose(&peer, CallStatus::kCallTooLarge, "4294967295 bytes exceeds the maximum");
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

// A preamble and then nothing was held forever (the idle
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

TEST_F(BadInput, ValidFramesFollowedByGarbage) {
  StartServer();
  RawPeer peer(port_);
  std::string bytes = PreambleBytes(uint8_t(CodecId::kRaw));
  for (uint32_t id = 1; id <= 3; ++id) bytes += FrameBytes(id, uint8_t(Method::kPing), "ping");
  bytes += LengthWord(3) + "garbage garbage garbage";  // Length 3: below the call header.
  ASSERT_TRUE(peer.Send(bytes));
  for (uint32_t id = 1; id <= 3; ++id) {
    wbrpc::FrameHeader h;
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
  wbrpc::FrameHeader h;
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
  for (const CodecInfo* entry : Codecs()) {
    const CodecInfo& info = *entry;
    SCOPED_TRACE(std::string(info.name()));
    RawPeer peer(port_);
    ASSERT_TRUE(peer.Send(PreambleBytes(uint8_t(info.id))));
    uint32_t id = 100;
    for (Method m : {Method::kMutate, Method::kGet, Method::kScan, Method::kMulti}) {
      SCOPED_TRACE(std::string(MethodName(m)));
      ASSERT_TRUE(peer.Send(FrameBytes(++id, uint8_t(m), garbage)));
      wbrpc::FrameHeader h;
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
  ASSERT_TRUE(peer.SetSendTimeout(1));
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
    wbrpc::FrameHeader h;
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
        wbrpc::FrameHeader h;
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
