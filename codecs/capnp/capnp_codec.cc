// The `capnp` codec. Layout: codecs/schemas/wirebench.capnp; the C++
// accessors are generated from it by `capnp compile -oc++` at build time.
//
// Payload: u32 little-endian N, then the message's one segment of N words.
//
// Encode: an upper bound of the message's words is computed from its
// shape (struct sizes from the generated code, blobs rounded up to words);
// that many zeroed words are reserved in `out` right after the count, and a
// MessageBuilder whose only segment is that stretch builds the message in
// place. `out` is then cut to the words actually used. If Cap'n Proto ever
// asks for a second segment (the bound was wrong), the attempt is dropped and
// redone with room for everything it used, so the payload is always one
// segment and the steady state allocates nothing.
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
// read through a SegmentArrayMessageReader with the limits of
// capnp_codec.h. Cap'n Proto reports malformed input by throwing
// kj::Exception, which is caught here and returned as Corruption.
#include "codecs/capnp/capnp_codec.h"

#include <capnp/message.h>
#include <kj/exception.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "codecs/codec_adapter.h"
#include "common/thread_stats.h"
#include "wirebench.capnp.h"

namespace wirebench {

namespace {

using capnp::word;

constexpr size_t kWordBytes = sizeof(word);
constexpr size_t kCountBytes = 4;
// Nesting: Call > body > MultiResponse > ActionResult > Result > Cell > Data.
constexpr int kNestingLimit = 16;
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

capnp::Data::Reader AsData(ByteView v) { return capnp::Data::Reader(v.data(), v.size()); }

ByteView View(capnp::Data::Reader d) { return ByteView(d.begin(), d.size()); }

Status Malformed(const char* what) {
  return Status::Corruption(std::string("capnp: malformed ") + what);
}

// Grows a scratch vector to at least n elements; never shrinks it.
template <typename T>
T* Slots(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

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

// A MessageBuilder whose first segment is given memory (zeroed by the
// caller). A request for any further segment means the bound was too low:
// it is served from a spill area, and the caller rebuilds.
class OneSegmentBuilder final : public capnp::MessageBuilder {
 public:
  OneSegmentBuilder(word* first, size_t words) : first_(first), words_(words) {}
  ~OneSegmentBuilder() noexcept(false) override = default;

  kj::ArrayPtr<word> allocateSegment(unsigned minimum) override {
    if (!given_ && minimum <= words_) {
      given_ = true;
      return kj::ArrayPtr<word>(first_, words_);
    }
    given_ = true;
    overflowed_ = true;
    const size_t n = std::max<size_t>(minimum, 1024);
    spill_.push_back(std::make_unique<uint64_t[]>(n));  // Zeroed.
    spilled_words_ += n;
    return kj::ArrayPtr<word>(reinterpret_cast<word*>(spill_.back().get()), n);
  }

  bool overflowed() const { return overflowed_; }
  size_t spilled_words() const { return spilled_words_; }

 private:
  word* first_;
  size_t words_;
  bool given_ = false;
  bool overflowed_ = false;
  size_t spilled_words_ = 0;
  std::vector<std::unique_ptr<uint64_t[]>> spill_;
};

class CapnpCodec final : public CodecAdapter<CapnpCodec> {
 public:
  CapnpCodec() : CodecAdapter(CodecId(6), "capnp", /*zero_copy_decode=*/true) {}

  // ---- Requests ----

  Status Encode(uint32_t, const MutateRequest& req, ByteBuffer* out) {
    return Build(FrameWords<capn::MutateRequest>() + MutationWords(req.mutation), out,
                 [&](capn::Call::Body::Builder body) {
                   PutMutation(req.mutation, body.initMutateRequest().initMutation());
                 });
  }
  Status Encode(uint32_t, const GetRequest& req, ByteBuffer* out) {
    return Build(FrameWords<capn::GetRequest>() + GetWords(req), out,
                 [&](capn::Call::Body::Builder body) { PutGet(req, body.initGetRequest()); });
  }
  Status Encode(uint32_t, const ScanRequest& req, ByteBuffer* out) {
    const size_t words = FrameWords<capn::ScanRequest>() + BlobWords(req.start_row) +
                         BlobWords(req.stop_row) + ColumnsWords(req.columns);
    return Build(words, out, [&](capn::Call::Body::Builder body) {
      capn::ScanRequest::Builder s = body.initScanRequest();
      SetData(req.start_row, [&](auto d) { s.setStartRow(d); });
      SetData(req.stop_row, [&](auto d) { s.setStopRow(d); });
      s.setNumberOfRows(req.number_of_rows);
      PutColumns(req.columns, [&](unsigned n) { return s.initColumns(n); });
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
    return Build(words, out, [&](capn::Call::Body::Builder body) {
      auto actions = body.initMultiRequest().initActions(unsigned(req.actions.size()));
      for (size_t i = 0; i < req.actions.size(); ++i) {
        const Action& a = req.actions[i];
        capn::Action::Builder o = actions[unsigned(i)];
        o.setIndex(a.index);
        if (a.kind == ActionKind::kMutation) {
          PutMutation(a.mutation, o.initMutation());
        } else {
          PutGet(a.get, o.initGet());
        }
      }
    });
  }

  Status Decode(ByteView payload, MutateRequest* req) {
    return Read(payload, capn::Call::Body::MUTATE_REQUEST, [&](capn::Call::Body::Reader body) {
      capn::MutateRequest::Reader in = body.getMutateRequest();
      if (!in.hasMutation()) return Malformed("Mutate request: no mutation");
      capn::Mutation::Reader m = in.getMutation();
      Cell* cells = Slots(cells_, m.getCells().size());
      if (!ReadMutation(m, &cells, &req->mutation)) return Malformed("Mutate request mutation");
      return Status::Ok();
    });
  }
  Status Decode(ByteView payload, GetRequest* req) {
    return Read(payload, capn::Call::Body::GET_REQUEST, [&](capn::Call::Body::Reader body) {
      capn::GetRequest::Reader in = body.getGetRequest();
      Column* columns = Slots(columns_, in.getColumns().size());
      ReadGet(in, &columns, req);
      return Status::Ok();
    });
  }
  Status Decode(ByteView payload, ScanRequest* req) {
    return Read(payload, capn::Call::Body::SCAN_REQUEST, [&](capn::Call::Body::Reader body) {
      capn::ScanRequest::Reader in = body.getScanRequest();
      auto in_columns = in.getColumns();
      Column* columns = Slots(columns_, in_columns.size());
      req->start_row = View(in.getStartRow());
      req->stop_row = View(in.getStopRow());
      req->number_of_rows = in.getNumberOfRows();
      req->columns = ReadColumns(in_columns, &columns);
      return Status::Ok();
    });
  }
  Status Decode(ByteView payload, MultiRequest* req) {
    return Read(payload, capn::Call::Body::MULTI_REQUEST, [&](capn::Call::Body::Reader body) {
      auto actions = body.getMultiRequest().getActions();
      const unsigned n = actions.size();
      // First pass: size the scratch arrays.
      size_t ncells = 0, ncolumns = 0;
      for (capn::Action::Reader a : actions) {
        switch (a.which()) {
          case capn::Action::MUTATION:
            ncells += a.getMutation().getCells().size();
            break;
          case capn::Action::GET:
            ncolumns += a.getGet().getColumns().size();
            break;
          default:
            return Status::Corruption("capnp: Multi action " + std::to_string(a.getIndex()) +
                                      " carries neither a Mutation nor a GetRequest");
        }
      }
      Action* out = Slots(actions_, n);
      Cell* cells = Slots(cells_, ncells);
      Column* columns = Slots(columns_, ncolumns);
      for (unsigned i = 0; i < n; ++i) {
        capn::Action::Reader a = actions[i];
        Action& o = out[i];
        o.index = a.getIndex();
        o.mutation = Mutation{};
        o.get = GetRequest{};
        if (a.isMutation()) {
          o.kind = ActionKind::kMutation;
          if (!ReadMutation(a.getMutation(), &cells, &o.mutation))
            return Malformed("Multi request mutation");
        } else {
          o.kind = ActionKind::kGet;
          ReadGet(a.getGet(), &columns, &o.get);
        }
      }
      req->actions = std::span<const Action>(out, n);
      return Status::Ok();
    });
  }

  // ---- Responses ----

  Status Encode(uint32_t, const MutateResponse& resp, ByteBuffer* out) {
    return Build(FrameWords<capn::MutateResponse>(), out, [&](capn::Call::Body::Builder body) {
      body.initMutateResponse().setProcessed(resp.processed);
    });
  }
  Status Encode(uint32_t, const GetResponse& resp, ByteBuffer* out) {
    return Build(FrameWords<capn::GetResponse>() + ResultWords(resp.result), out,
                 [&](capn::Call::Body::Builder body) {
                   PutResult(resp.result, body.initGetResponse().initResult());
                 });
  }
  Status Encode(uint32_t, const ScanResponse& resp, ByteBuffer* out) {
    size_t words = FrameWords<capn::ScanResponse>() + 1;
    for (const Result& r : resp.results) words += ResultWords(r);
    return Build(words, out, [&](capn::Call::Body::Builder body) {
      capn::ScanResponse::Builder s = body.initScanResponse();
      if (!resp.results.empty()) {
        auto results = s.initResults(unsigned(resp.results.size()));
        for (size_t i = 0; i < resp.results.size(); ++i)
          PutResult(resp.results[i], results[unsigned(i)]);
      }
      s.setMoreResults(resp.more_results);
    });
  }
  Status Encode(uint32_t, const MultiResponse& resp, ByteBuffer* out) {
    size_t words = FrameWords<capn::MultiResponse>() + 1;
    for (const ActionResult& ar : resp.results)
      words += StructWords<capn::ActionResult>() +
               (ar.ok ? ResultWords(ar.result) : BlobWords(ar.error));
    return Build(words, out, [&](capn::Call::Body::Builder body) {
      auto results = body.initMultiResponse().initResults(unsigned(resp.results.size()));
      for (size_t i = 0; i < resp.results.size(); ++i) {
        const ActionResult& ar = resp.results[i];
        capn::ActionResult::Builder o = results[unsigned(i)];
        o.setIndex(ar.index);
        o.setOk(ar.ok);
        // A failed action carries its reason and no result.
        if (ar.ok) {
          PutResult(ar.result, o.initResult());
        } else {
          SetData(ar.error, [&](auto d) { o.setError(d); });
        }
      }
    });
  }

  Status Decode(ByteView payload, MutateResponse* resp) {
    return Read(payload, capn::Call::Body::MUTATE_RESPONSE, [&](capn::Call::Body::Reader body) {
      resp->processed = body.getMutateResponse().getProcessed();
      return Status::Ok();
    });
  }
  Status Decode(ByteView payload, GetResponse* resp) {
    return Read(payload, capn::Call::Body::GET_RESPONSE, [&](capn::Call::Body::Reader body) {
      capn::GetResponse::Reader in = body.getGetResponse();
      if (!in.hasResult()) {
        resp->result = Result{};
        return Status::Ok();
      }
      capn::Result::Reader r = in.getResult();
      Cell* cells = Slots(cells_, r.getCells().size());
      if (!ReadResult(r, &cells, &resp->result)) return Malformed("Get response result");
      return Status::Ok();
    });
  }
  Status Decode(ByteView payload, ScanResponse* resp) {
    return Read(payload, capn::Call::Body::SCAN_RESPONSE, [&](capn::Call::Body::Reader body) {
      capn::ScanResponse::Reader in = body.getScanResponse();
      auto results = in.getResults();
      const unsigned n = results.size();
      size_t ncells = 0;
      for (capn::Result::Reader r : results) ncells += r.getCells().size();
      Result* out = Slots(results_, n);
      Cell* cells = Slots(cells_, ncells);
      for (unsigned i = 0; i < n; ++i)
        if (!ReadResult(results[i], &cells, &out[i])) return Malformed("Scan response result");
      resp->results = std::span<const Result>(out, n);
      resp->more_results = in.getMoreResults();
      return Status::Ok();
    });
  }
  Status Decode(ByteView payload, MultiResponse* resp) {
    return Read(payload, capn::Call::Body::MULTI_RESPONSE, [&](capn::Call::Body::Reader body) {
      auto results = body.getMultiResponse().getResults();
      const unsigned n = results.size();
      size_t ncells = 0;
      for (capn::ActionResult::Reader ar : results)
        if (ar.hasResult()) ncells += ar.getResult().getCells().size();
      ActionResult* out = Slots(action_results_, n);
      Cell* cells = Slots(cells_, ncells);
      for (unsigned i = 0; i < n; ++i) {
        capn::ActionResult::Reader ar = results[i];
        ActionResult& o = out[i];
        o.index = ar.getIndex();
        o.ok = ar.getOk();
        o.error = View(ar.getError());
        o.result = Result{};
        if (ar.hasResult() && !ReadResult(ar.getResult(), &cells, &o.result))
          return Malformed("Multi response result");
      }
      resp->results = std::span<const ActionResult>(out, n);
      return Status::Ok();
    });
  }

 private:
  // ---- Encoding ----

  // Builds the message `fill` writes into the Call's body, straight into
  // `out` when its end is 8-byte aligned for the segment.
  template <typename Fill>
  Status Build(size_t words, ByteBuffer* out, Fill fill) {
    const size_t start = out->size();
    uint64_t copies = 0;
    for (;;) {
      if (words > kMaxSegmentWords)
        return Status::InvalidArgument("capnp: message of " + std::to_string(words) +
                                       " words exceeds Cap'n Proto's one-segment limit");
      out->Reserve(start + kCountBytes + words * kWordBytes);
      uint8_t* seg_bytes = out->data() + start + kCountBytes;
      const bool in_place = reinterpret_cast<uintptr_t>(seg_bytes) % kWordBytes == 0;
      // The scratch grows with the largest message even when unused, so the
      // rare unaligned `out` (after a partial write left an odd remainder in
      // the send buffer) finds it ready instead of allocating mid-run.
      uint64_t* scratch = Slots(encode_scratch_, words);
      word* seg;
      if (in_place) {
        out->Extend(kCountBytes + words * kWordBytes);
        seg = reinterpret_cast<word*>(seg_bytes);
      } else {
        seg = reinterpret_cast<word*>(scratch);
      }
      std::memset(seg, 0, words * kWordBytes);
      copied_ = 0;
      OneSegmentBuilder builder(seg, words);
      try {
        fill(builder.initRoot<capn::Call>().initBody());
      } catch (const kj::Exception& e) {
        out->Resize(start);
        CountEncodeCopy(copies);
        return Status::InvalidArgument(std::string("capnp: cannot encode: ") +
                                       e.getDescription().cStr());
      }
      copies += copied_;
      if (builder.overflowed()) {
        // The bound was low: make room for all it used and start over.
        words += builder.spilled_words();
        out->Resize(start);
        continue;
      }
      const size_t used = builder.getSegmentsForOutput()[0].size();
      if (in_place) {
        out->Resize(start + kCountBytes + used * kWordBytes);
      } else {
        out->Resize(start);
        out->Extend(kCountBytes);
        out->Append(seg, used * kWordBytes);
        copies += copied_;  // Every payload byte once more, scratch to `out`.
      }
      StoreLE32(out->data() + start, uint32_t(used));
      CountEncodeCopy(copies);
      return Status::Ok();
    }
  }

  // Empty byte strings are left null (a null Data reads as empty).
  template <typename Setter>
  void SetData(ByteView v, Setter set) {
    if (v.empty()) return;
    copied_ += v.size();
    set(AsData(v));
  }
  // Sets even an empty byte string, where null means "same as before".
  template <typename Setter>
  void SetDataAlways(ByteView v, Setter set) {
    copied_ += v.size();
    set(AsData(v));
  }

  // Cells of a mutation leave out the row (it is the mutation's); cells of a
  // result leave out a row equal to `shared_row`. A family equal to the
  // previous cell's is left out.
  void PutCells(std::span<const Cell> cells, bool with_row, ByteView shared_row,
                capnp::List<capn::Cell>::Builder out) {
    ByteView family;
    for (size_t i = 0; i < cells.size(); ++i) {
      const Cell& c = cells[i];
      capn::Cell::Builder o = out[unsigned(i)];
      if (with_row && !(c.row == shared_row)) SetDataAlways(c.row, [&](auto d) { o.setRow(d); });
      if (i == 0 ? !c.family.empty() : !(c.family == family))
        SetDataAlways(c.family, [&](auto d) { o.setFamily(d); });
      family = c.family;
      SetData(c.qualifier, [&](auto d) { o.setQualifier(d); });
      SetData(c.value, [&](auto d) { o.setValue(d); });
      o.setTimestamp(c.timestamp);
      o.setType(uint8_t(c.type));
    }
  }

  void PutMutation(const Mutation& m, capn::Mutation::Builder o) {
    SetData(m.row, [&](auto d) { o.setRow(d); });
    o.setType(uint8_t(m.type));
    o.setTimestamp(m.timestamp);
    if (!m.cells.empty())
      PutCells(m.cells, /*with_row=*/false, {}, o.initCells(unsigned(m.cells.size())));
  }

  template <typename Init>
  void PutColumns(std::span<const Column> columns, Init init) {
    if (columns.empty()) return;
    auto out = init(unsigned(columns.size()));
    for (size_t i = 0; i < columns.size(); ++i) {
      capn::Column::Builder o = out[unsigned(i)];
      SetData(columns[i].family, [&](auto d) { o.setFamily(d); });
      SetData(columns[i].qualifier, [&](auto d) { o.setQualifier(d); });
    }
  }

  void PutGet(const GetRequest& g, capn::GetRequest::Builder o) {
    SetData(g.row, [&](auto d) { o.setRow(d); });
    PutColumns(g.columns, [&](unsigned n) { return o.initColumns(n); });
  }

  void PutResult(const Result& r, capn::Result::Builder o) {
    o.setExists(r.exists);
    if (r.cells.empty()) return;
    const ByteView row = r.cells[0].row;
    SetData(row, [&](auto d) { o.setRow(d); });
    PutCells(r.cells, /*with_row=*/true, row, o.initCells(unsigned(r.cells.size())));
  }

  // ---- Decoding ----

  // Checks the word count, aligns the segment if it must, and runs `read`
  // on the body, which must be of type `want`.
  template <typename ReadBody>
  Status Read(ByteView payload, capn::Call::Body::Which want, ReadBody read) {
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
    const uint8_t* seg_bytes = payload.data() + kCountBytes;
    // Sized for the largest message even when aligned (see Build).
    uint64_t* copy = Slots(aligned_, words);
    if (reinterpret_cast<uintptr_t>(seg_bytes) % kWordBytes != 0) {
      std::memcpy(copy, seg_bytes, size_t(words) * kWordBytes);
      CountDecodeCopy(n - kCountBytes);
      seg_bytes = reinterpret_cast<const uint8_t*>(copy);
    }
    const kj::ArrayPtr<const word> segment(reinterpret_cast<const word*>(seg_bytes), words);
    capnp::ReaderOptions options;
    options.traversalLimitInWords = kTraversalFactor * words + kTraversalSlack;
    options.nestingLimit = kNestingLimit;
    try {
      capnp::SegmentArrayMessageReader reader(kj::arrayPtr(&segment, 1), options);
      capn::Call::Body::Reader body = reader.getRoot<capn::Call>().getBody();
      if (body.which() != want)
        return Status::Corruption("capnp: expected body " + std::to_string(int(want)) +
                                  ", got " + std::to_string(int(body.which())));
      return read(body);
    } catch (const kj::Exception& e) {
      return Status::Corruption(std::string("capnp: ") + e.getDescription().cStr());
    }
  }

  // Fills one cell; false on an unknown cell type. `row` is the row to use
  // when the cell has none (mutation cells never carry one), `family` the
  // previous cell's family. A null Data reads as (nullptr, 0) and an empty
  // one as a pointer into the segment, which tells them apart without the
  // extra pointer check of hasRow()/hasFamily().
  template <bool kCellsHaveRows>
  static bool ReadCell(capn::Cell::Reader in, ByteView row, ByteView* family, Cell* out) {
    const uint8_t type = in.getType();
    if (!IsValidCellType(type)) return false;
    if constexpr (kCellsHaveRows) {
      const capnp::Data::Reader r = in.getRow();
      out->row = r.begin() != nullptr ? View(r) : row;
    } else {
      out->row = row;
    }
    const capnp::Data::Reader f = in.getFamily();
    if (f.begin() != nullptr) *family = View(f);
    out->family = *family;
    out->qualifier = View(in.getQualifier());
    out->timestamp = in.getTimestamp();
    out->type = CellType(type);
    out->value = View(in.getValue());
    return true;
  }

  template <bool kCellsHaveRows>
  static bool ReadCells(capnp::List<capn::Cell>::Reader in, ByteView row, Cell** cells,
                        std::span<const Cell>* out) {
    Cell* first = *cells;
    ByteView family;
    const unsigned n = in.size();
    for (unsigned i = 0; i < n; ++i)
      if (!ReadCell<kCellsHaveRows>(in[i], row, &family, &first[i])) return false;
    *out = std::span<const Cell>(first, n);
    *cells += n;
    return true;
  }

  // Reads a mutation, taking its cells from *cells onward and advancing it.
  static bool ReadMutation(capn::Mutation::Reader in, Cell** cells, Mutation* out) {
    const uint8_t type = in.getType();
    if (type > uint8_t(MutationType::kDelete)) return false;
    out->row = View(in.getRow());
    out->type = MutationType(type);
    out->timestamp = in.getTimestamp();
    return ReadCells<false>(in.getCells(), out->row, cells, &out->cells);
  }

  static std::span<const Column> ReadColumns(capnp::List<capn::Column>::Reader in,
                                             Column** columns) {
    const unsigned n = in.size();
    Column* first = *columns;
    for (unsigned i = 0; i < n; ++i) {
      capn::Column::Reader c = in[i];
      first[i] = Column{View(c.getFamily()), View(c.getQualifier())};
    }
    *columns += n;
    return std::span<const Column>(first, n);
  }

  static void ReadGet(capn::GetRequest::Reader in, Column** columns, GetRequest* out) {
    out->row = View(in.getRow());
    out->columns = ReadColumns(in.getColumns(), columns);
  }

  static bool ReadResult(capn::Result::Reader in, Cell** cells, Result* out) {
    out->exists = in.getExists();
    return ReadCells<true>(in.getCells(), View(in.getRow()), cells, &out->cells);
  }

  uint64_t copied_ = 0;
  // Aligned segments for an `out` or a payload whose segment is not: kept
  // apart so an encode never overwrites what the last decode's views show.
  std::vector<uint64_t> encode_scratch_;
  std::vector<uint64_t> aligned_;
  std::vector<Cell> cells_;
  std::vector<Column> columns_;
  std::vector<Result> results_;
  std::vector<Action> actions_;
  std::vector<ActionResult> action_results_;
};

}  // namespace

std::unique_ptr<Codec> NewCapnpCodec() { return std::make_unique<CapnpCodec>(); }

}  // namespace wirebench
