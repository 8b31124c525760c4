// Layout (all integers little-endian; "bytes" = u32 length + the bytes):
//   Mutation : u8 type, u64 timestamp, bytes row, u32 ncells,
//              ncells x { bytes family, bytes qualifier, u64 ts, u8 type, bytes value }
//   Get      : bytes row, u32 ncolumns, ncolumns x { bytes family, bytes qualifier }
//   Scan     : bytes start, bytes stop, u32 number_of_rows, u32 ncolumns, columns
//   Multi    : u32 nactions, nactions x { u32 index, u8 kind, Mutation | Get }
//   Result   : u8 flags (1: exists, 2: one row, 4: one family),
//              [bytes row if one row], [bytes family if one family], u32 ncells,
//              ncells x { [bytes row if not one row], [bytes family if not one family],
//                         u64 ts, u8 type, u32 qualifier length, u32 value length },
//              then every cell's qualifier and value, in cell order
//              (a region's Result holds one row's cells, usually of one family: the
//              row and family travel once, as a Mutation's row does. The cells' fixed
//              fields come first and their bytes after, so a region whose cells sit in
//              one block, qualifier after value after qualifier as a KeyValue block
//              holds them, is answered with one copy of that block, and a reader checks
//              the bounds of all the cells' fixed fields at once)
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
  void Raw(ByteView v) { n_ += v.size(); }
  size_t size() const { return n_; }

 private:
  size_t n_ = 0;
};

class Writer {
 public:
  Writer(ByteBuffer* out, size_t size) : p_(out->Extend(size)) {}
  void U8(uint8_t v) { *p_++ = v; }
  void U32(uint32_t v) { PutLE(p_, v); }
  void U64(uint64_t v) { PutLE(p_, v); }
  // Payload bytes, after their length: counted as copied.
  void Bytes(ByteView v) {
    U32(uint32_t(v.size()));
    Raw(v);
  }
  // Payload bytes whose length was written earlier: counted as copied.
  void Raw(ByteView v) {
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
// The fewest bytes a Mutation cell takes on the wire (family, qualifier and value
// lengths, timestamp, type): a count the payload cannot hold is refused before
// room is made for it.
constexpr uint32_t kMinCellBytes = 4 + 4 + 8 + 1 + 4;
// A Result's flags byte.
constexpr uint8_t kResultExists = 1;
constexpr uint8_t kResultOneRow = 2;     // The row once, before the cells, not in each.
constexpr uint8_t kResultOneFamily = 4;  // Likewise the family.
constexpr uint8_t kResultFlags = kResultExists | kResultOneRow | kResultOneFamily;
// A Result cell's fixed fields: timestamp, type, qualifier and value lengths.
constexpr size_t kResultCellHead = 8 + 1 + 4 + 4;

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
    scratch_.actions.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      Action& a = scratch_.actions[i];
      a.index = refs[i].index;
      a.kind = refs[i].kind;
      a.mutation = a.kind == ActionKind::kMutation ? Resolve(refs[i].mutation) : Mutation{};
      a.get = a.kind == ActionKind::kGet ? Resolve(refs[i].get) : GetRequest{};
    }
    req->actions = std::span<const Action>(scratch_.actions.data(), n);
    return Status::Ok();
  }

  Status Encode(uint32_t, const MutateResponse& resp, ByteBuffer* out) {
    return SizeThenWrite(out, [&](auto& w) {
      w.U8(resp.processed ? 1 : 0);
    });
  }
  // A Get's reply is sized by Head's pass over its cells, not by a Sizer pass.
  Status Encode(uint32_t, const GetResponse& resp, ByteBuffer* out) {
    const ResultHead head = Head(resp.result);
    Writer w(out, head.size);
    PutResult(w, resp.result, head);
    CountEncodeCopy(w.copied());
    return Status::Ok();
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
    scratch_.results.resize(n);
    for (uint32_t i = 0; i < n; ++i) scratch_.results[i] = Resolve(result_refs_[i]);
    resp->more_results = more == 1;
    resp->results = std::span<const Result>(scratch_.results.data(), n);
    return Status::Ok();
  }
  Status Decode(ByteView payload, MultiResponse* resp) {
    Reset();
    WireReader r(payload);
    uint32_t n;
    if (!r.U32LE(&n) || n > kMaxCount || n > r.remaining()) return Truncated("Multi response");
    result_refs_.resize(n);
    scratch_.action_results.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      ActionResult& ar = scratch_.action_results[i];
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
    for (uint32_t i = 0; i < n; ++i) scratch_.action_results[i].result = Resolve(result_refs_[i]);
    resp->results = std::span<const ActionResult>(scratch_.action_results.data(), n);
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
    scratch_.columns.clear();
  }

  // Room for n more cells, each written in full by its reader. The vector
  // keeps its high-water size, so a decode does not construct (zero) cells it
  // is about to overwrite.
  Cell* TakeCells(uint32_t n) {
    const size_t need = ncells_ + n;
    if (need > scratch_.cells.size())
      scratch_.cells.resize(std::max(need, 2 * scratch_.cells.size()));
    Cell* c = scratch_.cells.data() + ncells_;
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
  // True when every cell's `field` holds the same bytes as the first cell's.
  template <ByteView Cell::*field>
  static bool SameBytes(std::span<const Cell> cells) {
    for (const Cell& c : cells.subspan(1))
      if (!(c.*field == cells[0].*field)) return false;
    return true;
  }
  // What a Result's header says once for all its cells (the row and the
  // family, when every cell has the same), whether the cells' qualifiers and
  // values are one run of bytes in cell order (then copied at once), and the
  // Result's encoded size.
  struct ResultHead {
    bool one_row = false;
    bool one_family = false;
    ByteView run;  // The cells' qualifiers and values, when contiguous.
    bool contiguous = false;
    size_t size = 0;
  };
  // One pass over the cells for all three. Cells a region builds point at one
  // copy of the row and of the family: addresses are compared, bytes only
  // when they differ.
  static ResultHead Head(const Result& res) {
    if (res.run.Describes(res.cells)) return BlockHead(res);
    const std::span<const Cell> cells = res.cells;
    ResultHead h;
    h.size = 1 + 4;
    if (cells.empty()) return h;
    const ByteView row = cells[0].row, family = cells[0].family;
    // Same view as the first cell's: its address and size both (one
    // comparison of the two XORs or'ed together).
    auto differs = [](ByteView a, ByteView b) {
      return (uintptr_t(a.data()) ^ uintptr_t(b.data())) | (a.size() ^ b.size());
    };
    // Where the next qualifier or value starts if the run goes on.
    auto gap = [](const uint8_t* next, ByteView v) { return uintptr_t(v.data()) ^ uintptr_t(next); };
    uintptr_t row_differs = 0, family_differs = 0, gaps = 0;
    const uint8_t* next = cells[0].qualifier.data();
    size_t bytes = 0;
    for (const Cell& c : cells) {
      row_differs |= differs(c.row, row);
      family_differs |= differs(c.family, family);
      gaps |= gap(next, c.qualifier) | gap(c.qualifier.end(), c.value);
      next = c.value.end();
      bytes += c.qualifier.size() + c.value.size();
    }
    h.one_row = row_differs == 0 || SameBytes<&Cell::row>(cells);
    h.one_family = family_differs == 0 || SameBytes<&Cell::family>(cells);
    h.contiguous = gaps == 0;
    if (h.contiguous) h.run = ByteView(cells[0].qualifier.data(), bytes);
    h.size = FramingSize(cells, h) + bytes;
    // Rows and families that are not one each: their bytes, in a pass of their own.
    if (!h.one_row || !h.one_family)
      for (const Cell& c : cells)
        h.size += (h.one_row ? 0 : c.row.size()) + (h.one_family ? 0 : c.family.size());
    return h;
  }
  // Head of a Result whose region built its cells as one block and says
  // so (Result::run): nothing to check cell by cell.
  static ResultHead BlockHead(const Result& res) {
    ResultHead h;
    h.one_row = h.one_family = h.contiguous = true;
    h.run = res.run.bytes;
    h.size = FramingSize(res.cells, h) + h.run.size();
    return h;
  }
  // A non-empty Result's encoded size but for its qualifiers and values and
  // the rows and families that are not one: its header, every cell's fixed
  // fields, and the one row and family or each cell's length of them.
  static size_t FramingSize(std::span<const Cell> cells, const ResultHead& h) {
    return 1 + 4 + cells.size() * kResultCellHead +
           (h.one_row ? 4 + cells[0].row.size() : 4 * cells.size()) +
           (h.one_family ? 4 + cells[0].family.size() : 4 * cells.size());
  }
  template <typename W>
  static void PutCellHead(W& w, const Cell& c) {
    w.U64(c.timestamp);
    w.U8(uint8_t(c.type));
    w.U32(uint32_t(c.qualifier.size()));
    w.U32(uint32_t(c.value.size()));
  }
  template <typename W>
  static void PutResult(W& out, const Result& res) { PutResult(out, res, Head(res)); }
  template <typename W>
  static void PutResult(W& out, const Result& res, ResultHead h) {
    W w = out;
    w.U8(uint8_t((res.exists ? kResultExists : 0) | (h.one_row ? kResultOneRow : 0) |
                 (h.one_family ? kResultOneFamily : 0)));
    if (h.one_row) w.Bytes(res.cells[0].row);
    if (h.one_family) w.Bytes(res.cells[0].family);
    w.U32(uint32_t(res.cells.size()));
    // The usual Result (one row, one family) in a loop of its own: only the
    // fixed fields, no per-cell test of the flags.
    if (h.one_row && h.one_family) {
      for (const Cell& c : res.cells) PutCellHead(w, c);
    } else {
      for (const Cell& c : res.cells) {
        if (!h.one_row) w.Bytes(c.row);
        if (!h.one_family) w.Bytes(c.family);
        PutCellHead(w, c);
      }
    }
    if (h.contiguous) {
      w.Raw(h.run);
    } else {
      for (const Cell& c : res.cells) {
        w.Raw(c.qualifier);
        w.Raw(c.value);
      }
    }
    out = w;
  }

  bool ReadColumns(WireReader& r, Range* range) {
    uint32_t n;
    if (!r.U32LE(&n) || n > kMaxCount || n > r.remaining()) return false;
    range->begin = uint32_t(scratch_.columns.size());
    range->count = n;
    for (uint32_t i = 0; i < n; ++i) {
      Column c;
      if (!r.LenBytesLE(&c.family) || !r.LenBytesLE(&c.qualifier)) return false;
      scratch_.columns.push_back(c);
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
    ByteView row, family;
    uint32_t n;
    if (!r.U8(&flags) || (flags & ~kResultFlags) != 0) return false;
    const bool one_row = (flags & kResultOneRow) != 0;
    const bool one_family = (flags & kResultOneFamily) != 0;
    if ((one_row && !r.LenBytesLE(&row)) || (one_family && !r.LenBytesLE(&family)) ||
        !r.U32LE(&n) || n > kMaxCount || n > r.remaining() / kResultCellHead ||
        ((one_row || one_family) && n == 0))
      return false;
    res->exists = (flags & kResultExists) != 0;
    res->cells.begin = uint32_t(ncells_);
    res->cells.count = n;
    Cell* const cells = TakeCells(n);
    size_t bytes = 0;
    if (one_row && one_family) {
      // Every cell's fixed fields in one bounds check, and the qualifiers and
      // values right after them: each cell's views are set in the same pass,
      // and the bytes they cover checked once at the end.
      // Every type's validity is ANDed and tested once, after the loop: a
      // Result with a bad type is refused all the same, with nothing read
      // past the fixed fields' checked bounds.
      const uint8_t* head;
      if (!r.Take(n * kResultCellHead, &head)) return false;
      const uint8_t* const heads_end = head + size_t(n) * kResultCellHead;
      const uint8_t* p = heads_end;
      uint8_t valid = 1;
      for (Cell* c = cells; head != heads_end; ++c, head += kResultCellHead) {
        const uint8_t type = head[8];
        valid &= kCellTypeValid[type];
        c->row = row;
        c->family = family;
        c->timestamp = LoadLE64(head);
        c->type = CellType(type);
        const size_t qualifier = LoadLE32(head + 9), value = LoadLE32(head + 13);
        c->qualifier = ByteView(p, qualifier);
        c->value = ByteView(p + qualifier, value);
        p += qualifier + value;
      }
      // heads_end is the run's start, p its end.
      const uint8_t* run;
      return valid != 0 && r.Take(size_t(p - heads_end), &run);
    } else {
      for (uint32_t i = 0; i < n; ++i) {
        Cell* c = cells + i;
        if (one_row) {
          c->row = row;
        } else if (!r.LenBytesLE(&c->row)) {
          return false;
        }
        if (one_family) {
          c->family = family;
        } else if (!r.LenBytesLE(&c->family)) {
          return false;
        }
        const uint8_t* head;
        if (!r.Take(kResultCellHead, &head) || !ReadCellHead(head, c, &bytes)) return false;
      }
    }
    // The qualifiers and values, one run after the fixed fields: each cell's
    // views now point into it (ReadCellHead left only their sizes).
    const uint8_t* p;
    if (!r.Take(bytes, &p)) return false;
    for (uint32_t i = 0; i < n; ++i) {
      Cell& c = cells[i];
      c.qualifier = ByteView(p, c.qualifier.size());
      p += c.qualifier.size();
      c.value = ByteView(p, c.value.size());
      p += c.value.size();
    }
    return true;
  }
  // A Result cell's fixed fields: its timestamp and type, and the sizes of
  // its qualifier and value (their views point nowhere yet), added to *bytes.
  static bool ReadCellHead(const uint8_t* head, Cell* c, size_t* bytes) {
    if (!IsValidCellType(head[8])) return false;
    c->timestamp = LoadLE64(head);
    c->type = CellType(head[8]);
    const size_t qualifier = LoadLE32(head + 9), value = LoadLE32(head + 13);
    c->qualifier = ByteView(head, qualifier);
    c->value = ByteView(head, value);
    *bytes += qualifier + value;
    return true;
  }

  std::span<const Cell> CellSpan(Range r) const {
    return std::span<const Cell>(scratch_.cells.data() + r.begin, r.count);
  }
  std::span<const Column> ColumnSpan(Range r) const {
    return std::span<const Column>(scratch_.columns.data() + r.begin, r.count);
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

  DecodeScratch scratch_;
  size_t ncells_ = 0;  // Cells of the message being decoded: scratch_.cells's first ncells_.
  std::vector<ResultRef> result_refs_;
  std::vector<ActionRef> action_refs_;
};

}  // namespace

std::unique_ptr<Codec> NewRawCodec() { return std::make_unique<RawCodec>(); }

}  // namespace wirebench
