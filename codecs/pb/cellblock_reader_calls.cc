// The eight CellBlockReader::Read() methods, one per message: open the
// call, parse the param into refs, read the cells the refs announce, then
// hand out spans. The sub-message parsers are in cellblock_reader.cc.
#include <string>

#include "codecs/pb/cellblock_reader.h"
#include "codecs/pb/proto_fields.h"
#include "common/calls.h"

namespace wirebench::pb {

Status CellBlockReader::Read(ByteView payload, MutateRequest* out) {
  ByteView param, block;
  WB_RETURN_IF_ERROR(OpenRequest(payload, uint8_t(Method::kMutate), &param, &block));
  MutationRef m;
  bool has_mutation = false;
  ByteView region;
  const char* what = "malformed MutateRequest";
  WB_RETURN_IF_ERROR(ForEachField(param, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (wt != WireType::kLen) return SkipOf(r, wt, what);
    ByteView sub;
    WB_RETURN_IF_ERROR(LenOf(r, &sub, what));
    if (f == 2) {
      has_mutation = true;
      return ParseMutation(sub, &m);
    }
    if (f == 1) return ReadRegion(sub, &region);
    if (f == 3) return Bad("MutateRequest carries a condition, which the cellblock codec does not");
    return Status::Ok();
  }));
  if (!has_mutation) return Bad("MutateRequest has no mutation");
  WB_RETURN_IF_ERROR(ReadCells(block, m.cells));
  size_t next = 0;
  out->region = region;
  return TakeMutationCells(m, &next, &out->mutation);
}

Status CellBlockReader::Read(ByteView payload, GetRequest* out) {
  ByteView param, block;
  WB_RETURN_IF_ERROR(OpenRequest(payload, uint8_t(Method::kGet), &param, &block));
  scratch_.columns.clear();
  GetRef g;
  bool has_get = false;
  ByteView region;
  const char* what = "malformed GetRequest";
  WB_RETURN_IF_ERROR(ForEachField(param, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (wt != WireType::kLen || (f != 1 && f != 2)) return SkipOf(r, wt, what);
    ByteView sub;
    WB_RETURN_IF_ERROR(LenOf(r, &sub, what));
    if (f == 1) return ReadRegion(sub, &region);
    has_get = true;
    return ParseGet(sub, &g);
  }));
  if (!has_get) return Bad("GetRequest has no get");
  WB_RETURN_IF_ERROR(ReadCells(block, 0));
  out->region = region;
  out->row = g.row;
  out->columns = ColumnSpan(g.columns);
  return Status::Ok();
}

Status CellBlockReader::Read(ByteView payload, ScanRequest* out) {
  ByteView param, block;
  WB_RETURN_IF_ERROR(OpenRequest(payload, uint8_t(Method::kScan), &param, &block));
  scratch_.columns.clear();
  ByteView start, stop;
  uint64_t rows = 0;
  const char* what = "malformed ScanRequest";
  WB_RETURN_IF_ERROR(ForEachField(param, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (f == 4 && wt == WireType::kVarint) return VarintOf(r, &rows, what);
    if (f != 2 || wt != WireType::kLen) return SkipOf(r, wt, what);
    ByteView scan;
    WB_RETURN_IF_ERROR(LenOf(r, &scan, what));
    return ForEachField(scan, "malformed Scan", [&](uint32_t f2, WireType wt2, ProtoReader& r2) {
      ByteView sub;
      if (f2 == 1 && wt2 == WireType::kLen) {
        WB_RETURN_IF_ERROR(LenOf(r2, &sub, "malformed Scan"));
        return ParseColumn(sub);
      }
      if (f2 == 3 && wt2 == WireType::kLen) return LenOf(r2, &start, "malformed Scan");
      if (f2 == 4 && wt2 == WireType::kLen) return LenOf(r2, &stop, "malformed Scan");
      return SkipOf(r2, wt2, "malformed Scan");
    });
  }));
  if (rows > 0xFFFFFFFFu) return Bad("ScanRequest.number_of_rows does not fit 32 bits");
  WB_RETURN_IF_ERROR(ReadCells(block, 0));
  out->start_row = start;
  out->stop_row = stop;
  out->number_of_rows = uint32_t(rows);
  out->columns = ColumnSpan(Range{0, uint32_t(scratch_.columns.size())});
  return Status::Ok();
}

Status CellBlockReader::Read(ByteView payload, MultiRequest* out) {
  ByteView param, block;
  WB_RETURN_IF_ERROR(OpenRequest(payload, uint8_t(Method::kMulti), &param, &block));
  scratch_.columns.clear();
  action_refs_.clear();
  ByteView region;
  int region_actions = 0;
  const char* what = "malformed MultiRequest";
  WB_RETURN_IF_ERROR(ForEachField(param, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (wt != WireType::kLen || (f != 1 && f != 3)) return SkipOf(r, wt, what);
    if (f == 3) return Bad("MultiRequest carries a condition, which the cellblock codec does not");
    // The model's MultiRequest is one region's (MultiRequest::table).
    if (++region_actions > 1)
      return Bad("MultiRequest names more than one region, which the cellblock codec does not carry");
    ByteView sub;
    WB_RETURN_IF_ERROR(LenOf(r, &sub, what));
    return ParseRegionAction(sub, &region);
  }));
  out->region = region;
  uint64_t total = 0;
  for (const ActionRef& a : action_refs_)
    if (a.has_mutation) total += a.mutation.cells;
  WB_RETURN_IF_ERROR(ReadCells(block, total));
  scratch_.actions.resize(action_refs_.size());
  size_t next = 0;
  for (size_t i = 0; i < action_refs_.size(); ++i) {
    const ActionRef& ref = action_refs_[i];
    Action& a = scratch_.actions[i];
    a = Action{};
    a.index = ref.index;
    if (ref.has_mutation) {
      a.kind = ActionKind::kMutation;
      WB_RETURN_IF_ERROR(TakeMutationCells(ref.mutation, &next, &a.mutation));
    } else {
      a.kind = ActionKind::kGet;
      a.get.row = ref.get.row;
      a.get.columns = ColumnSpan(ref.get.columns);
    }
  }
  out->actions = std::span<const Action>(scratch_.actions.data(), scratch_.actions.size());
  return Status::Ok();
}

Status CellBlockReader::Read(ByteView payload, MutateResponse* out) {
  ByteView param, block;
  WB_RETURN_IF_ERROR(OpenResponse(payload, &param, &block));
  uint64_t processed = 0;
  const char* what = "malformed MutateResponse";
  WB_RETURN_IF_ERROR(ForEachField(param, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (f == 2 && wt == WireType::kVarint) return VarintOf(r, &processed, what);
    return SkipOf(r, wt, what);
  }));
  WB_RETURN_IF_ERROR(ReadCells(block, 0));
  out->processed = processed != 0;
  return Status::Ok();
}

Status CellBlockReader::Read(ByteView payload, GetResponse* out) {
  ByteView param, block;
  WB_RETURN_IF_ERROR(OpenResponse(payload, &param, &block));
  ResultRef res;
  const char* what = "malformed GetResponse";
  WB_RETURN_IF_ERROR(ForEachField(param, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (f != 1 || wt != WireType::kLen) return SkipOf(r, wt, what);
    ByteView sub;
    WB_RETURN_IF_ERROR(LenOf(r, &sub, what));
    return ParseResult(sub, &res);
  }));
  WB_RETURN_IF_ERROR(ReadCells(block, res.cells));
  // A Result with cells exists (HBase writes exists only without cells).
  out->result = Result{std::span<const Cell>(scratch_.cells.data(), scratch_.cells.size()),
                       res.exists || res.cells > 0};
  return Status::Ok();
}

Status CellBlockReader::Read(ByteView payload, ScanResponse* out) {
  ByteView param, block;
  WB_RETURN_IF_ERROR(OpenResponse(payload, &param, &block));
  cells_per_result_.clear();
  scan_result_refs_.clear();
  uint64_t more = 0;
  const char* what = "malformed ScanResponse";
  auto add_count = [&](uint64_t n) {
    if (n > 0xFFFFFFFFu) return Bad("ScanResponse.cells_per_result does not fit 32 bits");
    cells_per_result_.push_back(uint32_t(n));
    return Status::Ok();
  };
  WB_RETURN_IF_ERROR(ForEachField(param, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    uint64_t v = 0;
    if (f == 1 && wt == WireType::kVarint) {
      WB_RETURN_IF_ERROR(VarintOf(r, &v, what));
      return add_count(v);
    }
    if (f == 1 && wt == WireType::kLen) {  // Packed, which proto2 parsers accept too.
      ByteView packed;
      WB_RETURN_IF_ERROR(LenOf(r, &packed, what));
      ProtoReader pr(packed);
      while (!pr.done()) {
        WB_RETURN_IF_ERROR(VarintOf(pr, &v, what));
        WB_RETURN_IF_ERROR(add_count(v));
      }
      return Status::Ok();
    }
    if (f == 3 && wt == WireType::kVarint) return VarintOf(r, &more, what);
    if (f == 5 && wt == WireType::kLen) {
      ByteView sub;
      WB_RETURN_IF_ERROR(LenOf(r, &sub, what));
      return ParseResult(sub, &scan_result_refs_.emplace_back());
    }
    return SkipOf(r, wt, what);
  }));
  // `results`, when present, only adds exists flags to cells_per_result.
  const bool has_results = !scan_result_refs_.empty();
  if (has_results && scan_result_refs_.size() != cells_per_result_.size())
    return Bad("ScanResponse.results and cells_per_result disagree on the number of rows");
  uint64_t total = 0;
  for (size_t i = 0; i < cells_per_result_.size(); ++i) {
    if (has_results && scan_result_refs_[i].cells != cells_per_result_[i])
      return Bad("ScanResponse.results and cells_per_result disagree on a row's cells");
    total += cells_per_result_[i];
  }
  WB_RETURN_IF_ERROR(ReadCells(block, total));
  scratch_.results.resize(cells_per_result_.size());
  size_t next = 0;
  for (size_t i = 0; i < scratch_.results.size(); ++i) {
    scratch_.results[i] =
        Result{std::span<const Cell>(scratch_.cells.data() + next, cells_per_result_[i]),
               has_results ? scan_result_refs_[i].exists : true};
    next += cells_per_result_[i];
  }
  out->results = std::span<const Result>(scratch_.results.data(), scratch_.results.size());
  out->more_results = more != 0;
  return Status::Ok();
}

Status CellBlockReader::Read(ByteView payload, MultiResponse* out) {
  ByteView param, block;
  WB_RETURN_IF_ERROR(OpenResponse(payload, &param, &block));
  action_result_refs_.clear();
  const char* what = "malformed MultiResponse";
  WB_RETURN_IF_ERROR(ForEachField(param, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (f != 1 || wt != WireType::kLen) return SkipOf(r, wt, what);
    ByteView sub;
    WB_RETURN_IF_ERROR(LenOf(r, &sub, what));
    return ParseRegionActionResult(sub);
  }));
  uint64_t total = 0;
  for (const ActionResultRef& a : action_result_refs_) total += a.result.cells;
  WB_RETURN_IF_ERROR(ReadCells(block, total));
  scratch_.action_results.resize(action_result_refs_.size());
  size_t next = 0;
  for (size_t i = 0; i < scratch_.action_results.size(); ++i) {
    const ActionResultRef& ref = action_result_refs_[i];
    ActionResult& ar = scratch_.action_results[i];
    ar.index = ref.index;
    ar.ok = !ref.has_exception;
    ar.error = ref.has_exception ? ref.error : ByteView();
    ar.result =
        Result{std::span<const Cell>(scratch_.cells.data() + next, size_t(ref.result.cells)),
               ref.result.exists || ref.result.cells > 0};
    next += size_t(ref.result.cells);
  }
  out->results =
      std::span<const ActionResult>(scratch_.action_results.data(), scratch_.action_results.size());
  return Status::Ok();
}

}  // namespace wirebench::pb
