// Test-only builders of codec messages and deep comparisons between them,
// shared by the codec conformance suite and any codec's own tests.
//
// A MessageStore owns every byte and array a built message's views point at;
// the messages stay valid while the store lives (storage never moves: each
// string and array is held in a deque). SameMessage() compares
// two messages field by field and says where the first difference is.
// Cases() is the conformance catalogue every codec must carry.
// Thread-safety: plain values; one thread per store; Cases() builds its
// catalogue once (function-local statics).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <span>
#include <string>
#include <tuple>
#include <variant>
#include <utility>
#include <variant>
#include <type_traits>
#include <vector>

#include "codecs/codec.h"
#include "codecs/message.h"
#include "common/bytes.h"
#include "common/str_cat.h"

namespace wirebench::testing {

// Owns the storage behind built messages.
class MessageStore {
 public:
  MessageStore() = default;
  MessageStore(const MessageStore&) = delete;
  MessageStore& operator=(const MessageStore&) = delete;

  ByteView Bytes(std::string s) {
    strings_.push_back(std::move(s));
    return ByteView(strings_.back());
  }
  template <typename T>
  std::span<const T> Array(std::vector<T> v) {
    auto& list = std::get<std::deque<std::vector<T>>>(arrays_);
    list.push_back(std::move(v));
    return std::span<const T>(list.back());
  }

 private:
  std::deque<std::string> strings_;
  std::tuple<std::deque<std::vector<Cell>>, std::deque<std::vector<Column>>,
             std::deque<std::vector<Result>>, std::deque<std::vector<Action>>,
             std::deque<std::vector<ActionResult>>>
      arrays_;
};

// YCSB's key shape: "user" + 19 digits.
inline std::string YcsbKey(uint64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "user%019llu", static_cast<unsigned long long>(n));
  return buf;
}

// Every byte value 0x00..0xFF once, starting at `rotate`.
inline std::string AllBytes(int rotate = 0) {
  std::string s(256, '\0');
  for (int i = 0; i < 256; ++i) s[i] = char((i + rotate) & 0xFF);
  return s;
}

// A deterministic value of n bytes that differs per (seed, n).
inline std::string PatternValue(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    s[i] = char(x >> 24);
  }
  return s;
}

// Cells of one row, family "family", qualifiers field0.., values of
// `value_size` bytes: the YCSB record shape (docs/design.md, "Codecs").
inline std::span<const Cell> YcsbCells(MessageStore* st, ByteView row, int fields,
                                       size_t value_size, uint64_t timestamp, uint32_t seed) {
  ByteView family = st->Bytes("family");
  std::vector<Cell> cells;
  for (int i = 0; i < fields; ++i) {
    Cell c;
    c.row = row;
    c.family = family;
    c.qualifier = st->Bytes("field" + std::to_string(i));
    c.timestamp = timestamp;
    c.type = CellType::kPut;
    c.value = st->Bytes(PatternValue(value_size, seed + uint32_t(i)));
    cells.push_back(c);
  }
  return st->Array(std::move(cells));
}

// The 1 KB put of the fairness rule: 10 fields of 100 bytes.
inline Mutation YcsbPut(MessageStore* st, uint64_t key, int fields = 10, size_t value_size = 100) {
  Mutation m;
  m.row = st->Bytes(YcsbKey(key));
  m.type = MutationType::kPut;
  m.cells = YcsbCells(st, m.row, fields, value_size, 0, uint32_t(key));
  return m;
}

// The canned read: one row, 10 cells of 100 bytes.
inline Result YcsbResult(MessageStore* st, uint64_t key, int fields = 10,
                         size_t value_size = 100) {
  Result r;
  r.exists = true;
  r.cells = YcsbCells(st, st->Bytes(YcsbKey(key)), fields, value_size, 1700000000123ull,
                      uint32_t(key) + 7);
  return r;
}

// ---- Deep comparison ----

inline std::string Show(ByteView v) {
  std::string s;
  size_t n = v.size() < 24 ? v.size() : 24;
  for (size_t i = 0; i < n; ++i) {
    char buf[4];
    std::snprintf(buf, sizeof(buf), "%02x", v[i]);
    s += buf;
  }
  if (n < v.size()) s += "...";
  return StrCat("[", std::to_string(v.size()), " bytes: ", s, "]");
}

// Collects the first difference between two messages.
class Diff {
 public:
  bool ok() const { return what_.empty(); }
  const std::string& what() const { return what_; }

  void Bytes(const std::string& where, ByteView a, ByteView b) {
    if (ok() && !(a == b)) what_ = where + ": " + Show(a) + " vs " + Show(b);
  }
  template <typename T>
  void Value(const std::string& where, T a, T b) {
    if (ok() && !(a == b))
      what_ = where + ": " + std::to_string(int64_t(a)) + " vs " + std::to_string(int64_t(b));
  }
  void Size(const std::string& where, size_t a, size_t b) { Value(where + ".size", a, b); }

  void Of(const std::string& w, const Cell& a, const Cell& b) {
    Bytes(w + ".row", a.row, b.row);
    Bytes(w + ".family", a.family, b.family);
    Bytes(w + ".qualifier", a.qualifier, b.qualifier);
    Value(w + ".timestamp", a.timestamp, b.timestamp);
    Value(w + ".type", uint8_t(a.type), uint8_t(b.type));
    Bytes(w + ".value", a.value, b.value);
  }
  void Of(const std::string& w, const Column& a, const Column& b) {
    Bytes(w + ".family", a.family, b.family);
    Bytes(w + ".qualifier", a.qualifier, b.qualifier);
  }
  template <typename T>
  void Of(const std::string& w, std::span<const T> a, std::span<const T> b) {
    Size(w, a.size(), b.size());
    for (size_t i = 0; ok() && i < a.size(); ++i) Of(w + "[" + std::to_string(i) + "]", a[i], b[i]);
  }
  void Of(const std::string& w, const Mutation& a, const Mutation& b) {
    Bytes(w + ".row", a.row, b.row);
    Value(w + ".type", uint8_t(a.type), uint8_t(b.type));
    Value(w + ".timestamp", a.timestamp, b.timestamp);
    Of(w + ".cells", a.cells, b.cells);
  }
  void Of(const std::string& w, const Result& a, const Result& b) {
    Value(w + ".exists", a.exists, b.exists);
    Of(w + ".cells", a.cells, b.cells);
  }
  void Of(const std::string& w, const GetRequest& a, const GetRequest& b) {
    Bytes(w + ".row", a.row, b.row);
    Of(w + ".columns", a.columns, b.columns);
  }
  void Of(const std::string& w, const Action& a, const Action& b) {
    Value(w + ".index", a.index, b.index);
    Value(w + ".kind", uint8_t(a.kind), uint8_t(b.kind));
    if (a.kind == ActionKind::kMutation) Of(w + ".mutation", a.mutation, b.mutation);
    if (a.kind == ActionKind::kGet) Of(w + ".get", a.get, b.get);
  }
  void Of(const std::string& w, const ActionResult& a, const ActionResult& b) {
    Value(w + ".index", a.index, b.index);
    Value(w + ".ok", a.ok, b.ok);
    if (a.ok) {
      Of(w + ".result", a.result, b.result);
    } else {
      Bytes(w + ".error", a.error, b.error);
    }
  }
  void Of(const std::string& w, const MutateRequest& a, const MutateRequest& b) {
    Of(w + ".mutation", a.mutation, b.mutation);
  }
  void Of(const std::string& w, const ScanRequest& a, const ScanRequest& b) {
    Bytes(w + ".start_row", a.start_row, b.start_row);
    Bytes(w + ".stop_row", a.stop_row, b.stop_row);
    Value(w + ".number_of_rows", a.number_of_rows, b.number_of_rows);
    Of(w + ".columns", a.columns, b.columns);
  }
  void Of(const std::string& w, const MultiRequest& a, const MultiRequest& b) {
    Of(w + ".actions", a.actions, b.actions);
  }
  void Of(const std::string& w, const MutateResponse& a, const MutateResponse& b) {
    Value(w + ".processed", a.processed, b.processed);
  }
  void Of(const std::string& w, const GetResponse& a, const GetResponse& b) {
    Of(w + ".result", a.result, b.result);
  }
  void Of(const std::string& w, const ScanResponse& a, const ScanResponse& b) {
    Value(w + ".more_results", a.more_results, b.more_results);
    Of(w + ".results", a.results, b.results);
  }
  void Of(const std::string& w, const MultiResponse& a, const MultiResponse& b) {
    Of(w + ".results", a.results, b.results);
  }

 private:
  std::string what_;
};

// gtest-friendly deep equality: EXPECT_TRUE(SameMessage(want, got)).
template <typename M>
::testing::AssertionResult SameMessage(const M& want, const M& got) {
  Diff d;
  d.Of("msg", want, got);
  if (d.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "first difference (want vs got) at " << d.what();
}

// Calls f(view) for every byte string of a decoded message, so a test can
// check where the views point.
template <typename F>
void ForEachView(const Cell& c, F&& f) {
  f(c.row);
  f(c.family);
  f(c.qualifier);
  f(c.value);
}
template <typename F>
void ForEachView(const Mutation& m, F&& f) {
  f(m.row);
  for (const Cell& c : m.cells) ForEachView(c, f);
}
template <typename F>
void ForEachView(const Result& r, F&& f) {
  for (const Cell& c : r.cells) ForEachView(c, f);
}
template <typename F>
void ForEachView(std::span<const Column> cols, F&& f) {
  for (const Column& c : cols) {
    f(c.family);
    f(c.qualifier);
  }
}
template <typename F>
void ForEachView(const GetRequest& g, F&& f) {
  f(g.row);
  ForEachView(g.columns, f);
}
template <typename F>
void ForEachView(const MutateRequest& r, F&& f) { ForEachView(r.mutation, f); }
template <typename F>
void ForEachView(const ScanRequest& r, F&& f) {
  f(r.start_row);
  f(r.stop_row);
  ForEachView(r.columns, f);
}
template <typename F>
void ForEachView(const MultiRequest& r, F&& f) {
  for (const Action& a : r.actions) {
    if (a.kind == ActionKind::kMutation) ForEachView(a.mutation, f);
    if (a.kind == ActionKind::kGet) ForEachView(a.get, f);
  }
}
template <typename F>
void ForEachView(const MutateResponse&, F&&) {}
template <typename F>
void ForEachView(const GetResponse& r, F&& f) { ForEachView(r.result, f); }
template <typename F>
void ForEachView(const ScanResponse& r, F&& f) {
  for (const Result& res : r.results) ForEachView(res, f);
}
template <typename F>
void ForEachView(const MultiResponse& r, F&& f) {
  for (const ActionResult& ar : r.results) {
    ForEachView(ar.result, f);
    f(ar.error);
  }
}


// ---- The conformance catalogue ----
// Every codec must carry each of these (tests/codec_conformance_test.cc):
// each message kind of each method, with empty values, 1 MiB values, many
// cells, every byte value, empty row and column lists, and Multi responses
// with failed actions.

using AnyMessage = std::variant<MutateRequest, GetRequest, ScanRequest, MultiRequest,
                                MutateResponse, GetResponse, ScanResponse, MultiResponse>;

struct MessageCase {
  std::string name;
  AnyMessage message;
};

inline constexpr size_t kMiB = 1 << 20;

inline Mutation PutWithCells(MessageStore* st, ByteView row, std::vector<Cell> cells) {
  for (Cell& c : cells) c.row = row;
  Mutation m;
  m.row = row;
  m.type = MutationType::kPut;
  m.cells = st->Array(std::move(cells));
  return m;
}

inline Mutation DeleteColumns(MessageStore* st, uint64_t key) {
  ByteView row = st->Bytes(YcsbKey(key));
  ByteView family = st->Bytes("family");
  std::vector<Cell> cells = {
      {row, family, st->Bytes("field1"), 1700000000000ull, CellType::kDelete, {}},
      {row, family, st->Bytes("field2"), 0, CellType::kDeleteColumn, {}},
      {row, st->Bytes("other"), {}, 0, CellType::kDeleteFamily, {}},
  };
  Mutation m;
  m.row = row;
  m.type = MutationType::kDelete;
  m.timestamp = 1700000000999ull;
  m.cells = st->Array(std::move(cells));
  return m;
}

inline GetRequest GetOf(MessageStore* st, ByteView row, bool with_columns) {
  GetRequest g;
  g.row = row;
  if (with_columns) {
    g.columns = st->Array(std::vector<Column>{{st->Bytes("family"), st->Bytes("field0")},
                                              {st->Bytes("family"), st->Bytes("field9")},
                                              {st->Bytes("meta"), {}}});
  }
  return g;
}

inline std::vector<MessageCase> BuildCases(MessageStore* st) {
  std::vector<MessageCase> cs;
  auto add = [&](std::string name, AnyMessage m) { cs.push_back({std::move(name), m}); };
  const std::string all = AllBytes();

  // Mutate requests.
  add("put_1k", MutateRequest{YcsbPut(st, 1)});
  add("put_empty_values", MutateRequest{YcsbPut(st, 2, 3, 0)});
  add("put_1mib_value", MutateRequest{YcsbPut(st, 3, 1, kMiB)});
  add("put_1000_cells", MutateRequest{YcsbPut(st, 4, 1000, 16)});
  add("put_no_cells", MutateRequest{YcsbPut(st, 5, 0, 0)});
  {
    ByteView row = st->Bytes(all);
    Mutation m = PutWithCells(
        st, row,
        {{{}, st->Bytes(std::string("f\0\xff", 3)), st->Bytes(AllBytes(17)), UINT64_C(0x7fffffffffffffff),
          CellType::kPut, st->Bytes(all + AllBytes(128))},
         {{}, st->Bytes("family"), st->Bytes(std::string(1, '\0')), 1, CellType::kPut,
          st->Bytes(std::string(3, '\0'))}});
    m.timestamp = UINT64_C(0x0123456789abcdef);
    add("put_all_bytes", MutateRequest{m});
  }
  {
    Mutation m;
    m.row = st->Bytes(YcsbKey(6));
    m.type = MutationType::kDelete;
    add("delete_row", MutateRequest{m});
  }
  add("delete_columns", MutateRequest{DeleteColumns(st, 7)});

  // Get and Scan requests.
  add("get_all_columns", GetRequest{GetOf(st, st->Bytes(YcsbKey(8)), false)});
  add("get_columns", GetRequest{GetOf(st, st->Bytes(YcsbKey(9)), true)});
  add("get_all_bytes_row", GetRequest{GetOf(st, st->Bytes(all), true)});
  add("scan_unbounded", ScanRequest());
  {
    ScanRequest s;
    s.start_row = st->Bytes(YcsbKey(10));
    s.stop_row = st->Bytes(all);
    s.number_of_rows = 4000000000u;
    s.columns = GetOf(st, {}, true).columns;
    add("scan_bounded", s);
  }

  // Multi requests.
  add("multi_empty", MultiRequest{});
  {
    std::vector<Action> actions;
    for (uint32_t i = 0; i < 100; ++i) {
      Action a;
      a.index = i;
      a.kind = ActionKind::kMutation;
      a.mutation = YcsbPut(st, 100 + i);
      actions.push_back(a);
    }
    add("multi_100_puts", MultiRequest{st->Array(std::move(actions))});
  }
  {
    std::vector<Action> actions(5);
    actions[0] = {7, ActionKind::kMutation, YcsbPut(st, 11, 2, 0), {}};
    actions[1] = {3, ActionKind::kGet, {}, GetOf(st, st->Bytes(YcsbKey(12)), true)};
    actions[2] = {0, ActionKind::kMutation, DeleteColumns(st, 13), {}};
    actions[3] = {4294967295u, ActionKind::kGet, {}, GetOf(st, st->Bytes(all), false)};
    actions[4] = {9, ActionKind::kMutation, YcsbPut(st, 14, 0, 0), {}};
    add("multi_mixed", MultiRequest{st->Array(std::move(actions))});
  }

  // Mutate responses.
  add("mutate_processed", MutateResponse{true});
  add("mutate_not_processed", MutateResponse{false});

  // Get responses.
  add("get_missing_row", GetResponse{Result{}});
  add("get_row_no_cells", GetResponse{Result{{}, true}});
  add("get_1k", GetResponse{YcsbResult(st, 15)});
  add("get_1mib_value", GetResponse{YcsbResult(st, 16, 1, kMiB)});
  add("get_1000_cells", GetResponse{YcsbResult(st, 17, 1000, 16)});
  add("get_empty_values", GetResponse{YcsbResult(st, 18, 4, 0)});
  {
    std::vector<Cell> cells = {
        // Families stay within KeyValue's 127-byte limit (a signed length byte).
        {st->Bytes(all), st->Bytes(AllBytes(1).substr(0, 127)), st->Bytes(AllBytes(2)), 42,
         CellType::kPut, st->Bytes(all)},
        {st->Bytes(AllBytes(3)), st->Bytes("family"), {}, 0, CellType::kDeleteFamily, {}},
    };
    add("get_all_bytes", GetResponse{Result{st->Array(std::move(cells)), true}});
  }
  {
    // One row and two families, each row and family a copy of its own: equal
    // bytes at different addresses, as a decoder's or a store's cells may be.
    std::vector<Cell> cells;
    for (int i = 0; i < 4; ++i)
      cells.push_back({st->Bytes("user9"), st->Bytes(i < 2 ? "cf1" : "cf2"),
                       st->Bytes("q" + std::to_string(i)), uint64_t(i), CellType::kPut,
                       st->Bytes(std::string(size_t(i) * 7, 'v'))});
    add("get_two_families_copied", GetResponse{Result{st->Array(cells), true}});
    cells.resize(2);
    add("get_one_family_copied", GetResponse{Result{st->Array(std::move(cells)), true}});
  }

  // Scan responses.
  add("scan_no_rows", ScanResponse{{}, false});
  {
    std::vector<Result> rows;
    for (int i = 0; i < 5; ++i) rows.push_back(YcsbResult(st, 20 + i, 3, 10 * i));
    rows.push_back(Result{{}, true});
    add("scan_rows_more", ScanResponse{st->Array(std::move(rows)), true});
  }
  {
    // Rows found but with no cells. (A scan returns only rows that exist;
    // HBase's ScanResponse has no per-row `exists`, so it is true here.)
    std::vector<Result> rows(3, Result{{}, true});
    add("scan_empty_results", ScanResponse{st->Array(std::move(rows)), false});
  }

  // Multi responses.
  add("multi_response_empty", MultiResponse{});
  {
    std::vector<ActionResult> rs(5);
    rs[0] = {7, true, Result{}, {}};
    rs[1] = {3, true, YcsbResult(st, 30), {}};
    rs[2] = {0, false, Result{}, st->Bytes("org.apache.hadoop.hbase.NoSuchColumnFamilyException")};
    rs[3] = {4294967295u, true, Result{{}, true}, {}};
    rs[4] = {9, false, Result{}, st->Bytes(all)};
    add("multi_response_mixed", MultiResponse{st->Array(std::move(rs))});
  }
  {
    std::vector<ActionResult> rs;
    for (uint32_t i = 0; i < 100; ++i)
      rs.push_back({i, false, Result{}, st->Bytes("region is closing: " + std::to_string(i))});
    add("multi_response_all_failed", MultiResponse{st->Array(std::move(rs))});
  }
  return cs;
}

// The catalogue, built once.
inline const std::vector<MessageCase>& Cases() {
  static MessageStore* store = new MessageStore();  // Leaked: outlives every test.
  static const std::vector<MessageCase> cases = BuildCases(store);
  return cases;
}

// Whether M is a request (the other kinds are responses).
template <typename M>
constexpr bool kIsRequest = std::is_same_v<M, MutateRequest> || std::is_same_v<M, GetRequest> ||
                            std::is_same_v<M, ScanRequest> || std::is_same_v<M, MultiRequest>;

// The codec tests' call id: every byte different, so a byte-order mistake shows.
inline constexpr uint32_t kTestCallId = 0x01020304;

// codecs/codec.h's EncodeMessage with kTestCallId, and DecodeMessage, by
// shorter names.
template <typename M>
Status Encode(Codec& c, const M& m, ByteBuffer* out) {
  return EncodeMessage(c, kTestCallId, m, out);
}

template <typename M>
Status Decode(Codec& c, ByteView payload, M* m) {
  return DecodeMessage(c, payload, m);
}

}  // namespace wirebench::testing
