// The memstore region's HBase data model over the message model: versions
// and timestamps, Get's max_versions and time range, HBase's delete types
// (DeleteFamilyVersion included) and their masking, checkAndMutate,
// Increment and Append (atomic under many threads), scans forward and
// reversed with inclusive/exclusive bounds, and tables kept apart (each table
// its own store, as in HBase).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/bytes.h"
#include "regions/memstore/memstore_region.h"
#include "tests/region_mutations.h"

namespace wirebench {
namespace {

// (qualifier, timestamp, value) of family "f"'s cells, in result order.
using Version3 = std::tuple<std::string, uint64_t, std::string>;

std::unique_ptr<Region> Store(uint32_t versions) {
  MemstoreOptions o;
  o.max_versions = versions;
  return NewMemstoreRegion(o);
}

Status PutAt(Region* r, const std::string& row, const std::string& q, uint64_t ts,
             const std::string& v, const std::string& family = "f") {
  return testing::PutCell(r, row, family, q, v, ts);
}

// A mutation of `type` of one cell of family "f" in `table` (empty: the
// default one).
struct TableCell {
  std::string table, row, q, value;
  Cell cell;
  Mutation m;
  TableCell(std::string t, std::string r, std::string qual, std::string v, MutationType type)
      : table(std::move(t)), row(std::move(r)), q(std::move(qual)), value(std::move(v)) {
    cell.row = ByteView(row);
    cell.family = ByteView("f");
    cell.qualifier = ByteView(q);
    cell.value = ByteView(value);
    m.table = ByteView(table);
    m.row = ByteView(row);
    m.type = type;
    m.cells = std::span<const Cell>(&cell, 1);
  }
  TableCell(const TableCell&) = delete;
};

Status DeleteCell(Region* r, const std::string& row, CellType type, const std::string& q,
                  uint64_t ts, const std::string& family = "f") {
  Cell c;
  c.row = ByteView(row);
  c.family = ByteView(family);
  c.qualifier = ByteView(q);
  c.timestamp = ts;
  c.type = type;
  Mutation m;
  m.row = ByteView(row);
  m.type = MutationType::kDelete;
  m.cells = std::span<const Cell>(&c, 1);
  MutateResponse resp;
  return r->Mutate(m, &resp);
}

Status DeleteRow(Region* r, const std::string& row, uint64_t ts) {
  Mutation m;
  m.row = ByteView(row);
  m.type = MutationType::kDelete;
  m.timestamp = ts;
  MutateResponse resp;
  return r->Mutate(m, &resp);
}

std::vector<Version3> Versions(Region* r, const std::string& row, uint32_t max_versions = 1,
                               TimeRange tr = {}) {
  RegionScratch s;
  GetRequest req;
  req.row = ByteView(row);
  req.max_versions = max_versions;
  req.time_range = tr;
  GetResponse resp;
  EXPECT_TRUE(r->Get(req, &s, &resp).ok());
  std::vector<Version3> out;
  for (const Cell& c : resp.result.cells)
    out.emplace_back(c.family.ToString() + ":" + c.qualifier.ToString(), c.timestamp,
                     c.value.ToString());
  return out;
}

TEST(MemstoreHBaseSemantics, KeepsMaxVersionsNewestFirstAndHonoursTimeRange) {
  auto r = Store(3);
  for (uint64_t ts = 1; ts <= 5; ++ts) ASSERT_TRUE(PutAt(r.get(), "row", "q", ts, "v" + std::to_string(ts)).ok());
  // Written out of order: still newest first.
  ASSERT_TRUE(PutAt(r.get(), "row", "a", 20, "a20").ok());
  ASSERT_TRUE(PutAt(r.get(), "row", "a", 10, "a10").ok());
  EXPECT_EQ(Versions(r.get(), "row"),
            (std::vector<Version3>{{"f:a", 20, "a20"}, {"f:q", 5, "v5"}}));
  EXPECT_EQ(Versions(r.get(), "row", 10),
            (std::vector<Version3>{{"f:a", 20, "a20"},
                                   {"f:a", 10, "a10"},
                                   {"f:q", 5, "v5"},
                                   {"f:q", 4, "v4"},
                                   {"f:q", 3, "v3"}}))
      << "three versions kept: ts 1 and 2 were dropped";
  EXPECT_EQ(Versions(r.get(), "row", 10, TimeRange{4, 11}),
            (std::vector<Version3>{{"f:a", 10, "a10"}, {"f:q", 5, "v5"}, {"f:q", 4, "v4"}}))
      << "[min, max): 11 excludes a@20, includes a@10";
  EXPECT_EQ(Versions(r.get(), "row", 1, TimeRange{0, 5}),
            (std::vector<Version3>{{"f:q", 4, "v4"}}))
      << "the newest version inside the range; f:a has none there";
  // A put at an existing timestamp replaces that version.
  ASSERT_TRUE(PutAt(r.get(), "row", "q", 4, "again").ok());
  EXPECT_EQ(Versions(r.get(), "row", 2, TimeRange{0, 5}),
            (std::vector<Version3>{{"f:q", 4, "again"}, {"f:q", 3, "v3"}}));
}

TEST(MemstoreHBaseSemantics, OneVersionByDefaultAndOlderPutsAreNotSeen) {
  auto r = Store(1);
  ASSERT_TRUE(PutAt(r.get(), "row", "q", 100, "new").ok());
  ASSERT_TRUE(PutAt(r.get(), "row", "q", 50, "old").ok());
  EXPECT_EQ(Versions(r.get(), "row", 5), (std::vector<Version3>{{"f:q", 100, "new"}}));
  // LATEST_TIMESTAMP and 0 mean the server's clock.
  const uint64_t before = MemstoreNowMillis();
  ASSERT_TRUE(PutAt(r.get(), "clock", "q", kLatestTimestamp, "x").ok());
  auto got = Versions(r.get(), "clock");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_GE(std::get<1>(got[0]), before);
  EXPECT_LT(std::get<1>(got[0]), kLatestTimestamp);
}

TEST(MemstoreHBaseSemantics, DeleteTypesAndTheirMasking) {
  auto r = Store(5);
  for (uint64_t ts = 1; ts <= 4; ++ts) ASSERT_TRUE(PutAt(r.get(), "row", "q", ts, "v" + std::to_string(ts)).ok());
  ASSERT_TRUE(PutAt(r.get(), "row", "p", 3, "p3").ok());
  // One version at a timestamp.
  ASSERT_TRUE(DeleteCell(r.get(), "row", CellType::kDelete, "q", 3).ok());
  EXPECT_EQ(Versions(r.get(), "row", 5),
            (std::vector<Version3>{{"f:p", 3, "p3"}, {"f:q", 4, "v4"}, {"f:q", 2, "v2"}, {"f:q", 1, "v1"}}));
  // One version, the latest: the newest goes, the one below shows.
  ASSERT_TRUE(DeleteCell(r.get(), "row", CellType::kDelete, "q", kLatestTimestamp).ok());
  EXPECT_EQ(Versions(r.get(), "row"), (std::vector<Version3>{{"f:p", 3, "p3"}, {"f:q", 2, "v2"}}));
  // A deleted version stays masked: writing it again does not bring it back.
  ASSERT_TRUE(PutAt(r.get(), "row", "q", 3, "back").ok());
  EXPECT_EQ(Versions(r.get(), "row"), (std::vector<Version3>{{"f:p", 3, "p3"}, {"f:q", 2, "v2"}}));
  // All versions of a column up to a timestamp; older puts stay masked, newer show.
  ASSERT_TRUE(DeleteCell(r.get(), "row", CellType::kDeleteColumn, "q", 100).ok());
  EXPECT_EQ(Versions(r.get(), "row", 5), (std::vector<Version3>{{"f:p", 3, "p3"}}));
  ASSERT_TRUE(PutAt(r.get(), "row", "q", 50, "masked").ok());
  ASSERT_TRUE(PutAt(r.get(), "row", "q", 150, "shows").ok());
  EXPECT_EQ(Versions(r.get(), "row", 5),
            (std::vector<Version3>{{"f:p", 3, "p3"}, {"f:q", 150, "shows"}}));
  // A family up to a timestamp.
  ASSERT_TRUE(PutAt(r.get(), "row", "z", 7, "other family", "g").ok());
  ASSERT_TRUE(DeleteCell(r.get(), "row", CellType::kDeleteFamily, "", 100).ok());
  EXPECT_EQ(Versions(r.get(), "row", 5),
            (std::vector<Version3>{{"f:q", 150, "shows"}, {"g:z", 7, "other family"}}));
  ASSERT_TRUE(PutAt(r.get(), "row", "p", 99, "masked by the family delete").ok());
  EXPECT_EQ(Versions(r.get(), "row").size(), 2u);
  // The whole row up to a timestamp.
  ASSERT_TRUE(DeleteRow(r.get(), "row", 200).ok());
  EXPECT_TRUE(Versions(r.get(), "row", 5).empty());
  ASSERT_TRUE(PutAt(r.get(), "row", "q", 199, "masked by the row delete").ok());
  ASSERT_TRUE(PutAt(r.get(), "row", "q", 201, "after").ok());
  EXPECT_EQ(Versions(r.get(), "row", 5), (std::vector<Version3>{{"f:q", 201, "after"}}));
}

Condition Cond(const std::string& row, const std::string& q, CompareOp op, const std::string* v) {
  Condition c;
  c.row = ByteView(row);
  c.family = ByteView("f");
  c.qualifier = ByteView(q);
  c.op = op;
  if (v) {
    c.value = ByteView(*v);
  } else {
    c.value_is_null = true;
  }
  return c;
}

TEST(MemstoreHBaseSemantics, DeleteFamilyVersionDeletesOneTimestampOfAFamily) {
  auto r = Store(3);
  ASSERT_TRUE(PutAt(r.get(), "row", "a", 10, "a10").ok());
  ASSERT_TRUE(PutAt(r.get(), "row", "a", 20, "a20").ok());
  ASSERT_TRUE(PutAt(r.get(), "row", "b", 10, "b10").ok());
  ASSERT_TRUE(PutAt(r.get(), "row", "c", 5, "c5").ok());
  ASSERT_TRUE(PutAt(r.get(), "row", "x", 10, "x10", "g").ok());
  // Delete.addFamilyVersion(f, 10): every column of f at exactly 10.
  ASSERT_TRUE(DeleteCell(r.get(), "row", CellType::kDeleteFamilyVersion, "", 10).ok());
  EXPECT_EQ(Versions(r.get(), "row", 10),
            (std::vector<Version3>{{"f:a", 20, "a20"}, {"f:c", 5, "c5"}, {"g:x", 10, "x10"}}))
      << "f's cells at 10 gone, other timestamps and family g kept";
  // Its marker masks a later put at 10 in f, not at 11 nor in g.
  ASSERT_TRUE(PutAt(r.get(), "row", "b", 10, "again").ok());
  ASSERT_TRUE(PutAt(r.get(), "row", "d", 11, "d11").ok());
  ASSERT_TRUE(PutAt(r.get(), "row", "y", 10, "y10", "g").ok());
  EXPECT_EQ(Versions(r.get(), "row", 10),
            (std::vector<Version3>{{"f:a", 20, "a20"},
                                   {"f:c", 5, "c5"},
                                   {"f:d", 11, "d11"},
                                   {"g:x", 10, "x10"},
                                   {"g:y", 10, "y10"}}));
}

TEST(MemstoreHBaseSemantics, CheckAndMutateBothWays) {
  auto r = Store(1);
  RegionScratch s;
  const std::string row = "row";
  const TableCell one_cell("", row, "q", "one", MutationType::kPut);
  const Mutation& put = one_cell.m;
  bool processed = false;
  // Absent cell: a null expected value matches.
  ASSERT_TRUE(r->CheckAndMutate(Cond(row, "q", CompareOp::kEqual, nullptr), {&put, 1}, &s, &processed).ok());
  EXPECT_TRUE(processed);
  ASSERT_TRUE(r->CheckAndMutate(Cond(row, "q", CompareOp::kEqual, nullptr), {&put, 1}, &s, &processed).ok());
  EXPECT_FALSE(processed) << "the cell is there now";
  const std::string one = "one", two = "two", zero = "aaa";
  ASSERT_TRUE(r->CheckAndMutate(Cond(row, "q", CompareOp::kEqual, &two), {&put, 1}, &s, &processed).ok());
  EXPECT_FALSE(processed);
  ASSERT_TRUE(r->CheckAndMutate(Cond(row, "q", CompareOp::kEqual, &one), {&put, 1}, &s, &processed).ok());
  EXPECT_TRUE(processed);
  // HBase compares the given value with the stored one: "aaa" < "one".
  ASSERT_TRUE(r->CheckAndMutate(Cond(row, "q", CompareOp::kLess, &zero), {&put, 1}, &s, &processed).ok());
  EXPECT_TRUE(processed);
  ASSERT_TRUE(r->CheckAndMutate(Cond(row, "q", CompareOp::kGreater, &zero), {&put, 1}, &s, &processed).ok());
  EXPECT_FALSE(processed);
  // checkAndDelete.
  Mutation del;
  del.row = ByteView(row);
  del.type = MutationType::kDelete;
  ASSERT_TRUE(r->CheckAndMutate(Cond(row, "q", CompareOp::kEqual, &one), {&del, 1}, &s, &processed).ok());
  EXPECT_TRUE(processed);
  EXPECT_TRUE(Versions(r.get(), row).empty());
  // A mutation of another row is refused.
  Mutation other = put;
  other.row = ByteView("other");
  EXPECT_FALSE(r->CheckAndMutate(Cond(row, "q", CompareOp::kEqual, nullptr), {&other, 1}, &s, &processed).ok());
}

uint64_t Counter(const Result& res) {
  EXPECT_EQ(res.cells.size(), 1u);
  if (res.cells.size() != 1 || res.cells[0].value.size() != 8) return ~0ull;
  return LoadBE64(res.cells[0].value.data());
}

Status Increment(Region* r, RegionScratch* s, const std::string& row, int64_t by, Result* out) {
  std::string amount(8, '\0');
  StoreBE64(reinterpret_cast<uint8_t*>(amount.data()), uint64_t(by));
  const TableCell inc("", row, "n", amount, MutationType::kIncrement);
  return r->ReadModifyWrite(inc.m, s, out);
}

TEST(MemstoreHBaseSemantics, IncrementAndAppendReturnNewValues) {
  auto r = Store(1);
  RegionScratch s;
  Result res;
  ASSERT_TRUE(Increment(r.get(), &s, "row", 5, &res).ok());
  EXPECT_EQ(Counter(res), 5u) << "a missing counter counts from 0";
  ASSERT_TRUE(Increment(r.get(), &s, "row", -2, &res).ok());
  EXPECT_EQ(Counter(res), 3u);
  EXPECT_EQ(Versions(r.get(), "row").size(), 1u);
  // Not a long: refused, nothing changed.
  ASSERT_TRUE(PutAt(r.get(), "text", "n", 0, "abc").ok());
  EXPECT_FALSE(Increment(r.get(), &s, "text", 1, &res).ok());
  EXPECT_EQ(std::get<2>(Versions(r.get(), "text")[0]), "abc");
  // Append.
  const TableCell append("", "text", "n", "def", MutationType::kAppend);
  ASSERT_TRUE(r->ReadModifyWrite(append.m, &s, &res).ok());
  ASSERT_EQ(res.cells.size(), 1u);
  EXPECT_EQ(res.cells[0].value.ToString(), "abcdef");
  EXPECT_EQ(std::get<2>(Versions(r.get(), "text")[0]), "abcdef");
}

// Appends of (family, qualifier, value) to one row, in one mutation.
Status Append(Region* r, RegionScratch* s, const std::string& row,
              const std::vector<std::pair<std::string, const std::string*>>& cells, Result* out) {
  std::vector<Cell> cs(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    cs[i].row = ByteView(row);
    cs[i].family = ByteView("f");
    cs[i].qualifier = ByteView(cells[i].first);
    cs[i].value = ByteView(*cells[i].second);
  }
  Mutation m;
  m.row = ByteView(row);
  m.type = MutationType::kAppend;
  m.cells = cs;
  return r->ReadModifyWrite(m, s, out);
}

// An Append's result is a cell like a put's: one larger than
// hbase.server.keyvalue.maxsize (10 MiB, the KeyValue with its length word)
// is refused as the put of such a cell is, and nothing of the Append is
// applied. Unchecked, six 4 MiB Appends made a 24 MiB cell.
TEST(MemstoreHBaseSemantics, AppendsAreHeldToTheCellLimit) {
  auto r = Store(1);
  RegionScratch s;
  Result res;
  const std::string chunk(4 << 20, 'a'), small = "x";
  ASSERT_TRUE(Append(r.get(), &s, "row", {{"q", &chunk}}, &res).ok());
  ASSERT_TRUE(Append(r.get(), &s, "row", {{"q", &chunk}}, &res).ok());
  Status st = Append(r.get(), &s, "row", {{"q", &chunk}}, &res);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  // The put path's words: the cell, its size, the limit, what to do.
  EXPECT_NE(st.message().find("Cell[row/f:q] with size 12582941 exceeds limit of 10485760 "
                              "bytes (hbase.server.keyvalue.maxsize)"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("split the value"), std::string::npos) << st.message();
  // Two cells of one Append for one column add up; the other column is not
  // written either.
  const std::string two_mib(2 << 20, 'b');
  st = Append(r.get(), &s, "row", {{"other", &small}, {"q", &small}, {"q", &two_mib}}, &res);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  const auto kept = Versions(r.get(), "row");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(std::get<0>(kept[0]), "f:q");
  EXPECT_EQ(std::get<2>(kept[0]).size(), size_t(8 << 20));
  // Up to the limit is fine: 10 MiB less the KeyValue's 29 bytes of key and lengths.
  const std::string rest((10 << 20) - (8 << 20) - (4 + 4 + 4 + 2 + 3 + 1 + 1 + 1 + 8 + 1), 'c');
  EXPECT_TRUE(Append(r.get(), &s, "row", {{"q", &rest}}, &res).ok());
  EXPECT_FALSE(Append(r.get(), &s, "row", {{"q", &small}}, &res).ok());
}

TEST(MemstoreHBaseSemantics, IncrementsAreAtomicUnderManyThreads) {
  auto r = Store(1);
  constexpr int kThreads = 8, kEach = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      RegionScratch s;
      Result res;
      for (int i = 0; i < kEach; ++i) EXPECT_TRUE(Increment(r.get(), &s, "hot", 1, &res).ok());
    });
  for (auto& t : threads) t.join();
  RegionScratch s;
  Result res;
  ASSERT_TRUE(Increment(r.get(), &s, "hot", 0, &res).ok());
  EXPECT_EQ(Counter(res), uint64_t(kThreads * kEach));
}

std::vector<std::string> Rows(Region* r, ScanRequest req) {
  RegionScratch s;
  ScanResponse resp;
  EXPECT_TRUE(r->Scan(req, &s, &resp).ok());
  std::vector<std::string> rows;
  for (const Result& res : resp.results) rows.push_back(res.cells[0].row.ToString());
  return rows;
}

TEST(MemstoreHBaseSemantics, ScansForwardAndReversedWithInclusiveBounds) {
  MemstoreOptions o;
  o.shards = 4;
  auto r = NewMemstoreRegion(o);
  for (const char* row : {"a", "b", "c", "d", "e"}) ASSERT_TRUE(PutAt(r.get(), row, "q", 0, row).ok());
  ScanRequest req;
  req.start_row = ByteView("b");
  req.stop_row = ByteView("d");
  EXPECT_EQ(Rows(r.get(), req), (std::vector<std::string>{"b", "c"}));
  req.include_stop = true;
  EXPECT_EQ(Rows(r.get(), req), (std::vector<std::string>{"b", "c", "d"}));
  req.include_start = false;
  EXPECT_EQ(Rows(r.get(), req), (std::vector<std::string>{"c", "d"}));
  ScanRequest rev;
  rev.reversed = true;
  EXPECT_EQ(Rows(r.get(), rev), (std::vector<std::string>{"e", "d", "c", "b", "a"}));
  rev.start_row = ByteView("d");
  rev.stop_row = ByteView("a");
  EXPECT_EQ(Rows(r.get(), rev), (std::vector<std::string>{"d", "c", "b"}));
  rev.include_stop = true;
  rev.include_start = false;
  EXPECT_EQ(Rows(r.get(), rev), (std::vector<std::string>{"c", "b", "a"}));
  rev.number_of_rows = 2;
  RegionScratch s;
  ScanResponse resp;
  ASSERT_TRUE(r->Scan(rev, &s, &resp).ok());
  EXPECT_EQ(resp.results.size(), 2u);
  EXPECT_TRUE(resp.more_results);
}


// The values of row's cells in `table` (family:qualifier=value).
std::vector<std::string> GetIn(Region* r, const std::string& table, const std::string& row) {
  RegionScratch s;
  GetRequest req;
  req.table = ByteView(table);
  req.row = ByteView(row);
  GetResponse resp;
  EXPECT_TRUE(r->Get(req, &s, &resp).ok());
  std::vector<std::string> out;
  for (const Cell& c : resp.result.cells) out.push_back(c.qualifier.ToString() + "=" + c.value.ToString());
  return out;
}

std::vector<std::string> ScanIn(Region* r, const std::string& table, bool reversed = false) {
  ScanRequest req;
  req.table = ByteView(table);
  req.reversed = reversed;
  return Rows(r, req);
}

TEST(MemstoreHBaseSemantics, TablesAreKeptApart) {
  MemstoreOptions o;
  o.shards = 4;
  auto r = NewMemstoreRegion(o);
  MutateResponse mr;
  // Puts to A are not seen from B (nor from the default table), and the
  // same row in both tables holds each table's own value.
  for (const char* row : {"r1", "r2", "r3"}) {
    TableCell put("A", row, "q", std::string("a-") + row, MutationType::kPut);
    ASSERT_TRUE(r->Mutate(put.m, &mr).ok());
  }
  TableCell put_b("B", "r2", "q", "b-r2", MutationType::kPut);
  ASSERT_TRUE(r->Mutate(put_b.m, &mr).ok());
  EXPECT_EQ(GetIn(r.get(), "A", "r1"), (std::vector<std::string>{"q=a-r1"}));
  EXPECT_TRUE(GetIn(r.get(), "B", "r1").empty()) << "a put to table A is visible from B";
  EXPECT_TRUE(GetIn(r.get(), "", "r1").empty()) << "a put to table A is visible from the default table";
  EXPECT_EQ(GetIn(r.get(), "A", "r2"), (std::vector<std::string>{"q=a-r2"}));
  EXPECT_EQ(GetIn(r.get(), "B", "r2"), (std::vector<std::string>{"q=b-r2"}));
  // Scans of one table see only its rows, both ways.
  EXPECT_EQ(ScanIn(r.get(), "A"), (std::vector<std::string>{"r1", "r2", "r3"}));
  EXPECT_EQ(ScanIn(r.get(), "B"), (std::vector<std::string>{"r2"}));
  EXPECT_EQ(ScanIn(r.get(), "B", true), (std::vector<std::string>{"r2"}));
  EXPECT_TRUE(ScanIn(r.get(), "C").empty());
  // Deletes in A leave B: a row delete, then a column delete.
  Mutation del_row;
  del_row.table = ByteView("A");
  del_row.row = ByteView("r2");
  del_row.type = MutationType::kDelete;
  ASSERT_TRUE(r->Mutate(del_row, &mr).ok());
  EXPECT_TRUE(GetIn(r.get(), "A", "r2").empty());
  EXPECT_EQ(GetIn(r.get(), "B", "r2"), (std::vector<std::string>{"q=b-r2"}));
  // The row delete's marker in A does not mask a later put of r2 in B.
  TableCell put_b2("B", "r2", "p", "b-p", MutationType::kPut);
  ASSERT_TRUE(r->Mutate(put_b2.m, &mr).ok());
  EXPECT_EQ(GetIn(r.get(), "B", "r2"), (std::vector<std::string>{"p=b-p", "q=b-r2"}));
  // checkAndMutate reads and writes the condition's table.
  RegionScratch s;
  const std::string r2 = "r2", q = "q";  // Cond keeps views of them.
  Condition c = Cond(r2, q, CompareOp::kEqual, nullptr);
  c.table = ByteView("A");
  TableCell guarded("B", "r2", "q", "written-in-A", MutationType::kPut);  // Its table is not read.
  // After A's row delete (a marker at the clock's now): a later timestamp.
  guarded.cell.timestamp = MemstoreNowMillis() + 60000;
  bool processed = false;
  Status cs = r->CheckAndMutate(c, {&guarded.m, 1}, &s, &processed);
  ASSERT_TRUE(cs.ok()) << cs.ToString();
  EXPECT_TRUE(processed) << "A's r2 has no q (B's has)";
  EXPECT_EQ(GetIn(r.get(), "A", "r2"), (std::vector<std::string>{"q=written-in-A"}));
  EXPECT_EQ(GetIn(r.get(), "B", "r2"), (std::vector<std::string>{"p=b-p", "q=b-r2"}));
  // Counters of the same row and column in two tables count apart.
  std::string one(8, '\0');
  StoreBE64(reinterpret_cast<uint8_t*>(one.data()), 1);
  TableCell inc_a("A", "n", "c", one, MutationType::kIncrement);
  TableCell inc_b("B", "n", "c", one, MutationType::kIncrement);
  Result res;
  ASSERT_TRUE(r->ReadModifyWrite(inc_a.m, &s, &res).ok());
  ASSERT_TRUE(r->ReadModifyWrite(inc_a.m, &s, &res).ok());
  EXPECT_EQ(Counter(res), 2u);
  ASSERT_TRUE(r->ReadModifyWrite(inc_b.m, &s, &res).ok());
  EXPECT_EQ(Counter(res), 1u);
  // A Multi's actions are in the request's table.
  TableCell multi_put("ignored", "r9", "q", "multi", MutationType::kPut);
  Action actions[2];
  actions[0].index = 0;
  actions[0].mutation = multi_put.m;
  actions[1].index = 1;
  actions[1].kind = ActionKind::kGet;
  actions[1].get.row = ByteView("r1");
  MultiRequest mreq{std::span<const Action>(actions, 2)};
  mreq.table = ByteView("B");
  MultiResponse mresp;
  ASSERT_TRUE(r->Multi(mreq, &s, &mresp).ok());
  ASSERT_EQ(mresp.results.size(), 2u);
  EXPECT_TRUE(mresp.results[1].result.cells.empty()) << "r1 is in A, not B";
  EXPECT_EQ(GetIn(r.get(), "B", "r9"), (std::vector<std::string>{"q=multi"}));
  EXPECT_TRUE(GetIn(r.get(), "A", "r9").empty());
  // Stats count each table's rows.
  nlohmann::json stats;
  r->AppendStats(&stats);
  EXPECT_EQ(stats["memstore"]["tables"]["A"], 4u) << stats.dump();  // r1, r2, r3, n.
  EXPECT_EQ(stats["memstore"]["tables"]["B"], 3u) << stats.dump();  // r2, n, r9.
  EXPECT_EQ(stats["memstore"]["rows"], 7u);
}

}  // namespace
}  // namespace wirebench
