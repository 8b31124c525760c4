// Tests of the protobuf-based codecs (codecs/pb/): pb and pb-arena put the
// same bytes on the wire; pb and cellblock payloads parse with the generated
// HBase messages; the KeyValue cell block has HBase's layout; cellblock
// decodes a 1 KB put without allocating or copying, pb-arena without
// allocating once warm, and pb copies by design. Round trips, truncations and
// garbage for all three are in codec_conformance_test.cc.
#include "codecs/pb/pb_codecs.h"

#include <google/protobuf/io/coded_stream.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>

#include "codecs/codec.h"
#include "codecs/schemas/Client.pb.h"
#include "codecs/schemas/RPC.pb.h"
#include "common/thread_stats.h"
#include "transports/wirebench/frame.h"
#include "tests/codec_test_messages.h"

namespace wirebench {
namespace {

using testing::AnyMessage;
using testing::Cases;
using testing::MessageCase;
using testing::MessageStore;
using testing::SameMessage;

constexpr uint32_t kCallId = testing::kTestCallId;

using testing::kIsRequest;

using testing::Decode;
using testing::Encode;

template <typename M>
std::string EncodeToString(Codec& c, const M& m) {
  ByteBuffer out;
  Status s = Encode(c, m, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out.view().ToString();
}

std::string EncodeAny(Codec& c, const AnyMessage& m) {
  return std::visit([&](const auto& msg) { return EncodeToString(c, msg); }, m);
}

// A payload after a frame header, in a heap block that ends where it ends.
class FramedPayload {
 public:
  explicit FramedPayload(ByteView payload)
      : block_(new uint8_t[wbrpc::kFrameHeaderSize + payload.size()]), size_(payload.size()) {
    std::memset(block_.get(), 0xEE, wbrpc::kFrameHeaderSize);
    if (size_) std::memcpy(block_.get() + wbrpc::kFrameHeaderSize, payload.data(), size_);
  }
  ByteView view() const { return ByteView(block_.get() + wbrpc::kFrameHeaderSize, size_); }

 private:
  std::unique_ptr<uint8_t[]> block_;
  size_t size_;
};

const AnyMessage& CaseNamed(std::string_view name) {
  for (const MessageCase& c : Cases())
    if (c.name == name) return c.message;
  ADD_FAILURE() << "no case " << name;
  return Cases()[0].message;
}

const MutateRequest& Put1k() { return std::get<MutateRequest>(CaseNamed("put_1k")); }

// Splits an HBase call body: delimited header, delimited param, the rest.
struct CallParts {
  std::string header, param, block;
};
CallParts Split(const std::string& payload) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(payload.data()),
                                            int(payload.size()));
  CallParts parts;
  uint32_t n = 0;
  EXPECT_TRUE(in.ReadVarint32(&n) && in.ReadString(&parts.header, int(n)));
  EXPECT_TRUE(in.ReadVarint32(&n) && in.ReadString(&parts.param, int(n)));
  parts.block = payload.substr(size_t(in.CurrentPosition()));
  return parts;
}

std::unique_ptr<Codec> Make(std::string_view name) {
  auto c = NewCodec(name);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return std::move(c).value();
}

TEST(PbCodecs, AreRegisteredUnderTheirIdsAndNames) {
  EXPECT_EQ(Make("pb")->id(), CodecId::kPb);
  EXPECT_EQ(Make("pb-arena")->id(), CodecId::kPbArena);
  EXPECT_EQ(Make("cellblock")->id(), CodecId::kCellBlock);
  EXPECT_FALSE(Make("pb")->zero_copy_decode());
  EXPECT_FALSE(Make("pb-arena")->zero_copy_decode());
  EXPECT_TRUE(Make("cellblock")->zero_copy_decode());
}

TEST(PbCodecs, PbAndPbArenaPutTheSameBytesOnTheWire) {
  auto pb = NewPbCodec();
  auto arena = NewPbArenaCodec();
  PbArenaOptions reset;
  reset.reset_every_call = true;
  auto arena_reset = NewPbArenaCodec(reset);
  for (int round = 0; round < 2; ++round) {  // The second round runs on reused messages.
    for (const MessageCase& c : Cases()) {
      SCOPED_TRACE(c.name);
      std::string bytes = EncodeAny(*pb, c.message);
      EXPECT_FALSE(bytes.empty());
      EXPECT_EQ(EncodeAny(*arena, c.message), bytes);
      EXPECT_EQ(EncodeAny(*arena_reset, c.message), bytes);
    }
  }
}

TEST(PbCodecs, ArenaDecodesAfterResettingAnOvergrownArena) {
  PbArenaOptions small;
  small.initial_block_bytes = 1024;
  small.max_retained_bytes = 4096;  // Every 1 MiB message overgrows it.
  auto enc = NewPbCodec();
  auto dec = NewPbArenaCodec(small);
  for (const char* name : {"get_1mib_value", "get_1k", "get_1000_cells", "get_1k"}) {
    SCOPED_TRACE(name);
    const auto& want = std::get<GetResponse>(CaseNamed(name));
    std::string bytes = EncodeToString(*enc, want);
    GetResponse got;
    ASSERT_TRUE(dec->DecodeResponse(ByteView(bytes), &got).ok());
    EXPECT_TRUE(SameMessage(want, got));
  }
}

// Put1k's call through `codec`, split into *parts, with its RequestHeader
// checked (the call id, Mutate, a param follows) and returned.
hbase::RequestHeader CheckedPutHeader(Codec& codec, CallParts* parts) {
  *parts = Split(EncodeToString(codec, Put1k()));
  hbase::RequestHeader header;
  EXPECT_TRUE(header.ParseFromString(parts->header));
  EXPECT_EQ(header.call_id(), kCallId);
  EXPECT_EQ(header.method_name(), "Mutate");
  EXPECT_TRUE(header.request_param());
  return header;
}

TEST(PbCodecs, PbPayloadParsesWithTheGeneratedHBaseMessages) {
  auto codec = NewPbCodec();
  CallParts parts;
  hbase::RequestHeader header = CheckedPutHeader(*codec, &parts);
  EXPECT_FALSE(header.has_cell_block_meta());
  EXPECT_TRUE(parts.block.empty());

  hbase::MutateRequest req;
  ASSERT_TRUE(req.ParseFromString(parts.param));
  EXPECT_EQ(req.region().type(), hbase::RegionSpecifier::REGION_NAME);
  EXPECT_EQ(req.region().value(), "usertable,,1");
  const hbase::MutationProto& m = req.mutation();
  const Mutation& want = Put1k().mutation;
  EXPECT_EQ(m.row(), want.row.str());
  EXPECT_EQ(m.mutate_type(), hbase::MutationProto::PUT);
  EXPECT_EQ(m.associated_cell_count(), 0);
  ASSERT_EQ(m.column_value_size(), 1);  // One family, so one ColumnValue.
  EXPECT_EQ(m.column_value(0).family(), "family");
  ASSERT_EQ(m.column_value(0).qualifier_value_size(), 10);
  for (int i = 0; i < 10; ++i) {
    const auto& qv = m.column_value(0).qualifier_value(i);
    EXPECT_EQ(qv.qualifier(), "field" + std::to_string(i));
    EXPECT_EQ(qv.value(), want.cells[size_t(i)].value.str());
    EXPECT_FALSE(qv.has_delete_type());
  }

  // Deletes carry HBase's delete types.
  CallParts del =
      Split(EncodeToString(*codec, std::get<MutateRequest>(CaseNamed("delete_columns"))));
  ASSERT_TRUE(req.ParseFromString(del.param));
  EXPECT_EQ(req.mutation().mutate_type(), hbase::MutationProto::DELETE);
  ASSERT_EQ(req.mutation().column_value_size(), 2);  // "family" then "other".
  EXPECT_EQ(req.mutation().column_value(0).qualifier_value(0).delete_type(),
            hbase::MutationProto::DELETE_ONE_VERSION);
  EXPECT_EQ(req.mutation().column_value(0).qualifier_value(1).delete_type(),
            hbase::MutationProto::DELETE_MULTIPLE_VERSIONS);
  EXPECT_EQ(req.mutation().column_value(1).qualifier_value(0).delete_type(),
            hbase::MutationProto::DELETE_FAMILY);

  // A Get response carries its cells in Result.cell.
  CallParts get = Split(EncodeToString(*codec, std::get<GetResponse>(CaseNamed("get_1k"))));
  hbase::ResponseHeader rh;
  ASSERT_TRUE(rh.ParseFromString(get.header));
  EXPECT_EQ(rh.call_id(), kCallId);
  hbase::GetResponse gr;
  ASSERT_TRUE(gr.ParseFromString(get.param));
  ASSERT_EQ(gr.result().cell_size(), 10);
  EXPECT_EQ(gr.result().cell(3).qualifier(), "field3");
  EXPECT_EQ(gr.result().cell(3).cell_type(), hbase::PUT);
  EXPECT_EQ(gr.result().cell(3).value().size(), 100u);
  // HBase's client (ProtobufUtil.toResult) refuses exists with cells.
  EXPECT_FALSE(gr.result().has_exists());
}

TEST(PbCodecs, CellBlockPayloadParsesWithTheGeneratedHBaseMessages) {
  auto codec = NewCellBlockCodec();
  CallParts parts;
  hbase::RequestHeader header = CheckedPutHeader(*codec, &parts);
  ASSERT_TRUE(header.has_cell_block_meta());
  EXPECT_EQ(header.cell_block_meta().length(), parts.block.size());
  // 10 cells: 24 fixed bytes + row 23 + "family" 6 + "fieldN" 6 + 100 of value.
  EXPECT_EQ(parts.block.size(), 10u * (24 + 23 + 6 + 6 + 100));

  hbase::MutateRequest req;
  ASSERT_TRUE(req.ParseFromString(parts.param));
  EXPECT_EQ(req.region().value(), "usertable,,1");
  EXPECT_EQ(req.mutation().row(), Put1k().mutation.row.str());
  EXPECT_EQ(req.mutation().mutate_type(), hbase::MutationProto::PUT);
  EXPECT_EQ(req.mutation().associated_cell_count(), 10);
  EXPECT_EQ(req.mutation().column_value_size(), 0);

  // The hand-written param is byte for byte what protobuf serializes.
  hbase::MutateRequest expect;
  expect.mutable_region()->set_type(hbase::RegionSpecifier::REGION_NAME);
  expect.mutable_region()->set_value("usertable,,1");
  expect.mutable_mutation()->set_row(Put1k().mutation.row.ToString());
  expect.mutable_mutation()->set_mutate_type(hbase::MutationProto::PUT);
  expect.mutable_mutation()->set_timestamp(0);
  expect.mutable_mutation()->set_associated_cell_count(10);
  EXPECT_EQ(expect.SerializeAsString(), parts.param);

  // Responses: the Get result's count and the scan's cells_per_result.
  CallParts get = Split(EncodeToString(*codec, std::get<GetResponse>(CaseNamed("get_1k"))));
  hbase::ResponseHeader rh;
  ASSERT_TRUE(rh.ParseFromString(get.header));
  EXPECT_EQ(rh.call_id(), kCallId);
  EXPECT_EQ(rh.cell_block_meta().length(), get.block.size());
  hbase::GetResponse gr;
  ASSERT_TRUE(gr.ParseFromString(get.param));
  EXPECT_EQ(gr.result().associated_cell_count(), 10);
  EXPECT_EQ(gr.result().cell_size(), 0);

  const auto& scan = std::get<ScanResponse>(CaseNamed("scan_rows_more"));
  CallParts sp = Split(EncodeToString(*codec, scan));
  ASSERT_TRUE(rh.ParseFromString(sp.header));
  EXPECT_EQ(rh.cell_block_meta().length(), sp.block.size());
  hbase::ScanResponse sr;
  ASSERT_TRUE(sr.ParseFromString(sp.param));
  ASSERT_EQ(sr.cells_per_result_size(), int(scan.results.size()));
  for (size_t i = 0; i < scan.results.size(); ++i)
    EXPECT_EQ(sr.cells_per_result(int(i)), scan.results[i].cells.size());
  EXPECT_TRUE(sr.more_results());
  EXPECT_EQ(sr.results_size(), 0) << "every row exists: HBase's bytes, no `results`";

  // A Multi: one RegionAction, mutations as placeholders with counts.
  const auto& multi = std::get<MultiRequest>(CaseNamed("multi_mixed"));
  CallParts mp = Split(EncodeToString(*codec, multi));
  ASSERT_TRUE(header.ParseFromString(mp.header));
  EXPECT_EQ(header.method_name(), "Multi");
  EXPECT_EQ(header.cell_block_meta().length(), mp.block.size());
  hbase::MultiRequest mr;
  ASSERT_TRUE(mr.ParseFromString(mp.param));
  ASSERT_EQ(mr.regionaction_size(), 1);
  ASSERT_EQ(mr.regionaction(0).action_size(), int(multi.actions.size()));
  for (size_t i = 0; i < multi.actions.size(); ++i) {
    const hbase::Action& a = mr.regionaction(0).action(int(i));
    EXPECT_EQ(a.index(), multi.actions[i].index);
    EXPECT_EQ(a.has_mutation(), multi.actions[i].kind == ActionKind::kMutation);
    if (a.has_mutation()) {
      EXPECT_EQ(size_t(a.mutation().associated_cell_count()),
                multi.actions[i].mutation.cells.size());
    }
  }
}

// The generated HBase message type of a model message's param.
// The generated HBase type of a model message's param, in AnyMessage order.
using Protos = std::tuple<hbase::MutateRequest, hbase::GetRequest, hbase::ScanRequest,
                          hbase::MultiRequest, hbase::MutateResponse, hbase::GetResponse,
                          hbase::ScanResponse, hbase::MultiResponse>;
template <typename M>
using ProtoOf = std::tuple_element_t<AnyMessage(M{}).index(), Protos>;

// For every message of the catalogue, in pb and in cellblock: header and
// param parse with the generated classes (required fields included),
// re-serialize to the very same bytes (so the hand-written cellblock writer
// emits canonical protobuf, fields in number order), and the cell block is
// exactly cell_block_meta.length long.
TEST(PbCodecs, EveryPayloadIsCanonicalHBaseProtobuf) {
  for (const char* name : {"pb", "cellblock"}) {
    auto codec = Make(name);
    for (const MessageCase& c : Cases()) {
      SCOPED_TRACE(std::string(name) + " " + c.name);
      std::visit(
          [&](const auto& msg) {
            using M = std::decay_t<decltype(msg)>;
            CallParts parts = Split(EncodeToString(*codec, msg));
            uint32_t block_len = 0;
            if constexpr (kIsRequest<M>) {
              hbase::RequestHeader h;
              ASSERT_TRUE(h.ParseFromString(parts.header));
              EXPECT_EQ(h.call_id(), kCallId);
              EXPECT_TRUE(h.request_param());
              EXPECT_EQ(h.SerializeAsString(), parts.header);
              block_len = h.cell_block_meta().length();
            } else {
              hbase::ResponseHeader h;
              ASSERT_TRUE(h.ParseFromString(parts.header));
              EXPECT_EQ(h.call_id(), kCallId);
              EXPECT_EQ(h.SerializeAsString(), parts.header);
              block_len = h.cell_block_meta().length();
            }
            EXPECT_EQ(block_len, parts.block.size());
            ProtoOf<M> param;
            ASSERT_TRUE(param.ParseFromString(parts.param));
            EXPECT_TRUE(param.GetReflection()->GetUnknownFields(param).empty());
            EXPECT_EQ(param.SerializeAsString(), parts.param);
          },
          c.message);
    }
  }
}

TEST(PbCodecs, CellBlockKeyValueLayoutIsHBases) {
  MessageStore st;
  ByteView row = st.Bytes("r1");
  Cell cell{row,          st.Bytes("f"), st.Bytes("q"), 0x0102030405060708ull, CellType::kPut,
            st.Bytes("v")};
  Mutation m{row, MutationType::kPut, 0, st.Array(std::vector<Cell>{cell})};
  auto codec = NewCellBlockCodec();
  CallParts parts = Split(EncodeToString(*codec, MutateRequest{m}));
  const std::string want = std::string(
      "\x00\x00\x00\x19"  // KeyValue length: 4 + 4 + 16 + 1 = 25
      "\x00\x00\x00\x10"  // keylength 16
      "\x00\x00\x00\x01"  // valuelength 1
      "\x00\x02r1"        // rowlength, row
      "\x01"
      "f"                                 // familylength, family
      "q"                                 // qualifier
      "\x01\x02\x03\x04\x05\x06\x07\x08"  // timestamp
      "\x04"                              // type Put
      "v",                                // value
      29);
  EXPECT_EQ(parts.block, want);
}

TEST(PbCodecs, CellBlockCarriesScanRowsThatDoNotExist) {
  // HBase's cell-block ScanResponse has no per-row exists (a scanned row
  // exists); a row that says otherwise makes the codec add HBase's `results`.
  MessageStore st;
  const auto& rows = std::get<ScanResponse>(CaseNamed("scan_rows_more")).results;
  std::vector<Result> results(rows.begin(), rows.end());
  results[1].exists = false;
  results.push_back(Result{});
  ScanResponse scan{st.Array(std::move(results)), true};
  auto codec = NewCellBlockCodec();
  std::string bytes = EncodeToString(*codec, scan);
  hbase::ScanResponse sr;
  ASSERT_TRUE(sr.ParseFromString(Split(bytes).param));
  ASSERT_EQ(sr.results_size(), int(scan.results.size()));
  EXPECT_FALSE(sr.results(1).exists());
  EXPECT_EQ(size_t(sr.results(0).associated_cell_count()), scan.results[0].cells.size());
  FramedPayload framed(bytes);
  ScanResponse got;
  ASSERT_TRUE(codec->DecodeResponse(framed.view(), &got).ok());
  EXPECT_TRUE(SameMessage(scan, got));
}

TEST(PbCodecs, CellBlockRefusesCellsKeyValueCannotHold) {
  MessageStore st;
  ByteView row = st.Bytes("row");
  Cell cell{row, st.Bytes(std::string(128, 'f')), st.Bytes("q"), 0, CellType::kPut, {}};
  Mutation m{row, MutationType::kPut, 0, st.Array(std::vector<Cell>{cell})};
  auto codec = NewCellBlockCodec();
  ByteBuffer out;
  out.Append("hdr", 3);
  Status s = codec->EncodeRequest(1, MutateRequest{m}, &out);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_EQ(out.size(), 3u) << "a refused encode must leave the buffer as it was";
}

TEST(PbCodecs, CellBlockRefusesAnAbsurdCellCountWithoutReserving) {
  hbase::RequestHeader header;
  header.set_call_id(1);
  header.set_method_name("Mutate");
  header.set_request_param(true);
  hbase::MutateRequest req;
  req.mutable_region()->set_type(hbase::RegionSpecifier::REGION_NAME);
  req.mutable_region()->set_value("usertable,,1");
  req.mutable_mutation()->set_row("r");
  req.mutable_mutation()->set_mutate_type(hbase::MutationProto::PUT);
  req.mutable_mutation()->set_associated_cell_count(0x7FFFFFFF);
  std::string payload;
  for (const google::protobuf::MessageLite* msg :
       {static_cast<const google::protobuf::MessageLite*>(&header),
        static_cast<const google::protobuf::MessageLite*>(&req)}) {
    std::string s = msg->SerializeAsString();
    payload += char(s.size());  // Both are under 128 bytes.
    payload += s;
  }
  auto codec = NewCellBlockCodec();
  MutateRequest got;
  CounterTotals before = ThisThreadTotals();
  Status s = codec->DecodeRequest(ByteView(payload), &got);
  CounterTotals d = ThisThreadTotals() - before;
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
  EXPECT_LT(d.alloc_bytes, 4096u) << "decode sized something by the claimed count";
}

TEST(PbCodecs, CodecsRefuseEachOthersPayloadsAndOtherMethods) {
  auto pb = NewPbCodec();
  auto cb = NewCellBlockCodec();
  std::string pb_put = EncodeToString(*pb, Put1k());
  std::string cb_put = EncodeToString(*cb, Put1k());
  MutateRequest m;
  EXPECT_FALSE(pb->DecodeRequest(ByteView(cb_put), &m).ok());
  EXPECT_FALSE(cb->DecodeRequest(ByteView(pb_put), &m).ok());
  GetRequest g;
  EXPECT_FALSE(pb->DecodeRequest(ByteView(pb_put), &g).ok());
  EXPECT_FALSE(cb->DecodeRequest(ByteView(cb_put), &g).ok());
}

// A Get call as HBase's client sends it (header, then param, each under 128
// bytes), with `filter` as its Get's filter when not empty.
std::string HBaseGetCall(const std::string& filter) {
  hbase::RequestHeader header;
  header.set_call_id(7);
  header.set_method_name("Get");
  header.set_request_param(true);
  hbase::GetRequest req;
  req.mutable_region()->set_type(hbase::RegionSpecifier::REGION_NAME);
  req.mutable_region()->set_value("usertable,,1");
  req.mutable_get()->set_row("user1");
  if (!filter.empty()) req.mutable_get()->set_filter(filter);
  std::string payload;
  for (const google::protobuf::MessageLite* msg :
       {static_cast<const google::protobuf::MessageLite*>(&header),
        static_cast<const google::protobuf::MessageLite*>(&req)}) {
    std::string s = msg->SerializeAsString();
    payload += char(s.size());
    payload += s;
  }
  return payload;
}

// What the model cannot carry is refused, not dropped (the HBase transport
// answers such a call its own way), and the region a request names is read.
TEST(PbCodecs, HBaseCodecsRefuseWhatTheyCannotCarryAndReadTheRegion) {
  for (const char* name : {"pb", "cellblock"}) {
    auto codec = Make(name);
    GetRequest g;
    const std::string plain = HBaseGetCall("");
    Status s = codec->DecodeRequest(ByteView(plain), &g);
    ASSERT_TRUE(s.ok()) << name << ": " << s.ToString();
    EXPECT_EQ(g.row.str(), "user1") << name;
    EXPECT_EQ(g.region.str(), "usertable,,1") << name;
    const std::string filtered = HBaseGetCall("a filter");
    s = codec->DecodeRequest(ByteView(filtered), &g);
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << name << ": " << s.ToString();
    EXPECT_NE(s.ToString().find("filter"), std::string::npos) << name << ": " << s.ToString();
  }
}

// ---- Steady-state allocations and copies of the 1 KB put ----

// One codec's 1 KB put in the steady state: encoded and decoded three times,
// then one more encode measured (`encode`). `p` is that encode's payload as a
// server holds it (framed), for a decode to measure; `got` is decoded into.
struct SteadyPut {
  explicit SteadyPut(Codec& codec) {
    for (int i = 0; i < 3; ++i) {
      out.Clear();
      EXPECT_TRUE(codec.EncodeRequest(kCallId, Put1k(), &out).ok());
      FramedPayload warm(out.view());
      EXPECT_TRUE(codec.DecodeRequest(warm.view(), &got).ok());
    }
    out.Clear();
    CounterTotals before = ThisThreadTotals();
    EXPECT_TRUE(codec.EncodeRequest(kCallId, Put1k(), &out).ok());
    encode = ThisThreadTotals() - before;
    framed = std::make_unique<FramedPayload>(out.view());
    p = framed->view();
  }

  MutateRequest got;
  ByteBuffer out;
  CounterTotals encode;
  std::unique_ptr<FramedPayload> framed;
  ByteView p;
};

// Decodes `p` into `got` once, which must succeed, and sets `*cost` to what
// that decode allocated and copied.
void MeasureDecode(Codec& codec, ByteView p, MutateRequest* got, CounterTotals* cost) {
  CounterTotals before = ThisThreadTotals();
  Status s = codec.DecodeRequest(p, got);
  *cost = ThisThreadTotals() - before;
  ASSERT_TRUE(s.ok()) << s.ToString();
}

constexpr uint64_t kPutValueBytes = 10 * 100;
// Row once in the param, then row, family and qualifier in each KeyValue.
constexpr uint64_t kCellBlockPutCopies = 23 + 10 * (23 + 6 + 6 + 100);
// Row once, family once (one ColumnValue), qualifiers and values.
constexpr uint64_t kPbPutPayload = 23 + 6 + 10 * (6 + 100);

TEST(PbCodecs, CellBlockDecodesA1KbPutWithoutAllocatingOrCopying) {
  auto codec = NewCellBlockCodec();
  SteadyPut put(*codec);
  MutateRequest& got = put.got;
  const ByteView p = put.p;
  EXPECT_EQ(put.encode.allocs, 0u);
  EXPECT_EQ(put.encode.encode_copied, kCellBlockPutCopies) << "one copy of each cell, no more";

  ASSERT_TRUE(codec->DecodeRequest(p, &got).ok());  // Warm on this buffer too.
  CounterTotals d;
  ASSERT_NO_FATAL_FAILURE(MeasureDecode(*codec, p, &got, &d));
  EXPECT_EQ(d.allocs, 0u);
  EXPECT_EQ(d.decode_copied, 0u);
  ASSERT_EQ(got.mutation.cells.size(), 10u);
  EXPECT_TRUE(got.mutation.row.Within(p.data(), p.size()));
  for (const Cell& cell : got.mutation.cells) {
    EXPECT_TRUE(cell.value.Within(p.data(), p.size()));
    EXPECT_TRUE(cell.qualifier.Within(p.data(), p.size()));
    EXPECT_EQ(cell.value.size(), 100u);
  }
  EXPECT_TRUE(SameMessage(Put1k(), got));
}

TEST(PbCodecs, PbCopiesEveryValueOutOfThePayload) {
  auto codec = NewPbCodec();
  SteadyPut put(*codec);
  MutateRequest& got = put.got;
  const ByteView p = put.p;
  EXPECT_EQ(put.encode.encode_copied, 2 * kPbPutPayload) << "into strings, then into the buffer";
  EXPECT_GT(put.encode.allocs, 10u) << "pb builds fresh messages and strings by design";

  CounterTotals d;
  ASSERT_NO_FATAL_FAILURE(MeasureDecode(*codec, p, &got, &d));
  EXPECT_GE(d.decode_copied, kPutValueBytes);
  EXPECT_EQ(d.decode_copied, kPbPutPayload);
  EXPECT_GT(d.allocs, 10u);
  ASSERT_EQ(got.mutation.cells.size(), 10u);
  for (const Cell& cell : got.mutation.cells)
    EXPECT_FALSE(cell.value.Within(p.data(), p.size())) << "pb values must be copies";
  EXPECT_TRUE(SameMessage(Put1k(), got));
}

TEST(PbCodecs, PbArenaStopsAllocatingOnceWarmButStillCopies) {
  auto codec = NewPbArenaCodec();
  SteadyPut put(*codec);
  MutateRequest& got = put.got;
  const ByteView p = put.p;
  EXPECT_EQ(put.encode.allocs, 0u);
  EXPECT_EQ(put.encode.encode_copied, 2 * kPbPutPayload);

  CounterTotals d;
  ASSERT_NO_FATAL_FAILURE(MeasureDecode(*codec, p, &got, &d));
  EXPECT_EQ(d.allocs, 0u);
  EXPECT_EQ(d.decode_copied, kPbPutPayload);
  for (const Cell& cell : got.mutation.cells) EXPECT_FALSE(cell.value.Within(p.data(), p.size()));
  EXPECT_TRUE(SameMessage(Put1k(), got));

  // Resetting the arena every call frees the strings' heap buffers with it,
  // so every value longer than the small-string buffer is allocated again.
  PbArenaOptions reset;
  reset.reset_every_call = true;
  auto resetting = NewPbArenaCodec(reset);
  ASSERT_TRUE(resetting->DecodeRequest(p, &got).ok());
  ASSERT_NO_FATAL_FAILURE(MeasureDecode(*resetting, p, &got, &d));
  EXPECT_GE(d.allocs, 10u) << "one per 100-byte value at least";
}

// Prints ns/op of encode and decode of the 1 KB put per codec (a quick loop,
// not a benchmark; bench/micro has those) and checks every decode.
TEST(PbCodecs, Prints1KbPutEncodeAndDecodeTimes) {
  constexpr int kIters = 20000;
  for (const char* name : {"raw", "pb", "pb-arena", "cellblock"}) {
    auto codec = Make(name);
    ByteBuffer out;
    MutateRequest got;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kIters; ++i) {
      out.Clear();
      ASSERT_TRUE(codec->EncodeRequest(kCallId, Put1k(), &out).ok());
    }
    auto t1 = std::chrono::steady_clock::now();
    FramedPayload framed(out.view());
    size_t cells = 0;
    for (int i = 0; i < kIters; ++i) {
      ASSERT_TRUE(codec->DecodeRequest(framed.view(), &got).ok());
      cells += got.mutation.cells.size();
    }
    auto t2 = std::chrono::steady_clock::now();
    EXPECT_EQ(cells, size_t(kIters) * 10);
    using ns = std::chrono::duration<double, std::nano>;
    std::printf("%-10s 1KB put: encode %7.0f ns/op, decode %7.0f ns/op, payload %zu bytes\n", name,
                ns(t1 - t0).count() / kIters, ns(t2 - t1).count() / kIters, out.size());
  }
}

}  // namespace
}  // namespace wirebench
