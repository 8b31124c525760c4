// The codec registry: the one place that lists and describes every codec.
// Adding a codec means writing it under codecs/<name>/ and adding its entry
// here (README, "Adding a codec").
#include <string>

#include "codecs/codec.h"
#ifdef WIREBENCH_HAVE_CAPNP
#include "codecs/capnp/capnp_codec.h"
#endif
#include "codecs/flatbuffers/flatbuffers_codec.h"
#include "codecs/pb/pb_codecs.h"
#include "codecs/raw/raw_codec.h"
#include "codecs/writable/writable_codec.h"

namespace wirebench {

namespace {

const std::vector<CodecInfo>& Entries() {
  static const std::vector<CodecInfo> kCodecs = {
      // Lengths and an exact end: every truncation and all garbage is caught.
      {CodecId::kRaw, "raw", "hand-packed binary; the floor (one copy on encode, none on decode)",
       &NewRawCodec, {.rejects_every_truncation = true, .rejects_all_garbage = true}, {}},
      // HBase's layout (varint-delimited header and param, then exactly
      // associated_cell_count cells) tells a cut payload from a whole one;
      // protobuf parsers accept unknown fields, so rare garbage parses.
      {CodecId::kPb, "pb",
       "HBase's protobuf schema, cells inside the messages, fresh messages and string copies "
       "per call (HBase without a cell-block codec)",
       &NewPbCodec, {.rejects_every_truncation = true, .rejects_all_garbage = false},
       {"wirebench::pb::", "wirebench::hbase::"}},
      {CodecId::kPbArena, "pb-arena",
       "the same bytes as pb, parsed into arena-allocated, reused messages",
       &NewPbArenaCodec, {.rejects_every_truncation = true, .rejects_all_garbage = false},
       {"wirebench::pb::", "wirebench::hbase::"}},
      {CodecId::kCellBlock, "cellblock",
       "HBase's default: protobuf header and param, cells in a KeyValueCodec cell block, "
       "decoded as views",
       &NewCellBlockCodec, {.rejects_every_truncation = true, .rejects_all_garbage = false},
       {"wirebench::pb::", "wirebench::hbase::"}},
      // A size prefix the Verifier checks against the payload length.
      {CodecId::kFlatBuffers, "flatbuffers",
       "a FlatBuffers table per call, verified and read in place; builder reused",
       &NewFlatBuffersCodec, {.rejects_every_truncation = true, .rejects_all_garbage = true},
       {"wirebench::fb::", "flatbuffers::"}},
#ifdef WIREBENCH_HAVE_CAPNP
      // A word count the payload length must match exactly.
      {CodecId(6), "capnp",
       "a Cap'n Proto message built in the frame, read in place with traversal limits",
       &NewCapnpCodec, {.rejects_every_truncation = true, .rejects_all_garbage = true},
       {"wirebench::capn::", "capnp::", "kj::"}},
#endif
      // Every count and length checked and the end exact; fixed class codes
      // and method names up front.
      {CodecId(7), "writable",
       "HBase 0.94's Writable RPC: Invocation, HbaseObjectWritable class codes, Put/Get/Result "
       "with KeyValues, vints; written once into the frame, decoded as views",
       &NewWritableCodec, {.rejects_every_truncation = true, .rejects_all_garbage = true},
       {}},
  };
  return kCodecs;
}

}  // namespace

const Registry<CodecInfo>& Codecs() {
  static const Registry<CodecInfo> registry("--codec", [] {
    std::vector<const CodecInfo*> entries;
    for (const CodecInfo& c : Entries()) entries.push_back(&c);
    return entries;
  }());
  return registry;
}

const CodecInfo* FindCodec(uint8_t id) {
  for (const CodecInfo* c : Codecs().all())
    if (uint8_t(c->id) == id) return c;
  return nullptr;
}

std::string CodecNames() { return Codecs().Names(); }

StatusOr<std::unique_ptr<Codec>> NewCodec(std::string_view name) {
  auto c = Codecs().Resolve(name);
  if (!c.ok()) return c.status();
  return (*c)->factory();
}

StatusOr<std::unique_ptr<Codec>> NewCodec(uint8_t id) {
  const CodecInfo* c = FindCodec(id);
  if (c == nullptr)
    return Status::InvalidArgument("unknown codec id " + std::to_string(id) +
                                   "; known codecs: " + CodecNames());
  return c->factory();
}

}  // namespace wirebench
