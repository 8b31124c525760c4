#include "transports/hbase/hbase_regions.h"

#include <cstdio>

#include "transports/hbase/hbase_wire.pb.h"

namespace wirebench::hbaserpc {

namespace pbw = hbasewire;

// The start key of region `i` of `n` of a table: "" for the first, else
// HBase's HexStringSplit point (the 32-bit space in n equal parts, 8
// lowercase hex digits).
std::string SplitPoint(uint32_t i, uint32_t n) {
  if (i == 0 || n <= 1) return std::string();
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%08llx",
                static_cast<unsigned long long>((uint64_t{1} << 32) * i / n));
  return buf;
}

// The catalog's row (and the region's name) for region `i` of `table`.
std::string RegionRow(std::string_view table, uint32_t i, uint32_t n) {
  return std::string(table) + "," + SplitPoint(i, n) + "," + std::to_string(kUserRegionId);
}

// Which of the table's n regions a region name names; -1 when none.
int RegionIndex(std::string_view name, uint32_t n) {
  const std::string_view table = TableOf(name);
  if (table.empty()) return -1;
  const size_t last = name.rfind(',');
  if (last == std::string_view::npos || last <= table.size()) return -1;
  const std::string_view start = name.substr(table.size() + 1, last - table.size() - 1);
  for (uint32_t i = 0; i < n; ++i)
    if (SplitPoint(i, n) == start) return int(i);
  return -1;
}

// The region (of n) holding `row`.
uint32_t RegionOfRow(std::string_view row, uint32_t n) {
  uint32_t i = 0;
  while (i + 1 < n && row >= SplitPoint(i + 1, n)) ++i;
  return i;
}

std::string BigEndian64(uint64_t v) {
  std::string s(8, '\0');
  StoreBE64(reinterpret_cast<uint8_t*>(s.data()), v);
  return s;
}

void SetTableName(std::string_view table, pbw::TableName* t) {
  const size_t colon = table.find(':');
  if (colon == std::string_view::npos) {
    t->set_namespace_("default");
    t->set_qualifier(std::string(table));
  } else {
    t->set_namespace_(std::string(table.substr(0, colon)));
    t->set_qualifier(std::string(table.substr(colon + 1)));
  }
}

void SetServerName(const ServerIdentity& id, pbw::ServerName* s) {
  s->set_host_name(id.host);
  s->set_port(id.port);
  s->set_start_code(id.start_code);
}

void MetaRegionInfo(pbw::RegionInfo* ri) {
  ri->set_region_id(1);
  SetTableName(kMetaTable, ri->mutable_table_name());
  ri->set_start_key("");
  ri->set_end_key("");
  ri->set_offline(false);
  ri->set_split(false);
  ri->set_replica_id(0);
}

// A TimeRange message (HBase.proto) as the model's; all of time when empty.
StatusOr<TimeRange> ReadTimeRange(const std::string& bytes) {
  TimeRange tr;
  if (bytes.empty()) return tr;
  pbw::TimeRange p;
  if (!p.ParseFromString(bytes)) return Status::InvalidArgument("malformed TimeRange");
  if (p.has_from()) tr.min = p.from();
  if (p.has_to()) tr.max = p.to();
  if (tr.max < tr.min)
    return Status::InvalidArgument("TimeRange: maxStamp " + std::to_string(tr.max) +
                                   " is smaller than minStamp " + std::to_string(tr.min));
  return tr;
}

}  // namespace wirebench::hbaserpc
