// `--codec pb`, `pb-arena` and `cellblock`: their registry entries.
#include "codecs/codec.h"
#include "codecs/pb/pb_codecs.h"

namespace wirebench {

namespace {

// What the three share. HBase's layout (varint-delimited header and param,
// then exactly associated_cell_count cells) tells a cut payload from a whole
// one; protobuf parsers accept unknown fields, so rare garbage parses. Their
// code is the pb layer's and the generated code of HBase's schema.
CodecInfo HBaseLayoutEntry(CodecId id, std::string_view name, std::string_view summary,
                           std::unique_ptr<Codec> (*factory)()) {
  return CodecInfo(id, name, summary, factory,
                   {.rejects_every_truncation = true, .rejects_all_garbage = false},
                   {"wirebench::pb::", "wirebench::hbase::"});
}

}  // namespace

const CodecInfo& PbCodecEntry() {
  static const CodecInfo entry = HBaseLayoutEntry(
      CodecId::kPb, "pb",
      "HBase's protobuf schema, cells inside the messages, fresh messages and string copies "
      "per call (HBase without a cell-block codec)",
      &NewPbCodec);
  return entry;
}

const CodecInfo& PbArenaCodecEntry() {
  static const CodecInfo entry = HBaseLayoutEntry(
      CodecId::kPbArena, "pb-arena",
      "the same bytes as pb, parsed into arena-allocated, reused messages", &NewPbArenaCodec);
  return entry;
}

const CodecInfo& CellBlockCodecEntry() {
  static const CodecInfo entry = HBaseLayoutEntry(
      CodecId::kCellBlock, "cellblock",
      "HBase's default: protobuf header and param, cells in a KeyValueCodec cell block, "
      "decoded as views",
      &NewCellBlockCodec);
  return entry;
}

}  // namespace wirebench
