// What the call files of `--rpc hbase` (hbase_*_calls.cc) share: how the
// catalog names a table's regions (nullregion/cluster.h's RegionLayout) and
// which of them this server holds, HBase's
// key size limits, and the small messages several calls write.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "common/bytes.h"
#include "common/status.h"
#include "nullregion/cluster.h"
#include "nullregion/region.h"
#include "transports/hbase/hbase_service.h"

namespace wirebench::hbasewire {
class TableName;
class ServerName;
class RegionInfo;
}  // namespace wirebench::hbasewire

namespace wirebench::hbaserpc {

inline constexpr uint32_t kMaxBatchRows = 10000;  // Rows one Scan reply carries at most.
inline constexpr size_t kMaxRowBytes = 32767;     // HBase's Short.MAX_VALUE.
inline constexpr size_t kMaxFamilyBytes = 127;    // HBase's Byte.MAX_VALUE.
// hbase.server.keyvalue.maxsize's default (HRegion.DEFAULT_MAX_CELL_SIZE):
// a cell whose KeyValue, its length word included, is larger is refused.
inline constexpr uint64_t kMaxCellBytes = 10485760;
// DoNotRetryIOException (as InvalidArgument) for a cell over kMaxCellBytes,
// as RSRpcServices.checkCellSizeLimit.
Status CheckCellSizes(const std::vector<Cell>& cells);
// hbase.server.scanner.max.result.size's default: a Scan reply's bytes at
// most (Scan.max_result_size may ask for less; the Java client's is 2 MB).
inline constexpr uint64_t kServerMaxResultSize = uint64_t{100} << 20;
// What a cell costs in a reply beside its row, family, qualifier and value
// (a KeyValue's lengths, timestamp and type), for the size limit.
inline constexpr uint64_t kCellOverheadBytes = 21;
// Rows read from the region at a time by a Scan's batch.
inline constexpr uint32_t kScanStepRows = 1024;

inline bool IsMetaRegion(ByteView name) {
  constexpr std::string_view kPrefix = "hbase:meta,";
  return name.size() >= kPrefix.size() &&
         std::memcmp(name.data(), kPrefix.data(), kPrefix.size()) == 0;
}

// The table a region name names: the part before the first ','.
// (An empty name may have no data pointer at all: no memchr on it.)
inline std::string_view TableOf(std::string_view region_name) {
  const size_t comma = region_name.find(',');
  return comma == std::string_view::npos ? std::string_view() : region_name.substr(0, comma);
}

// The start key of region `i` of a table: "" for the first, else the
// layout's split point (HBase's HexStringSplit for --regions-per-table,
// YCSB's "user1000".."user9999" for a cluster planned that way).
inline const std::string& SplitPoint(const RegionLayout& layout, uint32_t i) {
  return layout.StartKey(i);
}
// The catalog's row (and the region's name) for region `i` of `table`.
std::string RegionRow(std::string_view table, uint32_t i, const RegionLayout& layout);
// Which of the table's regions a region name names, -1 when none: the old
// format "T,START,1" or the new "T,START,1.ENCODED." (ENCODED being
// EncodedRegionName of what precedes it), START one of the layout's start
// keys and 1 the region id the catalog hands out. hbase:meta's is not one.
int RegionIndex(std::string_view name, const RegionLayout& layout);
// HBase's encoded region name (RegionInfo.encodeRegionName for the new
// format): the MD5 of the region name as 32 lowercase hex digits.
std::string EncodedRegionName(std::string_view name);
// The one name of the catalog's region, as every client sends it.
inline bool IsMetaRegionName(ByteView name) { return name.str() == kMetaRegionName; }
// NotServingRegionException, in HBase's words ("Region X is not online on
// SERVERNAME"), unless `name` is a region `service` holds: one of the
// layout's (RegionIndex) the server holds, or hbase:meta on the server
// that serves it. `index`, when not null, gets the region's index (-1 for
// hbase:meta or a name that is none).
Status CheckRegionName(ByteView name, const HBaseService& service, int* index = nullptr);
// The region holding `row`.
inline uint32_t RegionOfRow(std::string_view row, const RegionLayout& layout) {
  return layout.RegionOfRow(row);
}

// hbase:meta's row order, as HBase's MetaCellComparator.compareRows: the
// table name (up to the first ','), then the start key (up to the last
// ','), then the region id, each part compared byte by byte on its own.
// <0, 0, >0 as memcmp. (A plain byte order puts "T,\x00..." after "T,,1".)
int MetaCompare(std::string_view a, std::string_view b);

std::string BigEndian64(uint64_t v);
void SetTableName(std::string_view table, hbasewire::TableName* t);
void SetServerName(const ServerIdentity& id, hbasewire::ServerName* s);
// hbase:meta's own RegionInfo.
void MetaRegionInfo(hbasewire::RegionInfo* ri);
// A TimeRange message (HBase.proto) as the model's; all of time when empty.
StatusOr<TimeRange> ReadTimeRange(const std::string& bytes);

}  // namespace wirebench::hbaserpc
