// The codec registry: the one place that lists every codec. Adding a codec
// means writing it under codecs/<name>/ and adding one line here.
#include <string>

#include "codecs/codec.h"
#include "codecs/flatbuffers/flatbuffers_codec.h"
#include "codecs/pb/pb_codecs.h"
#include "codecs/raw/raw_codec.h"

namespace wirebench {

const std::vector<CodecInfo>& AllCodecs() {
  static const std::vector<CodecInfo> kCodecs = {
      {CodecId::kRaw, "raw", "hand-packed binary; the floor (one copy on encode, none on decode)",
       &NewRawCodec},
      {CodecId::kPb, "pb",
       "HBase's protobuf schema, cells inside the messages, fresh messages and string copies "
       "per call (HBase without a cell-block codec)",
       &NewPbCodec},
      {CodecId::kPbArena, "pb-arena",
       "the same bytes as pb, parsed into arena-allocated, reused messages",
       &NewPbArenaCodec},
      {CodecId::kCellBlock, "cellblock",
       "HBase's default: protobuf header and param, cells in a KeyValueCodec cell block, "
       "decoded as views",
       &NewCellBlockCodec},
      {CodecId::kFlatBuffers, "flatbuffers",
       "a FlatBuffers table per call, verified and read in place; builder reused",
       &NewFlatBuffersCodec},
  };
  return kCodecs;
}

const CodecInfo* FindCodec(std::string_view name) {
  for (const CodecInfo& c : AllCodecs())
    if (c.name == name) return &c;
  return nullptr;
}

const CodecInfo* FindCodec(uint8_t id) {
  for (const CodecInfo& c : AllCodecs())
    if (uint8_t(c.id) == id) return &c;
  return nullptr;
}

std::string CodecNames() {
  std::string out;
  for (const CodecInfo& c : AllCodecs()) {
    if (!out.empty()) out += ", ";
    out += c.name;
  }
  return out;
}

StatusOr<std::unique_ptr<Codec>> NewCodec(std::string_view name) {
  const CodecInfo* c = FindCodec(name);
  if (c == nullptr)
    return Status::InvalidArgument("unknown codec '" + std::string(name) +
                                   "'; known codecs: " + CodecNames());
  return c->factory();
}

StatusOr<std::unique_ptr<Codec>> NewCodec(uint8_t id) {
  const CodecInfo* c = FindCodec(id);
  if (c == nullptr)
    return Status::InvalidArgument("unknown codec id " + std::to_string(id) +
                                   "; known codecs: " + CodecNames());
  return c->factory();
}

}  // namespace wirebench
