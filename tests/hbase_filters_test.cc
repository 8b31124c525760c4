// HBase's filters (transports/hbase/hbase_filters.h) over the message
// model's cells, built from the same protobuf messages a client sends.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "codecs/schemas/Client.pb.h"
#include "transports/hbase/hbase_filters.h"
#include "transports/hbase/hbase_wire.pb.h"

namespace wirebench::hbaserpc {
namespace {

namespace pbw = hbasewire;

// A row's cells in HBase's order: (family, qualifier, ts, value).
struct RowCells {
  std::string row;
  std::vector<std::tuple<std::string, std::string, uint64_t, std::string>> cells;
  std::vector<Cell> Model() const {
    std::vector<Cell> out;
    for (const auto& [f, q, ts, v] : cells) {
      Cell c;
      c.row = ByteView(row);
      c.family = ByteView(f);
      c.qualifier = ByteView(q);
      c.timestamp = ts;
      c.value = ByteView(v);
      out.push_back(c);
    }
    return out;
  }
};

hbase::Comparator Cmp(const std::string& kind, const std::string& value) {
  hbase::Comparator c;
  c.set_name("org.apache.hadoop.hbase.filter." + kind);
  if (kind == "RegexStringComparator") {
    hbase::RegexStringComparator r;
    r.set_pattern(value);
    r.set_pattern_flags(0);
    r.set_charset("UTF-8");
    c.set_serialized_comparator(r.SerializeAsString());
  } else {
    hbase::BinaryComparator b;
    b.mutable_comparable()->set_value(value);
    c.set_serialized_comparator(b.SerializeAsString());
  }
  return c;
}

pbw::Filter Named(const std::string& name, const std::string& bytes) {
  pbw::Filter f;
  f.set_name("org.apache.hadoop.hbase.filter." + name);
  f.set_serialized_filter(bytes);
  return f;
}

pbw::Filter CompareOf(const std::string& name, hbase::CompareType op, hbase::Comparator cmp) {
  pbw::RowFilter f;  // Row/Family/Qualifier/ValueFilter share this layout.
  f.mutable_compare_filter()->set_compare_op(op);
  *f.mutable_compare_filter()->mutable_comparator() = std::move(cmp);
  return Named(name, f.SerializeAsString());
}

std::unique_ptr<Filter> Make(const pbw::Filter& f) {
  auto made = ParseFilter(f.SerializeAsString());
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return made.ok() ? std::move(made).value() : nullptr;
}

// "q@ts=value" per passing cell, or "-" when the row is left out.
std::string Apply(Filter* f, const RowCells& r, uint32_t max_versions = 1) {
  std::vector<Cell> cells = r.Model(), out;
  std::deque<std::string> storage;
  if (!FilterOneRow(f, ByteView(r.row), cells, max_versions, &out, &storage)) return "-";
  std::string s;
  for (const Cell& c : out)
    s += (s.empty() ? "" : " ") + c.family.ToString() + ":" + c.qualifier.ToString() + "@" +
         std::to_string(c.timestamp) + "=" + c.value.ToString();
  return s;
}

const RowCells kRow{"user1",
                    {{"f", "a", 3, "x3"},
                     {"f", "a", 2, "x2"},
                     {"f", "b", 1, "yes"},
                     {"f", "c", 1, "zz"},
                     {"g", "a", 1, "ga"}}};

TEST(HBaseFilters, PrefixAndRowFilters) {
  pbw::PrefixFilter p;
  p.set_prefix("user");
  auto f = Make(Named("PrefixFilter", p.SerializeAsString()));
  EXPECT_EQ(Apply(f.get(), kRow), "f:a@3=x3 f:b@1=yes f:c@1=zz g:a@1=ga");
  EXPECT_EQ(Apply(f.get(), RowCells{"other", {{"f", "a", 1, "v"}}}), "-");
  auto less = Make(CompareOf("RowFilter", hbase::LESS, Cmp("BinaryComparator", "user2")));
  EXPECT_EQ(Apply(less.get(), kRow).substr(0, 8), "f:a@3=x3") << "user1 < user2";
  EXPECT_EQ(Apply(less.get(), RowCells{"user3", {{"f", "a", 1, "v"}}}), "-");
  auto prefix = Make(CompareOf("RowFilter", hbase::EQUAL, Cmp("BinaryPrefixComparator", "us")));
  EXPECT_NE(Apply(prefix.get(), kRow), "-");
  auto regex = Make(CompareOf("RowFilter", hbase::EQUAL, Cmp("RegexStringComparator", "r[0-9]$")));
  EXPECT_NE(Apply(regex.get(), kRow), "-");
  EXPECT_EQ(Apply(regex.get(), RowCells{"userX", {{"f", "a", 1, "v"}}}), "-");
}

TEST(HBaseFilters, CellFilters) {
  pbw::ColumnPrefixFilter cp;
  cp.set_prefix("b");
  EXPECT_EQ(Apply(Make(Named("ColumnPrefixFilter", cp.SerializeAsString())).get(), kRow),
            "f:b@1=yes");
  EXPECT_EQ(Apply(Make(CompareOf("QualifierFilter", hbase::GREATER_OR_EQUAL,
                               Cmp("BinaryComparator", "b"))).get(),
                kRow),
            "f:b@1=yes f:c@1=zz");
  EXPECT_EQ(Apply(Make(CompareOf("ValueFilter", hbase::EQUAL, Cmp("BinaryComparator", "x2"))).get(),
                kRow),
            "f:a@2=x2")
      << "a filter sees older versions before versions are counted, as in HBase 2";
  EXPECT_EQ(Apply(Make(CompareOf("FamilyFilter", hbase::EQUAL, Cmp("BinaryComparator", "g"))).get(),
                kRow),
            "g:a@1=ga");
  EXPECT_EQ(
      Apply(
          Make(CompareOf("ValueFilter", hbase::EQUAL, Cmp("RegexStringComparator", "^z+$"))).get(),
          kRow),
      "f:c@1=zz");
  EXPECT_EQ(Apply(Make(Named("FirstKeyOnlyFilter", "")).get(), kRow), "f:a@3=x3");
  pbw::KeyOnlyFilter ko;
  ko.set_len_as_val(false);
  EXPECT_EQ(Apply(Make(Named("KeyOnlyFilter", ko.SerializeAsString())).get(), kRow),
            "f:a@3= f:b@1= f:c@1= g:a@1=");
  // Versions are counted over what passes.
  EXPECT_EQ(Apply(Make(Named("FirstKeyOnlyFilter", "")).get(), kRow, 3), "f:a@3=x3");
  pbw::PrefixFilter p;
  p.set_prefix("user");
  EXPECT_EQ(Apply(Make(Named("PrefixFilter", p.SerializeAsString())).get(), kRow, 2),
            "f:a@3=x3 f:a@2=x2 f:b@1=yes f:c@1=zz g:a@1=ga");
}

pbw::Filter Scvf(const std::string& value, bool if_missing, hbase::CompareType op = hbase::EQUAL) {
  pbw::SingleColumnValueFilter s;
  s.set_column_family("f");
  s.set_column_qualifier("b");
  s.set_compare_op(op);
  *s.mutable_comparator() = Cmp("BinaryComparator", value);
  s.set_filter_if_missing(if_missing);
  return Named("SingleColumnValueFilter", s.SerializeAsString());
}

TEST(HBaseFilters, SingleColumnValueFilter) {
  EXPECT_EQ(Apply(Make(Scvf("yes", false)).get(), kRow), "f:a@3=x3 f:b@1=yes f:c@1=zz g:a@1=ga");
  EXPECT_EQ(Apply(Make(Scvf("no", false)).get(), kRow), "-");
  const RowCells missing{"r", {{"f", "a", 1, "v"}}};
  EXPECT_EQ(Apply(Make(Scvf("yes", false)).get(), missing), "f:a@1=v") << "kept when missing";
  EXPECT_EQ(Apply(Make(Scvf("yes", true)).get(), missing), "-") << "filterIfMissing";
}

TEST(HBaseFilters, FilterListsAndPages) {
  pbw::FilterList all;
  all.set_operator_(pbw::FilterList::MUST_PASS_ALL);
  pbw::PrefixFilter p;
  p.set_prefix("user");
  *all.add_filters() = Named("PrefixFilter", p.SerializeAsString());
  *all.add_filters() = CompareOf("QualifierFilter", hbase::EQUAL, Cmp("BinaryComparator", "c"));
  EXPECT_EQ(Apply(Make(Named("FilterList", all.SerializeAsString())).get(), kRow), "f:c@1=zz");
  pbw::FilterList one;
  one.set_operator_(pbw::FilterList::MUST_PASS_ONE);
  *one.add_filters() = CompareOf("QualifierFilter", hbase::EQUAL, Cmp("BinaryComparator", "c"));
  *one.add_filters() = CompareOf("ValueFilter", hbase::EQUAL, Cmp("BinaryComparator", "ga"));
  EXPECT_EQ(Apply(Make(Named("FilterList", one.SerializeAsString())).get(), kRow),
            "f:c@1=zz g:a@1=ga");
  // Nested: ALL(prefix "user", ONE(...)).
  pbw::FilterList nested;
  nested.set_operator_(pbw::FilterList::MUST_PASS_ALL);
  *nested.add_filters() = Named("PrefixFilter", p.SerializeAsString());
  *nested.add_filters() = Named("FilterList", one.SerializeAsString());
  auto n = Make(Named("FilterList", nested.SerializeAsString()));
  EXPECT_EQ(Apply(n.get(), kRow), "f:c@1=zz g:a@1=ga");
  EXPECT_EQ(Apply(n.get(), RowCells{"other", {{"f", "c", 1, "zz"}}}), "-");
  // PageFilter: two rows, then nothing more.
  pbw::PageFilter pf;
  pf.set_page_size(2);
  auto page = Make(Named("PageFilter", pf.SerializeAsString()));
  EXPECT_NE(Apply(page.get(), kRow), "-");
  EXPECT_FALSE(page->FilterAllRemaining());
  EXPECT_NE(Apply(page.get(), kRow), "-");
  EXPECT_TRUE(page->FilterAllRemaining());
  EXPECT_EQ(Apply(page.get(), kRow), "-");
}

// The filters HBase ships that clients send most, as
// HBase 2's classes decide (return codes per cell, per row, and the end of
// a scan).
TEST(HBaseFilters, ColumnPaginationRangeAndPrefixes) {
  pbw::ColumnPaginationFilter page;
  page.set_limit(1);
  page.set_offset(1);
  EXPECT_EQ(Apply(Make(Named("ColumnPaginationFilter", page.SerializeAsString())).get(), kRow),
            "f:b@1=yes");
  page.clear_offset();
  page.set_limit(2);
  page.set_column_offset("b");
  EXPECT_EQ(Apply(Make(Named("ColumnPaginationFilter", page.SerializeAsString())).get(), kRow),
            "f:b@1=yes f:c@1=zz");
  pbw::ColumnRangeFilter range;
  range.set_min_column("b");
  range.set_min_column_inclusive(true);
  range.set_max_column("c");
  range.set_max_column_inclusive(false);
  EXPECT_EQ(Apply(Make(Named("ColumnRangeFilter", range.SerializeAsString())).get(), kRow),
            "f:b@1=yes");
  range.set_max_column_inclusive(true);
  EXPECT_EQ(Apply(Make(Named("ColumnRangeFilter", range.SerializeAsString())).get(), kRow),
            "f:b@1=yes f:c@1=zz");
  pbw::MultipleColumnPrefixFilter prefixes;
  prefixes.add_sorted_prefixes("b");
  prefixes.add_sorted_prefixes("c");
  EXPECT_EQ(Apply(Make(Named("MultipleColumnPrefixFilter", prefixes.SerializeAsString())).get(),
                  kRow),
            "f:b@1=yes f:c@1=zz");
}

TEST(HBaseFilters, TimestampsAndColumnCount) {
  pbw::TimestampsFilter ts;
  ts.add_timestamps(2);
  EXPECT_EQ(Apply(Make(Named("TimestampsFilter", ts.SerializeAsString())).get(), kRow, 3),
            "f:a@2=x2");
  ts.add_timestamps(1);
  EXPECT_EQ(Apply(Make(Named("TimestampsFilter", ts.SerializeAsString())).get(), kRow, 3),
            "f:a@2=x2 f:b@1=yes f:c@1=zz g:a@1=ga");
  pbw::ColumnCountGetFilter count;
  count.set_limit(2);
  auto f = Make(Named("ColumnCountGetFilter", count.SerializeAsString()));
  EXPECT_EQ(Apply(f.get(), kRow), "f:a@3=x3 f:b@1=yes");
  EXPECT_TRUE(f->FilterAllRemaining()) << "past its limit it ends the scan";
}

TEST(HBaseFilters, RowRangesAndStops) {
  pbw::InclusiveStopFilter stop;
  stop.set_stop_row_key("user1");
  auto f = Make(Named("InclusiveStopFilter", stop.SerializeAsString()));
  EXPECT_NE(Apply(f.get(), kRow), "-") << "the stop row is included";
  EXPECT_FALSE(f->FilterAllRemaining());
  EXPECT_EQ(Apply(f.get(), RowCells{"user2", {{"f", "a", 1, "v"}}}), "-");
  EXPECT_TRUE(f->FilterAllRemaining());
  pbw::MultiRowRangeFilter ranges;
  auto* r = ranges.add_row_range_list();
  r->set_start_row("a");
  r->set_start_row_inclusive(true);
  r->set_stop_row("b");
  r->set_stop_row_inclusive(false);
  r = ranges.add_row_range_list();
  r->set_start_row("user1");
  r->set_start_row_inclusive(true);
  r->set_stop_row("user1");
  r->set_stop_row_inclusive(true);
  auto m = Make(Named("MultiRowRangeFilter", ranges.SerializeAsString()));
  EXPECT_NE(Apply(m.get(), kRow), "-");
  EXPECT_NE(Apply(m.get(), RowCells{"a5", {{"f", "a", 1, "v"}}}), "-");
  EXPECT_EQ(Apply(m.get(), RowCells{"b", {{"f", "a", 1, "v"}}}), "-");
  EXPECT_EQ(Apply(m.get(), RowCells{"user10", {{"f", "a", 1, "v"}}}), "-");
}

// The sorted, merged ranges place every row as trying each range in turn
// would: random ranges (unsorted, overlapping, touching, either end
// inclusive or not, some to the table's end) against every short row.
TEST(HBaseFilters, MultiRowRangeFilterAgreesWithTryingEachRange) {
  std::mt19937 rng(7);
  auto key = [&](int len) {
    std::string k;
    for (int i = 0; i < len; ++i) k += char('a' + rng() % 4);
    return k;
  };
  for (int round = 0; round < 200; ++round) {
    pbw::MultiRowRangeFilter ranges;
    struct R {
      std::string start, stop;
      bool si, ti;
    };
    std::vector<R> want;
    const int n = 1 + int(rng() % 8);
    for (int i = 0; i < n; ++i) {
      std::string a = key(1 + int(rng() % 3)), b = rng() % 6 == 0 ? "" : key(1 + int(rng() % 3));
      if (!b.empty() && b < a) std::swap(a, b);
      R r{a, b, rng() % 2 == 0, rng() % 2 == 0};
      auto* p = ranges.add_row_range_list();
      p->set_start_row(r.start);
      p->set_start_row_inclusive(r.si);
      p->set_stop_row(r.stop);
      p->set_stop_row_inclusive(r.ti);
      want.push_back(r);
    }
    auto f = Make(Named("MultiRowRangeFilter", ranges.SerializeAsString()));
    for (int len = 1; len <= 3; ++len) {
      for (int code = 0; code < (1 << (2 * len)); ++code) {
        std::string row;
        for (int i = 0; i < len; ++i) row += char('a' + (code >> (2 * i)) % 4);
        bool in = false;
        for (const R& r : want) {
          const bool after = row > r.start || (row == r.start && r.si);
          const bool before = r.stop.empty() || row < r.stop || (row == r.stop && r.ti);
          in = in || (after && before);
        }
        ASSERT_EQ(f->FilterRowKey(ByteView(row)), !in)
            << "row '" << row << "' round " << round << " (" << n << " ranges)";
      }
    }
  }
}

TEST(HBaseFilters, SkipAndWhileMatchWrappers) {
  pbw::SkipFilter skip;
  *skip.mutable_filter() =
      CompareOf("ValueFilter", hbase::NOT_EQUAL, Cmp("BinaryComparator", "zz"));
  auto s = Make(Named("SkipFilter", skip.SerializeAsString()));
  EXPECT_EQ(Apply(s.get(), kRow), "-") << "one cell left out leaves the row out";
  EXPECT_EQ(Apply(s.get(), RowCells{"r", {{"f", "a", 1, "ok"}}}), "f:a@1=ok");
  pbw::SkipFilter whilst;  // WhileMatchFilter has SkipFilter's layout.
  *whilst.mutable_filter() = CompareOf("RowFilter", hbase::LESS, Cmp("BinaryComparator", "user2"));
  auto w = Make(Named("WhileMatchFilter", whilst.SerializeAsString()));
  EXPECT_NE(Apply(w.get(), kRow), "-");
  EXPECT_FALSE(w->FilterAllRemaining());
  EXPECT_EQ(Apply(w.get(), RowCells{"user3", {{"f", "a", 1, "v"}}}), "-");
  EXPECT_TRUE(w->FilterAllRemaining()) << "the first row left out ends the scan";
}

// FuzzyRowFilter with one pair: key "ab?d", mask as `mask`.
std::unique_ptr<Filter> Fuzzy(const std::vector<std::pair<std::string, std::string>>& pairs) {
  pbw::FuzzyRowFilter f;
  for (const auto& [key, mask] : pairs) {
    pbw::BytesBytesPair* p = f.add_fuzzy_keys_data();
    p->set_first(key);
    p->set_second(mask);
  }
  return Make(Named("FuzzyRowFilter", f.SerializeAsString()));
}

// Which of these rows (each one cell f:q@1=v) a filter keeps, as "row,row".
std::string KeptRows(Filter* f, const std::vector<std::string>& rows) {
  std::string kept;
  for (const std::string& r : rows)
    if (Apply(f, RowCells{r, {{"f", "q", 1, "v"}, {"g", "q", 1, "v"}}}) != "-")
      kept += (kept.empty() ? "" : ",") + r;
  return kept;
}

// HBase 2.x's FuzzyRowFilter on an x86-64 region server: mask 0 = fixed,
// 1 = fuzzy as a caller writes it; the 2.x client's constructor turns the
// mask into 0xFF (fixed) / 2 (fuzzy) and zeroes the key's fuzzy bytes before
// toByteArray, which is what arrives. satisfies() compares the row's first
// min(row, key) bytes, so "ab" (shorter) and "abcdzz" (longer) match.
TEST(HBaseFilters, FuzzyRowFilter) {
  const std::vector<std::string> rows = {"abcd", "abzd", "abce", "xbcd", "ab", "abcdzz", "a\001cd"};
  const std::string raw_mask("\x00\x00\x01\x00", 4);
  auto raw = Fuzzy({{"ab?d", raw_mask}});
  EXPECT_EQ(KeptRows(raw.get(), rows), "abcd,abzd,ab,abcdzz");
  // What hbase-client 2.5/2.6 sends for new FuzzyRowFilter([("ab?d", {0,0,1,0})]).
  const std::string sent_key("ab\0d", 4), sent_mask("\xff\xff\x02\xff", 4);
  auto sent = Fuzzy({{sent_key, sent_mask}});
  EXPECT_EQ(KeptRows(sent.get(), rows), "abcd,abzd,ab,abcdzz");
  // Every cell of a kept row, in each family; none of a row left out.
  EXPECT_EQ(Apply(sent.get(), kRow), "-");
  EXPECT_EQ(Apply(sent.get(), RowCells{"abqd", {{"f", "a", 1, "v"}, {"g", "b", 2, "w"}}}),
            "f:a@1=v g:b@2=w");
  // Two pairs: a row matching either is kept.
  auto two = Fuzzy({{"ab?d", raw_mask}, {"x??d", std::string("\x00\x01\x01\x00", 4)}});
  EXPECT_EQ(KeptRows(two.get(), rows), "abcd,abzd,xbcd,ab,abcdzz");
  // No pair: no row.
  auto none = Fuzzy({});
  EXPECT_EQ(KeptRows(none.get(), rows), "");
  pbw::FuzzyRowFilter bad;
  pbw::BytesBytesPair* p = bad.add_fuzzy_keys_data();
  p->set_first("abc");
  p->set_second(std::string("\x00\x01", 2));
  auto refused = ParseFilter(Named("FuzzyRowFilter", bad.SerializeAsString()).SerializeAsString());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("Fuzzy pair lengths do not match"), std::string::npos)
      << refused.status().ToString();
}

pbw::Filter Dependent(bool drop, std::optional<hbase::Comparator> cmp = std::nullopt) {
  pbw::DependentColumnFilter f;
  f.mutable_compare_filter()->set_compare_op(cmp ? hbase::EQUAL : hbase::NO_OP);
  if (cmp) *f.mutable_compare_filter()->mutable_comparator() = *cmp;
  f.set_column_family("f");
  f.set_column_qualifier("d");
  f.set_drop_dependent_column(drop);
  return Named("DependentColumnFilter", f.SerializeAsString());
}

// DependentColumnFilter(f, d): filterCell collects the timestamps of f:d's
// cells (those passing the comparator, if any), filterRowCells keeps only
// the row's cells at one of them.
TEST(HBaseFilters, DependentColumnFilter) {
  const RowCells row{"r",
                     {{"f", "a", 2, "a2"},
                      {"f", "a", 1, "a1"},
                      {"f", "b", 3, "b3"},
                      {"f", "d", 3, "x"},
                      {"f", "d", 1, "y"},
                      {"g", "d", 2, "gd"}}};
  auto keep = Make(Dependent(false));
  EXPECT_EQ(Apply(keep.get(), row, 3), "f:a@1=a1 f:b@3=b3 f:d@3=x f:d@1=y");
  auto drop = Make(Dependent(true));
  EXPECT_EQ(Apply(drop.get(), row, 3), "f:a@1=a1 f:b@3=b3");
  auto valued = Make(Dependent(false, Cmp("BinaryComparator", "x")));
  EXPECT_EQ(Apply(valued.get(), row, 3), "f:b@3=b3 f:d@3=x");
  // Versions are counted before filterRowCells: with one version f:a@2 is
  // the one read, and no f:d cell has its timestamp.
  EXPECT_EQ(Apply(keep.get(), row, 1), "f:b@3=b3 f:d@3=x");
  // A row without the dependent column keeps nothing.
  EXPECT_EQ(Apply(keep.get(), kRow, 3), "-");
  // In a FilterList the members' filterRowCells run too.
  pbw::FilterList list;
  list.set_operator_(pbw::FilterList::MUST_PASS_ALL);
  *list.add_filters() = Dependent(true);
  *list.add_filters() =
      CompareOf("QualifierFilter", hbase::NOT_EQUAL, Cmp("BinaryComparator", "b"));
  auto listed = Make(Named("FilterList", list.SerializeAsString()));
  EXPECT_EQ(Apply(listed.get(), row, 3), "f:a@1=a1");
}

// FirstKeyValueMatchingQualifiersFilter({b}): every cell up to the first
// f:b or g:b, that one included, then NEXT_ROW.
TEST(HBaseFilters, FirstKeyValueMatchingQualifiersFilter) {
  pbw::FirstKeyValueMatchingQualifiersFilter f;
  f.add_qualifiers("b");
  f.add_qualifiers("zz");
  auto made = Make(Named("FirstKeyValueMatchingQualifiersFilter", f.SerializeAsString()));
  EXPECT_EQ(Apply(made.get(), kRow, 3), "f:a@3=x3 f:a@2=x2 f:b@1=yes");
  EXPECT_EQ(Apply(made.get(),
                  RowCells{"r", {{"f", "b", 5, "v5"}, {"f", "b", 4, "v4"}, {"f", "c", 1, "c"}}}, 3),
            "f:b@5=v5")
      << "the older version of the matching column comes after the match";
  EXPECT_EQ(Apply(made.get(), RowCells{"r", {{"f", "a", 1, "v"}, {"f", "c", 1, "c"}}}),
            "f:a@1=v f:c@1=c")
      << "no match: the whole row";
  auto empty = Make(Named("FirstKeyValueMatchingQualifiersFilter", ""));
  EXPECT_EQ(Apply(empty.get(), kRow), "f:a@3=x3 f:b@1=yes f:c@1=zz g:a@1=ga");
}

pbw::Filter RandomRows(float chance) {
  pbw::RandomRowFilter f;
  f.set_chance(chance);
  return Named("RandomRowFilter", f.SerializeAsString());
}

// RandomRowFilter: chance 0 (or below, or NaN) keeps no row, 1 (or above)
// every row; between, wirebench's seeded draw keeps some, the same ones for
// the same chance each time the filter is read.
TEST(HBaseFilters, RandomRowFilter) {
  std::vector<std::string> rows;
  for (int i = 0; i < 200; ++i) rows.push_back("row" + std::to_string(i));
  std::string all;
  for (const std::string& r : rows) all += (all.empty() ? "" : ",") + r;
  for (float chance : {0.0f, -1.0f, std::nanf("")}) {
    auto f = Make(RandomRows(chance));
    EXPECT_EQ(KeptRows(f.get(), rows), "") << chance;
  }
  for (float chance : {1.0f, 2.0f}) {
    auto f = Make(RandomRows(chance));
    EXPECT_EQ(KeptRows(f.get(), rows), all) << chance;
  }
  auto half = Make(RandomRows(0.5f));
  const std::string kept = KeptRows(half.get(), rows);
  EXPECT_FALSE(kept.empty());
  EXPECT_NE(kept, all);
  auto again = Make(RandomRows(0.5f));
  EXPECT_EQ(KeptRows(again.get(), rows), kept) << "seeded: the same rows each time";
  // A kept row keeps all its cells; a dropped row none.
  auto one = Make(RandomRows(1.0f));
  EXPECT_EQ(Apply(one.get(), kRow), "f:a@3=x3 f:b@1=yes f:c@1=zz g:a@1=ga");
}

TEST(HBaseFilters, UnknownFiltersAndComparatorsAreNamed) {
  auto f = ParseFilter(Named("ColumnValueFilter", "").SerializeAsString());
  ASSERT_FALSE(f.ok());
  EXPECT_NE(
      f.status().message().find(
          "java.lang.ClassNotFoundException: org.apache.hadoop.hbase.filter.ColumnValueFilter"),
      std::string::npos)
      << f.status().ToString();
  auto c = ParseFilter(
      CompareOf("ValueFilter", hbase::EQUAL, Cmp("LongComparator", "1")).SerializeAsString());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("LongComparator"), std::string::npos);
  auto bad = ParseFilter(CompareOf("ValueFilter", hbase::EQUAL, Cmp("RegexStringComparator", "("))
                             .SerializeAsString());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("does not compile"), std::string::npos);
  EXPECT_NE(bad.status().message().find("RE2"), std::string::npos) << bad.status().ToString();
  EXPECT_FALSE(ParseFilter("\xff\xff").ok());
}

hbase::Comparator Regex(const std::string& pattern, int flags,
                        const std::string& charset = "UTF-8") {
  hbase::Comparator c;
  c.set_name("org.apache.hadoop.hbase.filter.RegexStringComparator");
  hbase::RegexStringComparator r;
  r.set_pattern(pattern);
  r.set_pattern_flags(flags);
  r.set_charset(charset);
  c.set_serialized_comparator(r.SerializeAsString());
  return c;
}

// ValueFilter(EQUAL, regex) over one cell holding `value`: "1" when it
// passes, "0" when not, else the error.
std::string Matches(const hbase::Comparator& cmp, const std::string& value) {
  auto f = ParseFilter(CompareOf("ValueFilter", hbase::EQUAL, cmp).SerializeAsString());
  if (!f.ok()) return f.status().ToString();
  return Apply(f.value().get(), RowCells{"r", {{"f", "q", 1, value}}}) == "-" ? "0" : "1";
}

// The patterns that crashed or stalled std::regex (a stack overflow in its
// compiler or its recursive matcher, exponential backtracking) compile and
// match, or are refused with a reason; nothing recurses on the value.
TEST(HBaseFilters, RegexPatternsThatBrokeABacktrackerAreSafe) {
  const std::string deep = std::string(30000, '(') + "a" + std::string(30000, ')');
  const std::string refused = Matches(Regex(deep, 0), "a");
  EXPECT_NE(refused.find("nest 30000 deep"), std::string::npos) << refused;
  EXPECT_NE(refused.find("at most 1000"), std::string::npos) << refused;
  const std::string ok_deep = std::string(1000, '(') + "a" + std::string(1000, ')');
  EXPECT_EQ(Matches(Regex(ok_deep, 0), "xax"), "1");
  EXPECT_NE(Matches(Regex(std::string(kMaxRegexPatternBytes + 1, 'a'), 0), "a").find("bytes"),
            std::string::npos);

  std::string big(200000, 'x');
  EXPECT_EQ(Matches(Regex(".*error.*", 0), big), "0");
  big.replace(150000, 5, "error");
  EXPECT_EQ(Matches(Regex(".*error.*", 0), big), "1");
  EXPECT_EQ(Matches(Regex("(a|b)*c", 0), std::string(100000, 'a')), "0");
  EXPECT_EQ(Matches(Regex("(a|b)*c", 0), std::string(100000, 'a') + "c"), "1");
  EXPECT_EQ(Matches(Regex("(a+)+$", 0), std::string(27, 'a') + "!"), "0");
  EXPECT_EQ(Matches(Regex("^(a+)+$", 0), std::string(4096, 'a')), "1");
}

// java.util.regex.Pattern's flags as RE2 options, and what RE2 cannot do.
TEST(HBaseFilters, RegexFlagsCharsetsAndRefusals) {
  constexpr int kCaseInsensitive = 0x02, kComments = 0x04, kMultiline = 0x08, kLiteral = 0x10,
                kDotAll = 0x20;
  EXPECT_EQ(Matches(Regex("ERROR", 0), "an error"), "0");
  EXPECT_EQ(Matches(Regex("ERROR", kCaseInsensitive), "an error"), "1");
  EXPECT_EQ(Matches(Regex("a.b", 0), "a\nb"), "0");
  EXPECT_EQ(Matches(Regex("a.b", kDotAll), "a\nb"), "1");
  EXPECT_EQ(Matches(Regex("^b$", 0), "a\nb"), "0");
  EXPECT_EQ(Matches(Regex("^b$", kMultiline), "a\nb"), "1");
  EXPECT_EQ(Matches(Regex("a+(b", kLiteral), "xa+(by"), "1");
  EXPECT_EQ(Matches(Regex("a+(b", kLiteral), "aab"), "0");
  // Find, not match: a hit anywhere in the value passes (Matcher.find()).
  EXPECT_EQ(Matches(Regex("b", 0), "abc"), "1");
  // ISO-8859-1: the pattern's characters match the value's Latin-1 bytes.
  EXPECT_EQ(Matches(Regex("caf\u00e9", 0, "ISO-8859-1"), "caf\xe9"), "1");
  EXPECT_EQ(Matches(Regex("caf\u00e9", 0, "UTF-8"), "caf\xc3\xa9"), "1");
  const std::string back = Matches(Regex("(a)\\1", 0), "aa");
  EXPECT_NE(back.find("backreferences"), std::string::npos) << back;
  const std::string look = Matches(Regex("a(?=b)", 0), "ab");
  EXPECT_NE(look.find("lookaround"), std::string::npos) << look;
  EXPECT_NE(Matches(Regex("a b", kComments), "ab").find("COMMENTS"), std::string::npos);
  EXPECT_NE(Matches(Regex("a", 0, "UTF-16"), "a").find("charset"), std::string::npos);
}

}  // namespace
}  // namespace wirebench::hbaserpc
