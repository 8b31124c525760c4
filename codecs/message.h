// The codec-neutral message model (docs/design.md, "Codecs"): what a Mutate, Get, Scan or
// Multi request and its response say, independent of any serialization.
//
// Every type here is a view. ByteView and std::span members point into memory
// owned by someone else: on the client, the workload's pre-generated value
// pool; after a decode, the codec's scratch storage or the receive buffer the
// payload came from (zero-copy codecs); after a region call, the region's
// scratch. Whoever fills a message says how long it stays valid; for a codec
// it is until the next Decode call on that codec instance or until the
// payload bytes change, whichever comes first.
// Thread-safety: plain values.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/bytes.h"

namespace wirebench {

// HBase's KeyValue.Type codes, used in cells and in the KeyValue cell block.
enum class CellType : uint8_t {
  kPut = 4,
  kDelete = 8,          // Deletes one version of one column.
  kDeleteFamilyVersion = 10,  // Deletes the versions at one timestamp of every column of a family.
  kDeleteColumn = 12,   // Deletes all versions of one column.
  kDeleteFamily = 14,   // Deletes a whole family.
};
// 1 at the five codes above, 0 at every other byte: one load per cell, which
// a decoder may AND across a Result's cells and test once after its loop.
inline constexpr auto kCellTypeValid = [] {
  std::array<uint8_t, 256> valid{};
  for (CellType t : {CellType::kPut, CellType::kDelete, CellType::kDeleteFamilyVersion,
                     CellType::kDeleteColumn, CellType::kDeleteFamily})
    valid[uint8_t(t)] = 1;
  return valid;
}();
// True for the five codes above (every decoder calls it per cell).
inline bool IsValidCellType(uint8_t t) { return kCellTypeValid[t] != 0; }

// HBase's HConstants.LATEST_TIMESTAMP (Long.MAX_VALUE): "the server's clock".
// A region treats it like 0.
inline constexpr uint64_t kLatestTimestamp = 0x7fffffffffffffffull;

// A [min, max) range of timestamps, HBase's TimeRange (all of time by default).
struct TimeRange {
  uint64_t min = 0;
  uint64_t max = kLatestTimestamp;
  bool Includes(uint64_t ts) const { return ts >= min && ts < max; }
  bool all() const { return min == 0 && max == kLatestTimestamp; }
};

// One cell: a (row, family, qualifier, timestamp, type) key and a value.
struct Cell {
  ByteView row;
  ByteView family;
  ByteView qualifier;
  uint64_t timestamp = 0;
  CellType type = CellType::kPut;
  ByteView value;
};

// HBase's MutationProto.MutationType numbering.
enum class MutationType : uint8_t { kAppend = 0, kIncrement = 1, kPut = 2, kDelete = 3 };

// A put or delete of one row. For a put, cells hold the columns written (each
// cell's row equals `row`). For a delete, cells name the columns deleted
// (type kDelete/kDeleteColumn/kDeleteFamily/kDeleteFamilyVersion, empty
// values); no cells deletes the whole row.
struct Mutation {
  ByteView row;
  MutationType type = MutationType::kPut;
  uint64_t timestamp = 0;  // 0 = "latest" (let the server choose).
  std::span<const Cell> cells;
  // The table the row is in (HBase: the table of the region the request
  // names); empty = the default table, which codecs other than HBase's use.
  // A region that keeps tables apart (memstore) reads it.
  ByteView table = {};
};

// A column selector; an empty qualifier selects the whole family.
struct Column {
  ByteView family;
  ByteView qualifier;
};

// What the region that built a Result's cells knows of their layout, when
// it built them as one block (the null region's canned record): `cells`
// cells, each with the first cell's row and family views, whose qualifiers
// and values are `bytes` in cell order, each value right after its
// qualifier. A codec may then write `bytes` at once without a pass over the
// cells to check that (raw does), once `Describes` says it still holds for
// the Result's cells: code that drops cells (a filter) copies the Result.
struct CellRun {
  ByteView bytes;
  size_t cells = 0;
  bool Describes(std::span<const Cell> c) const {
    return cells != 0 && c.size() == cells && c.front().qualifier.data() == bytes.data() &&
           c.back().value.data() + c.back().value.size() == bytes.data() + bytes.size();
  }
};

// The cells found for one row.
struct Result {
  std::span<const Cell> cells;
  bool exists = false;  // True when the row was found (even with no matching cells).
  CellRun run = {};     // Set only by a region that built the cells as one block.
};

// `region` (HBase's codecs): the name of the region the request names (its
// RegionSpecifier's value, a view into the payload); empty from codecs that
// carry none. The HBase transport reads it to place the request in a table.
// Encoding, HBase's codecs write it when it is set (a cluster's client names
// each row's region) and the table's one region "usertable,,1" when not.
// The name of usertable's region starting at `start_key`, as HBase's codecs
// write it (the old format, "usertable,START,1"; "usertable,,1" for the
// table's first, or only, region).
inline std::string UserTableRegionName(std::string_view start_key) {
  return "usertable," + std::string(start_key) + ",1";
}

struct MutateRequest {
  Mutation mutation;
  ByteView region = {};
};
struct MutateResponse {
  bool processed = true;
};

struct GetRequest {
  ByteView row;
  std::span<const Column> columns;  // Empty = every column of the row.
  // HBase's Get options; codecs other than HBase's leave the defaults.
  uint32_t max_versions = 1;  // Versions per column, newest first (a region caps it).
  TimeRange time_range;       // Only cells whose timestamp is in it.
  ByteView table = {};        // As Mutation::table.
  ByteView region = {};       // As MutateRequest::region.
};
struct GetResponse {
  Result result;
};

struct ScanRequest {
  ByteView start_row;              // Inclusive (unless !include_start); empty = from the first row.
  ByteView stop_row;               // Exclusive (unless include_stop); empty = no bound.
  uint32_t number_of_rows = 0;     // The most rows to return.
  std::span<const Column> columns;  // Empty = every column.
  // HBase's Scan options; codecs other than HBase's leave the defaults.
  uint32_t max_versions = 1;
  TimeRange time_range;
  bool reversed = false;  // Rows in descending order: start_row is the highest, stop_row the lowest.
  bool include_start = true;
  bool include_stop = false;
  ByteView table = {};  // As Mutation::table.
  ByteView region = {};  // As MutateRequest::region (encoding only).
};
struct ScanResponse {
  std::span<const Result> results;  // One per row, in row order.
  bool more_results = false;
};

enum class ActionKind : uint8_t { kMutation = 1, kGet = 2 };

// One element of a Multi: a mutation or a get, tagged with its index.
struct Action {
  uint32_t index = 0;
  ActionKind kind = ActionKind::kMutation;
  Mutation mutation;  // When kind == kMutation.
  GetRequest get;     // When kind == kGet.
};
struct MultiRequest {
  std::span<const Action> actions;
  // The table of every action (HBase: a RegionAction names one region); the
  // actions' own table fields are not read.
  ByteView table = {};
  ByteView region = {};  // As MutateRequest::region (the one RegionAction's).
};

struct ActionResult {
  uint32_t index = 0;
  bool ok = true;
  Result result;   // For gets; empty for mutations.
  ByteView error;  // When !ok: a readable reason.
};
struct MultiResponse {
  std::span<const ActionResult> results;
};

// The arrays a decoder's views point into (ScratchSlots in
// codecs/codec_adapter.h), one per element type above, kept by the codec
// from one message to the next.
struct DecodeScratch {
  std::vector<Cell> cells;
  std::vector<Column> columns;
  std::vector<Result> results;
  std::vector<Action> actions;
  std::vector<ActionResult> action_results;
};

// Sums of what a message carries, for the "same logical content" check and
// for per-op accounting.
struct MessageSize {
  uint64_t cells = 0;
  uint64_t value_bytes = 0;
  uint64_t key_bytes = 0;  // row + family + qualifier bytes over all cells.
};
MessageSize SizeOf(const Mutation& m);
MessageSize SizeOf(const Result& r);

}  // namespace wirebench
