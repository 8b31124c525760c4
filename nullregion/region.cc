#include "nullregion/region.h"

namespace wirebench {

Status Region::Multi(const MultiRequest& req, RegionScratch* scratch, MultiResponse* resp) {
  // Each Get may reuse the scratch and so invalidate the previous Get's
  // views: this default is right for regions whose results do not live in
  // the scratch (the null region); a region that builds results in the
  // scratch overrides Multi.
  scratch->action_results.resize(req.actions.size());
  for (size_t i = 0; i < req.actions.size(); ++i) {
    const Action& a = req.actions[i];
    ActionResult& ar = scratch->action_results[i];
    ar = ActionResult{};
    ar.index = a.index;
    Status s;
    if (a.kind == ActionKind::kMutation) {
      MutateResponse mr;
      Mutation m = a.mutation;
      m.table = req.table;
      s = Mutate(m, &mr);
    } else {
      GetResponse gr;
      GetRequest g = a.get;
      g.table = req.table;
      s = Get(g, scratch, &gr);
      ar.result = gr.result;
    }
    if (!s.ok()) {
      ar.ok = false;
      ar.error = ByteView("action failed");
    }
  }
  resp->results = std::span<const ActionResult>(scratch->action_results.data(), req.actions.size());
  return Status::Ok();
}

}  // namespace wirebench

namespace wirebench {

namespace {

int Compare3(ByteView a, ByteView b) {
  const int c = a.str().compare(b.str());
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace

bool ConditionHolds(const Condition& c, const Cell* newest) {
  if (c.op == CompareOp::kNoOp) return false;
  if (c.value_is_null) {
    // HBase: an absent cell matches a null value except under NOT_EQUAL; a
    // present one matches when its emptiness agrees with the operator.
    if (newest == nullptr) return c.op != CompareOp::kNotEqual;
    return newest->value.empty() == (c.op != CompareOp::kNotEqual);
  }
  if (newest == nullptr) return false;
  const int cmp = Compare3(c.value, newest->value);
  switch (c.op) {
    case CompareOp::kLess: return cmp < 0;
    case CompareOp::kLessOrEqual: return cmp <= 0;
    case CompareOp::kEqual: return cmp == 0;
    case CompareOp::kNotEqual: return cmp != 0;
    case CompareOp::kGreaterOrEqual: return cmp >= 0;
    case CompareOp::kGreater: return cmp > 0;
    default: return false;
  }
}

namespace {

// The newest cell of one column of `row` in `range`, read through the
// region's own Get (its views live in `scratch`); null when there is none.
Status NewestCell(Region& r, ByteView table, ByteView row, const Column& col,
                  const TimeRange& range, RegionScratch* scratch, const Cell** out) {
  GetRequest g;
  g.table = table;
  g.row = row;
  g.columns = std::span<const Column>(&col, 1);
  g.time_range = range;
  GetResponse gr;
  WB_RETURN_IF_ERROR(r.Get(g, scratch, &gr));
  *out = nullptr;
  for (const Cell& have : gr.result.cells)
    if (have.family == col.family && have.qualifier == col.qualifier) {
      *out = &have;
      break;
    }
  return Status::Ok();
}

}  // namespace

Status Region::CheckAndMutate(const Condition& c, std::span<const Mutation> mutations,
                              RegionScratch* scratch, bool* processed) {
  const Cell* newest = nullptr;
  WB_RETURN_IF_ERROR(
      NewestCell(*this, c.table, c.row, {c.family, c.qualifier}, c.time_range, scratch, &newest));
  *processed = ConditionHolds(c, newest);
  if (!*processed) return Status::Ok();
  for (Mutation m : mutations) {
    MutateResponse mr;
    m.table = c.table;
    WB_RETURN_IF_ERROR(Mutate(m, &mr));
  }
  return Status::Ok();
}

Status Region::ReadModifyWrite(const Mutation& m, RegionScratch* scratch, Result* out) {
  if (m.type != MutationType::kIncrement && m.type != MutationType::kAppend)
    return Status::InvalidArgument("ReadModifyWrite takes an Increment or an Append");
  // New values go to scratch->bytes first (it may move while it grows); the
  // cells' views are made once it stops.
  ByteBuffer values;
  std::vector<std::pair<size_t, size_t>> spans;
  for (const Cell& cell : m.cells) {
    const Cell* current = nullptr;
    WB_RETURN_IF_ERROR(NewestCell(*this, m.table, m.row, {cell.family, cell.qualifier}, {},
                                  scratch, &current));
    const size_t at = values.size();
    if (m.type == MutationType::kIncrement) {
      if (cell.value.size() != 8)
        return Status::InvalidArgument("Increment: the amount for " + cell.qualifier.ToString() +
                                       " is " + std::to_string(cell.value.size()) +
                                       " bytes wide, not a long");
      if (current != nullptr && current->value.size() != 8)
        return Status::InvalidArgument("Field is not a long, it's " +
                                       std::to_string(current->value.size()) + " bytes wide");
      const uint64_t sum =
          (current ? LoadBE64(current->value.data()) : 0) + LoadBE64(cell.value.data());
      StoreBE64(values.Extend(8), sum);
    } else {
      if (current) values.Append(current->value);
      values.Append(cell.value);
    }
    spans.emplace_back(at, values.size() - at);
  }
  scratch->cells.assign(m.cells.begin(), m.cells.end());
  for (size_t i = 0; i < spans.size(); ++i) {
    Cell& c = scratch->cells[i];
    c.value = ByteView(values.data() + spans[i].first, spans[i].second);
    c.type = CellType::kPut;
    c.timestamp = 0;
  }
  Mutation put = m;
  put.type = MutationType::kPut;
  put.timestamp = 0;
  put.cells = std::span<const Cell>(scratch->cells.data(), scratch->cells.size());
  MutateResponse mr;
  WB_RETURN_IF_ERROR(Mutate(put, &mr));
  // The answer's values live in scratch->bytes.
  scratch->bytes.Clear();
  scratch->bytes.Append(ByteView(values.data(), values.size()));
  for (size_t i = 0; i < spans.size(); ++i)
    scratch->cells[i].value = ByteView(scratch->bytes.data() + spans[i].first, spans[i].second);
  out->cells = std::span<const Cell>(scratch->cells.data(), scratch->cells.size());
  out->exists = true;
  return Status::Ok();
}

}  // namespace wirebench
