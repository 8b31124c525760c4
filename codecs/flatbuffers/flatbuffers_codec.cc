// The `flatbuffers` codec. Layout: codecs/schemas/wirebench.fbs; the C++
// accessors are generated from it by flatc at build time.
//
// Encode, puts and get answers (the calls of every YCSB workload): written
// front to back straight into the frame by FrontWriter (front_writer.h), with
// the sizes computed first: Call, body, Mutation or Result tables with their
// vtables, the vector of cell tables, all cell tables (sharing one vtable),
// then their byte strings, each copied once from the message. A row or
// family equal to the previous cell's is written once and pointed at again;
// it comes after every table, because FlatBuffers offsets point forward.
// Measured (callgrind, 1 KB put): ~6,300 instructions with the builder, ~2,000
// front to back.
//
// Encode, the other calls: the reused FlatBufferBuilder is cleared and the
// message is built into it back to front, finished size-prefixed with the
// "WBF1" identifier. Byte strings of 512 bytes or more are not copied into
// the builder: each is reserved there (Builder::ReserveBytes: length prefix
// and alignment written, the bytes left unwritten) and remembered with its
// source. The finished buffer is then gathered into `out` in one pass: the
// builder's own bytes between the long strings, and each long string
// straight from the caller's memory, so it is copied once and counted once.
// Shorter strings are copied into the builder and then with it into `out`,
// and counted twice (kDirectCopyMin below says why).
//
// Decode: flatbuffers::Verifier checks the whole buffer first (size prefix
// equal to the payload length, identifier, every offset, vector length and
// table within bounds), then every field is read into the message model with
// views into the buffer. Scratch arrays are sized once per call from the
// vector lengths, so the spans handed out never move.
//
// Alignment: FlatBuffers 2.0.8 reads scalars through typed pointers, and its
// Verifier checks alignment only relative to the buffer start. The schema
// keeps every scalar at most 4 bytes wide, so a buffer whose first byte is
// 4-byte aligned is read in place with check_alignment on; a payload at any
// other address is copied once into an aligned scratch buffer first.
#include "codecs/flatbuffers/flatbuffers_codec.h"

#include <cassert>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "codecs/codec_adapter.h"
#include "codecs/flatbuffers/front_writer.h"
#include "common/thread_stats.h"
#include "wirebench_generated.h"

namespace wirebench {

namespace {

namespace fbs = ::flatbuffers;
using BytesOffset = fbs::Offset<fbs::Vector<uint8_t>>;
template <typename T>
using TablesOffset = fbs::Offset<fbs::Vector<fbs::Offset<T>>>;
template <typename T>
using Tables = fbs::Vector<fbs::Offset<T>>;

// The widest scalar in the schema, hence the alignment a buffer needs.
constexpr uintptr_t kBufferAlignment = 4;
// Size prefix + root offset + identifier: nothing shorter can be a buffer.
constexpr size_t kMinBuffer = 12;
// Verifier limits: deepest legal nesting is Call > Body > ActionResult >
// Result > Cell (5); tables per buffer are capped so a hostile buffer that
// references one table many times cannot make verification quadratic.
constexpr fbs::uoffset_t kMaxDepth = 16;
constexpr fbs::uoffset_t kMaxTables = 1u << 22;

const char* BodyName(fb::Body b) {
  const char* name = fb::EnumNameBody(b);
  return *name ? name : "an unknown body type";
}

Status WrongBody(fb::Body want, fb::Body got) {
  return Status::Corruption(std::string("flatbuffers: expected a ") + BodyName(want) +
                            " payload, got " + BodyName(got));
}

Status FlatbuffersMalformed(const char* what) {
  return Status::Corruption(std::string("flatbuffers: malformed ") + what);
}

ByteView View(const fbs::Vector<uint8_t>* v) {
  return v ? ByteView(v->data(), v->size()) : ByteView();
}

uint64_t Timestamp(const fb::Timestamp* t) {
  return t ? (uint64_t(t->hi()) << 32) | t->lo() : 0;
}

template <typename T>
fbs::uoffset_t Count(const Tables<T>* v) {
  return v ? v->size() : 0;
}

fbs::uoffset_t CellCount(const fb::Mutation* m) { return Count(m->cells()); }
fbs::uoffset_t CellCount(const fb::Result* r) { return r ? Count(r->cells()) : 0; }

// A FlatBufferBuilder that can reserve a byte vector without writing its
// bytes: what CreateUninitializedVector does, but inline (that one is out of
// line and costs ~80 instructions a call, 22 calls for a 1 KB put).
class Builder : public fbs::FlatBufferBuilder {
 public:
  using FlatBufferBuilder::FlatBufferBuilder;
  // Returns the vector's offset; its n bytes are left for the caller.
  fbs::uoffset_t ReserveBytes(size_t n) {
    StartVector(n, 1);
    buf_.make_space(n);
    return EndVector(n);
  }
};

class FlatBuffersCodec final : public CodecAdapter<FlatBuffersCodec> {
 public:
  FlatBuffersCodec()
      : CodecAdapter(CodecId::kFlatBuffers, "flatbuffers", /*zero_copy_decode=*/true),
        builder_(kInitialBuilderSize) {}

  // ---- Requests ----

  // Front to back, straight into the frame (front_writer.h): a put is the
  // call every write workload sends.
  Status Encode(uint32_t, const MutateRequest& req, ByteBuffer* out) {
    const Mutation& m = req.mutation;
    const size_t size = fbfront::kHeaderBytes + kCallBytes + kBodyBytes + kMutationBytes +
                        fbfront::BytesSize(m.row.size()) + CellsSize<kMutationCell>(m.cells);
    fbfront::FrontWriter w(out->Extend(size), size);
    const size_t body = FrontCall(w, fb::Body::MutateRequest);
    const size_t mutation = w.Table({4, 20, 12, 8}, 24);  // row, type, timestamp, cells.
    w.Offset(body + 4, mutation);
    w.Byte(mutation + 20, uint8_t(m.type));
    w.U32(mutation + 12, uint32_t(m.timestamp));
    w.U32(mutation + 16, uint32_t(m.timestamp >> 32));
    w.Offset(mutation + 4, w.Bytes(m.row));
    uint64_t copied = m.row.size();
    w.Offset(mutation + 8, FrontCells<kMutationCell>(w, m.cells, &copied));
    assert(w.complete());
    CountEncodeCopy(copied);
    return Status::Ok();
  }
  Status Encode(uint32_t, const GetRequest& req, ByteBuffer* out) {
    Begin();
    return Finish(fb::Body::GetRequest, PutGet(req).Union(), out);
  }
  Status Encode(uint32_t, const ScanRequest& req, ByteBuffer* out) {
    Begin();
    auto columns = PutColumns(req.columns);
    auto stop = Bytes(req.stop_row);
    auto start = Bytes(req.start_row);
    auto body = fb::CreateScanRequest(builder_, start, stop, req.number_of_rows, columns);
    return Finish(fb::Body::ScanRequest, body.Union(), out);
  }
  Status Encode(uint32_t, const MultiRequest& req, ByteBuffer* out) {
    Begin();
    const size_t base = action_offsets_.size();
    for (const Action& a : req.actions) {
      fb::ActionOp type;
      fbs::Offset<void> op;
      if (a.kind == ActionKind::kMutation) {
        type = fb::ActionOp::Mutation;
        op = PutMutation(a.mutation).Union();
      } else if (a.kind == ActionKind::kGet) {
        type = fb::ActionOp::GetRequest;
        op = PutGet(a.get).Union();
      } else {
        action_offsets_.resize(base);
        return Status::InvalidArgument("flatbuffers: Multi action " + std::to_string(a.index) +
                                       " has unknown kind " + std::to_string(int(a.kind)));
      }
      action_offsets_.push_back(fb::CreateAction(builder_, a.index, type, op));
    }
    auto actions = TakeVector(action_offsets_, base);
    auto body = fb::CreateMultiRequest(builder_, actions);
    return Finish(fb::Body::MultiRequest, body.Union(), out);
  }

  Status Decode(ByteView payload, MutateRequest* req) {
    const fb::MutateRequest* in;
    WB_RETURN_IF_ERROR(Open(payload, &in));
    const fb::Mutation* m = in->mutation();
    if (m == nullptr) return FlatbuffersMalformed("Mutate request: no mutation");
    Cell* cells = ScratchSlots(scratch_.cells, CellCount(m));
    if (!ReadMutation(m, &cells, &req->mutation)) return FlatbuffersMalformed("Mutate request mutation");
    return Status::Ok();
  }
  Status Decode(ByteView payload, GetRequest* req) {
    const fb::GetRequest* in;
    WB_RETURN_IF_ERROR(Open(payload, &in));
    Column* columns = ScratchSlots(scratch_.columns, Count(in->columns()));
    ReadGet(in, &columns, req);
    return Status::Ok();
  }
  Status Decode(ByteView payload, ScanRequest* req) {
    const fb::ScanRequest* in;
    WB_RETURN_IF_ERROR(Open(payload, &in));
    Column* columns = ScratchSlots(scratch_.columns, Count(in->columns()));
    req->start_row = View(in->start_row());
    req->stop_row = View(in->stop_row());
    req->number_of_rows = in->number_of_rows();
    req->columns = ReadColumns(in->columns(), &columns);
    return Status::Ok();
  }
  Status Decode(ByteView payload, MultiRequest* req) {
    const fb::MultiRequest* in;
    WB_RETURN_IF_ERROR(Open(payload, &in));
    const Tables<fb::Action>* actions = in->actions();
    const fbs::uoffset_t n = Count(actions);
    // First pass: size the scratch arrays, and reject actions without an operation.
    size_t ncells = 0, ncolumns = 0;
    for (fbs::uoffset_t i = 0; i < n; ++i) {
      const fb::Action* a = actions->Get(i);
      if (const fb::Mutation* m = a->op_as_Mutation()) {
        ncells += CellCount(m);
      } else if (const fb::GetRequest* g = a->op_as_GetRequest()) {
        ncolumns += Count(g->columns());
      } else {
        return Status::Corruption("flatbuffers: Multi action " + std::to_string(a->index()) +
                                  " carries neither a Mutation nor a GetRequest");
      }
    }
    Action* out = ScratchSlots(scratch_.actions, n);
    Cell* cells = ScratchSlots(scratch_.cells, ncells);
    Column* columns = ScratchSlots(scratch_.columns, ncolumns);
    for (fbs::uoffset_t i = 0; i < n; ++i) {
      const fb::Action* a = actions->Get(i);
      Action& o = out[i];
      o.index = a->index();
      o.mutation = Mutation{};
      o.get = GetRequest{};
      if (const fb::Mutation* m = a->op_as_Mutation()) {
        o.kind = ActionKind::kMutation;
        if (!ReadMutation(m, &cells, &o.mutation)) return FlatbuffersMalformed("Multi request mutation");
      } else {
        o.kind = ActionKind::kGet;
        ReadGet(a->op_as_GetRequest(), &columns, &o.get);
      }
    }
    req->actions = std::span<const Action>(out, n);
    return Status::Ok();
  }

  // ---- Responses ----

  Status Encode(uint32_t, const MutateResponse& resp, ByteBuffer* out) {
    Begin();
    auto body = fb::CreateMutateResponse(builder_, resp.processed);
    return Finish(fb::Body::MutateResponse, body.Union(), out);
  }
  // Front to back, straight into the frame, as a put: a get's answer is the
  // call every read workload receives.
  Status Encode(uint32_t, const GetResponse& resp, ByteBuffer* out) {
    const Result& r = resp.result;
    const size_t size = fbfront::kHeaderBytes + kCallBytes + kBodyBytes + kResultBytes +
                        CellsSize<kResultCell>(r.cells);
    fbfront::FrontWriter w(out->Extend(size), size);
    const size_t body = FrontCall(w, fb::Body::GetResponse);
    const size_t result = w.Table({8, 4}, 12);  // exists, cells.
    w.Offset(body + 4, result);
    w.Byte(result + 8, r.exists ? 1 : 0);
    uint64_t copied = 0;
    w.Offset(result + 4, FrontCells<kResultCell>(w, r.cells, &copied));
    assert(w.complete());
    if (!w.complete()) fprintf(stderr, "DEBUG pos %zu size %zu\n", w.position(), size);
    CountEncodeCopy(copied);
    return Status::Ok();
  }
  Status Encode(uint32_t, const ScanResponse& resp, ByteBuffer* out) {
    Begin();
    const size_t base = result_offsets_.size();
    for (const Result& r : resp.results) result_offsets_.push_back(PutResult(r));
    auto results = TakeVector(result_offsets_, base);
    auto body = fb::CreateScanResponse(builder_, results, resp.more_results);
    return Finish(fb::Body::ScanResponse, body.Union(), out);
  }
  Status Encode(uint32_t, const MultiResponse& resp, ByteBuffer* out) {
    Begin();
    const size_t base = action_result_offsets_.size();
    for (const ActionResult& ar : resp.results) {
      // A failed action carries its reason and no result.
      fbs::Offset<fb::Result> result = ar.ok ? PutResult(ar.result) : 0;
      BytesOffset error = ar.ok ? 0 : Bytes(ar.error);
      action_result_offsets_.push_back(
          fb::CreateActionResult(builder_, ar.index, ar.ok, result, error));
    }
    auto results = TakeVector(action_result_offsets_, base);
    auto body = fb::CreateMultiResponse(builder_, results);
    return Finish(fb::Body::MultiResponse, body.Union(), out);
  }

  Status Decode(ByteView payload, MutateResponse* resp) {
    const fb::MutateResponse* in;
    WB_RETURN_IF_ERROR(Open(payload, &in));
    resp->processed = in->processed();
    return Status::Ok();
  }
  Status Decode(ByteView payload, GetResponse* resp) {
    const fb::GetResponse* in;
    WB_RETURN_IF_ERROR(Open(payload, &in));
    Cell* cells = ScratchSlots(scratch_.cells, CellCount(in->result()));
    if (!ReadResult(in->result(), &cells, &resp->result)) return FlatbuffersMalformed("Get response result");
    return Status::Ok();
  }
  Status Decode(ByteView payload, ScanResponse* resp) {
    const fb::ScanResponse* in;
    WB_RETURN_IF_ERROR(Open(payload, &in));
    const Tables<fb::Result>* results = in->results();
    const fbs::uoffset_t n = Count(results);
    size_t ncells = 0;
    for (fbs::uoffset_t i = 0; i < n; ++i) ncells += CellCount(results->Get(i));
    Result* out = ScratchSlots(scratch_.results, n);
    Cell* cells = ScratchSlots(scratch_.cells, ncells);
    for (fbs::uoffset_t i = 0; i < n; ++i)
      if (!ReadResult(results->Get(i), &cells, &out[i])) return FlatbuffersMalformed("Scan response result");
    resp->results = std::span<const Result>(out, n);
    resp->more_results = in->more_results();
    return Status::Ok();
  }
  Status Decode(ByteView payload, MultiResponse* resp) {
    const fb::MultiResponse* in;
    WB_RETURN_IF_ERROR(Open(payload, &in));
    const Tables<fb::ActionResult>* results = in->results();
    const fbs::uoffset_t n = Count(results);
    size_t ncells = 0;
    for (fbs::uoffset_t i = 0; i < n; ++i) ncells += CellCount(results->Get(i)->result());
    ActionResult* out = ScratchSlots(scratch_.action_results, n);
    Cell* cells = ScratchSlots(scratch_.cells, ncells);
    for (fbs::uoffset_t i = 0; i < n; ++i) {
      const fb::ActionResult* ar = results->Get(i);
      ActionResult& o = out[i];
      o.index = ar->index();
      o.ok = ar->ok();
      o.error = View(ar->error());
      if (!ReadResult(ar->result(), &cells, &o.result)) return FlatbuffersMalformed("Multi response result");
    }
    resp->results = std::span<const ActionResult>(out, n);
    return Status::Ok();
  }

 private:
  static constexpr size_t kInitialBuilderSize = 4096;
  // Byte strings at least this long go straight from the message into the
  // frame; shorter ones through the builder. Measured with the codec
  // microbenchmark (README, "Codec microbenchmarks"): for 100-byte values the
  // direct copy made a 1 KB put's encode ~25% slower (two small memcpy calls
  // per string, the string's and the structure's before it, instead of one
  // large one), for 1,000-byte values it was even to ~10% faster, and it
  // saves a whole copy of every long value.
  static constexpr size_t kDirectCopyMin = 512;

  // A byte string already in the builder, so an equal one can point at it.
  struct Shared {
    ByteView bytes;
    BytesOffset offset;
  };

  // ---- Encoding front to back (Mutate requests, Get responses) ----

  // Where a Cell table written front to back keeps its fields (byte offsets
  // in the table; row 0 = absent, as in a mutation's cells). Every field is
  // written, an empty byte string as an empty vector; `type` is the last
  // word, its padding included. A template argument, so that the offsets
  // are constants in the code.
  struct CellLayout {
    uint16_t row, family, qualifier, value, timestamp, type, bytes;
  };
  static constexpr CellLayout kMutationCell{0, 4, 8, 12, 16, 24, 28};
  static constexpr CellLayout kResultCell{4, 8, 12, 16, 20, 28, 32};
  // Call (body_type, body), the body table with one offset field, Mutation
  // (row, type, timestamp, cells) and Result (exists, cells), with vtables.
  static constexpr size_t kCallBytes = fbfront::TableSize(2, 12);
  static constexpr size_t kBodyBytes = fbfront::TableSize(1, 8);
  static constexpr size_t kMutationBytes = fbfront::TableSize(4, 24);
  static constexpr size_t kResultBytes = fbfront::TableSize(2, 12);

  // The header and Call table, and the body's table (one offset field, at 4,
  // left for the caller). Returns the body's position.
  static size_t FrontCall(fbfront::FrontWriter& w, fb::Body type) {
    w.Header(fb::CallIdentifier());
    const size_t call = w.Table({8, 4}, 12);  // body_type, body.
    w.Root(call);
    w.Byte(call + 8, uint8_t(type));
    const size_t body = w.Table({4}, 8);
    w.Offset(call + 4, body);
    return body;
  }

  // Bytes FrontCells() writes. A row or family equal to the previous cell's
  // is written once and pointed at again, in both.
  template <CellLayout l>
  static size_t CellsSize(std::span<const Cell> cells) {
    size_t n = 4 + 4 * cells.size();
    if (cells.empty()) return n;
    n += fbfront::TableSize(6, l.bytes) - l.bytes;  // One vtable for all.
    const Cell* prev = nullptr;
    for (const Cell& c : cells) {
      n += l.bytes + fbfront::BytesSize(c.qualifier.size()) + fbfront::BytesSize(c.value.size());
      if (l.row != 0 && !(prev && prev->row == c.row)) n += fbfront::BytesSize(c.row.size());
      if (!(prev && prev->family == c.family)) n += fbfront::BytesSize(c.family.size());
      prev = &c;
    }
    return n;
  }

  // The vector of cell tables, then the tables, then their byte strings:
  // offsets only point forward, so a row or family that later cells share
  // must come after every table that points at it. Adds the bytes copied to
  // *copied. Returns the vector's position.
  template <CellLayout l>
  static size_t FrontCells(fbfront::FrontWriter& w, std::span<const Cell> cells,
                           uint64_t* copied) {
    const size_t vector = w.OffsetVector(cells.size());
    if (cells.empty()) return vector;
    const size_t first =
        w.Table({l.row, l.family, l.qualifier, l.timestamp, l.type, l.value}, l.bytes);
    const size_t vtable = w.VtableOf(first);
    for (size_t i = 0; i < cells.size(); ++i) {
      const Cell& c = cells[i];
      const size_t t = i == 0 ? first : w.SharedTable(vtable, l.bytes);
      w.Offset(fbfront::FrontWriter::Element(vector, i), t);
      w.U32(t + l.timestamp, uint32_t(c.timestamp));
      w.U32(t + l.timestamp + 4, uint32_t(c.timestamp >> 32));
      w.Byte(t + l.type, uint8_t(c.type));
    }
    size_t row = 0, family = 0;
    const Cell* prev = nullptr;
    for (size_t i = 0; i < cells.size(); ++i) {
      const Cell& c = cells[i];
      const size_t t = first + i * l.bytes;
      if (l.row != 0) {
        if (!(prev && prev->row == c.row)) {
          row = w.Bytes(c.row);
          *copied += c.row.size();
        }
        w.Offset(t + l.row, row);
      }
      if (!(prev && prev->family == c.family)) {
        family = w.Bytes(c.family);
        *copied += c.family.size();
      }
      w.Offset(t + l.family, family);
      w.Offset(t + l.qualifier, w.Bytes(c.qualifier));
      w.Offset(t + l.value, w.Bytes(c.value));
      *copied += c.qualifier.size() + c.value.size();
      prev = &c;
    }
    return vector;
  }

  // ---- Encoding with the builder (the other calls) ----

  void Begin() {
    builder_.Clear();
    copied_ = 0;
    reserved_.clear();
    last_row_ = Shared{};
    last_family_ = Shared{};
  }

  Status Finish(fb::Body type, fbs::Offset<void> body, ByteBuffer* out) {
    fb::FinishSizePrefixedCallBuffer(builder_, fb::CreateCall(builder_, type, body));
    const size_t size = builder_.GetSize();
    const uint8_t* built = builder_.GetBufferPointer();
    uint8_t* dst = out->Extend(size);
    // Byte strings reserved later lie nearer the front: walk them backwards,
    // copying the builder's bytes up to each and the string from its source.
    size_t at = 0;
    for (auto it = reserved_.rbegin(); it != reserved_.rend(); ++it) {
      const size_t start = size - it->from_end;
      std::memcpy(dst + at, built + at, start - at);
      std::memcpy(dst + start, it->data, it->size);
      at = start + it->size;
    }
    std::memcpy(dst + at, built + at, size - at);
    // Long strings were copied once (message to `out`), short ones twice.
    CountEncodeCopy(copied_);
    return Status::Ok();
  }

  // Empty byte strings are left out (an absent vector reads as empty). A
  // short string is copied into the builder (and so copied twice: here and
  // with the builder's bytes in Finish()); a long one is only reserved, and
  // Finish() copies it straight from the message into `out`.
  BytesOffset Bytes(ByteView v) {
    if (v.empty()) return 0;
    if (v.size() < kDirectCopyMin) {
      copied_ += 2 * v.size();
      return builder_.CreateVector(v.data(), v.size());
    }
    return ReserveLong(v);
  }
  // Kept out of line so that Bytes(), which runs for every short string,
  // stays small enough to be inlined as it was before long strings existed.
  [[gnu::noinline]] BytesOffset ReserveLong(ByteView v) {
    copied_ += v.size();
    const fbs::uoffset_t offset = builder_.ReserveBytes(v.size());
    // The vector's offset counts from the buffer's end to its 4-byte length,
    // which directly precedes the bytes (the builder aligned the end of the
    // bytes to 4, so no padding comes between): a distance that stays valid
    // as the builder grows at the front, unlike the pointer.
    // Member by member: a braced temporary was built on the stack with two
    // 8-byte stores and reloaded with one 16-byte load, a store-forwarding
    // stall that cost more than the copy this saves.
    Reserved& r = reserved_.emplace_back();
    r.data = v.data();
    r.size = v.size();
    r.from_end = offset - sizeof(fbs::uoffset_t);
    return offset;
  }
  BytesOffset SharedBytes(ByteView v, Shared* last) {
    if (v.empty()) return 0;
    if (last->offset.o != 0 && last->bytes == v) return last->offset;
    *last = Shared{v, Bytes(v)};
    return last->offset;
  }

  static const fb::Timestamp* PutTimestamp(uint64_t t, fb::Timestamp* slot) {
    if (t == 0) return nullptr;
    *slot = fb::Timestamp(uint32_t(t), uint32_t(t >> 32));
    return slot;
  }

  // Creates a vector from offsets[base..] and drops them from the scratch.
  template <typename T>
  TablesOffset<T> TakeVector(std::vector<fbs::Offset<T>>& offsets, size_t base) {
    if (offsets.size() == base) return 0;
    auto v = builder_.CreateVector(offsets.data() + base, offsets.size() - base);
    offsets.resize(base);
    return v;
  }

  // Cells of a mutation leave out the row (it is the mutation's).
  TablesOffset<fb::Cell> PutCells(std::span<const Cell> cells, bool with_row) {
    const size_t base = cell_offsets_.size();
    for (const Cell& c : cells) {
      BytesOffset row = with_row ? SharedBytes(c.row, &last_row_) : 0;
      BytesOffset family = SharedBytes(c.family, &last_family_);
      BytesOffset qualifier = Bytes(c.qualifier);
      BytesOffset value = Bytes(c.value);
      fb::Timestamp ts;
      cell_offsets_.push_back(fb::CreateCell(builder_, row, family, qualifier,
                                             PutTimestamp(c.timestamp, &ts), uint8_t(c.type),
                                             value));
    }
    return TakeVector(cell_offsets_, base);
  }

  fbs::Offset<fb::Mutation> PutMutation(const Mutation& m) {
    auto cells = PutCells(m.cells, /*with_row=*/false);
    auto row = Bytes(m.row);
    fb::Timestamp ts;
    return fb::CreateMutation(builder_, row, uint8_t(m.type), PutTimestamp(m.timestamp, &ts),
                              cells);
  }

  TablesOffset<fb::Column> PutColumns(std::span<const Column> columns) {
    const size_t base = column_offsets_.size();
    for (const Column& c : columns) {
      BytesOffset family = SharedBytes(c.family, &last_family_);
      column_offsets_.push_back(fb::CreateColumn(builder_, family, Bytes(c.qualifier)));
    }
    return TakeVector(column_offsets_, base);
  }

  fbs::Offset<fb::GetRequest> PutGet(const GetRequest& g) {
    auto columns = PutColumns(g.columns);
    return fb::CreateGetRequest(builder_, Bytes(g.row), columns);
  }

  fbs::Offset<fb::Result> PutResult(const Result& r) {
    auto cells = PutCells(r.cells, /*with_row=*/true);
    return fb::CreateResult(builder_, r.exists, cells);
  }

  // ---- Decoding ----

  // Verifies the payload and returns its body, which must be of type T.
  template <typename T>
  Status Open(ByteView payload, const T** body) {
    const uint8_t* data = payload.data();
    const size_t n = payload.size();
    if (n < kMinBuffer)
      return Status::Corruption("flatbuffers: payload of " + std::to_string(n) +
                                " bytes is too short to be a FlatBuffers buffer");
    if (n >= FLATBUFFERS_MAX_BUFFER_SIZE)
      return Status::Corruption("flatbuffers: payload exceeds FlatBuffers' 2 GiB limit");
    if (reinterpret_cast<uintptr_t>(data) % kBufferAlignment != 0) {
      aligned_.Clear();
      aligned_.Append(payload);
      CountDecodeCopy(n);
      data = aligned_.data();
    }
    fbs::Verifier::Options options;
    options.max_depth = kMaxDepth;
    options.max_tables = kMaxTables;
    options.check_alignment = true;
    fbs::Verifier verifier(data, n, options);
    if (!fb::VerifySizePrefixedCallBuffer(verifier))
      return Status::Corruption(
          "flatbuffers: payload failed verification (truncated, corrupt, or not a "
          "wirebench FlatBuffers call)");
    const fb::Call* call = fb::GetSizePrefixedCall(data);
    constexpr fb::Body kWant = fb::BodyTraits<T>::enum_value;
    if (call->body_type() != kWant) return WrongBody(kWant, call->body_type());
    *body = static_cast<const T*>(call->body());
    if (*body == nullptr)
      return Status::Corruption(std::string("flatbuffers: ") + BodyName(kWant) +
                                " payload has no body");
    return Status::Ok();
  }

  // Fills one cell; false on an unknown cell type.
  static bool ReadCell(const fb::Cell* in, ByteView row, Cell* out) {
    const uint8_t type = in->type();
    if (!IsValidCellType(type)) return false;
    out->row = row;
    out->family = View(in->family());
    out->qualifier = View(in->qualifier());
    out->timestamp = Timestamp(in->timestamp());
    out->type = CellType(type);
    out->value = View(in->value());
    return true;
  }

  // Reads a mutation, taking its cells from *cells onward and advancing it.
  static bool ReadMutation(const fb::Mutation* in, Cell** cells, Mutation* out) {
    const uint8_t type = in->type();
    if (type > uint8_t(MutationType::kDelete)) return false;
    out->row = View(in->row());
    out->type = MutationType(type);
    out->timestamp = Timestamp(in->timestamp());
    const Tables<fb::Cell>* in_cells = in->cells();
    const fbs::uoffset_t n = Count(in_cells);
    Cell* first = *cells;
    for (fbs::uoffset_t i = 0; i < n; ++i)
      if (!ReadCell(in_cells->Get(i), out->row, &first[i])) return false;
    out->cells = std::span<const Cell>(first, n);
    *cells += n;
    return true;
  }

  static std::span<const Column> ReadColumns(const Tables<fb::Column>* in, Column** columns) {
    const fbs::uoffset_t n = Count(in);
    Column* first = *columns;
    for (fbs::uoffset_t i = 0; i < n; ++i) {
      const fb::Column* c = in->Get(i);
      first[i] = Column{View(c->family()), View(c->qualifier())};
    }
    *columns += n;
    return std::span<const Column>(first, n);
  }

  static void ReadGet(const fb::GetRequest* in, Column** columns, GetRequest* out) {
    out->row = View(in->row());
    out->columns = ReadColumns(in->columns(), columns);
  }

  // An absent result reads as the empty one.
  static bool ReadResult(const fb::Result* in, Cell** cells, Result* out) {
    if (in == nullptr) {
      *out = Result{};
      return true;
    }
    out->exists = in->exists();
    const Tables<fb::Cell>* in_cells = in->cells();
    const fbs::uoffset_t n = Count(in_cells);
    Cell* first = *cells;
    for (fbs::uoffset_t i = 0; i < n; ++i) {
      const fb::Cell* c = in_cells->Get(i);
      if (!ReadCell(c, View(c->row()), &first[i])) return false;
    }
    out->cells = std::span<const Cell>(first, n);
    *cells += n;
    return true;
  }

  // A byte string reserved in the builder, to be copied from `data` into
  // the finished buffer `from_end` bytes before its end.
  struct Reserved {
    const uint8_t* data;
    size_t size;
    size_t from_end;
  };

  Builder builder_;
  uint64_t copied_ = 0;
  std::vector<Reserved> reserved_;  // In the order reserved (back to front).
  Shared last_row_;
  Shared last_family_;
  std::vector<fbs::Offset<fb::Cell>> cell_offsets_;
  std::vector<fbs::Offset<fb::Column>> column_offsets_;
  std::vector<fbs::Offset<fb::Action>> action_offsets_;
  std::vector<fbs::Offset<fb::Result>> result_offsets_;
  std::vector<fbs::Offset<fb::ActionResult>> action_result_offsets_;

  ByteBuffer aligned_;  // Copy of a payload that was not 4-byte aligned.
  DecodeScratch scratch_;
};

}  // namespace

std::unique_ptr<Codec> NewFlatBuffersCodec() { return std::make_unique<FlatBuffersCodec>(); }

}  // namespace wirebench
