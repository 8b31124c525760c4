// The memstore region: an in-memory sorted store of rows, each a sorted map
// of (family, qualifier) -> (value, timestamp), behind the Region interface.
//
// HBase's data model (docs/design.md, "The memstore region"): every cell has
// a timestamp (the writer's, or the server's clock for 0 and
// LATEST_TIMESTAMP); a column keeps its newest `max_versions` versions.
// Deletes are HBase's delete types (a row, a family, every version of a
// column up to a timestamp, one version: the newest or the one at a
// timestamp, a family's cells at one timestamp) and leave markers that keep
// later puts of older cells masked, as HBase's do until a major compaction.
// Reads return cells in HBase's order (family, qualifier, timestamp
// descending), honouring max_versions and the time range. CheckAndMutate,
// Increment and Append run under the row's lock, atomically. Each table (the
// requests' `table`) is a store of its own, as in HBase. Rows are spread
// over shards by a hash of the row key, each shard a std::map per table
// behind one reader-writer lock; a mutation of one row is atomic with
// respect to reads of that row.
// Scans lock every shard for reading and merge them in row order.
// Results are copied into the caller's RegionScratch.
// Thread-safety: every method may be called from any number of threads.
#pragma once

#include <cstdint>
#include <memory>

#include "nullregion/region.h"

namespace wirebench {

struct MemstoreOptions {
  // Number of independently locked shards (rows are hashed over them).
  uint32_t shards = 16;
  // The most rows one Scan returns; also used when number_of_rows is 0.
  uint32_t max_scan_rows = 10000;
  // Versions kept per column (HBase's VERSIONS, for every family); 1 = HBase's default.
  uint32_t max_versions = 1;
  // Past this many bytes held (cells' bytes plus kCellOverheadBytes each,
  // and what delete markers and the rows holding them take), puts, deletes,
  // increments and appends are refused with HBase's RegionTooBusyException;
  // only deletes of whole rows that hold cells are taken, to free room (the
  // memstore has no flush). 0 = no limit.
  uint64_t limit_bytes = uint64_t{512} << 20;
  // The largest cell an Increment or Append may make, as a KeyValue with its
  // length word: the put path's limit (hbase.server.keyvalue.maxsize's
  // default), past which the whole mutation is refused. 0 = no limit.
  uint64_t max_cell_bytes = 10485760;
};

// What the memstore spends on a cell besides its row, family, qualifier and
// value bytes (map node, strings, version list), about, as measured with
// jemalloc on x86-64 (see the memstore region's test).
inline constexpr uint64_t kCellOverheadBytes = 200;

// Returns a new, empty memstore region named "memstore".
std::unique_ptr<Region> NewMemstoreRegion(const MemstoreOptions& options = {});

// The timestamp the memstore gives a cell written with timestamp 0 (and a
// mutation timestamp of 0): milliseconds since the Unix epoch, as HBase does.
uint64_t MemstoreNowMillis();

}  // namespace wirebench
