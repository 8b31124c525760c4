// The `capnp` codec. Layout: codecs/schemas/wirebench.capnp; the C++
// accessors are generated from it by `capnp compile -oc++` at build time.
//
// Payload: u32 little-endian N, then the message's one segment of N words.
//
// Encode: an upper bound of the message's words is computed from its shape
// (struct sizes from the generated code, blobs rounded up to words); that
// many words are reserved in `out` right after the count, and
// capnp_wire::Writer writes the message there, forward; `out` is then cut to
// the words used. (libcapnp's MessageBuilder did the same job with an
// out-of-line call per field and a memset of the whole reserved segment.)
//
// Why not Orphanage::referenceExternalData for values: Cap'n Proto 0.9
// makes each referenced blob its own segment, heap-allocating a
// SegmentBuilder for it and a far pointer with a landing pad, and it needs
// the value 8-byte aligned (values in a workload's pool are not). The
// segments would then still be copied into `out` one after another, so the
// value bytes would be copied once, as they are now, but with allocations
// per value and a multi-segment payload the reader must piece together.
// Building in the frame already gets the one copy with none of that.
//
// Decode: the count must match the payload length exactly; the segment is
// read in place through capnp_wire::Reader with the traversal budget of
// capnp_codec.h. Malformed input becomes Corruption saying what was wrong.
#include "codecs/capnp/capnp_codec.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "codecs/capnp/capnp_wire.h"
#include "codecs/codec_adapter.h"
#include "common/thread_stats.h"
#include "wirebench.capnp.h"

namespace wirebench {

namespace {

constexpr size_t kWordBytes = 8;  // Cap'n Proto's word.
constexpr size_t kCountBytes = 4;
// No nesting limit is needed: the decoders follow the schema's fixed depth
// (Call > body > MultiResponse > ActionResult > Result > Cell > Data) and
// never recurse on what a payload says.
//
// Traversal: the decoders read each part of a message at most twice (a
// sizing pass, then the reading pass), so 8x the segment is far above any
// honest payload and still bounds what a payload with shared pointers can
// make us walk.
constexpr uint64_t kTraversalFactor = 8;
constexpr uint64_t kTraversalSlack = 1024;
// Cap'n Proto's limit on one segment (2^29 words).
constexpr size_t kMaxSegmentWords = size_t(1) << 29;

template <typename T>
constexpr size_t StructWords() {
  return size_t(T::_capnpPrivate::dataWordSize) + T::_capnpPrivate::pointerCount;
}

size_t BlobWords(ByteView v) { return (v.size() + kWordBytes - 1) / kWordBytes; }


Status CapnpMalformed(const char* what) {
  return Status::Corruption(std::string("capnp: malformed ") + what);
}

// ---- Where the schema puts each field (`capnp compile -ocapnp` prints
// the layout). The decoders read the encoding through capnp_wire.h; the
// encoders still write through the generated builders, so every round trip
// in the conformance tests checks these offsets against Cap'n Proto's own.
namespace W = capnp_wire;

constexpr uint16_t kMutateRequest = capn::Call::Body::MUTATE_REQUEST;
constexpr uint16_t kGetRequest = capn::Call::Body::GET_REQUEST;
constexpr uint16_t kScanRequest = capn::Call::Body::SCAN_REQUEST;
constexpr uint16_t kMultiRequest = capn::Call::Body::MULTI_REQUEST;
constexpr uint16_t kMutateResponse = capn::Call::Body::MUTATE_RESPONSE;
constexpr uint16_t kGetResponse = capn::Call::Body::GET_RESPONSE;
constexpr uint16_t kScanResponse = capn::Call::Body::SCAN_RESPONSE;
constexpr uint16_t kMultiResponse = capn::Call::Body::MULTI_RESPONSE;
// Cell: timestamp u64 at byte 0, type u8 at byte 8 (default 4), pointers
// row, family, qualifier, value.
constexpr unsigned kCellRow = 0, kCellFamily = 1, kCellQualifier = 2, kCellValue = 3;
// A Cell struct's words: timestamp and type, then its four pointers.
constexpr unsigned kCellDataWords = 2, kCellPointers = 4;
constexpr size_t kCellTypeByte = 8;
constexpr uint8_t kCellTypeDefault = 4;
// Mutation: timestamp u64 at 0, type u8 at 8 (default 2); pointers row, cells.
constexpr unsigned kMutationCells = 1;
constexpr size_t kMutationTypeByte = 8;
constexpr uint8_t kMutationTypeDefault = 2;
// GetRequest: row, columns. ScanRequest: numberOfRows u32 at 0; pointers
// startRow, stopRow, columns. Result: exists bit 0; pointers row, cells.
constexpr unsigned kGetColumns = 1;
constexpr unsigned kScanStartRow = 0, kScanStopRow = 1, kScanColumns = 2;
constexpr unsigned kResultCells = 1;
// Action: index u32 at 0, union tag u16 at byte 4; pointer 0 is the member.
constexpr size_t kActionTagByte = 4;
constexpr uint16_t kActionMutation = capn::Action::MUTATION;
constexpr uint16_t kActionGet = capn::Action::GET;

template <typename T>
constexpr bool Shaped(unsigned data_words, unsigned pointers) {
  return T::_capnpPrivate::dataWordSize == data_words &&
         T::_capnpPrivate::pointerCount == pointers;
}
static_assert(Shaped<capn::Call>(1, 1) && Shaped<capn::Cell>(kCellDataWords, kCellPointers) &&
                  Shaped<capn::Mutation>(2, 2) && Shaped<capn::Column>(0, 2) &&
                  Shaped<capn::MutateRequest>(0, 1) && Shaped<capn::GetRequest>(0, 2) &&
                  Shaped<capn::ScanRequest>(1, 3) && Shaped<capn::Action>(1, 1) &&
                  Shaped<capn::MultiRequest>(0, 1) && Shaped<capn::Result>(1, 2) &&
                  Shaped<capn::MutateResponse>(1, 0) && Shaped<capn::GetResponse>(0, 1) &&
                  Shaped<capn::ScanResponse>(1, 1) && Shaped<capn::ActionResult>(1, 2) &&
                  Shaped<capn::MultiResponse>(0, 1),
              "codecs/schemas/wirebench.capnp changed: update the field layout above");

// ---- Upper bounds of a message's words ----

size_t CellsWords(std::span<const Cell> cells, bool with_row) {
  size_t n = 1 + cells.size() * StructWords<capn::Cell>();  // List tag + elements.
  for (const Cell& c : cells)
    n += (with_row ? BlobWords(c.row) : 0) + BlobWords(c.family) + BlobWords(c.qualifier) +
         BlobWords(c.value);
  return n;
}

size_t MutationWords(const Mutation& m) {
  return StructWords<capn::Mutation>() + BlobWords(m.row) + CellsWords(m.cells, false);
}

size_t ColumnsWords(std::span<const Column> columns) {
  size_t n = 1 + columns.size() * StructWords<capn::Column>();
  for (const Column& c : columns) n += BlobWords(c.family) + BlobWords(c.qualifier);
  return n;
}

size_t GetWords(const GetRequest& g) {
  return StructWords<capn::GetRequest>() + BlobWords(g.row) + ColumnsWords(g.columns);
}

size_t ResultWords(const Result& r) {
  // The Result's row is one of its cells' rows.
  size_t row = 0;
  for (const Cell& c : r.cells) row = std::max(row, BlobWords(c.row));
  return StructWords<capn::Result>() + row + CellsWords(r.cells, true);
}

// The root pointer, the Call and its body struct.
template <typename Body>
constexpr size_t FrameWords() {
  return 1 + StructWords<capn::Call>() + StructWords<Body>();
}

class CapnpCodec final : public CodecAdapter<CapnpCodec> {
 public:
  CapnpCodec() : CodecAdapter(CodecId(6), "capnp", /*zero_copy_decode=*/true) {}

  // ---- Requests ----

  Status Encode(uint32_t, const MutateRequest& req, ByteBuffer* out) {
    return Build(FrameWords<capn::MutateRequest>() + MutationWords(req.mutation), out,
                 kMutateRequest, [&](W::Writer& w, size_t body) {
                   const size_t s = w.InitStruct<0, 1>(body);
                   PutMutation(w, s, req.mutation);
                 });
  }
  Status Encode(uint32_t, const GetRequest& req, ByteBuffer* out) {
    return Build(FrameWords<capn::GetRequest>() + GetWords(req), out, kGetRequest,
                 [&](W::Writer& w, size_t body) { PutGet(w, body, req); });
  }
  Status Encode(uint32_t, const ScanRequest& req, ByteBuffer* out) {
    const size_t words = FrameWords<capn::ScanRequest>() + BlobWords(req.start_row) +
                         BlobWords(req.stop_row) + ColumnsWords(req.columns);
    return Build(words, out, kScanRequest, [&](W::Writer& w, size_t body) {
      const size_t s = w.InitStruct<1, 3>(body);
      w.Put(s, req.number_of_rows);
      SetData(w, s + 1 + kScanStartRow, req.start_row);
      SetData(w, s + 1 + kScanStopRow, req.stop_row);
      PutColumns(w, s + 1 + kScanColumns, req.columns);
    });
  }
  Status Encode(uint32_t, const MultiRequest& req, ByteBuffer* out) {
    size_t words = FrameWords<capn::MultiRequest>() + 1 +
                   req.actions.size() * StructWords<capn::Action>();
    for (const Action& a : req.actions) {
      if (a.kind == ActionKind::kMutation) {
        words += MutationWords(a.mutation);
      } else if (a.kind == ActionKind::kGet) {
        words += GetWords(a.get);
      } else {
        return Status::InvalidArgument("capnp: Multi action " + std::to_string(a.index) +
                                       " has unknown kind " + std::to_string(int(a.kind)));
      }
    }
    return Build(words, out, kMultiRequest, [&](W::Writer& w, size_t body) {
      const size_t s = w.InitStruct<0, 1>(body);
      const size_t first = w.InitList(s, req.actions.size(), 1, 1);
      for (size_t i = 0; i < req.actions.size(); ++i) {
        const Action& a = req.actions[i];
        const size_t o = first + 2 * i;
        const bool mutation = a.kind == ActionKind::kMutation;
        w.Put(o, a.index | uint64_t(mutation ? kActionMutation : kActionGet)
                               << (8 * kActionTagByte));
        if (mutation) {
          PutMutation(w, o + 1, a.mutation);
        } else {
          PutGet(w, o + 1, a.get);
        }
      }
    });
  }

  Status Decode(ByteView payload, MutateRequest* req) {
    return Read(payload, kMutateRequest, [&](W::Reader& r, const W::Struct& body) {
      if (r.IsNull(body, 0)) return CapnpMalformed("Mutate request: no mutation");
      const W::Struct m = r.GetStruct(body, 0);
      const W::StructList cells = r.GetList(m, kMutationCells);
      Cell* slots = ScratchSlots(scratch_.cells, cells.size);
      if (!ReadMutation(r, m, cells, &slots, &req->mutation))
        return CapnpMalformed("Mutate request mutation: unknown mutation or cell type");
      return Status::Ok();
    });
  }
  Status Decode(ByteView payload, GetRequest* req) {
    return Read(payload, kGetRequest, [&](W::Reader& r, const W::Struct& body) {
      const W::StructList columns = r.GetList(body, kGetColumns);
      Column* slots = ScratchSlots(scratch_.columns, columns.size);
      ReadGet(r, body, columns, &slots, req);
      return Status::Ok();
    });
  }
  Status Decode(ByteView payload, ScanRequest* req) {
    return Read(payload, kScanRequest, [&](W::Reader& r, const W::Struct& body) {
      const W::StructList columns = r.GetList(body, kScanColumns);
      Column* slots = ScratchSlots(scratch_.columns, columns.size);
      req->start_row = r.GetData(body, kScanStartRow);
      req->stop_row = r.GetData(body, kScanStopRow);
      req->number_of_rows = body.Field<uint32_t>(0);
      req->columns = ReadColumns(r, columns, &slots);
      return Status::Ok();
    });
  }
  Status Decode(ByteView payload, MultiRequest* req) {
    return Read(payload, kMultiRequest, [&](W::Reader& r, const W::Struct& body) {
      const W::StructList actions = r.GetList(body, 0);
      const uint32_t n = actions.size;
      // First pass: check the kinds and size the scratch arrays.
      size_t ncells = 0, ncolumns = 0;
      for (uint32_t i = 0; i < n; ++i) {
        const W::Struct a = r.Element(actions, i);
        const uint16_t kind = a.Field<uint16_t>(kActionTagByte);
        if (kind == kActionMutation) {
          ncells += r.GetList(r.GetStruct(a, 0), kMutationCells).size;
        } else if (kind == kActionGet) {
          ncolumns += r.GetList(r.GetStruct(a, 0), kGetColumns).size;
        } else {
          return Status::Corruption("capnp: Multi action " +
                                    std::to_string(a.Field<uint32_t>(0)) +
                                    " carries neither a Mutation nor a GetRequest");
        }
      }
      if (!r.ok()) return Status::Ok();  // Read reports it.
      Action* out = ScratchSlots(scratch_.actions, n);
      Cell* cells = ScratchSlots(scratch_.cells, ncells);
      Column* columns = ScratchSlots(scratch_.columns, ncolumns);
      for (uint32_t i = 0; i < n; ++i) {
        const W::Struct a = r.Element(actions, i);
        Action& o = out[i];
        o.index = a.Field<uint32_t>(0);
        o.mutation = Mutation{};
        o.get = GetRequest{};
        const W::Struct inner = r.GetStruct(a, 0);
        if (a.Field<uint16_t>(kActionTagByte) == kActionMutation) {
          o.kind = ActionKind::kMutation;
          if (!ReadMutation(r, inner, r.GetList(inner, kMutationCells), &cells, &o.mutation))
            return CapnpMalformed("Multi request mutation: unknown mutation or cell type");
        } else {
          o.kind = ActionKind::kGet;
          ReadGet(r, inner, r.GetList(inner, kGetColumns), &columns, &o.get);
        }
      }
      req->actions = std::span<const Action>(out, n);
      return Status::Ok();
    });
  }

  // ---- Responses ----

  Status Encode(uint32_t, const MutateResponse& resp, ByteBuffer* out) {
    return Build(FrameWords<capn::MutateResponse>(), out, kMutateResponse,
                 [&](W::Writer& w, size_t body) {
                   const size_t s = w.InitStruct<1, 0>(body);
                   w.Put(s, resp.processed ? 0 : 1);  // Default true: stored inverted.
                 });
  }
  Status Encode(uint32_t, const GetResponse& resp, ByteBuffer* out) {
    return Build(FrameWords<capn::GetResponse>() + ResultWords(resp.result), out, kGetResponse,
                 [&](W::Writer& w, size_t body) {
                   const size_t s = w.InitStruct<0, 1>(body);
                   PutResult(w, w.InitStruct<1, 2>(s), resp.result);
                 });
  }
  Status Encode(uint32_t, const ScanResponse& resp, ByteBuffer* out) {
    size_t words = FrameWords<capn::ScanResponse>() + 1;
    for (const Result& r : resp.results) words += ResultWords(r);
    return Build(words, out, kScanResponse, [&](W::Writer& w, size_t body) {
      const size_t s = w.InitStruct<1, 1>(body);
      w.Put(s, resp.more_results ? 1 : 0);
      if (!resp.results.empty()) {
        const size_t first = w.InitList(s + 1, resp.results.size(), 1, 2);
        for (size_t i = 0; i < resp.results.size(); ++i)
          PutResult(w, first + 3 * i, resp.results[i]);
      }
    });
  }
  Status Encode(uint32_t, const MultiResponse& resp, ByteBuffer* out) {
    size_t words = FrameWords<capn::MultiResponse>() + 1;
    for (const ActionResult& ar : resp.results)
      words += StructWords<capn::ActionResult>() +
               (ar.ok ? ResultWords(ar.result) : BlobWords(ar.error));
    return Build(words, out, kMultiResponse, [&](W::Writer& w, size_t body) {
      const size_t s = w.InitStruct<0, 1>(body);
      const size_t first = w.InitList(s, resp.results.size(), 1, 2);
      for (size_t i = 0; i < resp.results.size(); ++i) {
        const ActionResult& ar = resp.results[i];
        const size_t o = first + 3 * i;
        // ok's default is true: stored inverted, at bit 32.
        w.Put(o, ar.index | (ar.ok ? 0 : uint64_t(1) << 32));
        // A failed action carries its reason and no result.
        if (ar.ok) {
          PutResult(w, w.InitStruct<1, 2>(o + 1), ar.result);
        } else {
          SetData(w, o + 2, ar.error);
        }
      }
    });
  }

  Status Decode(ByteView payload, MutateResponse* resp) {
    return Read(payload, kMutateResponse, [&](W::Reader&, const W::Struct& body) {
      resp->processed = !body.Bit(0);  // Default true: stored inverted.
      return Status::Ok();
    });
  }
  Status Decode(ByteView payload, GetResponse* resp) {
    return Read(payload, kGetResponse, [&](W::Reader& r, const W::Struct& body) {
      if (r.IsNull(body, 0)) {
        resp->result = Result{};
        return Status::Ok();
      }
      const W::Struct in = r.GetStruct(body, 0);
      const W::StructList cells = r.GetList(in, kResultCells);
      Cell* slots = ScratchSlots(scratch_.cells, cells.size);
      if (!ReadResult(r, in, cells, &slots, &resp->result))
        return CapnpMalformed("Get response result: unknown cell type");
      return Status::Ok();
    });
  }
  Status Decode(ByteView payload, ScanResponse* resp) {
    return Read(payload, kScanResponse, [&](W::Reader& r, const W::Struct& body) {
      const W::StructList results = r.GetList(body, 0);
      const uint32_t n = results.size;
      size_t ncells = 0;
      for (uint32_t i = 0; i < n; ++i)
        ncells += r.GetList(r.Element(results, i), kResultCells).size;
      if (!r.ok()) return Status::Ok();  // Read reports it.
      Result* out = ScratchSlots(scratch_.results, n);
      Cell* cells = ScratchSlots(scratch_.cells, ncells);
      for (uint32_t i = 0; i < n; ++i) {
        const W::Struct in = r.Element(results, i);
        if (!ReadResult(r, in, r.GetList(in, kResultCells), &cells, &out[i]))
          return CapnpMalformed("Scan response result: unknown cell type");
      }
      resp->results = std::span<const Result>(out, n);
      resp->more_results = body.Bit(0);
      return Status::Ok();
    });
  }
  Status Decode(ByteView payload, MultiResponse* resp) {
    return Read(payload, kMultiResponse, [&](W::Reader& r, const W::Struct& body) {
      const W::StructList results = r.GetList(body, 0);
      const uint32_t n = results.size;
      size_t ncells = 0;
      for (uint32_t i = 0; i < n; ++i)
        ncells += r.GetList(r.GetStruct(r.Element(results, i), 0), kResultCells).size;
      if (!r.ok()) return Status::Ok();  // Read reports it.
      ActionResult* out = ScratchSlots(scratch_.action_results, n);
      Cell* cells = ScratchSlots(scratch_.cells, ncells);
      for (uint32_t i = 0; i < n; ++i) {
        const W::Struct ar = r.Element(results, i);
        ActionResult& o = out[i];
        o.index = ar.Field<uint32_t>(0);
        o.ok = !ar.Bit(32);  // Default true: stored inverted.
        o.error = r.GetData(ar, 1);
        o.result = Result{};
        if (!r.IsNull(ar, 0)) {
          const W::Struct in = r.GetStruct(ar, 0);
          if (!ReadResult(r, in, r.GetList(in, kResultCells), &cells, &o.result))
            return CapnpMalformed("Multi response result: unknown cell type");
        }
      }
      resp->results = std::span<const ActionResult>(out, n);
      return Status::Ok();
    });
  }
 private:
  // ---- Encoding ----

  // Writes the Call whose body has union tag `tag`, `fill` writing the body
  // through the pointer at the word it is given, straight into `out` after
  // the word count. `words` is an upper bound of the message's words.
  template <typename Fill>
  Status Build(size_t words, ByteBuffer* out, uint16_t tag, Fill fill) {
    if (words > kMaxSegmentWords)
      return Status::InvalidArgument("capnp: message of " + std::to_string(words) +
                                     " words exceeds Cap'n Proto's one-segment limit");
    const size_t start = out->size();
    uint8_t* seg = out->Extend(kCountBytes + words * kWordBytes) + kCountBytes;
    W::Writer w(seg, words);
    const size_t call = w.Root<1, 1>();
    w.Put(call, tag);
    fill(w, call + 1);
    CountEncodeCopy(w.copied());
    if (!w.ok()) {
      out->Resize(start);
      return Status::InvalidArgument(std::string("capnp: cannot encode: ") + w.what());
    }
    out->Resize(start + kCountBytes + w.used() * kWordBytes);
    StoreLE32(out->data() + start, uint32_t(w.used()));
    return Status::Ok();
  }

  // Equal bytes; the same view (as a caller's cells often share one row or
  // family buffer) without comparing them.
  static bool Same(ByteView a, ByteView b) {
    return a.size() == b.size() && (a.data() == b.data() || a == b);
  }

  // Empty byte strings are left null (a null Data reads as empty).
  static void SetData(W::Writer& w, size_t p, ByteView v) {
    if (!v.empty()) w.SetData(p, v);
  }

  // Cells of a mutation leave out the row (it is the mutation's); cells of a
  // result leave out a row equal to `shared_row`. A family equal to the
  // previous cell's is left out. The cell list is allocated here, unzeroed:
  // every one of its words is written below (a null pointer as 0), which
  // saves zeroing the whole list first (480 bytes for a 1 KB put's 10 cells).
  static void PutCells(W::Writer& out, size_t list_pointer, std::span<const Cell> cells,
                       bool with_row, ByteView shared_row) {
    const size_t first = out.InitList</*kZeroed=*/false>(list_pointer, cells.size(),
                                                          kCellDataWords, kCellPointers);
    // A local copy keeps the writer's state in registers: each byte copy
    // into the segment could otherwise alias it and force a reload.
    W::Writer w = out;
    if (!w.ok()) return;  // The list did not fit: no word of it is ours.
    // Every word below lies inside the list just allocated: unchecked stores.
    ByteView family;
    for (size_t i = 0; i < cells.size(); ++i) {
      const Cell& c = cells[i];
      const size_t o = first + (kCellDataWords + kCellPointers) * i;
      w.PutAt(o, c.timestamp);
      w.PutAt(o + 1, uint8_t(c.type) ^ kCellTypeDefault);
      const size_t ptr = o + kCellDataWords;
      PutDataOrNull(w, ptr + kCellRow, c.row, with_row && !Same(c.row, shared_row));
      PutDataOrNull(w, ptr + kCellFamily, c.family,
                    i == 0 ? !c.family.empty() : !Same(c.family, family));
      family = c.family;
      PutDataOrNull(w, ptr + kCellQualifier, c.qualifier, !c.qualifier.empty());
      PutDataOrNull(w, ptr + kCellValue, c.value, !c.value.empty());
    }
    out = w;
  }
  // Into an unzeroed pointer word: v's data when `set`, else a null pointer.
  static void PutDataOrNull(W::Writer& w, size_t p, ByteView v, bool set) {
    if (set)
      w.SetDataAt(p, v);
    else
      w.PutAt(p, 0);
  }

  // A Mutation through the pointer at word p.
  static void PutMutation(W::Writer& w, size_t p, const Mutation& m) {
    const size_t s = w.InitStruct<2, 2>(p);
    w.Put(s, m.timestamp);
    w.Put(s + 1, uint8_t(m.type) ^ kMutationTypeDefault);
    SetData(w, s + 2, m.row);
    if (!m.cells.empty())
      PutCells(w, s + 2 + kMutationCells, m.cells, /*with_row=*/false, {});
  }

  // A List(Column) through the pointer at word p (left null when empty).
  static void PutColumns(W::Writer& w, size_t p, std::span<const Column> columns) {
    if (columns.empty()) return;
    const size_t first = w.InitList(p, columns.size(), 0, 2);
    for (size_t i = 0; i < columns.size(); ++i) {
      SetData(w, first + 2 * i, columns[i].family);
      SetData(w, first + 2 * i + 1, columns[i].qualifier);
    }
  }

  // A GetRequest through the pointer at word p.
  static void PutGet(W::Writer& w, size_t p, const GetRequest& g) {
    const size_t s = w.InitStruct<0, 2>(p);
    SetData(w, s, g.row);
    PutColumns(w, s + kGetColumns, g.columns);
  }

  // A Result into the (zeroed) struct at word s.
  static void PutResult(W::Writer& w, size_t s, const Result& r) {
    w.Put(s, r.exists ? 1 : 0);
    if (r.cells.empty()) return;
    const ByteView row = r.cells[0].row;
    SetData(w, s + 1, row);
    PutCells(w, s + 1 + kResultCells, r.cells, /*with_row=*/true, row);
  }
  // ---- Decoding ----

  // Checks the word count, aligns the segment if it must, and runs `read`
  // on the Call's body struct, whose union tag must be `want`. A pointer
  // the reader found bad (out of bounds, wrong kind, over the traversal
  // budget) fails the whole decode, whatever `read` returned.
  template <typename ReadBody>
  Status Read(ByteView payload, uint16_t want, ReadBody read) {
    const size_t n = payload.size();
    if (n < kCountBytes + kWordBytes)
      return Status::Corruption("capnp: payload of " + std::to_string(n) +
                                " bytes is too short to be a Cap'n Proto message");
    const uint32_t words = LoadLE32(payload.data());
    if ((n - kCountBytes) % kWordBytes != 0 || (n - kCountBytes) / kWordBytes != words)
      return Status::Corruption("capnp: payload of " + std::to_string(n) +
                                " bytes does not hold the " + std::to_string(words) +
                                " words its header announces (truncated or not a wirebench "
                                "Cap'n Proto call)");
    // Read in place at any alignment (capnp_wire loads words with memcpy).
    W::Reader r(payload.data() + kCountBytes, words, kTraversalFactor * words + kTraversalSlack);
    const W::Struct call = r.Root();
    const uint16_t which = call.Field<uint16_t>(0);
    if (!r.ok()) return Status::Corruption(std::string("capnp: ") + r.what());
    if (which != want)
      return Status::Corruption("capnp: expected body " + std::to_string(want) + ", got " +
                                std::to_string(which));
    const W::Struct body = r.GetStruct(call, 0);
    Status s = read(r, body);
    if (!r.ok()) return Status::Corruption(std::string("capnp: ") + r.what());
    return s;
  }

  // Fills one cell; false on an unknown cell type. `row` is the row to use
  // when the cell has none (mutation cells never carry one), `family` the
  // previous cell's family. A null Data reads as (nullptr, 0) and an empty
  // one as a pointer into the segment, which tells them apart.
  template <bool kCellsHaveRows>
  static bool ReadCell(W::Reader& r, const W::Struct& in, ByteView row, ByteView* family,
                       Cell* out) {
    const uint8_t type = in.Field<uint8_t>(kCellTypeByte) ^ kCellTypeDefault;
    if (!IsValidCellType(type)) return false;
    if constexpr (kCellsHaveRows) {
      const ByteView rv = r.GetData(in, kCellRow);
      out->row = rv.data() != nullptr ? rv : row;
    } else {
      out->row = row;
    }
    const ByteView f = r.GetData(in, kCellFamily);
    if (f.data() != nullptr) *family = f;
    out->family = *family;
    out->qualifier = r.GetData(in, kCellQualifier);
    out->timestamp = in.Field<uint64_t>(0);
    out->type = CellType(type);
    out->value = r.GetData(in, kCellValue);
    return true;
  }

  template <bool kCellsHaveRows>
  static bool ReadCells(W::Reader& r, const W::StructList& in, ByteView row, Cell** cells,
                        std::span<const Cell>* out) {
    Cell* first = *cells;
    ByteView family;
    const uint32_t n = in.size;
    // A local copy keeps the reader's state in registers: stores into the
    // cells could otherwise alias it, and would reload it for every field.
    W::Reader local = r;
    bool ok = true;
    for (uint32_t i = 0; ok && i < n; ++i)
      ok = ReadCell<kCellsHaveRows>(local, local.Element(in, i), row, &family, &first[i]);
    r = local;
    if (!ok) return false;
    *out = std::span<const Cell>(first, n);
    *cells += n;
    return true;
  }

  // Reads a mutation whose cell list is `cells`, taking its cells from
  // *slots onward and advancing it.
  static bool ReadMutation(W::Reader& r, const W::Struct& in, const W::StructList& cells,
                           Cell** slots, Mutation* out) {
    const uint8_t type = in.Field<uint8_t>(kMutationTypeByte) ^ kMutationTypeDefault;
    if (type > uint8_t(MutationType::kDelete)) return false;
    out->row = r.GetData(in, 0);
    out->type = MutationType(type);
    out->timestamp = in.Field<uint64_t>(0);
    return ReadCells<false>(r, cells, out->row, slots, &out->cells);
  }

  static std::span<const Column> ReadColumns(W::Reader& r, const W::StructList& in,
                                             Column** columns) {
    const uint32_t n = in.size;
    Column* first = *columns;
    for (uint32_t i = 0; i < n; ++i) {
      const W::Struct c = r.Element(in, i);
      first[i] = Column{r.GetData(c, 0), r.GetData(c, 1)};
    }
    *columns += n;
    return std::span<const Column>(first, n);
  }

  static void ReadGet(W::Reader& r, const W::Struct& in, const W::StructList& columns,
                      Column** slots, GetRequest* out) {
    out->row = r.GetData(in, 0);
    out->columns = ReadColumns(r, columns, slots);
  }

  static bool ReadResult(W::Reader& r, const W::Struct& in, const W::StructList& cells,
                         Cell** slots, Result* out) {
    out->exists = in.Bit(0);
    return ReadCells<true>(r, cells, r.GetData(in, 0), slots, &out->cells);
  }

  DecodeScratch scratch_;
};

}  // namespace

std::unique_ptr<Codec> NewCapnpCodec() { return std::make_unique<CapnpCodec>(); }

}  // namespace wirebench
