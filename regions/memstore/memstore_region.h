// The memstore region: an in-memory sorted store of rows, each a sorted map
// of (family, qualifier) -> (value, timestamp), behind the Region interface.
//
// One version per column: a put overwrites. Deletes ignore timestamps: a
// kDelete or kDeleteColumn cell removes the column, kDeleteFamily removes the
// family, a delete with no cells removes the row. Rows are spread over shards
// by a hash of the row key, each shard a std::map behind a reader-writer
// lock; a mutation of one row is atomic with respect to reads of that row.
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
};

// Returns a new, empty memstore region named "memstore".
std::unique_ptr<Region> NewMemstoreRegion(const MemstoreOptions& options = {});

// The timestamp the memstore gives a cell written with timestamp 0 (and a
// mutation timestamp of 0): milliseconds since the Unix epoch, as HBase does.
uint64_t MemstoreNowMillis();

}  // namespace wirebench
