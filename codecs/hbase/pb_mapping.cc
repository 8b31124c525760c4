#include "codecs/hbase/pb_mapping.h"

#include <string>

namespace wirebench::pb {

namespace {

using hbase::MutationProto;
using QualifierValue = hbase::MutationProto_ColumnValue_QualifierValue;
using ColumnList = google::protobuf::RepeatedPtrField<hbase::Column>;

// Copies v into a message's string field. Not set_x(ptr, n): in protobuf
// 3.21 that builds a temporary std::string first (one more allocation and
// one more copy per field); assign() copies once, into capacity that a
// reused message keeps.
void Assign(std::string* s, ByteView v) { s->assign(v.empty() ? "" : v.chars(), v.size()); }

size_t FillColumns(std::span<const Column> cols, ColumnList* out) {
  size_t copied = 0;
  ForEachColumnGroup(cols, [&](ByteView family, std::span<const Column> group) {
    hbase::Column* c = out->Add();
    Assign(c->mutable_family(), family);
    copied += family.size();
    for (const Column& col : group) {
      if (col.qualifier.empty()) continue;  // Whole family: a Column with no qualifier.
      Assign(c->add_qualifier(), col.qualifier);
      copied += col.qualifier.size();
    }
  });
  return copied;
}

size_t CountCells(const MutationProto& m) {
  size_t n = 0;
  for (const auto& cv : m.column_value()) n += size_t(cv.qualifier_value_size());
  return n;
}

size_t CountColumns(const ColumnList& cols) {
  size_t n = 0;
  for (const hbase::Column& c : cols) n += c.qualifier_size() == 0 ? 1 : size_t(c.qualifier_size());
  return n;
}

Status Corrupt(const char* what) { return Status::Corruption(std::string("pb: ") + what); }

// The Get options the model has no place for: refused, not dropped (a
// server's transport answers such a call its own way).
Status CheckGet(const hbase::Get& g) {
  if (g.has_filter()) return Corrupt("Get carries a filter, which this codec does not");
  if (g.has_existence_only())
    return Corrupt("Get carries existence_only, which this codec does not");
  if (g.has_closest_row_before())
    return Corrupt("Get carries closest_row_before, which this codec does not");
  if (!g.time_range().empty()) return Corrupt("Get carries a time_range, which this codec does not");
  if (g.has_max_versions() && g.max_versions() != 1)
    return Corrupt("Get asks for max_versions other than 1, which this codec does not carry");
  return Status::Ok();
}

}  // namespace

ActionException ActionExceptionOf(ByteView reason) {
  constexpr std::string_view kHBasePackage = "org.apache.hadoop.hbase.";
  const std::string_view r = reason.str();
  const size_t colon = r.find(": ");
  if (r.compare(0, kHBasePackage.size(), kHBasePackage) != 0 || colon == std::string_view::npos)
    return {kExceptionName, reason};
  const std::string_view name = r.substr(0, colon);
  // A class name: dotted, no spaces, ending in Exception.
  if (name.find(' ') != std::string_view::npos || !name.ends_with("Exception"))
    return {kExceptionName, reason};
  return {name, ByteView(r.substr(colon + 2))};
}

int DeleteTypeOf(CellType t) {
  switch (t) {
    case CellType::kDelete:
      return MutationProto::DELETE_ONE_VERSION;
    case CellType::kDeleteColumn:
      return MutationProto::DELETE_MULTIPLE_VERSIONS;
    case CellType::kDeleteFamily:
      return MutationProto::DELETE_FAMILY;
    case CellType::kDeleteFamilyVersion:
      return MutationProto::DELETE_FAMILY_VERSION;
    case CellType::kPut:
      break;
  }
  return -1;
}

bool CellTypeOfDeleteType(uint64_t delete_type, CellType* out) {
  switch (delete_type) {
    case MutationProto::DELETE_ONE_VERSION:
      *out = CellType::kDelete;
      return true;
    case MutationProto::DELETE_MULTIPLE_VERSIONS:
      *out = CellType::kDeleteColumn;
      return true;
    case MutationProto::DELETE_FAMILY:
      *out = CellType::kDeleteFamily;
      return true;
    case MutationProto::DELETE_FAMILY_VERSION:
      *out = CellType::kDeleteFamilyVersion;
      return true;
    default:
      return false;
  }
}

void SetRegion(ByteView named, hbase::RegionSpecifier* region) {
  region->set_type(hbase::RegionSpecifier::REGION_NAME);
  Assign(region->mutable_value(), named.empty() ? ByteView(kRegionName) : named);
}

size_t Fill(const Mutation& m, MutationProto* p) {
  size_t copied = m.row.size();
  Assign(p->mutable_row(), m.row);
  p->set_mutate_type(MutationProto::MutationType(m.type));
  ForEachFamilyRun(m.cells, [&](ByteView family, std::span<const Cell> run) {
    MutationProto::ColumnValue* cv = p->add_column_value();
    Assign(cv->mutable_family(), family);
    copied += family.size();
    for (const Cell& c : run) {
      QualifierValue* qv = cv->add_qualifier_value();
      Assign(qv->mutable_qualifier(), c.qualifier);
      Assign(qv->mutable_value(), c.value);
      qv->set_timestamp(c.timestamp);
      int dt = DeleteTypeOf(c.type);
      if (dt >= 0) qv->set_delete_type(MutationProto::DeleteType(dt));
      copied += c.qualifier.size() + c.value.size();
    }
  });
  p->set_timestamp(m.timestamp);
  return copied;
}

size_t Fill(const GetRequest& g, hbase::Get* p) {
  Assign(p->mutable_row(), g.row);
  return g.row.size() + FillColumns(g.columns, p->mutable_column());
}

size_t Fill(const Result& r, hbase::Result* p) {
  size_t copied = 0;
  for (const Cell& c : r.cells) {
    hbase::Cell* pc = p->add_cell();
    Assign(pc->mutable_row(), c.row);
    Assign(pc->mutable_family(), c.family);
    Assign(pc->mutable_qualifier(), c.qualifier);
    pc->set_timestamp(c.timestamp);
    pc->set_cell_type(hbase::CellType(c.type));
    Assign(pc->mutable_value(), c.value);
    copied += c.row.size() + c.family.size() + c.qualifier.size() + c.value.size();
  }
  // HBase sets exists only on a Result without cells (an existence-only
  // Get): its client's ProtobufUtil.toResult refuses exists with cells.
  if (r.exists && r.cells.empty()) p->set_exists(true);
  return copied;
}

size_t Fill(const MutateRequest& req, hbase::MutateRequest* p) {
  SetRegion(req.region, p->mutable_region());
  return Fill(req.mutation, p->mutable_mutation());
}

size_t Fill(const GetRequest& req, hbase::GetRequest* p) {
  SetRegion(req.region, p->mutable_region());
  return Fill(req, p->mutable_get());
}

size_t Fill(const ScanRequest& req, hbase::ScanRequest* p) {
  SetRegion(req.region, p->mutable_region());
  hbase::Scan* scan = p->mutable_scan();
  size_t copied = FillColumns(req.columns, scan->mutable_column());
  if (!req.start_row.empty()) Assign(scan->mutable_start_row(), req.start_row);
  if (!req.stop_row.empty()) Assign(scan->mutable_stop_row(), req.stop_row);
  p->set_number_of_rows(req.number_of_rows);
  // The rows come back in this one call and no scanner stays open after it
  // (HBase's small scan; YCSB's binding closes each scanner once read).
  p->set_close_scanner(true);
  return copied + req.start_row.size() + req.stop_row.size();
}

size_t Fill(const MultiRequest& req, hbase::MultiRequest* p) {
  hbase::RegionAction* ra = p->add_regionaction();
  SetRegion(req.region, ra->mutable_region());
  size_t copied = 0;
  for (const Action& a : req.actions) {
    hbase::Action* pa = ra->add_action();
    pa->set_index(a.index);
    if (a.kind == ActionKind::kMutation) {
      copied += Fill(a.mutation, pa->mutable_mutation());
    } else {
      copied += Fill(a.get, pa->mutable_get());
    }
  }
  return copied;
}

size_t Fill(const MutateResponse& resp, hbase::MutateResponse* p) {
  p->set_processed(resp.processed);
  return 0;
}

size_t Fill(const GetResponse& resp, hbase::GetResponse* p) {
  return Fill(resp.result, p->mutable_result());
}

size_t Fill(const ScanResponse& resp, hbase::ScanResponse* p) {
  size_t copied = 0;
  for (const Result& r : resp.results) copied += Fill(r, p->add_results());
  p->set_more_results(resp.more_results);
  return copied;
}

size_t Fill(const MultiResponse& resp, hbase::MultiResponse* p) {
  hbase::RegionActionResult* rar = p->add_regionactionresult();
  size_t copied = 0;
  for (const ActionResult& ar : resp.results) {
    hbase::ResultOrException* roe = rar->add_resultorexception();
    roe->set_index(ar.index);
    if (ar.ok) {
      copied += Fill(ar.result, roe->mutable_result());
    } else {
      hbase::NameBytesPair* e = roe->mutable_exception();
      const ActionException ex = ActionExceptionOf(ar.error);
      Assign(e->mutable_name(), ex.name);
      Assign(e->mutable_value(), ex.text);
    }
  }
  return copied;
}

// ---------------------------------------------------------------------------
// Reading. Every Read() sizes the scratch vectors from the parsed message
// first, so spans handed out are never invalidated by a later resize.

void ModelBuilder::Begin() { copied_ = 0; }

Status ModelBuilder::ReadMutation(const MutationProto& p, Cell** next, Mutation* out) {
  if (!p.has_mutate_type()) return Corrupt("MutationProto has no valid mutate_type");
  if (p.associated_cell_count() != 0)
    return Corrupt(
        "MutationProto says its cells are in a cell block; this codec expects them "
        "in column_value (use the cellblock codec)");
  if (p.attribute_size() != 0)
    return Corrupt("MutationProto carries attributes, which this codec does not");
  if (p.has_time_range()) return Corrupt("MutationProto carries a time_range, which this codec does not");
  out->row = ByteView(p.row());
  out->type = MutationType(p.mutate_type());
  out->timestamp = p.timestamp();
  copied_ += p.row().size();
  Cell* begin = *next;
  for (const auto& cv : p.column_value()) {
    if (!cv.has_family()) return Corrupt("a ColumnValue has no family");
    // A family with no qualifier_value (a whole family, to HBase's delete)
    // is nothing this mapping writes or reads: refused, not dropped.
    if (cv.qualifier_value_size() == 0)
      return Corrupt("a ColumnValue has no qualifier_value, which this codec does not carry");
    copied_ += cv.family().size();
    for (const QualifierValue& qv : cv.qualifier_value()) {
      Cell& c = *(*next)++;
      c.row = out->row;
      c.family = ByteView(cv.family());
      c.qualifier = ByteView(qv.qualifier());
      c.timestamp = qv.timestamp();
      c.type = CellType::kPut;
      if (qv.has_delete_type() && !CellTypeOfDeleteType(qv.delete_type(), &c.type))
        return Corrupt("QualifierValue has a delete_type wirebench does not model");
      c.value = ByteView(qv.value());
      copied_ += qv.qualifier().size() + qv.value().size();
    }
  }
  out->cells = std::span<const Cell>(begin, size_t(*next - begin));
  return Status::Ok();
}

void ModelBuilder::ReadColumns(const ColumnList& p, Column** next, std::span<const Column>* out) {
  Column* begin = *next;
  for (const hbase::Column& c : p) {
    copied_ += c.family().size();
    if (c.qualifier_size() == 0) {
      *(*next)++ = Column{ByteView(c.family()), ByteView()};
      continue;
    }
    for (const std::string& q : c.qualifier()) {
      *(*next)++ = Column{ByteView(c.family()), ByteView(q)};
      copied_ += q.size();
    }
  }
  *out = std::span<const Column>(begin, size_t(*next - begin));
}

Status ModelBuilder::ReadResult(const hbase::Result& p, Cell** next, Result* out) {
  if (p.associated_cell_count() != 0)
    return Corrupt(
        "Result says its cells are in a cell block; this codec expects them in "
        "Result.cell (use the cellblock codec)");
  Cell* begin = *next;
  for (const hbase::Cell& pc : p.cell()) {
    if (!pc.has_cell_type() || !IsValidCellType(uint8_t(pc.cell_type())))
      return Corrupt("Cell has no cell_type of Put, Delete, DeleteColumn or DeleteFamily");
    Cell& c = *(*next)++;
    c.row = ByteView(pc.row());
    c.family = ByteView(pc.family());
    c.qualifier = ByteView(pc.qualifier());
    c.timestamp = pc.timestamp();
    c.type = CellType(pc.cell_type());
    c.value = ByteView(pc.value());
    copied_ += pc.row().size() + pc.family().size() + pc.qualifier().size() + pc.value().size();
  }
  out->cells = std::span<const Cell>(begin, size_t(*next - begin));
  out->exists = p.exists() || !out->cells.empty();  // A Result with cells exists.
  return Status::Ok();
}

Status ModelBuilder::Read(const hbase::MutateRequest& p, MutateRequest* out) {
  Begin();
  if (p.has_condition()) return Corrupt("MutateRequest carries a condition, which this codec does not");
  out->region = ByteView(p.region().value());
  scratch_.cells.resize(CountCells(p.mutation()));
  Cell* next = scratch_.cells.data();
  return ReadMutation(p.mutation(), &next, &out->mutation);
}

Status ModelBuilder::Read(const hbase::GetRequest& p, GetRequest* out) {
  Begin();
  WB_RETURN_IF_ERROR(CheckGet(p.get()));
  out->region = ByteView(p.region().value());
  scratch_.columns.resize(CountColumns(p.get().column()));
  Column* next = scratch_.columns.data();
  out->row = ByteView(p.get().row());
  copied_ += p.get().row().size();
  ReadColumns(p.get().column(), &next, &out->columns);
  return Status::Ok();
}

Status ModelBuilder::Read(const hbase::ScanRequest& p, ScanRequest* out) {
  Begin();
  const hbase::Scan& scan = p.scan();
  scratch_.columns.resize(CountColumns(scan.column()));
  Column* next = scratch_.columns.data();
  ReadColumns(scan.column(), &next, &out->columns);
  out->start_row = ByteView(scan.start_row());
  out->stop_row = ByteView(scan.stop_row());
  out->number_of_rows = p.number_of_rows();
  copied_ += scan.start_row().size() + scan.stop_row().size();
  return Status::Ok();
}

Status ModelBuilder::Read(const hbase::MultiRequest& p, MultiRequest* out) {
  Begin();
  if (p.has_condition()) return Corrupt("MultiRequest carries a condition, which this codec does not");
  // The model's MultiRequest is one region's (MultiRequest::table).
  if (p.regionaction_size() > 1)
    return Corrupt("MultiRequest names more than one region, which this codec does not carry");
  out->region = p.regionaction_size() == 1 ? ByteView(p.regionaction(0).region().value()) : ByteView();
  size_t n_actions = 0, n_cells = 0, n_columns = 0;
  for (const hbase::RegionAction& ra : p.regionaction()) {
    if (ra.has_condition())
      return Corrupt("RegionAction carries a condition, which this codec does not");
    n_actions += size_t(ra.action_size());
    for (const hbase::Action& a : ra.action()) {
      if (a.has_service_call())
        return Corrupt("Action carries a coprocessor service call, which this codec does not");
      if (a.has_mutation()) n_cells += CountCells(a.mutation());
      if (a.has_get()) {
        WB_RETURN_IF_ERROR(CheckGet(a.get()));
        n_columns += CountColumns(a.get().column());
      }
    }
  }
  scratch_.actions.resize(n_actions);
  scratch_.cells.resize(n_cells);
  scratch_.columns.resize(n_columns);
  Cell* next_cell = scratch_.cells.data();
  Column* next_column = scratch_.columns.data();
  size_t i = 0;
  for (const hbase::RegionAction& ra : p.regionaction()) {
    for (const hbase::Action& pa : ra.action()) {
      Action& a = scratch_.actions[i++];
      a = Action{};
      a.index = pa.index();
      if (pa.has_mutation() == pa.has_get())
        return Corrupt("Action must carry exactly one of mutation and get");
      if (pa.has_mutation()) {
        a.kind = ActionKind::kMutation;
        WB_RETURN_IF_ERROR(ReadMutation(pa.mutation(), &next_cell, &a.mutation));
      } else {
        a.kind = ActionKind::kGet;
        a.get.row = ByteView(pa.get().row());
        copied_ += pa.get().row().size();
        ReadColumns(pa.get().column(), &next_column, &a.get.columns);
      }
    }
  }
  out->actions = std::span<const Action>(scratch_.actions.data(), n_actions);
  return Status::Ok();
}

Status ModelBuilder::Read(const hbase::MutateResponse& p, MutateResponse* out) {
  Begin();
  out->processed = p.processed();
  return Status::Ok();
}

Status ModelBuilder::Read(const hbase::GetResponse& p, GetResponse* out) {
  Begin();
  scratch_.cells.resize(size_t(p.result().cell_size()));
  Cell* next = scratch_.cells.data();
  return ReadResult(p.result(), &next, &out->result);
}

Status ModelBuilder::Read(const hbase::ScanResponse& p, ScanResponse* out) {
  Begin();
  if (p.cells_per_result_size() != 0)
    return Corrupt("ScanResponse carries cells_per_result (a cell block); use the cellblock codec");
  size_t n_cells = 0;
  for (const hbase::Result& r : p.results()) n_cells += size_t(r.cell_size());
  scratch_.results.resize(size_t(p.results_size()));
  scratch_.cells.resize(n_cells);
  Cell* next = scratch_.cells.data();
  for (int i = 0; i < p.results_size(); ++i)
    WB_RETURN_IF_ERROR(ReadResult(p.results(i), &next, &scratch_.results[size_t(i)]));
  out->results = std::span<const Result>(scratch_.results.data(), scratch_.results.size());
  out->more_results = p.more_results();
  return Status::Ok();
}

Status ModelBuilder::Read(const hbase::MultiResponse& p, MultiResponse* out) {
  Begin();
  size_t n = 0, n_cells = 0;
  for (const hbase::RegionActionResult& rar : p.regionactionresult()) {
    if (rar.has_exception())
      return Status::Internal("pb: the region failed the whole Multi: " + rar.exception().name() +
                              ": " + rar.exception().value());
    n += size_t(rar.resultorexception_size());
    for (const hbase::ResultOrException& roe : rar.resultorexception())
      n_cells += size_t(roe.result().cell_size());
  }
  scratch_.action_results.resize(n);
  scratch_.cells.resize(n_cells);
  Cell* next = scratch_.cells.data();
  size_t i = 0;
  for (const hbase::RegionActionResult& rar : p.regionactionresult()) {
    for (const hbase::ResultOrException& roe : rar.resultorexception()) {
      ActionResult& ar = scratch_.action_results[i++];
      ar = ActionResult{};
      ar.index = roe.index();
      ar.ok = !roe.has_exception();
      if (!ar.ok) ar.error = ByteView(roe.exception().value());
      WB_RETURN_IF_ERROR(ReadResult(roe.result(), &next, &ar.result));
    }
  }
  out->results = std::span<const ActionResult>(scratch_.action_results.data(), n);
  return Status::Ok();
}

}  // namespace wirebench::pb
