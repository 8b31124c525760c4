#include "codecs/schemas/Client.pb.h"
#include "transports/hbase/hbase_calls.h"

#include <algorithm>
#include <string>
#include <vector>

#include "transports/hbase/hbase_regions.h"
#include "transports/hbase/hbase_wire.pb.h"


namespace wirebench::hbaserpc {

namespace pbw = hbasewire;

// ---- ClientMetaService (the RPC connection registry) ----

void CallHandler::HandleMeta(const Call& c, ByteBuffer* out) {
  // The registry is the same on every server of a cluster: server 0 is the
  // master and holds hbase:meta, every server is a bootstrap node.
  const ServerIdentity& master = service_->Member(0);
  if (c.method == "GetClusterId") {
    pbw::GetClusterIdResponse r;
    r.set_cluster_id(service_->identity().cluster_id);
    return Reply(c.id, r, out);
  }
  if (c.method == "GetActiveMaster") {
    pbw::GetActiveMasterResponse r;
    SetServerName(master, r.mutable_server_name());
    return Reply(c.id, r, out);
  }
  if (c.method == "GetMasters") {
    pbw::GetMastersResponse r;
    auto* e = r.add_master_servers();
    SetServerName(master, e->mutable_server_name());
    e->set_is_active(true);
    return Reply(c.id, r, out);
  }
  if (c.method == "GetMetaRegionLocations") {
    pbw::GetMetaRegionLocationsResponse r;
    auto* loc = r.add_meta_locations();
    MetaRegionInfo(loc->mutable_region_info());
    SetServerName(master, loc->mutable_server_name());
    loc->set_seq_num(0);
    return Reply(c.id, r, out);
  }
  if (c.method == "GetBootstrapNodes") {
    pbw::GetBootstrapNodesResponse r;
    for (uint32_t k = 0; k < service_->members(); ++k)
      SetServerName(service_->Member(k), r.add_server_name());
    return Reply(c.id, r, out);
  }
  BumpShared(stats_->other_calls, 1);
  Fail(c.id, exceptions::kDoNotRetry,
       "java.lang.UnsupportedOperationException: " + std::string(c.method) +
           " (ClientMetaService has GetClusterId, GetActiveMaster, GetMasters, "
           "GetMetaRegionLocations and GetBootstrapNodes)",
       true, out);
}

// ---- The hbase:meta catalog ----

void CallHandler::TableStateRow(ByteView row, hbase::Result* out) {
  pbw::TableState st;
  st.set_state(pbw::TableState::ENABLED);
  const std::string value = "PBUF" + st.SerializeAsString();
  Cell cell;
  cell.row = row;
  cell.family = ByteView("table");
  cell.qualifier = ByteView("state");
  cell.timestamp = service_->identity().start_code;
  cell.value = ByteView(value);
  Result r;
  r.cells = std::span<const Cell>(&cell, 1);
  r.exists = true;
  EmitResult(r, row, out);
}

void CallHandler::CatalogRow(std::string_view table, uint32_t index,
                             const std::vector<std::string>& families, hbase::Result* out) {
  const bool want_info =
      families.empty() || std::find(families.begin(), families.end(), "info") != families.end();
  const RegionLayout& layout = service_->layout();
  const std::string row = RegionRow(table, index, layout);
  if (!want_info) return;
  // The server that holds the region, as HBase's meta names it: its
  // address, start code and ServerName.
  const ServerIdentity& id = service_->HolderOf(index);
  pbw::RegionInfo ri;
  ri.set_region_id(kUserRegionId);
  SetTableName(table, ri.mutable_table_name());
  ri.set_start_key(layout.StartKey(index));
  ri.set_end_key(layout.EndKey(index));
  ri.set_offline(false);
  ri.set_split(false);
  ri.set_replica_id(0);
  const std::string regioninfo = "PBUF" + ri.SerializeAsString();
  const std::string server = id.host + ":" + std::to_string(id.port);
  const std::string startcode = BigEndian64(id.start_code);
  const std::string seqnum = BigEndian64(1);
  const std::string sn = id.ServerNameString();
  // Qualifiers in HBase's sort order, as a region server returns them.
  Cell cells[5];
  const std::pair<const char*, const std::string*> cols[5] = {{"regioninfo", &regioninfo},
                                                              {"seqnumDuringOpen", &seqnum},
                                                              {"server", &server},
                                                              {"serverstartcode", &startcode},
                                                              {"sn", &sn}};
  for (int i = 0; i < 5; ++i) {
    cells[i].row = ByteView(row);
    cells[i].family = ByteView("info");
    cells[i].qualifier = ByteView(cols[i].first);
    cells[i].timestamp = id.start_code;
    cells[i].value = ByteView(*cols[i].second);
  }
  Result r;
  r.cells = std::span<const Cell>(cells, 5);
  r.exists = true;
  EmitResult(r, ByteView(row), out);
}

Status CallHandler::GetMetaRow(const hbase::Get& g, hbase::Result* out) {
  BumpShared(stats_->meta_calls, 1);
  std::vector<std::string> families;
  for (const auto& col : g.column()) families.push_back(col.family());
  const std::string& row = g.row();
  const std::string_view table = TableOf(row);
  if (table.empty()) {
    // A table's row: its state.
    if (families.empty() ||
        std::find(families.begin(), families.end(), "table") != families.end())
      TableStateRow(ByteView(row), out);
    return Status::Ok();
  }
  // A region row (or, with closest_row_before, the row at or before it).
  const uint32_t n = service_->regions_per_table();
  int found = -1;
  for (uint32_t i = 0; i < n; ++i) {
    const std::string region_row = RegionRow(table, i, service_->layout());
    const int c = MetaCompare(region_row, row);
    if (g.closest_row_before() ? c <= 0 : c == 0) found = int(i);
  }
  if (found >= 0) {
    if (g.existence_only()) {
      out->set_exists(true);
      return Status::Ok();
    }
    CatalogRow(table, uint32_t(found), families, out);
  } else if (g.existence_only()) {
    out->set_exists(false);
  }
  return Status::Ok();
}

StatusOr<bool> CallHandler::MetaScanBatch(Scanner* s, uint32_t max_rows,
                                          hbase::ScanResponse* resp) {
  BumpShared(stats_->meta_calls, 1);
  if (s->table.empty()) return false;
  // The table's region rows, in the scan's direction, after the last one returned.
  const uint32_t regions = service_->regions_per_table();
  std::vector<std::pair<uint32_t, std::string>> rows;
  for (uint32_t i = 0; i < regions; ++i)
    rows.emplace_back(i, RegionRow(s->table, i, service_->layout()));
  if (s->reversed) std::reverse(rows.begin(), rows.end());
  uint32_t added = 0;
  for (const auto& [index, row] : rows) {
    // In hbase:meta's order (MetaCompare), not byte order.
    const int vs_start = s->start_row.empty() ? 0 : MetaCompare(row, s->start_row);
    const int vs_stop = s->stop_row.empty() ? 0 : MetaCompare(row, s->stop_row);
    const int dir = s->reversed ? -1 : 1;  // Rows come in this order.
    bool in_range = s->start_row.empty() || vs_start * dir > 0 ||
                    (s->include_start && vs_start == 0);
    in_range = in_range && (s->stop_row.empty() || vs_stop * dir < 0 ||
                            (s->include_stop && vs_stop == 0));
    if (s->started && !(MetaCompare(row, s->next_row) * dir > 0)) in_range = false;
    if (!in_range) continue;
    if (added == max_rows) return true;
    std::vector<std::string> families;
    for (const auto& col : s->columns) families.push_back(col.first);
    hbase::Result r;
    CatalogRow(s->table, index, families, &r);
    s->started = true;
    s->next_row = row;
    if (r.associated_cell_count() > 0 || r.cell_size() > 0) {
      AddScanResult(&r, false, resp);
      ++added;
    }
  }
  return false;
}

}  // namespace wirebench::hbaserpc
