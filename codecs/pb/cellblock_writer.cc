#include "codecs/pb/cellblock_writer.h"

#include <cassert>

#include "codecs/hbase/key_value.h"
#include "codecs/hbase/pb_mapping.h"
#include "codecs/hbase/pb_wire.h"
#include "common/calls.h"
#include "common/thread_stats.h"

namespace wirebench::pb {

namespace {

// The two passes over one message: SizeSink measures, WriteSink writes. The
// Emit*() templates below run against both, so sizes and bytes cannot
// disagree. Bytes() is payload (counted as copied); Meta() is not.
class SizeSink {
 public:
  void Varint(uint32_t field, uint64_t v) { n_ += VarintFieldSize(field, v); }
  void Bytes(uint32_t field, ByteView v) { n_ += LenFieldSize(field, v.size()); }
  void Meta(uint32_t field, ByteView v) { n_ += LenFieldSize(field, v.size()); }
  template <typename F>
  void Message(uint32_t field, F&& body) {
    SizeSink inner;
    body(inner);
    n_ += LenFieldSize(field, inner.n_);
  }
  size_t size() const { return n_; }

 private:
  size_t n_ = 0;
};

class WriteSink {
 public:
  explicit WriteSink(uint8_t* p) : w_(p) {}
  void Varint(uint32_t field, uint64_t v) { w_.VarintField(field, v); }
  void Bytes(uint32_t field, ByteView v) { copied_ += w_.BytesField(field, v); }
  void Meta(uint32_t field, ByteView v) { w_.BytesField(field, v); }
  template <typename F>
  void Message(uint32_t field, F&& body) {
    SizeSink inner;
    body(inner);
    w_.LenHeader(field, inner.size());
    body(*this);
  }
  uint8_t* position() const { return w_.position(); }
  size_t copied() const { return copied_; }

 private:
  ProtoWriter w_;
  size_t copied_ = 0;
};

// Inlined, so the table's one region stays a constant whose size folds into
// the message's (a call per message cost a one-server run 40 instructions
// per operation).
template <typename S>
[[gnu::always_inline]] inline void EmitRegion(S& s, ByteView named) {
  s.Varint(1, 1);  // type = REGION_NAME
  if (named.empty()) [[likely]] {
    s.Meta(2, kRegionName);
  } else {
    s.Meta(2, named);
  }
}

template <typename S>
void EmitCellBlockMeta(S& s, uint32_t field, size_t block) {
  if (block == 0) return;  // HBase sends no meta when there is no cell block.
  s.Message(field, [&](auto& in) { in.Varint(1, block); });
}

template <typename S>
void EmitMutation(S& s, const Mutation& m) {
  s.Bytes(1, m.row);
  s.Varint(2, uint64_t(m.type));
  s.Varint(4, m.timestamp);
  s.Varint(8, m.cells.size());  // associated_cell_count; column_value stays empty.
}

template <typename S>
void EmitColumns(S& s, uint32_t field, std::span<const Column> cols) {
  ForEachColumnGroup(cols, [&](ByteView family, std::span<const Column> group) {
    s.Message(field, [&](auto& in) {
      in.Bytes(1, family);
      for (const Column& c : group)
        if (!c.qualifier.empty()) in.Bytes(2, c.qualifier);
    });
  });
}

template <typename S>
void EmitGet(S& s, const GetRequest& g) {
  s.Bytes(1, g.row);
  EmitColumns(s, 2, g.columns);
}

template <typename S>
void EmitResult(S& s, const Result& r) {
  s.Varint(2, r.cells.size());  // associated_cell_count
  // HBase sets exists only on a Result without cells (an existence-only
  // Get): its client's ProtobufUtil.toResult refuses exists with cells.
  if (r.exists && r.cells.empty()) s.Varint(3, 1);
}

// A scan row's Result in ScanResponse.results, beside cells_per_result
// (which HBase's client reads instead): its exists flag as it is.
template <typename S>
void EmitScanResult(S& s, const Result& r) {
  s.Varint(2, r.cells.size());  // associated_cell_count
  if (r.exists) s.Varint(3, 1);
}

// Appends header, param and cell block. `header(sink, block_bytes)` and
// `param(sink)` emit the two messages; `cells(f)` calls f(row, cell) for
// every cell of the block in order.
template <typename Header, typename Param, typename Cells>
Status Append(ByteBuffer* out, Header&& header, Param&& param, Cells&& cells) {
  size_t block = 0;
  const Cell* bad = nullptr;
  ByteView bad_row;
  cells([&](ByteView row, const Cell& c) {
    if (!FitsKeyValue(row, c) && bad == nullptr) {
      bad = &c;
      bad_row = row;
    }
    block += KeyValueBytes(row, c);
  });
  if (bad != nullptr) return CheckKeyValue(bad_row, *bad);
  if (block > 0xFFFFFFFFu)
    return Status::InvalidArgument("cellblock: cell block over 4 GiB; split the call");
  SizeSink hs, ps;
  header(hs, block);
  param(ps);
  size_t total = VarintSize(hs.size()) + hs.size() + VarintSize(ps.size()) + ps.size() + block;
  uint8_t* p = out->Extend(total);
  [[maybe_unused]] uint8_t* end = p + total;
  p = WriteVarint(p, hs.size());
  WriteSink hw(p);
  header(hw, block);
  p = WriteVarint(hw.position(), ps.size());
  WriteSink pw(p);
  param(pw);
  p = pw.position();
  size_t copied = hw.copied() + pw.copied();
  cells([&](ByteView row, const Cell& c) {
    p = WriteKeyValue(p, row, c);
    copied += row.size() + c.family.size() + c.qualifier.size() + c.value.size();
  });
  assert(p == end);
  CountEncodeCopy(copied);
  return Status::Ok();
}

auto RequestHeader(uint32_t call_id, Method method) {
  return [call_id, method](auto& s, size_t block) {
    s.Varint(1, call_id);
    s.Meta(3, MethodName(method));
    s.Varint(4, 1);  // request_param
    EmitCellBlockMeta(s, 5, block);
  };
}

auto ResponseHeader(uint32_t call_id) {
  return [call_id](auto& s, size_t block) {
    s.Varint(1, call_id);
    EmitCellBlockMeta(s, 3, block);
  };
}

auto MutationCells(const Mutation& m) {
  return [&m](auto&& f) {
    for (const Cell& c : m.cells) f(m.row, c);
  };
}

auto ResultCells(const Result& r) {
  return [&r](auto&& f) {
    for (const Cell& c : r.cells) f(c.row, c);
  };
}

auto NoCells() {
  return [](auto&&) {};
}

}  // namespace

Status AppendCellBlockRequest(uint32_t call_id, const MutateRequest& req, ByteBuffer* out) {
  return Append(
      out, RequestHeader(call_id, Method::kMutate),
      [&](auto& s) {
        s.Message(1, [&](auto& in) { EmitRegion(in, req.region); });
        s.Message(2, [&](auto& in) { EmitMutation(in, req.mutation); });
      },
      MutationCells(req.mutation));
}

Status AppendCellBlockRequest(uint32_t call_id, const GetRequest& req, ByteBuffer* out) {
  return Append(
      out, RequestHeader(call_id, Method::kGet),
      [&](auto& s) {
        s.Message(1, [&](auto& in) { EmitRegion(in, req.region); });
        s.Message(2, [&](auto& in) { EmitGet(in, req); });
      },
      NoCells());
}

Status AppendCellBlockRequest(uint32_t call_id, const ScanRequest& req, ByteBuffer* out) {
  return Append(
      out, RequestHeader(call_id, Method::kScan),
      [&](auto& s) {
        s.Message(1, [&](auto& in) { EmitRegion(in, req.region); });
        s.Message(2, [&](auto& in) {
          EmitColumns(in, 1, req.columns);
          if (!req.start_row.empty()) in.Bytes(3, req.start_row);
          if (!req.stop_row.empty()) in.Bytes(4, req.stop_row);
        });
        s.Varint(4, req.number_of_rows);
        // close_scanner: the rows come back in this one call and the server
        // keeps no scanner open after it (HBase's small scan; YCSB's binding
        // closes each scanner once it has its rows).
        s.Varint(5, 1);
      },
      NoCells());
}

Status AppendCellBlockRequest(uint32_t call_id, const MultiRequest& req, ByteBuffer* out) {
  return Append(
      out, RequestHeader(call_id, Method::kMulti),
      [&](auto& s) {
        s.Message(1, [&](auto& ra) {
          ra.Message(1, [&](auto& in) { EmitRegion(in, req.region); });
          for (const Action& a : req.actions) {
            ra.Message(3, [&](auto& in) {
              in.Varint(1, a.index);
              if (a.kind == ActionKind::kMutation) {
                in.Message(2, [&](auto& m) { EmitMutation(m, a.mutation); });
              } else {
                in.Message(3, [&](auto& g) { EmitGet(g, a.get); });
              }
            });
          }
        });
      },
      [&](auto&& f) {
        for (const Action& a : req.actions)
          if (a.kind == ActionKind::kMutation)
            for (const Cell& c : a.mutation.cells) f(a.mutation.row, c);
      });
}

Status AppendCellBlockResponse(uint32_t call_id, const MutateResponse& resp, ByteBuffer* out) {
  return Append(
      out, ResponseHeader(call_id), [&](auto& s) { s.Varint(2, resp.processed ? 1 : 0); },
      NoCells());
}

Status AppendCellBlockResponse(uint32_t call_id, const GetResponse& resp, ByteBuffer* out) {
  return Append(
      out, ResponseHeader(call_id),
      [&](auto& s) { s.Message(1, [&](auto& in) { EmitResult(in, resp.result); }); },
      ResultCells(resp.result));
}

Status AppendCellBlockResponse(uint32_t call_id, const ScanResponse& resp, ByteBuffer* out) {
  return Append(
      out, ResponseHeader(call_id),
      [&](auto& s) {
        for (const Result& r : resp.results) s.Varint(1, r.cells.size());  // cells_per_result
        s.Varint(3, resp.more_results ? 1 : 0);
        // HBase's cell-block scan results have no exists flag; a row a scan
        // returns exists. Only when some result says otherwise does the
        // response also carry HBase's `results`, one Result per row with
        // associated_cell_count and exists (HBase's client ignores `results`
        // when a cell block comes along).
        bool all_exist = true;
        for (const Result& r : resp.results) all_exist = all_exist && r.exists;
        if (!all_exist)
          for (const Result& r : resp.results)
            s.Message(5, [&](auto& in) { EmitScanResult(in, r); });
      },
      [&](auto&& f) {
        for (const Result& r : resp.results)
          for (const Cell& c : r.cells) f(c.row, c);
      });
}

Status AppendCellBlockResponse(uint32_t call_id, const MultiResponse& resp, ByteBuffer* out) {
  return Append(
      out, ResponseHeader(call_id),
      [&](auto& s) {
        s.Message(1, [&](auto& rar) {
          for (const ActionResult& ar : resp.results) {
            rar.Message(1, [&](auto& in) {
              in.Varint(1, ar.index);
              if (ar.ok) {
                in.Message(2, [&](auto& r) { EmitResult(r, ar.result); });
              } else {
                in.Message(3, [&](auto& e) {
                  const ActionException ex = ActionExceptionOf(ar.error);
                  e.Meta(1, ex.name);
                  e.Meta(2, ex.text);
                });
              }
            });
          }
        });
      },
      [&](auto&& f) {
        for (const ActionResult& ar : resp.results)
          if (ar.ok)
            for (const Cell& c : ar.result.cells) f(c.row, c);
      });
}

}  // namespace wirebench::pb
