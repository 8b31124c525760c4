// The bad-input matrix every transport shares, run over every registered
// one (tests/transport_cases.h): its server started through the registry,
// a good client of its own making calls throughout (tests/bad_input_fixture.h),
// and misbehaving peers on blocking sockets. Cases that send a transport's
// bytes by hand run over the transports whose row says how (RawWire); the
// cases only one wire format has are in bad_input_test.cc (wirebench),
// grpc_bad_input_test.cc and hbase_bad_input_test.cc.
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/bad_input_fixture.h"
#include "tests/raw_peer.h"
#include "tests/transport_cases.h"

namespace wirebench {
namespace {

using testing::RawPeer;
using testing::RawWire;

class TransportBadInput : public testing::BadInputTest,
                          public ::testing::WithParamInterface<const Transport*> {
 protected:
  const Transport& transport() const { return *GetParam(); }
};

// Cases that send the transport's bytes by hand.
class RawWireBadInput : public TransportBadInput {
 protected:
  const RawWire& wire() const { return *testing::CaseOf(transport()).raw; }
};

// Bytes of no protocol: closed (after whatever error the protocol sends).
TEST_P(TransportBadInput, GarbageIsAnsweredAndClosed) {
  StartServerOf(transport());
  RawPeer peer(port());
  ASSERT_TRUE(peer.connected());
  ASSERT_TRUE(peer.Send(std::string(4096, '\xA5')));
  EXPECT_EQ(peer.ReadUntilClosed(), RawPeer::Read::kClosed);
}

// Half-closed with a call cut short (or, for a transport with no hand-made
// bytes, with nothing sent): the server sees EOF and closes its side.
TEST_P(TransportBadInput, HalfOpenConnectionsAreClosed) {
  StartServerOf(transport());
  const RawWire* wire = testing::CaseOf(transport()).raw;
  const std::string cut_short = wire != nullptr ? wire->cut_short : "";
  for (int i = 0; i < 20; ++i) {
    RawPeer p(port());
    ASSERT_TRUE(p.connected());
    if (!cut_short.empty()) {
      ASSERT_TRUE(p.Send(cut_short));
    }
    ASSERT_EQ(shutdown(p.fd(), SHUT_WR), 0);
    EXPECT_EQ(p.ReadUntilClosed(), RawPeer::Read::kClosed) << "connection " << i;
  }
}

TEST_P(RawWireBadInput, RefusedInputsAreClosed) {
  StartServerOf(transport());
  for (const testing::BadBytes& b : wire().refused) {
    SCOPED_TRACE(b.what);
    RawPeer peer(port());
    ASSERT_TRUE(peer.Send(b.bytes));
    EXPECT_EQ(peer.ReadUntilClosed(), RawPeer::Read::kClosed);
  }
}

TEST_P(RawWireBadInput, TruncatedInputsAreClosedWhenIdle) {
  rpc::ServerOptions o;
  o.idle_timeout_ms = 300;
  StartServerOf(transport(), o);
  std::vector<std::unique_ptr<RawPeer>> peers;
  for (const testing::BadBytes& b : wire().truncated) {
    peers.push_back(std::make_unique<RawPeer>(port()));
    ASSERT_TRUE(peers.back()->Send(b.bytes)) << b.what;
  }
  // The idle timeout closes them all.
  for (size_t i = 0; i < peers.size(); ++i)
    EXPECT_EQ(peers[i]->ReadUntilClosed(), RawPeer::Read::kClosed) << wire().truncated[i].what;
}

// Connections that only sit hold connection slots; while the server holds
// over half its limit they are closed after the idle timeout, so they cannot
// lock every new client out (10,000 of them did, for as long as they were
// held).
TEST_P(RawWireBadInput, IdleConnectionsAreClosedOnceTheServerIsCrowded) {
  rpc::ServerOptions o;
  o.idle_timeout_ms = 200;
  o.max_connections = 8;
  StartServerOf(transport(), o);  // The steady client holds one.
  std::vector<std::unique_ptr<RawPeer>> idle;
  for (int i = 0; i < 6; ++i) {
    idle.push_back(std::make_unique<RawPeer>(port(), /*recv_timeout_ms=*/5000));
    ASSERT_TRUE(idle.back()->Send(wire().handshake));
    if (wire().idle_peer_calls_first) {
      ASSERT_TRUE(idle.back()->Send(wire().call(1)));
      wire().expect_answer(idle.back().get(), 1);
    }
  }
  // Seven open of eight: idle ones are closed until half the limit is left.
  auto closed = [&] { return Stats()["connections"]["idle_closed"].get<uint64_t>(); };
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (closed() < 3 && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(closed(), 3u);
  EXPECT_EQ(ActiveConnections(), 4);
  // A new client gets in.
  RawPeer late(port(), /*recv_timeout_ms=*/5000);
  ASSERT_TRUE(late.Send(wire().handshake + wire().call(1)));
  wire().expect_answer(&late, 1);
}

// Connections that each send the first 1.5 MiB of a 3 MiB call and never
// finish it: the room made for them comes out of --max-buffered-bytes, and
// past it a connection is refused (naming the flag, then closed) instead of
// the server's memory growing with every such connection.
TEST_P(RawWireBadInput, UnfinishedLargeCallsAreBoundedAcrossConnections) {
  rpc::ServerOptions o;
  o.max_buffered_bytes = 8u << 20;
  wire().budget_options(&o);
  StartServerOf(transport(), o);
  auto stats = [&] { return Stats()["connections"]; };
  const std::string sent = wire().announce_call(3u << 20) + std::string(3u << 19, 'x');
  std::vector<std::unique_ptr<RawPeer>> peers;
  for (int i = 0; i < 6; ++i) {
    // 1.5 MiB received: room of 2 MiB (the buffer doubles as bytes come),
    // 2 MiB - 64 KiB budgeted.
    peers.push_back(std::make_unique<RawPeer>(port(), /*recv_timeout_ms=*/10000));
    peers.back()->SendSome(sent);  // The refused ones are closed part-way.
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
  for (int i = 4; i < 6; ++i) wire().expect_refused_over_budget(peers[size_t(i)].get());
  peers.clear();
  EXPECT_TRUE(WaitForActiveConnections(1));  // The steady client's.
  EXPECT_EQ(stats()["buffered_bytes"].get<uint64_t>(), 0u);
}

// Connections that announce large calls and send a few bytes of them hold
// no more of --max-buffered-bytes than they sent, so a good client's large
// call is still served. The budget used to be charged for the announced
// length (rounded up to a power of two): two such connections here took the
// whole 8 MiB and the good call was refused.
TEST_P(RawWireBadInput, AnnouncedCallsHoldOnlyWhatArrivedAndALargeCallIsServed) {
  rpc::ServerOptions o;
  o.max_buffered_bytes = 8u << 20;
  wire().budget_options(&o);
  StartServerOf(transport(), o);
  std::vector<std::unique_ptr<RawPeer>> holders;
  for (int i = 0; i < 6; ++i) {
    holders.push_back(std::make_unique<RawPeer>(port(), /*recv_timeout_ms=*/10000));
    ASSERT_TRUE(holders.back()->Send(wire().announce_call(3u << 20)));
  }
  RawPeer good(port(), /*recv_timeout_ms=*/20000);
  ASSERT_TRUE(good.Send(wire().handshake + wire().large_call(9, 3u << 19)));
  wire().expect_large_answer(&good, 3u << 19);
  EXPECT_EQ(Stats()["connections"]["budget_refused"].get<uint64_t>(), 0u);
}

// A peer that announces a call and sends a byte every 100 ms never idles,
// so the idle timeout alone never closed it: its call has a deadline of its
// own, a grace of --idle-timeout-ms and then at least 64 KiB/s.
TEST_P(RawWireBadInput, ACallTrickledInIsClosedOnItsOwnDeadline) {
  rpc::ServerOptions o;
  o.idle_timeout_ms = 500;
  o.max_buffered_bytes = 8u << 20;
  wire().budget_options(&o);
  StartServerOf(transport(), o);
  RawPeer peer(port(), /*recv_timeout_ms=*/100);
  ASSERT_TRUE(peer.Send(wire().announce_call(1u << 20)));
  const auto start = Clock::now();
  RawPeer::Read r = RawPeer::Read::kTimeout;
  std::string byte;
  while (Clock::now() - start < std::chrono::seconds(20)) {
    if (!peer.Send("x")) {  // Closed: the send fails.
      r = RawPeer::Read::kClosed;
      break;
    }
    r = peer.ReadExactly(1, &byte);  // Waits 100 ms.
    if (r != RawPeer::Read::kTimeout) break;
  }
  EXPECT_NE(r, RawPeer::Read::kTimeout) << "the trickling call was never closed";
  EXPECT_TRUE(WaitForActiveConnections(1));  // The steady client's.
  EXPECT_NE(TakeLog().find("KiB/s after a grace of --idle-timeout-ms"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Registered, TransportBadInput,
                         ::testing::ValuesIn(testing::RegisteredTransports()),
                         testing::TransportParamName());
INSTANTIATE_TEST_SUITE_P(Registered, RawWireBadInput,
                         ::testing::ValuesIn(testing::RawWireTransports()),
                         testing::TransportParamName());

}  // namespace
}  // namespace wirebench
