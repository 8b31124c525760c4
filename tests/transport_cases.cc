#include "tests/transport_cases.h"

#include <algorithm>
#include <cctype>

#include "common/calls.h"
#include "tests/hbase_raw_wire.h"

namespace wirebench::testing {

// ---- wirebench's framing (transports/wirebench/frame.h) -------------------

std::string WirebenchPing(uint32_t call_id) {
  return FrameBytes(call_id, uint8_t(Method::kPing), "still there?");
}

void ExpectWirebenchPing(RawPeer* peer, uint32_t call_id) {
  wbrpc::FrameHeader h;
  std::string payload;
  ASSERT_EQ(peer->ReadFrame(&h, &payload), RawPeer::Read::kOk);
  EXPECT_EQ(h.call_id, call_id);
  EXPECT_EQ(h.status, uint8_t(CallStatus::kOk)) << payload;
  EXPECT_EQ(payload, "still there?");
}

namespace {

std::string WirebenchPreamble() { return PreambleBytes(uint8_t(CodecId::kRaw)); }

const RawWire& WirebenchWire() {
  static const RawWire wire = [] {
    RawWire w;
    w.handshake = WirebenchPreamble();
    w.call = WirebenchPing;
    w.expect_answer = ExpectWirebenchPing;
    w.idle_peer_calls_first = true;
    w.announce_call = [](uint32_t length) {
      return WirebenchPreamble() + LengthWord(length) + std::string(8, '\x01');
    };
    w.expect_refused_over_budget = [](RawPeer* peer) {
      wbrpc::FrameHeader h;
      std::string payload;
      ASSERT_EQ(peer->ReadFrame(&h, &payload), RawPeer::Read::kOk);
      EXPECT_EQ(h.status, uint8_t(CallStatus::kOverloaded)) << payload;
      EXPECT_NE(payload.find("--max-buffered-bytes 8388608"), std::string::npos) << payload;
      EXPECT_EQ(peer->ReadUntilClosed(), RawPeer::Read::kClosed);
    };
    w.budget_options = [](rpc::ServerOptions*) {};
    w.large_call = [](uint32_t id, size_t bytes) {
      return FrameBytes(id, uint8_t(Method::kPing), std::string(bytes, 'p'));
    };
    w.expect_large_answer = [](RawPeer* peer, size_t bytes) {
      wbrpc::FrameHeader h;
      std::string payload;
      ASSERT_EQ(peer->ReadFrame(&h, &payload), RawPeer::Read::kOk);
      EXPECT_EQ(h.status, uint8_t(CallStatus::kOk)) << payload.substr(0, 300);
      EXPECT_EQ(payload.size(), bytes);
    };
    const std::string frame = FrameBytes(5, uint8_t(Method::kPing), std::string(100, 'c'));
    w.cut_short = WirebenchPreamble() + frame.substr(0, 40);
    w.truncated = {{"half a preamble", WirebenchPreamble().substr(0, 3)},
                   {"a frame cut short", WirebenchPreamble() + frame.substr(0, 40)}};
    w.refused = {{"a frame length of all ones", WirebenchPreamble() + LengthWord(0xFFFFFFFFu)},
                 {"a frame length of zero", WirebenchPreamble() + LengthWord(0)},
                 {"an HTTP request", "GET / HTTP/1.1\r\n\r\n"}};
    return w;
  }();
  return wire;
}

// ---- HBase's RPC (tests/hbase_raw_wire.h) ---------------------------------

const RawWire& HBaseWire() {
  static const RawWire wire = [] {
    RawWire w;
    w.handshake = kHBaseHello + HBaseConnectionHeader();
    w.call = [](uint32_t id) { return RegexGetCall(id, "a"); };
    w.expect_answer = [](RawPeer* peer, uint32_t) {
      const std::string reply = ReadHBaseReply(peer);
      EXPECT_EQ(reply.find("Exception"), std::string::npos) << reply;
    };
    w.idle_peer_calls_first = false;
    w.announce_call = [](uint32_t length) {
      return kHBaseHello + HBaseConnectionHeader() + Be32(length) + "xxxx";
    };
    w.expect_refused_over_budget = [](RawPeer* peer) {
      const std::string reply = ReadHBaseReply(peer);
      EXPECT_NE(reply.find("CallQueueTooBigException"), std::string::npos) << reply;
      EXPECT_NE(reply.find("--max-buffered-bytes 8388608"), std::string::npos) << reply;
      EXPECT_EQ(peer->ReadUntilClosed(), RawPeer::Read::kClosed);
    };
    w.budget_options = [](rpc::ServerOptions* o) { o->max_call_bytes = 4 << 20; };
    // wirebench's Ping on HBase's RPC: the server echoes the blob.
    w.large_call = [](uint32_t id, size_t bytes) {
      hbasewire::WirebenchBlob blob;
      blob.set_data(std::string(bytes, 'p'));
      return Call(id, "WirebenchPing", blob);
    };
    w.expect_large_answer = [](RawPeer* peer, size_t bytes) {
      const HBaseReply r = ReadParsedHBaseReply(peer);
      ASSERT_TRUE(r.ok);
      ASSERT_FALSE(r.header.has_exception()) << r.header.exception().stack_trace();
      hbasewire::WirebenchBlob blob;
      ASSERT_TRUE(blob.ParseFromString(r.message));
      EXPECT_EQ(blob.data().size(), bytes);
    };
    w.cut_short = kHBaseHello + HBaseConnectionHeader() + Be32(64);
    w.truncated = {{"a preamble cut short", "HBa"},
                   {"a connection header cut short", kHBaseHello + Be32(40) + "\x12"},
                   {"a call cut short", kHBaseHello + HBaseConnectionHeader() + Be32(100) + "partial"}};
    w.refused = {{"a huge connection header length", kHBaseHello + Be32(0xFFFFFFFFu)},
                 {"a huge call length",
                  kHBaseHello + HBaseConnectionHeader() + Be32(0x7FFFFFFFu) + "xx"}};
    return w;
  }();
  return wire;
}

const std::vector<TransportCase>& Table() {
  static const std::vector<TransportCase> table = [] {
    std::vector<TransportCase> t;
    {
      TransportCase c;
      c.transport = "wirebench";
      c.raw = &WirebenchWire();
      t.push_back(std::move(c));
    }
    {
      TransportCase c;
      c.transport = "grpc-native";
      // The server answered through the generated service.
      c.check_run_server = [](const nlohmann::json& after) {
        EXPECT_FALSE(after.at("native_calls").is_null()) << after.dump();
      };
      c.stats_calls = "native_calls";
      c.stats_count_bytes = false;
      c.codec_refusal_words = {"--codec pb"};
      t.push_back(std::move(c));
    }
    {
      TransportCase c;
      c.transport = "hbase";
      c.client_codec = "cellblock";
      c.raw = &HBaseWire();
      c.run_args = {"--null-reads", "canned", "-p", "clientbuffering=true"};
      c.run_ops = 400;
      // Client buffering (Multi) may round the count up to whole flushes.
      c.ops_rounded_up = true;
      c.every_op_ok = true;
      // The server's figures came over HBase's protocol (WirebenchStats).
      c.check_run_server = [](const nlohmann::json& after) {
        EXPECT_EQ(after.at("server").at("rpc").get<std::string>(), "hbase");
        EXPECT_GT(after.at("hbase").at("codec_path_calls").get<int64_t>(), 0) << after.dump();
        EXPECT_EQ(after.at("failed_calls").get<int64_t>(), 0) << after.dump();
      };
      c.codec_refusal_words = {"--codec cellblock"};
      t.push_back(std::move(c));
    }
    return t;
  }();
  return table;
}

}  // namespace

std::vector<const Transport*> RegisteredTransports() {
  auto all = Transports();
  return std::vector<const Transport*>(all.begin(), all.end());
}

std::vector<const Transport*> RawWireTransports() {
  std::vector<const Transport*> out;
  for (const Transport* t : Transports())
    if (CaseOf(*t).raw != nullptr) out.push_back(t);
  return out;
}

const TransportCase& CaseOf(const Transport& t) {
  for (const TransportCase& c : Table())
    if (c.transport == t.name()) return c;
  static const TransportCase empty;
  return empty;
}

CodecId ClientCodecOf(const Transport& t) {
  const TransportCase& c = CaseOf(t);
  if (!c.client_codec.empty()) {
    const CodecInfo* info = Codecs().Find(c.client_codec);
    if (info != nullptr && t.CheckCodec(*info).ok()) return info->id;
  }
  for (const CodecInfo* info : Codecs())
    if (t.CheckCodec(*info).ok()) return info->id;
  ADD_FAILURE() << "--rpc " << t.name() << " carries no codec";
  return CodecId::kRaw;
}

std::string ParamName(std::string_view name) {
  std::string out(name);
  std::replace_if(out.begin(), out.end(), [](char ch) { return !std::isalnum(uint8_t(ch)); },
                  '_');
  return out;
}

std::vector<TransportCodec> CarriedCodecs() {
  std::vector<TransportCodec> out;
  for (const Transport* t : Transports())
    for (const CodecInfo* c : Codecs())
      if (t->CheckCodec(*c).ok()) out.push_back({t, c});
  return out;
}

std::vector<TransportCodec> RefusedCodecs() {
  std::vector<TransportCodec> out;
  for (const Transport* t : Transports()) {
    for (const CodecInfo* c : Codecs()) {
      if (!t->CheckCodec(*c).ok()) {
        out.push_back({t, c});
        break;
      }
    }
  }
  return out;
}

std::vector<TransportRegion> TransportsTimesRegions() {
  std::vector<TransportRegion> out;
  for (const Transport* t : Transports())
    for (const RegionEntry* r : Regions()) out.push_back({t, r});
  return out;
}

}  // namespace wirebench::testing
