// What the registry-driven tests (transport_bad_input_test,
// transport_run_test, transport_stats_test) run over: every transport this
// binary registered (Transports()), each with its row of this table. A
// registered transport with no row still gets every test that needs only the
// registry (its server from StartServer, its client from Connect, its codecs
// from CheckCodec); the row adds what only its wire format can say: how a
// hand-driven peer opens a connection, makes a call, announces one and stops
// mid-way (RawWire), and what its refusals and run results must contain.
//
// Adding a transport: register it (transports/registry.cc); add a row in
// tests/transport_cases.cc for the cases that send its bytes by hand.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "codecs/codec.h"
#include "regions/registry.h"
#include "tests/raw_peer.h"
#include "transports/transport.h"

namespace wirebench::testing {

// An input a misbehaving peer sends, named for the failure message.
struct BadBytes {
  std::string what;
  std::string bytes;
};

// How a peer on blocking sockets (tests/raw_peer.h) speaks a transport.
struct RawWire {
  // A connection's first bytes, up to its first call (the wirebench
  // preamble; HBase's preamble and connection header).
  std::string handshake;
  // A complete call after the handshake, and the check of its answer.
  std::function<std::string(uint32_t call_id)> call;
  std::function<void(RawPeer*, uint32_t call_id)> expect_answer;
  // Whether a peer that then only sits makes one call first (the wirebench
  // server closes a connection that never called after its idle timeout,
  // crowded or not; HBase's counts its connection header as the start).
  bool idle_peer_calls_first = false;
  // A connection's first bytes announcing a call of `length` bytes and
  // sending only the start of it.
  std::function<std::string(uint32_t length)> announce_call;
  // A complete Ping-like call after the handshake carrying `bytes` bytes,
  // and the check that its echo came back whole.
  std::function<std::string(uint32_t call_id, size_t bytes)> large_call;
  std::function<void(RawPeer*, size_t bytes)> expect_large_answer;
  // What a connection refused over --max-buffered-bytes gets (then closed).
  std::function<void(RawPeer*)> expect_refused_over_budget;
  // Server options the budget case needs beyond max_buffered_bytes (a
  // max_frame that lets a 1 MiB call in).
  std::function<void(rpc::ServerOptions*)> budget_options;
  // A connection's bytes that stop in the middle of a call (the peer then
  // half-closes).
  std::string cut_short;
  // Inputs that stop part-way: closed by the idle timeout.
  std::vector<BadBytes> truncated;
  // Inputs refused at once: closed.
  std::vector<BadBytes> refused;
};

struct TransportCase {
  std::string_view transport;
  // The codec the good client uses ("" = the first codec it carries).
  std::string_view client_codec;
  // Hand-driven bytes; nullptr = none (gRPC's HTTP/2).
  const RawWire* raw = nullptr;
  // `wirebench run` over it: extra arguments and operations, whether client
  // buffering may round the count up to whole flushes, and whether every
  // operation must be OK (canned reads: no NOT_FOUND).
  std::vector<std::string> run_args;
  int64_t run_ops = 300;
  bool ops_rounded_up = false;
  bool every_op_ok = false;
  // Checks of the server's figures after a run (results.server.after).
  std::function<void(const nlohmann::json& after)> check_run_server;
  // Where its server's Stats count the calls of a client of its own, and
  // whether they count those calls' bytes. grpc-native's generated service
  // counts them apart ("native_calls") and no bytes: the layout
  // rpc::TransportServer::StatsJson promises is not all there for it.
  std::string_view stats_calls = "calls";
  bool stats_count_bytes = true;
  // Words a refusal of one of its codecs must contain.
  std::vector<std::string> codec_refusal_words;
};

// The wirebench framing's ping ("still there?") as a frame, and the check
// of its echo on `peer`.
std::string WirebenchPing(uint32_t call_id);
void ExpectWirebenchPing(RawPeer* peer, uint32_t call_id);

// The transports this binary registered, in registry order.
std::vector<const Transport*> RegisteredTransports();
// Those whose row has RawWire.
std::vector<const Transport*> RawWireTransports();
// The row for `t` (an empty row when it has none).
const TransportCase& CaseOf(const Transport& t);
// The codec its good client uses.
CodecId ClientCodecOf(const Transport& t);
// A GoogleTest parameter name: "grpc-native" -> "grpc_native".
std::string ParamName(std::string_view name);
struct TransportParamName {
  std::string operator()(const ::testing::TestParamInfo<const Transport*>& info) const {
    return ParamName(info.param->name());
  }
};

// A transport and one codec (carried or refused).
struct TransportCodec {
  const Transport* transport;
  const CodecInfo* codec;
};
// Every codec each transport carries.
std::vector<TransportCodec> CarriedCodecs();
// The first codec each transport refuses (none for one that carries all):
// one refusal per transport, each a process start of `wirebench run`.
std::vector<TransportCodec> RefusedCodecs();
struct TransportCodecParamName {
  std::string operator()(const ::testing::TestParamInfo<TransportCodec>& info) const {
    return ParamName(info.param.transport->name()) + "_" + ParamName(info.param.codec->name());
  }
};

// A transport and a region.
struct TransportRegion {
  const Transport* transport;
  const RegionEntry* region;
};
std::vector<TransportRegion> TransportsTimesRegions();
struct TransportRegionParamName {
  std::string operator()(const ::testing::TestParamInfo<TransportRegion>& info) const {
    return ParamName(info.param.transport->name()) + "_" + ParamName(info.param.region->name());
  }
};

}  // namespace wirebench::testing
