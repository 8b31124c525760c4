// `--codec pb`, `pb-arena` and `cellblock`: their registry entries.
#include "codecs/codec.h"
#include "codecs/pb/pb_codecs.h"

namespace wirebench {

// HBase's layout (varint-delimited header and param, then exactly
// associated_cell_count cells) tells a cut payload from a whole one;
// protobuf parsers accept unknown fields, so rare garbage parses.
const CodecInfo& PbCodecEntry() {
  static const CodecInfo entry{
      CodecId::kPb, "pb",
      "HBase's protobuf schema, cells inside the messages, fresh messages and string copies "
      "per call (HBase without a cell-block codec)",
      &NewPbCodec, {.rejects_every_truncation = true, .rejects_all_garbage = false},
      {"wirebench::pb::", "wirebench::hbase::"}};
  return entry;
}

const CodecInfo& PbArenaCodecEntry() {
  static const CodecInfo entry{
      CodecId::kPbArena, "pb-arena",
      "the same bytes as pb, parsed into arena-allocated, reused messages",
      &NewPbArenaCodec, {.rejects_every_truncation = true, .rejects_all_garbage = false},
      {"wirebench::pb::", "wirebench::hbase::"}};
  return entry;
}

const CodecInfo& CellBlockCodecEntry() {
  static const CodecInfo entry{
      CodecId::kCellBlock, "cellblock",
      "HBase's default: protobuf header and param, cells in a KeyValueCodec cell block, "
      "decoded as views",
      &NewCellBlockCodec, {.rejects_every_truncation = true, .rejects_all_garbage = false},
      {"wirebench::pb::", "wirebench::hbase::"}};
  return entry;
}

}  // namespace wirebench
