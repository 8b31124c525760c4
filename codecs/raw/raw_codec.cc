// Layout (all integers little-endian; "bytes" = u32 length + the bytes):
//   Mutation : u8 type, u64 timestamp, bytes row, u32 ncells,
//              ncells x { bytes family, bytes qualifier, u64 ts, u8 type, bytes value }
//   Get      : bytes row, u32 ncolumns, ncolumns x { bytes family, bytes qualifier }
//   Scan     : bytes start, bytes stop, u32 number_of_rows, u32 ncolumns, columns
//   Multi    : u32 nactions, nactions x { u32 index, u8 kind, Mutation | Get }
//   Result   : u8 flags (1: exists, 2: one row), [bytes row if one row], u32 ncells,
//              ncells x { [bytes row if not one row], bytes family, bytes qualifier,
//                         u64 ts, u8 type, bytes value }
//              (a region's Result holds one row's cells: its row travels once, as a
//              Mutation's does)
//   MutateResponse: u8 processed     GetResponse: Result
//   ScanResponse  : u8 more, u32 nresults, Results
//   MultiResponse : u32 n, n x { u32 index, u8 ok, Result | bytes error }
#include "codecs/raw/raw_codec.h"

#include <algorithm>
#include <vector>

#include "codecs/codec_adapter.h"
#include "codecs/wire_reader.h"
#include "common/thread_stats.h"

namespace wirebench {

namespace {

// Writes into space reserved up front: the encoders first add up the exact
// size (Sizer), reserve it once, then write through a plain pointer (Writer),
// so the hot path has no per-field capacity checks.
class Sizer {
 public:
  void U8(uint8_t) { n_ += 1; }
  void U32(uint32_t) { n_ += 4; }
  void U64(uint64_t) { n_ += 8; }
  void Bytes(ByteView v) { n_ += 4 + v.size(); }
  size_t size() const { return n_; }

 private:
  size_t n_ = 0;
};

class Writer {
 public:
  Writer(ByteBuffer* out, size_t size) : p_(out->Extend(size)) {}
  void U8(uint8_t v) { *p_++ = v; }
  void U32(uint32_t v) {
    StoreLE32(p_, v);
    p_ += 4;
  }
  void U64(uint64_t v) {
    StoreLE64(p_, v);
    p_ += 8;
  }
  // Payload bytes: counted as copied.
  void Bytes(ByteView v) {
    U32(uint32_t(v.size()));
    CopySmall(p_, v.data(), v.size());
    p_ += v.size();
    copied_ += v.size();
  }
  uint64_t copied() const { return copied_; }

 private:
  uint8_t* p_;
  uint64_t copied_ = 0;
};

// Runs `emit` once to size the payload and once to write it. The per-cell
// loops below work on a local copy of the writer and store it back: a store
// through the writer's byte pointer may alias the writer itself, so a writer
// reached through a reference is reloaded from memory after every field, one
// held in a local whose address is never taken stays in registers.
template <typename Emit>
Status SizeThenWrite(ByteBuffer* out, Emit&& emit) {
  Sizer sizer;
  emit(sizer);
  Writer w(out, sizer.size());
  emit(w);
  CountEncodeCopy(w.copied());
  return Status::Ok();
}

constexpr uint32_t kMaxCount = 1u << 24;  // Refuse absurd element counts before reserving.
// The fewest bytes a cell takes on the wire (family, qualifier and value
// lengths, timestamp, type): a count the payload cannot hold is refused before
// room is made for it.
constexpr uint32_t kMinCellBytes = 4 + 4 + 8 + 1 + 4;
// A Result's flags byte.
constexpr uint8_t kResultExists = 1;
constexpr uint8_t kResultOneRow = 2;  // The row once, before the cells, not in each.

Status Truncated(const char* what) {
  return Status::Corruption(std::string("raw: truncated or malformed ") + what);
}

class RawCodec final : public CodecAdapter<RawCodec> {
 public:
  RawCodec() : CodecAdapter(CodecId::kRaw, "raw", /*zero_copy_decode=*/true) {}

  Status Encode(uint32_t, const MutateRequest& req, ByteBuffer* out) {
    return SizeThenWrite(out, [&](auto& w) {
      PutMutation(w, req.mutation);
    });
  }
  Status Encode(uint32_t, const GetRequest& req, ByteBuffer* out) {
    return SizeThenWrite(out, [&](auto& w) {
      PutGet(w, req);
    });
  }
  Status Encode(uint32_t, const ScanRequest& req, ByteBuffer* out) {
    return SizeThenWrite(out, [&](auto& w) {
      w.Bytes(req.start_row);
      w.Bytes(req.stop_row);
      w.U32(req.number_of_rows);
      PutColumns(w, req.columns);
    });
  }
  Status Encode(uint32_t, const MultiRequest& req, ByteBuffer* out) {
    return SizeThenWrite(out, [&](auto& w) {
      w.U32(uint32_t(req.actions.size()));
      for (const Action& a : req.actions) {
        w.U32(a.index);
        w.U8(uint8_t(a.kind));
        if (a.kind == ActionKind::kMutation) {
          PutMutation(w, a.mutation);
        } else {
          PutGet(w, a.get);
        }
      }
    });
  }

  Status Decode(ByteView payload, MutateRequest* req) {
    Reset();
    WireReader r(payload);
    MutationRef m;
    if (!ReadMutation(r, &m) || !r.done()) return Truncated("Mutate request");
    req->mutation = Resolve(m);
    return Status::Ok();
  }
  Status Decode(ByteView payload, GetRequest* req) {
    Reset();
    WireReader r(payload);
    GetRef g;
    if (!ReadGet(r, &g) || !r.done()) return Truncated("Get request");
    *req = Resolve(g);
    return Status::Ok();
  }
  Status Decode(ByteView payload, ScanRequest* req) {
    Reset();
    WireReader r(payload);
    Range cols;
    if (!r.LenBytesLE(&req->start_row) || !r.LenBytesLE(&req->stop_row) ||
        !r.U32LE(&req->number_of_rows) || !ReadColumns(r, &cols) || !r.done())
      return Truncated("Scan request");
    req->columns = ColumnSpan(cols);
    return Status::Ok();
  }
  Status Decode(ByteView payload, MultiRequest* req) {
    Reset();
    WireReader r(payload);
    uint32_t n;
    if (!r.U32LE(&n) || n > kMaxCount || n > r.remaining()) return Truncated("Multi request");
    std::vector<ActionRef>& refs = action_refs_;
    refs.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      uint8_t kind;
      if (!r.U32LE(&refs[i].index) || !r.U8(&kind)) return Truncated("Multi request");
      if (kind == uint8_t(ActionKind::kMutation)) {
        refs[i].kind = ActionKind::kMutation;
        if (!ReadMutation(r, &refs[i].mutation)) return Truncated("Multi request mutation");
      } else if (kind == uint8_t(ActionKind::kGet)) {
        refs[i].kind = ActionKind::kGet;
        if (!ReadGet(r, &refs[i].get)) return Truncated("Multi request get");
      } else {
        return Status::Corruption("raw: Multi action has unknown kind " + std::to_string(kind));
      }
    }
    if (!r.done()) return Truncated("Multi request");
    actions_.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      Action& a = actions_[i];
      a.index = refs[i].index;
      a.kind = refs[i].kind;
      a.mutation = a.kind == ActionKind::kMutation ? Resolve(refs[i].mutation) : Mutation{};
      a.get = a.kind == ActionKind::kGet ? Resolve(refs[i].get) : GetRequest{};
    }
    req->actions = std::span<const Action>(actions_.data(), n);
    return Status::Ok();
  }

  Status Encode(uint32_t, const MutateResponse& resp, ByteBuffer* out) {
    return SizeThenWrite(out, [&](auto& w) {
      w.U8(resp.processed ? 1 : 0);
    });
  }
  Status Encode(uint32_t, const GetResponse& resp, ByteBuffer* out) {
    const bool one_row = OneRow(resp.result);
    return SizeThenWrite(out, [&](auto& w) {
      PutResult(w, resp.result, one_row);
    });
  }
  Status Encode(uint32_t, const ScanResponse& resp, ByteBuffer* out) {
    return SizeThenWrite(out, [&](auto& w) {
      w.U8(resp.more_results ? 1 : 0);
      w.U32(uint32_t(resp.results.size()));
      for (const Result& res : resp.results) PutResult(w, res);
    });
  }
  Status Encode(uint32_t, const MultiResponse& resp, ByteBuffer* out) {
    return SizeThenWrite(out, [&](auto& w) {
      w.U32(uint32_t(resp.results.size()));
      for (const ActionResult& ar : resp.results) {
        w.U32(ar.index);
        w.U8(ar.ok ? 1 : 0);
        if (ar.ok) {
          PutResult(w, ar.result);
        } else {
          w.Bytes(ar.error);
        }
      }
    });
  }

  Status Decode(ByteView payload, MutateResponse* resp) {
    WireReader r(payload);
    uint8_t p;
    if (!r.U8(&p) || p > 1 || !r.done()) return Truncated("Mutate response");
    resp->processed = p == 1;
    return Status::Ok();
  }
  Status Decode(ByteView payload, GetResponse* resp) {
    Reset();
    WireReader r(payload);
    ResultRef ref;
    if (!ReadResult(r, &ref) || !r.done()) return Truncated("Get response");
    resp->result = Resolve(ref);
    return Status::Ok();
  }
  Status Decode(ByteView payload, ScanResponse* resp) {
    Reset();
    WireReader r(payload);
    uint8_t more;
    uint32_t n;
    if (!r.U8(&more) || more > 1 || !r.U32LE(&n) || n > kMaxCount || n > r.remaining())
      return Truncated("Scan response");
    result_refs_.resize(n);
    for (uint32_t i = 0; i < n; ++i)
      if (!ReadResult(r, &result_refs_[i])) return Truncated("Scan response");
    if (!r.done()) return Truncated("Scan response");
    results_.resize(n);
    for (uint32_t i = 0; i < n; ++i) results_[i] = Resolve(result_refs_[i]);
    resp->more_results = more == 1;
    resp->results = std::span<const Result>(results_.data(), n);
    return Status::Ok();
  }
  Status Decode(ByteView payload, MultiResponse* resp) {
    Reset();
    WireReader r(payload);
    uint32_t n;
    if (!r.U32LE(&n) || n > kMaxCount || n > r.remaining()) return Truncated("Multi response");
    result_refs_.resize(n);
    action_results_.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      ActionResult& ar = action_results_[i];
      uint8_t ok;
      if (!r.U32LE(&ar.index) || !r.U8(&ok) || ok > 1) return Truncated("Multi response");
      ar.ok = ok == 1;
      result_refs_[i] = ResultRef{};
      if (ar.ok) {
        if (!ReadResult(r, &result_refs_[i])) return Truncated("Multi response result");
        ar.error = ByteView();
      } else if (!r.LenBytesLE(&ar.error)) {
        return Truncated("Multi response error");
      }
    }
    if (!r.done()) return Truncated("Multi response");
    for (uint32_t i = 0; i < n; ++i) action_results_[i].result = Resolve(result_refs_[i]);
    resp->results = std::span<const ActionResult>(action_results_.data(), n);
    return Status::Ok();
  }

 private:
  // Decoding first collects cells and columns into flat vectors and keeps
  // index ranges, then turns ranges into spans once the vectors stop growing.
  struct Range {
    uint32_t begin = 0, count = 0;
  };
  struct MutationRef {
    ByteView row;
    MutationType type = MutationType::kPut;
    uint64_t timestamp = 0;
    Range cells;
  };
  struct GetRef {
    ByteView row;
    Range columns;
  };
  struct ResultRef {
    bool exists = false;
    Range cells;
  };
  struct ActionRef {
    uint32_t index = 0;
    ActionKind kind = ActionKind::kMutation;
    MutationRef mutation;
    GetRef get;
  };

  void Reset() {
    ncells_ = 0;
    columns_.clear();
  }

  // Room for n more cells, each written in full by its reader. The vector
  // keeps its high-water size, so a decode does not construct (zero) cells it
  // is about to overwrite.
  Cell* TakeCells(uint32_t n) {
    const size_t need = ncells_ + n;
    if (need > cells_.size()) cells_.resize(std::max(need, 2 * cells_.size()));
    Cell* c = cells_.data() + ncells_;
    ncells_ = need;
    return c;
  }

  template <typename W>
  static void PutColumns(W& w, std::span<const Column> cols) {
    w.U32(uint32_t(cols.size()));
    for (const Column& c : cols) {
      w.Bytes(c.family);
      w.Bytes(c.qualifier);
    }
  }
  template <typename W>
  static void PutMutation(W& out, const Mutation& m) {
    W w = out;
    w.U8(uint8_t(m.type));
    w.U64(m.timestamp);
    w.Bytes(m.row);
    w.U32(uint32_t(m.cells.size()));
    for (const Cell& c : m.cells) {
      w.Bytes(c.family);
      w.Bytes(c.qualifier);
      w.U64(c.timestamp);
      w.U8(uint8_t(c.type));
      w.Bytes(c.value);
    }
    out = w;
  }
  template <typename W>
  static void PutGet(W& w, const GetRequest& g) {
    w.Bytes(g.row);
    PutColumns(w, g.columns);
  }
  // True when every cell of `res` has one row, as every Result a region
  // builds does: the row is then written once, not per cell.
  static bool OneRow(const Result& res) {
    if (res.cells.empty()) return false;
    const ByteView row = res.cells[0].row;
    // Cells a region builds point at one copy of the row: compare addresses
    // first, bytes only when they differ.
    bool same_view = true;
    for (const Cell& c : res.cells)
      same_view &= c.row.data() == row.data() && c.row.size() == row.size();
    if (same_view) return true;
    for (const Cell& c : res.cells.subspan(1))
      if (!(c.row == row)) return false;
    return true;
  }
  template <typename W>
  static void PutResult(W& out, const Result& res) { PutResult(out, res, OneRow(res)); }
  template <typename W>
  static void PutResult(W& out, const Result& res, bool one_row) {
    W w = out;
    w.U8(uint8_t((res.exists ? kResultExists : 0) | (one_row ? kResultOneRow : 0)));
    if (one_row) w.Bytes(res.cells[0].row);
    w.U32(uint32_t(res.cells.size()));
    for (const Cell& c : res.cells) {
      if (!one_row) w.Bytes(c.row);
      w.Bytes(c.family);
      w.Bytes(c.qualifier);
      w.U64(c.timestamp);
      w.U8(uint8_t(c.type));
      w.Bytes(c.value);
    }
    out = w;
  }

  bool ReadColumns(WireReader& r, Range* range) {
    uint32_t n;
    if (!r.U32LE(&n) || n > kMaxCount || n > r.remaining()) return false;
    range->begin = uint32_t(columns_.size());
    range->count = n;
    for (uint32_t i = 0; i < n; ++i) {
      Column c;
      if (!r.LenBytesLE(&c.family) || !r.LenBytesLE(&c.qualifier)) return false;
      columns_.push_back(c);
    }
    return true;
  }
  bool ReadCellTail(WireReader& r, Cell* c) {
    uint8_t type;
    if (!r.U64LE(&c->timestamp) || !r.U8(&type) || !IsValidCellType(type)) return false;
    c->type = CellType(type);
    return r.LenBytesLE(&c->value);
  }
  bool ReadMutation(WireReader& r, MutationRef* m) {
    uint8_t type;
    uint32_t n;
    if (!r.U8(&type) || type > uint8_t(MutationType::kDelete) || !r.U64LE(&m->timestamp) ||
        !r.LenBytesLE(&m->row) || !r.U32LE(&n) || n > kMaxCount || n > r.remaining() / kMinCellBytes)
      return false;
    m->type = MutationType(type);
    m->cells.begin = uint32_t(ncells_);
    m->cells.count = n;
    Cell* c = TakeCells(n);
    for (uint32_t i = 0; i < n; ++i, ++c) {
      c->row = m->row;
      if (!r.LenBytesLE(&c->family) || !r.LenBytesLE(&c->qualifier) || !ReadCellTail(r, c))
        return false;
    }
    return true;
  }
  bool ReadGet(WireReader& r, GetRef* g) { return r.LenBytesLE(&g->row) && ReadColumns(r, &g->columns); }
  bool ReadResult(WireReader& r, ResultRef* res) {
    uint8_t flags;
    ByteView row;
    uint32_t n;
    if (!r.U8(&flags) || (flags & ~(kResultExists | kResultOneRow)) != 0) return false;
    const bool one_row = (flags & kResultOneRow) != 0;
    if ((one_row && !r.LenBytesLE(&row)) || !r.U32LE(&n) || n > kMaxCount ||
        n > r.remaining() / kMinCellBytes || (one_row && n == 0))
      return false;
    res->exists = (flags & kResultExists) != 0;
    res->cells.begin = uint32_t(ncells_);
    res->cells.count = n;
    Cell* c = TakeCells(n);
    for (uint32_t i = 0; i < n; ++i, ++c) {
      if (one_row) {
        c->row = row;
      } else if (!r.LenBytesLE(&c->row)) {
        return false;
      }
      if (!r.LenBytesLE(&c->family) || !r.LenBytesLE(&c->qualifier) || !ReadCellTail(r, c))
        return false;
    }
    return true;
  }

  std::span<const Cell> CellSpan(Range r) const {
    return std::span<const Cell>(cells_.data() + r.begin, r.count);
  }
  std::span<const Column> ColumnSpan(Range r) const {
    return std::span<const Column>(columns_.data() + r.begin, r.count);
  }
  Mutation Resolve(const MutationRef& m) const {
    return Mutation{m.row, m.type, m.timestamp, CellSpan(m.cells)};
  }
  GetRequest Resolve(const GetRef& g) const {
    GetRequest r;
    r.row = g.row;
    r.columns = ColumnSpan(g.columns);
    return r;
  }
  Result Resolve(const ResultRef& r) const { return Result{CellSpan(r.cells), r.exists}; }

  std::vector<Cell> cells_;
  size_t ncells_ = 0;  // Cells of the message being decoded: cells_'s first ncells_.
  std::vector<Column> columns_;
  std::vector<Result> results_;
  std::vector<ResultRef> result_refs_;
  std::vector<Action> actions_;
  std::vector<ActionRef> action_refs_;
  std::vector<ActionResult> action_results_;
};

}  // namespace

std::unique_ptr<Codec> NewRawCodec() { return std::make_unique<RawCodec>(); }

}  // namespace wirebench
