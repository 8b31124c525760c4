#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "codecs/hbase/key_value.h"
#include "codecs/schemas/Client.pb.h"
#include "transports/hbase/hbase_calls.h"
#include "transports/hbase/hbase_regions.h"

namespace wirebench::hbaserpc {

void CallHandler::EmitResult(const Result& r, ByteView row, hbase::Result* out) {
  if (cell_blocks_) {
    size_t bytes = 0;
    for (const Cell& cell : r.cells) bytes += pb::KeyValueBytes(row.empty() ? cell.row : row, cell);
    uint8_t* p = block_.Extend(bytes);
    for (const Cell& cell : r.cells) p = pb::WriteKeyValue(p, row.empty() ? cell.row : row, cell);
    out->set_associated_cell_count(int32_t(r.cells.size()));
  } else {
    for (const Cell& cell : r.cells) {
      hbase::Cell* pc = out->add_cell();
      const ByteView rr = row.empty() ? cell.row : row;
      pc->set_row(rr.data(), rr.size());
      pc->set_family(cell.family.data(), cell.family.size());
      pc->set_qualifier(cell.qualifier.data(), cell.qualifier.size());
      pc->set_timestamp(cell.timestamp);
      pc->set_cell_type(hbase::CellType(uint8_t(cell.type)));
      pc->set_value(cell.value.data(), cell.value.size());
    }
  }
  if (r.cells.empty() && r.exists) out->set_exists(true);
}

Status CallHandler::GetRow(ByteView region_name, const hbase::Get& g, hbase::Result* out) {
  if (IsMetaRegion(region_name)) {
    WB_RETURN_IF_ERROR(CheckRegionName(region_name, *service_));
    return GetMetaRow(g, out);
  }
  if (region_name.empty())
    return Status::NotFound(std::string(exceptions::kNotServingRegion) +
                            ": the request names no region");
  WB_RETURN_IF_ERROR(CheckRow(region_name, ByteView(g.row())));
  std::vector<Column> cols;
  for (const auto& col : g.column()) {
    if (col.qualifier_size() == 0) {
      cols.push_back(Column{ByteView(col.family()), ByteView()});
    } else {
      for (const auto& q : col.qualifier()) cols.push_back(Column{ByteView(col.family()), ByteView(q)});
    }
  }
  auto tr = ReadTimeRange(g.time_range());
  if (!tr.ok()) return tr.status();
  FilterHold hold(service_);  // Declared before the filter: released after it is freed.
  std::unique_ptr<Filter> filter;
  if (g.has_filter()) {
    if (defer_filters_) return Defer();
    WB_RETURN_IF_ERROR(hold.Take(g.filter().size()));
    auto f = ParseFilter(g.filter());
    if (!f.ok()) return f.status();
    filter = std::move(f).value();
  }
  const uint32_t max_versions = std::max<uint32_t>(1, g.max_versions());
  GetRequest req;
  req.table = ByteView(TableOf(region_name.str()));
  req.row = ByteView(g.row());
  req.columns = std::span<const Column>(cols.data(), cols.size());
  req.time_range = *tr;
  // A filter sees every version in the range; versions are counted after it.
  req.max_versions = filter ? UINT32_MAX : max_versions;
  GetResponse resp;
  WB_RETURN_IF_ERROR(service_->region()->Get(req, &scratch_, &resp));
  Result result = resp.result;
  if (filter) {
    filtered_.clear();
    filter_storage_.clear();
    FilterOneRow(filter.get(), req.row, resp.result.cells, max_versions, &filtered_,
                 &filter_storage_);
    result.cells = std::span<const Cell>(filtered_.data(), filtered_.size());
  }
  if (g.existence_only()) {
    out->set_exists(!result.cells.empty());
    return Status::Ok();
  }
  result.exists = false;  // HBase's Result of a Get carries no exists flag.
  EmitResult(result, req.row, out);
  return Status::Ok();
}

Status CallHandler::DoGet(const Call& c, hbase::GetResponse* resp) {
  hbase::GetRequest req;
  if (!req.ParseFromArray(c.param.data(), int(c.param.size())))
    return Status::InvalidArgument("malformed GetRequest");
  return GetRow(ByteView(req.region().value()), req.get(), resp->mutable_result());
}

}  // namespace wirebench::hbaserpc
