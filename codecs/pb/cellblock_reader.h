// The decoding half of the cellblock codec. It reads HBase's RequestHeader /
// ResponseHeader and param message with a view-based protobuf wire reader
// (pb_wire.h) instead of generated messages, and the cells from the
// KeyValueCodec cell block that follows, so every row, family, qualifier and
// value in the decoded message is a view into the payload: a decode copies
// no payload byte and, once the scratch vectors have grown to the largest
// message seen, allocates nothing.
//
// Scan results: HBase's ScanResponse carries only cells_per_result with a
// cell block, and a row a scan returns exists, so decoded results have
// exists = true unless the response also carries `results` (the writer adds
// them only when some row has exists = false), which then give the flags.
// Thread-safety: one instance per codec; not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "codecs/message.h"
#include "common/bytes.h"
#include "common/status.h"

namespace wirebench::pb {

class CellBlockReader {
 public:
  CellBlockReader() = default;
  CellBlockReader(const CellBlockReader&) = delete;
  CellBlockReader& operator=(const CellBlockReader&) = delete;

  // Each Read() replaces what the previous one built; the views it returns
  // point into `payload` and into this reader's scratch.
  Status Read(ByteView payload, MutateRequest* out);
  Status Read(ByteView payload, GetRequest* out);
  Status Read(ByteView payload, ScanRequest* out);
  Status Read(ByteView payload, MultiRequest* out);
  Status Read(ByteView payload, MutateResponse* out);
  Status Read(ByteView payload, GetResponse* out);
  Status Read(ByteView payload, ScanResponse* out);
  Status Read(ByteView payload, MultiResponse* out);

 private:
  struct Range {
    uint32_t begin = 0;
    uint32_t count = 0;
  };
  struct MutationRef {
    ByteView row;
    uint64_t type = ~uint64_t{0};  // Unset until mutate_type is read.
    uint64_t timestamp = 0;
    uint64_t cells = 0;  // associated_cell_count
  };
  struct GetRef {
    ByteView row;
    bool has_row = false;
    Range columns;
  };
  struct ActionRef {
    uint32_t index = 0;
    bool has_mutation = false;
    bool has_get = false;
    MutationRef mutation;
    GetRef get;
  };
  struct ResultRef {
    uint64_t cells = 0;  // associated_cell_count
    bool exists = false;
  };
  struct ActionResultRef {
    uint32_t index = 0;
    bool has_exception = false;
    ByteView error;
    ResultRef result;
  };

  // Splits a request payload into its param message and cell block, after
  // checking the header names `method`.
  Status OpenRequest(ByteView payload, uint8_t method, ByteView* param, ByteView* block);
  Status OpenResponse(ByteView payload, ByteView* param, ByteView* block);
  // RegionSpecifier.value: the name of the region a request names. The
  // layout every HBase client writes, {type: REGION_NAME, value: name}
  // (08 01 12 <n> name), is read in place; ParseRegion reads any other
  // field by field.
  static Status ReadRegion(ByteView spec, ByteView* name) {
    if (spec.size() >= 4 && spec[0] == 0x08 && spec[1] == 0x01 && spec[2] == 0x12 &&
        spec[3] < 0x80 && size_t(spec[3]) + 4 == spec.size()) {
      *name = spec.Sub(4, spec[3]);
      return Status::Ok();
    }
    return ParseRegion(spec, name);
  }
  static Status ParseRegion(ByteView spec, ByteView* name);
  Status ParseMutation(ByteView in, MutationRef* m);
  Status ParseColumn(ByteView in);
  Status ParseGet(ByteView in, GetRef* g);
  Status ParseAction(ByteView in);
  // `region`: the name of the region it names.
  Status ParseRegionAction(ByteView in, ByteView* region);
  Status ParseResult(ByteView in, ResultRef* r);
  Status ParseResultOrException(ByteView in);
  Status ParseRegionActionResult(ByteView in);
  // Reads exactly `total` cells, the whole block, into scratch_.cells.
  Status ReadCells(ByteView block, uint64_t total);
  // Gives a mutation its cells from scratch_.cells[*next...], checking their rows.
  Status TakeMutationCells(const MutationRef& ref, size_t* next, Mutation* out);
  std::span<const Column> ColumnSpan(Range r) const {
    return std::span<const Column>(scratch_.columns.data() + r.begin, r.count);
  }

  DecodeScratch scratch_;
  std::vector<ActionRef> action_refs_;
  std::vector<ActionResultRef> action_result_refs_;
  std::vector<uint32_t> cells_per_result_;
  std::vector<ResultRef> scan_result_refs_;
};

}  // namespace wirebench::pb
