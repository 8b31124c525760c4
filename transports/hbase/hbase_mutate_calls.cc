#include <string>
#include <vector>

#include "codecs/hbase/key_value.h"
#include "codecs/schemas/Client.pb.h"
#include "codecs/wire_reader.h"
#include "transports/hbase/hbase_calls.h"
#include "transports/hbase/hbase_regions.h"

namespace wirebench::hbaserpc {

namespace {

// The cells of a MutationProto's column_value (the message's own cells).
Status ReadColumnValues(const hbase::MutationProto& p, ByteView row, std::vector<Cell>* cells) {
  const bool is_delete = p.mutate_type() == hbase::MutationProto::DELETE;
  for (const auto& cv : p.column_value()) {
    if (cv.qualifier_value_size() == 0 && is_delete) {
      Cell cell;
      cell.row = row;
      cell.family = ByteView(cv.family());
      cell.type = CellType::kDeleteFamily;
      cell.timestamp = p.timestamp();
      cells->push_back(cell);
    }
    for (const auto& qv : cv.qualifier_value()) {
      Cell cell;
      cell.row = row;
      cell.family = ByteView(cv.family());
      cell.qualifier = ByteView(qv.qualifier());
      cell.value = ByteView(qv.value());
      cell.timestamp = qv.has_timestamp() ? qv.timestamp() : p.timestamp();
      cell.type = CellType::kPut;
      if (is_delete) {
        switch (qv.delete_type()) {
          case hbase::MutationProto::DELETE_ONE_VERSION: cell.type = CellType::kDelete; break;
          case hbase::MutationProto::DELETE_MULTIPLE_VERSIONS:
            cell.type = CellType::kDeleteColumn;
            break;
          case hbase::MutationProto::DELETE_FAMILY:
            cell.type = CellType::kDeleteFamily;
            cell.qualifier = ByteView();
            break;
          case hbase::MutationProto::DELETE_FAMILY_VERSION:
            cell.type = CellType::kDeleteFamilyVersion;
            cell.qualifier = ByteView();
            break;
          default:
            return Status::InvalidArgument("unknown MutationProto.DeleteType " +
                                           std::to_string(int(qv.delete_type())));
        }
      }
      cells->push_back(cell);
    }
  }
  return Status::Ok();
}

}  // namespace

Status CallHandler::ReadMutation(const hbase::MutationProto& p, WireReader* block, Mutation* out,
                                 std::vector<Cell>* cells) {
  cells->clear();
  out->row = ByteView(p.row());
  out->timestamp = p.timestamp();
  switch (p.mutate_type()) {
    case hbase::MutationProto::PUT: out->type = MutationType::kPut; break;
    case hbase::MutationProto::DELETE: out->type = MutationType::kDelete; break;
    case hbase::MutationProto::INCREMENT: out->type = MutationType::kIncrement; break;
    case hbase::MutationProto::APPEND: out->type = MutationType::kAppend; break;
  }
  WB_RETURN_IF_ERROR(ReadColumnValues(p, out->row, cells));
  const int32_t n = p.associated_cell_count();
  if (n < 0) return Status::InvalidArgument("MutationProto.associated_cell_count is negative");
  for (int32_t i = 0; i < n; ++i) {
    Cell cell;
    if (block == nullptr || !pb::ReadKeyValue(*block, &cell))
      return Status::InvalidArgument(
          "the cell block holds fewer cells than associated_cell_count announces, or a "
          "malformed KeyValue");
    if (cell.row != out->row)
      return Status::InvalidArgument("a cell of the cell block names another row than its "
                                     "mutation");
    cells->push_back(cell);
  }
  if (out->row.empty()) return Status::InvalidArgument("MutationProto has no row");
  // HBase's KeyValue holds a row's length in 2 bytes and a family's in 1:
  // what does not fit could never be read back over a cell block.
  if (out->row.size() > kMaxRowBytes)
    return Status::InvalidArgument("java.lang.IllegalArgumentException: Row length " +
                                   std::to_string(out->row.size()) + " is > " +
                                   std::to_string(kMaxRowBytes));
  for (const Cell& cell : *cells)
    if (cell.family.size() > kMaxFamilyBytes)
      return Status::InvalidArgument("java.lang.IllegalArgumentException: Family length " +
                                     std::to_string(cell.family.size()) + " is > " +
                                     std::to_string(kMaxFamilyBytes));
  WB_RETURN_IF_ERROR(CheckCellSizes(*cells));
  out->cells = std::span<const Cell>(cells->data(), cells->size());
  return Status::Ok();
}

Status CheckCellSizes(const std::vector<Cell>& cells) {
  for (const Cell& cell : cells) {
    // PrivateCellUtil.estimatedSerializedSizeOf: the KeyValue with its int
    // length (lengths 4 + 4, row length 2, family length 1, timestamp 8,
    // type 1).
    const uint64_t size = 4 + 4 + 4 + 2 + cell.row.size() + 1 + cell.family.size() +
                          cell.qualifier.size() + 8 + 1 + cell.value.size();
    if (size > kMaxCellBytes)
      return Status::InvalidArgument(
          "Cell[" + cell.row.ToString() + "/" + cell.family.ToString() + ":" +
          cell.qualifier.ToString() + "] with size " + std::to_string(size) +
          " exceeds limit of " + std::to_string(kMaxCellBytes) +
          " bytes (hbase.server.keyvalue.maxsize): split the value, or keep it outside HBase");
  }
  return Status::Ok();
}

Status CallHandler::CheckRow(ByteView region_name, ByteView row) {
  int index = -1;
  WB_RETURN_IF_ERROR(CheckRegionName(region_name, *service_, &index));
  if (index < 0) return Status::Ok();  // hbase:meta, which its callers refuse themselves.
  const RegionLayout& layout = service_->layout();
  if (layout.regions() > 1 && layout.RegionOfRow(row.str()) != uint32_t(index))
    // HRegion.checkRow's exception and words.
    return Status::NotFound(
        std::string(exceptions::kWrongRegion) + ": Requested row out of range for " +
        "the call on HRegion " + region_name.ToString() + ", startKey='" +
        layout.StartKey(uint32_t(index)) + "', getEndKey()='" + layout.EndKey(uint32_t(index)) +
        "', row='" + row.ToString() + "'");
  return Status::Ok();
}

Status CallHandler::ApplyMutation(ByteView region_name, const hbase::MutationProto& p,
                                  WireReader* block, hbase::Result* result) {
  Mutation m;
  WB_RETURN_IF_ERROR(ReadMutation(p, block, &m, &mutation_cells_));
  WB_RETURN_IF_ERROR(CheckRow(region_name, m.row));
  m.table = ByteView(TableOf(region_name.str()));
  MutateResponse mr;
  if (m.type == MutationType::kPut || m.type == MutationType::kDelete)
    return service_->region()->Mutate(m, &mr);
  // Increment and append: the region reads, computes and writes in one
  // step and answers the new values (HBase's default returnResults).
  Result r;
  WB_RETURN_IF_ERROR(service_->region()->ReadModifyWrite(m, &scratch_, &r));
  if (result) EmitResult(r, m.row, result);
  return Status::Ok();
}

StatusOr<Condition> CallHandler::ReadCondition(const hbase::Condition& c) {
  if (c.has_filter())
    return Status::Unimplemented(
        "a condition with a filter (checkAndMutate ifMatches(Filter)) is not evaluated by "
        "wirebench; use a column condition");
  Condition out;
  out.row = ByteView(c.row());
  out.family = ByteView(c.family());
  out.qualifier = ByteView(c.qualifier());
  out.op = CompareOp(uint8_t(c.compare_type()));
  auto tr = ReadTimeRange(c.time_range());
  if (!tr.ok()) return tr.status();
  out.time_range = *tr;
  out.value_is_null = true;
  if (c.has_comparator() && c.comparator().name().find("NullComparator") == std::string::npos) {
    const std::string& name = c.comparator().name();
    if (name.find("BinaryComparator") == std::string::npos)
      return Status::Unimplemented("checkAndMutate compares with BinaryComparator here, not " +
                                   name);
    hbase::BinaryComparator bc;
    if (!bc.ParseFromString(c.comparator().serialized_comparator()))
      return Status::InvalidArgument("cannot read the condition's comparator " + name);
    condition_value_ = bc.comparable().value();
    out.value = ByteView(condition_value_);
    out.value_is_null = condition_value_.empty();
  }
  return out;
}

Status CallHandler::DoMutate(const Call& c, hbase::MutateResponse* resp) {
  hbase::MutateRequest req;
  if (!req.ParseFromArray(c.param.data(), int(c.param.size())))
    return Status::InvalidArgument("malformed MutateRequest");
  if (IsMetaRegion(ByteView(req.region().value())) &&
      IsMetaRegionName(ByteView(req.region().value())))
    return Status::InvalidArgument("hbase:meta is the catalog wirebench answers; it takes no "
                                   "writes");
  if (req.region().value().empty())
    return Status::NotFound(std::string(exceptions::kNotServingRegion) +
                            ": the request names no region");
  WireReader block(c.block);
  if (req.has_condition()) {
    auto cond = ReadCondition(req.condition());
    if (!cond.ok()) return cond.status();
    Mutation m;
    WB_RETURN_IF_ERROR(ReadMutation(req.mutation(), &block, &m, &mutation_cells_));
    WB_RETURN_IF_ERROR(CheckRow(ByteView(req.region().value()), m.row));
    cond->table = ByteView(TableOf(req.region().value()));
    m.table = cond->table;
    bool processed = false;
    WB_RETURN_IF_ERROR(service_->region()->CheckAndMutate(*cond, std::span<const Mutation>(&m, 1),
                                                          &scratch_, &processed));
    resp->set_processed(processed);
    return Status::Ok();
  }
  const auto t = req.mutation().mutate_type();
  hbase::Result result;
  WB_RETURN_IF_ERROR(ApplyMutation(ByteView(req.region().value()), req.mutation(), &block, &result));
  if (t == hbase::MutationProto::INCREMENT || t == hbase::MutationProto::APPEND)
    resp->mutable_result()->Swap(&result);
  resp->set_processed(true);
  return Status::Ok();
}

}  // namespace wirebench::hbaserpc
