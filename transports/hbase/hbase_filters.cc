#include "codecs/schemas/Client.pb.h"
#include "transports/hbase/hbase_filters.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <random>
#include <set>
#include <re2/re2.h>

#include "common/bytes.h"
#include "transports/hbase/hbase_wire.pb.h"

namespace wirebench::hbaserpc {

namespace pbw = hbasewire;

namespace {

constexpr std::string_view kPackage = "org.apache.hadoop.hbase.filter.";

constexpr std::string_view kSupported =
    "wirebench evaluates PrefixFilter, ColumnPrefixFilter, SingleColumnValueFilter, FilterList, "
    "FirstKeyOnlyFilter, KeyOnlyFilter, PageFilter, RowFilter, QualifierFilter, ValueFilter, "
    "FamilyFilter, ColumnPaginationFilter, ColumnRangeFilter, MultipleColumnPrefixFilter, "
    "TimestampsFilter, InclusiveStopFilter, ColumnCountGetFilter, MultiRowRangeFilter, "
    "SkipFilter, WhileMatchFilter, FuzzyRowFilter, DependentColumnFilter, "
    "FirstKeyValueMatchingQualifiersFilter and RandomRowFilter";

// The class name without HBase's filter package.
std::string_view Short(std::string_view name) {
  return name.substr(0, kPackage.size()) == kPackage ? name.substr(kPackage.size()) : name;
}

Status Malformed(std::string_view name) {
  return Status::InvalidArgument("cannot read the serialized " + std::string(name) +
                                 " (a malformed filter or comparator)");
}

template <typename M>
bool Parse(M* m, std::string_view bytes) {
  return m->ParsePartialFromArray(bytes.data(), int(bytes.size()));
}

// ---- Comparators: compareTo(value) as HBase's ByteArrayComparable ----

class Comparator {
 public:
  virtual ~Comparator() = default;
  virtual int CompareTo(ByteView value) const = 0;
};

class BinaryComparator final : public Comparator {
 public:
  explicit BinaryComparator(std::string v) : v_(std::move(v)) {}
  int CompareTo(ByteView value) const override { return Compare(ByteView(v_), value); }

 private:
  std::string v_;
};

class BinaryPrefixComparator final : public Comparator {
 public:
  explicit BinaryPrefixComparator(std::string v) : v_(std::move(v)) {}
  int CompareTo(ByteView value) const override {
    return Compare(ByteView(v_), value.Sub(0, std::min(v_.size(), value.size())));
  }

 private:
  std::string v_;
};

// RegexStringComparator, evaluated with RE2: linear in the value's length
// whatever the pattern, no recursion, bounded memory. java.util.regex's
// Matcher.find() is what HBase runs (a match anywhere in the value), so this
// is an unanchored search. Where RE2 differs from java.util.regex: no
// backreferences (\1), lookaround ((?=, (?!, (?<=, (?<!), atomic groups
// ((?>), possessive quantifiers (a*+), \G, \Z or Java's \p{javaXxx}
// classes: such patterns are refused when the filter is read, naming the
// construct. Repetition counts are at most 1000 (Java: no limit). Of
// Pattern's flags, CASE_INSENSITIVE, MULTILINE, DOTALL and LITERAL are
// honoured, COMMENTS is refused, the others (UNIX_LINES, UNICODE_CASE,
// CANON_EQ, UNICODE_CHARACTER_CLASS) change nothing here: RE2's only line
// terminator is \n and its case folding is Unicode's.
class RegexComparator final : public Comparator {
 public:
  explicit RegexComparator(std::unique_ptr<RE2> re) : re_(std::move(re)) {}
  int CompareTo(ByteView value) const override {
    return RE2::PartialMatch(value.str(), *re_) ? 0 : 1;
  }

 private:
  std::unique_ptr<RE2> re_;
};

// java.util.regex.Pattern's flags.
constexpr int kJavaCaseInsensitive = 0x02, kJavaComments = 0x04,
              kJavaMultiline = 0x08, kJavaLiteral = 0x10, kJavaDotAll = 0x20;

// How deep a pattern's groups nest (escapes and character classes skipped).
size_t NestingDepth(std::string_view p) {
  size_t depth = 0, deepest = 0;
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ')' && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// The pattern (a Java string, sent as UTF-8) as Latin-1 bytes, for a
// Latin-1 match; false when it holds a character Latin-1 has not.
bool Utf8ToLatin1(std::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    const auto b = static_cast<unsigned char>(in[i]);
    if (b < 0x80) {
      out->push_back(char(b));
    } else if ((b & 0xE0) == 0xC0 && b <= 0xC3 && i + 1 < in.size() &&
               (static_cast<unsigned char>(in[i + 1]) & 0xC0) == 0x80) {
      out->push_back(char(((b & 0x03) << 6) | (static_cast<unsigned char>(in[++i]) & 0x3F)));
    } else {
      return false;
    }
  }
  return true;
}

StatusOr<std::unique_ptr<Comparator>> MakeRegex(const hbase::RegexStringComparator& rc) {
  const std::string& pattern = rc.pattern();
  const int flags = rc.pattern_flags();
  auto refuse = [&](const std::string& why) -> Status {
    return Status::InvalidArgument("RegexStringComparator: the pattern '" +
                                   pattern.substr(0, 80) + (pattern.size() > 80 ? "..." : "") +
                                   "' is refused: " + why);
  };
  if (pattern.size() > kMaxRegexPatternBytes)
    return refuse("it is " + std::to_string(pattern.size()) + " bytes; wirebench compiles at most " +
                  std::to_string(kMaxRegexPatternBytes));
  if (const size_t depth = NestingDepth(pattern); depth > kMaxRegexNesting)
    return refuse("its groups nest " + std::to_string(depth) + " deep; wirebench compiles at most " +
                  std::to_string(kMaxRegexNesting));
  if (flags & kJavaComments)
    return refuse("Pattern.COMMENTS is not supported by RE2, wirebench's regex engine");
  RE2::Options o;
  o.set_log_errors(false);
  o.set_max_mem(kRegexMemoryBytes);
  // The charset HBase decodes the value with before matching.
  std::string charset = rc.charset();
  for (char& ch : charset) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  if (charset == "ISO-8859-1" || charset == "US-ASCII" || charset == "LATIN1") {
    o.set_encoding(RE2::Options::EncodingLatin1);
  } else if (!charset.empty() && charset != "UTF-8" && charset != "UTF8") {
    return refuse("charset '" + rc.charset() + "': wirebench matches UTF-8 or ISO-8859-1 values");
  }
  o.set_literal((flags & kJavaLiteral) != 0);
  o.set_case_sensitive((flags & kJavaCaseInsensitive) == 0);
  o.set_dot_nl((flags & kJavaDotAll) != 0);
  std::string compiled = pattern;
  if (o.encoding() == RE2::Options::EncodingLatin1 && !Utf8ToLatin1(pattern, &compiled))
    return refuse("it holds characters that charset " + rc.charset() + " cannot match");
  if ((flags & kJavaMultiline) && !(flags & kJavaLiteral)) compiled = "(?m)" + compiled;
  auto re = std::make_unique<RE2>(compiled, o);
  if (!re->ok()) {
    std::string why = "it does not compile in RE2, wirebench's linear-time regex engine: " + re->error();
    if (re->error_code() == RE2::ErrorBadPerlOp || re->error_code() == RE2::ErrorBadEscape)
      why += " (RE2 has no backreferences, lookaround, atomic groups or possessive quantifiers)";
    return refuse(why);
  }
  return std::unique_ptr<Comparator>(new RegexComparator(std::move(re)));
}

class SubstringComparator final : public Comparator {
 public:
  explicit SubstringComparator(std::string sub) : sub_(Lower(sub)) {}
  int CompareTo(ByteView value) const override {
    return Lower(value.str()).find(sub_) != std::string::npos ? 0 : 1;
  }

 private:
  static std::string Lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
  }
  std::string sub_;
};

StatusOr<std::unique_ptr<Comparator>> MakeComparator(const hbase::Comparator& c) {
  const std::string_view name = c.name();
  const std::string& bytes = c.serialized_comparator();
  const std::string_view base = Short(name);
  if (base == "BinaryComparator" || base == "BinaryPrefixComparator") {
    hbase::BinaryComparator bc;
    if (!Parse(&bc, bytes)) return Malformed(name);
    const std::string& v = bc.comparable().value();
    if (base == "BinaryComparator") return std::unique_ptr<Comparator>(new BinaryComparator(v));
    return std::unique_ptr<Comparator>(new BinaryPrefixComparator(v));
  }
  if (base == "RegexStringComparator") {
    hbase::RegexStringComparator rc;
    if (!Parse(&rc, bytes)) return Malformed(name);
    return MakeRegex(rc);
  }
  if (base == "SubstringComparator") {
    hbase::SubstringComparator sc;
    if (!Parse(&sc, bytes)) return Malformed(name);
    return std::unique_ptr<Comparator>(new SubstringComparator(sc.substr()));
  }
  return Status::Unimplemented(
      "java.lang.ClassNotFoundException: " + std::string(name) +
      " (wirebench compares with BinaryComparator, BinaryPrefixComparator, "
      "RegexStringComparator and SubstringComparator)");
}

// CompareFilter's rule: true when the cell or row passes, for
// r = comparator.compareTo(bytes).
bool Passes(hbase::CompareType op, int r) {
  switch (op) {
    case hbase::LESS: return r > 0;
    case hbase::LESS_OR_EQUAL: return r >= 0;
    case hbase::EQUAL: return r == 0;
    case hbase::NOT_EQUAL: return r != 0;
    case hbase::GREATER_OR_EQUAL: return r <= 0;
    case hbase::GREATER: return r < 0;
    default: return false;  // NO_OP filters everything out.
  }
}

// ---- The filters ----

class PrefixFilter final : public Filter {
 public:
  explicit PrefixFilter(std::string p) : prefix_(std::move(p)) {}
  bool FilterRowKey(ByteView row) override {
    return row.size() < prefix_.size() || row.Sub(0, prefix_.size()) != ByteView(prefix_);
  }

 private:
  std::string prefix_;
};

class ColumnPrefixFilter final : public Filter {
 public:
  explicit ColumnPrefixFilter(std::string p) : prefix_(std::move(p)) {}
  FilterCode FilterCell(const Cell& c) override {
    const ByteView q = c.qualifier;
    const int cmp = Compare(q.Sub(0, std::min(q.size(), prefix_.size())), ByteView(prefix_));
    if (q.size() < prefix_.size()) return cmp <= 0 ? FilterCode::kSkip : FilterCode::kNextRow;
    if (cmp < 0) return FilterCode::kSkip;  // HBase seeks to the prefix.
    return cmp > 0 ? FilterCode::kNextRow : FilterCode::kInclude;
  }

 private:
  std::string prefix_;
};

enum class Part { kRow, kFamily, kQualifier, kValue };

class CompareFilter final : public Filter {
 public:
  CompareFilter(Part part, hbase::CompareType op, std::unique_ptr<Comparator> cmp)
      : part_(part), op_(op), cmp_(std::move(cmp)) {}
  bool FilterRowKey(ByteView row) override {
    return part_ == Part::kRow && !Passes(op_, cmp_->CompareTo(row));
  }
  FilterCode FilterCell(const Cell& c) override {
    switch (part_) {
      case Part::kRow: return FilterCode::kInclude;
      case Part::kFamily:
        return Passes(op_, cmp_->CompareTo(c.family)) ? FilterCode::kInclude : FilterCode::kNextRow;
      case Part::kQualifier:
        return Passes(op_, cmp_->CompareTo(c.qualifier)) ? FilterCode::kInclude : FilterCode::kSkip;
      case Part::kValue:
        return Passes(op_, cmp_->CompareTo(c.value)) ? FilterCode::kInclude : FilterCode::kSkip;
    }
    return FilterCode::kInclude;
  }

 private:
  Part part_;
  hbase::CompareType op_;
  std::unique_ptr<Comparator> cmp_;
};

class SingleColumnValueFilter final : public Filter {
 public:
  SingleColumnValueFilter(const pbw::SingleColumnValueFilter& p, std::unique_ptr<Comparator> cmp)
      : family_(p.column_family()),
        qualifier_(p.column_qualifier()),
        op_(p.compare_op()),
        cmp_(std::move(cmp)),
        filter_if_missing_(p.filter_if_missing()),
        latest_only_(!p.has_latest_version_only() || p.latest_version_only()) {}
  void Reset() override { found_ = matched_ = false; }
  FilterCode FilterCell(const Cell& c) override {
    if (matched_) return FilterCode::kInclude;
    if (latest_only_ && found_) return FilterCode::kNextRow;
    if (c.family != ByteView(family_) || c.qualifier != ByteView(qualifier_))
      return FilterCode::kInclude;
    found_ = true;
    if (!Passes(op_, cmp_->CompareTo(c.value)))
      return latest_only_ ? FilterCode::kNextRow : FilterCode::kInclude;
    matched_ = true;
    return FilterCode::kInclude;
  }
  bool HasFilterRow() const override { return true; }
  bool FilterRow() override { return found_ ? !matched_ : filter_if_missing_; }

 private:
  std::string family_, qualifier_;
  hbase::CompareType op_;
  std::unique_ptr<Comparator> cmp_;
  bool filter_if_missing_;
  bool latest_only_;
  bool found_ = false, matched_ = false;
};

class FirstKeyOnlyFilter final : public Filter {
 public:
  void Reset() override { found_ = false; }
  FilterCode FilterCell(const Cell&) override {
    if (found_) return FilterCode::kNextRow;
    found_ = true;
    return FilterCode::kInclude;
  }

 private:
  bool found_ = false;
};

class KeyOnlyFilter final : public Filter {
 public:
  explicit KeyOnlyFilter(bool len_as_val) : len_as_val_(len_as_val) {}
  void TransformCell(Cell* c, std::deque<std::string>* storage) override {
    if (!len_as_val_) {
      c->value = ByteView();
      return;
    }
    std::string& s = storage->emplace_back(4, '\0');
    StoreBE32(reinterpret_cast<uint8_t*>(s.data()), uint32_t(c->value.size()));
    c->value = ByteView(s);
  }

 private:
  bool len_as_val_;
};

class PageFilter final : public Filter {
 public:
  explicit PageFilter(int64_t size) : size_(size) {}
  bool FilterAllRemaining() const override { return accepted_ >= size_; }
  bool FilterRowKey(ByteView) override { return FilterAllRemaining(); }
  bool HasFilterRow() const override { return true; }
  bool FilterRow() override { return ++accepted_ > size_; }

 private:
  int64_t size_;
  int64_t accepted_ = 0;
};

// ColumnPaginationFilter: per row, `limit` columns from the `offset`th (or
// from the first at or after `column_offset`).
class ColumnPaginationFilter final : public Filter {
 public:
  ColumnPaginationFilter(int32_t limit, int32_t offset, std::optional<std::string> column_offset)
      : limit_(limit), offset_(offset), column_offset_(std::move(column_offset)) {}
  void Reset() override { count_ = 0; }
  FilterCode FilterCell(const Cell& c) override {
    if (column_offset_) {
      if (count_ >= limit_) return FilterCode::kNextRow;
      // Only before the first column is taken: HBase seeks to the offset.
      if (count_ == 0 && Compare(c.qualifier, ByteView(*column_offset_)) < 0)
        return FilterCode::kNextCol;
      ++count_;
      return FilterCode::kIncludeAndNextCol;
    }
    if (count_ >= int64_t(offset_) + limit_) return FilterCode::kNextRow;
    const FilterCode code = count_ < offset_ ? FilterCode::kNextCol : FilterCode::kIncludeAndNextCol;
    ++count_;
    return code;
  }

 private:
  int32_t limit_, offset_;
  std::optional<std::string> column_offset_;
  int64_t count_ = 0;
};

// ColumnRangeFilter: qualifiers between min and max, each bound inclusive
// or not, either absent.
class ColumnRangeFilter final : public Filter {
 public:
  explicit ColumnRangeFilter(const pbw::ColumnRangeFilter& f)
      : min_(f.has_min_column() ? std::optional<std::string>(f.min_column()) : std::nullopt),
        max_(f.has_max_column() ? std::optional<std::string>(f.max_column()) : std::nullopt),
        min_inclusive_(f.min_column_inclusive()),
        max_inclusive_(f.max_column_inclusive()) {}
  FilterCode FilterCell(const Cell& c) override {
    const int cmp_min = min_ ? Compare(c.qualifier, ByteView(*min_)) : 1;
    if (cmp_min < 0) return FilterCode::kNextCol;  // HBase seeks to the minimum.
    if (!min_inclusive_ && cmp_min == 0) return FilterCode::kNextCol;
    if (!max_) return FilterCode::kInclude;
    const int cmp_max = Compare(c.qualifier, ByteView(*max_));
    if (cmp_max < 0 || (max_inclusive_ && cmp_max == 0)) return FilterCode::kInclude;
    return FilterCode::kNextRow;
  }

 private:
  std::optional<std::string> min_, max_;
  bool min_inclusive_, max_inclusive_;
};

// MultipleColumnPrefixFilter: as HBase's, the largest prefix at or below
// the qualifier decides (a qualifier it does not start with is left out).
class MultipleColumnPrefixFilter final : public Filter {
 public:
  explicit MultipleColumnPrefixFilter(std::set<std::string> prefixes)
      : prefixes_(std::move(prefixes)) {}
  FilterCode FilterCell(const Cell& c) override {
    const std::string q = c.qualifier.ToString();
    auto above = prefixes_.upper_bound(q);  // The first prefix greater than q.
    if (above == prefixes_.begin()) return FilterCode::kNextCol;  // Seek to the first prefix.
    const std::string& largest = *std::prev(above);
    if (q.compare(0, largest.size(), largest) == 0) return FilterCode::kInclude;
    return above == prefixes_.end() ? FilterCode::kNextRow : FilterCode::kNextCol;
  }

 private:
  std::set<std::string> prefixes_;
};

// TimestampsFilter: the versions at the timestamps listed.
class TimestampsFilter final : public Filter {
 public:
  explicit TimestampsFilter(std::set<uint64_t> ts) : ts_(std::move(ts)) {}
  FilterCode FilterCell(const Cell& c) override {
    if (ts_.count(c.timestamp)) return FilterCode::kInclude;
    // Versions come newest first: past the oldest listed, none of the
    // column's can pass.
    if (ts_.empty() || c.timestamp < *ts_.begin()) return FilterCode::kNextCol;
    return FilterCode::kSkip;
  }

 private:
  std::set<uint64_t> ts_;
};

// InclusiveStopFilter: rows up to the stop row, which is included; every
// row after it ends the scan (forward scans).
class InclusiveStopFilter final : public Filter {
 public:
  explicit InclusiveStopFilter(std::string stop) : stop_(std::move(stop)) {}
  bool FilterAllRemaining() const override { return done_; }
  bool FilterRowKey(ByteView row) override {
    done_ = Compare(ByteView(stop_), row) < 0;
    return done_;
  }

 private:
  std::string stop_;
  bool done_ = false;
};

// ColumnCountGetFilter: the first `limit` columns of a row; past them the
// filter ends the scan (it is meant for a Get).
class ColumnCountGetFilter final : public Filter {
 public:
  explicit ColumnCountGetFilter(int32_t limit) : limit_(limit) {}
  void Reset() override { count_ = 0; }
  bool FilterAllRemaining() const override { return count_ > limit_; }
  FilterCode FilterCell(const Cell&) override {
    ++count_;
    return FilterAllRemaining() ? FilterCode::kNextCol : FilterCode::kIncludeAndNextCol;
  }

 private:
  int64_t limit_;
  int64_t count_ = 0;
};

// MultiRowRangeFilter: rows inside any of the ranges (an empty stop row:
// to the table's end). As HBase's sortAndMerge, the ranges are sorted and
// overlapping ones merged once, so a row is placed by binary search: a list
// of 143,000 ranges tried one by one took 3.5 s for one scan call.
class MultiRowRangeFilter final : public Filter {
 public:
  explicit MultiRowRangeFilter(const pbw::MultiRowRangeFilter& f) {
    std::vector<Range> ranges;
    ranges.reserve(size_t(f.row_range_list_size()));
    for (const pbw::RowRange& r : f.row_range_list())
      ranges.push_back({r.start_row(), r.start_row_inclusive(), r.stop_row(), r.stop_row_inclusive()});
    std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
      const int c = Compare(ByteView(a.start), ByteView(b.start));
      return c < 0 || (c == 0 && a.start_inclusive && !b.start_inclusive);
    });
    for (Range& r : ranges) {
      if (!ranges_.empty() && Overlaps(ranges_.back(), r)) {
        Range& last = ranges_.back();
        if (last.stop.empty()) continue;
        const int c = r.stop.empty() ? 1 : Compare(ByteView(r.stop), ByteView(last.stop));
        if (c > 0) {
          last.stop = std::move(r.stop);
          last.stop_inclusive = r.stop_inclusive;
        } else if (c == 0) {
          last.stop_inclusive = last.stop_inclusive || r.stop_inclusive;
        }
        continue;
      }
      ranges_.push_back(std::move(r));
    }
  }
  bool FilterRowKey(ByteView row) override {
    // The last range starting at or before the row, and the one before it
    // (a row equal to an exclusive start may end the previous range).
    auto after = std::upper_bound(ranges_.begin(), ranges_.end(), row,
                                  [](ByteView key, const Range& r) {
                                    return Compare(key, ByteView(r.start)) < 0;
                                  });
    for (int back = 0; back < 2 && after != ranges_.begin(); ++back) {
      --after;
      if (Contains(*after, row)) return false;
    }
    return true;
  }

 private:
  struct Range {
    std::string start;
    bool start_inclusive;
    std::string stop;
    bool stop_inclusive;
  };
  static bool Contains(const Range& r, ByteView row) {
    const int lo = Compare(row, ByteView(r.start));
    const bool after_start = lo > 0 || (lo == 0 && r.start_inclusive);
    const int hi = r.stop.empty() ? -1 : Compare(row, ByteView(r.stop));
    const bool before_stop = hi < 0 || (hi == 0 && r.stop_inclusive);
    return after_start && before_stop;
  }
  // `b` starts no earlier than `a`: whether they share a row or touch with
  // one side inclusive (then one range covers both).
  static bool Overlaps(const Range& a, const Range& b) {
    if (a.stop.empty()) return true;
    const int c = Compare(ByteView(b.start), ByteView(a.stop));
    return c < 0 || (c == 0 && (a.stop_inclusive || b.start_inclusive));
  }
  std::vector<Range> ranges_;  // Sorted by start, disjoint.
};

// SkipFilter: a row any of whose cells the wrapped filter does not include
// (INCLUDE) is left out whole.
class SkipFilter final : public Filter {
 public:
  explicit SkipFilter(std::unique_ptr<Filter> f) : f_(std::move(f)) {}
  void Reset() override {
    f_->Reset();
    filter_row_ = false;
  }
  bool FilterAllRemaining() const override { return f_->FilterAllRemaining(); }
  bool FilterRowKey(ByteView row) override { return f_->FilterRowKey(row); }
  FilterCode FilterCell(const Cell& c) override {
    const FilterCode code = f_->FilterCell(c);
    filter_row_ = filter_row_ || code != FilterCode::kInclude;
    return code;
  }
  void TransformCell(Cell* c, std::deque<std::string>* storage) override {
    f_->TransformCell(c, storage);
  }
  bool HasFilterRow() const override { return true; }
  bool FilterRow() override { return filter_row_; }

 private:
  std::unique_ptr<Filter> f_;
  bool filter_row_ = false;
};

// WhileMatchFilter: rows until the wrapped filter first leaves something
// out (a row key, a cell it does not INCLUDE, a row); then the scan ends.
class WhileMatchFilter final : public Filter {
 public:
  explicit WhileMatchFilter(std::unique_ptr<Filter> f) : f_(std::move(f)) {}
  void Reset() override { f_->Reset(); }
  bool FilterAllRemaining() const override { return done_ || f_->FilterAllRemaining(); }
  bool FilterRowKey(ByteView row) override {
    const bool out = f_->FilterRowKey(row);
    done_ = done_ || out;
    return out;
  }
  FilterCode FilterCell(const Cell& c) override {
    const FilterCode code = f_->FilterCell(c);
    done_ = done_ || code != FilterCode::kInclude;
    return code;
  }
  void TransformCell(Cell* c, std::deque<std::string>* storage) override {
    f_->TransformCell(c, storage);
  }
  bool HasFilterRow() const override { return true; }
  bool FilterRow() override {
    const bool out = f_->HasFilterRow() && f_->FilterRow();
    done_ = done_ || out;
    return out;
  }

 private:
  std::unique_ptr<Filter> f_;
  bool done_ = false;
};

// FuzzyRowFilter: rows matching any (key, mask) pair, as HBase 2.x's
// server reads the pairs on x86-64 (UNSAFE_UNALIGNED). A mask of only 0xFF
// and 2 bytes is what a 2.x client sends (its constructor turned 0, fixed,
// into 0xFF and 1, fuzzy, into 2, before toByteArray); any other mask is
// turned so on the server (0 -> 0xFF, 1 -> 2, other bytes kept). The key's
// bytes under a 2 become 0, and each mask byte is shifted right by 2 (signed:
// 0xFF stays 0xFF, 2 becomes 0). A row matches a pair when
// (row[i] & mask[i]) == key[i] for i below the shorter of the row and the
// key: as HBase, a row shorter than the key is compared on its own length
// and a longer one on the key's.
class FuzzyRowFilter final : public Filter {
 public:
  struct Pair {
    std::string key, mask;  // As matched: fuzzy key bytes 0, mask 0xFF or 0.
  };
  explicit FuzzyRowFilter(std::vector<Pair> pairs) : pairs_(std::move(pairs)) {}
  void Reset() override { filter_row_ = false; }
  // HBase decides in filterCell (SEEK_NEXT_USING_HINT to the next row that
  // could match, and filterRow); wirebench leaves out the row's cells.
  FilterCode FilterCell(const Cell& c) override {
    for (const Pair& p : pairs_)
      if (Matches(c.row, p)) return FilterCode::kInclude;
    filter_row_ = true;
    return FilterCode::kNextRow;
  }
  bool HasFilterRow() const override { return true; }
  bool FilterRow() override { return filter_row_; }

  // The pair as HBase's server holds it after the constructor and the
  // first filterCell's shift.
  static Pair Prepare(std::string key, std::string mask) {
    const bool preprocessed = std::all_of(
        mask.begin(), mask.end(), [](char m) { return static_cast<uint8_t>(m) == 0xFF || m == 2; });
    for (size_t i = 0; i < mask.size(); ++i) {
      if (!preprocessed && mask[i] == 0)
        mask[i] = char(0xFF);
      else if (!preprocessed && mask[i] == 1)
        mask[i] = 2;
      if (mask[i] == 2) key[i] = 0;
      mask[i] = char(static_cast<int8_t>(mask[i]) >> 2);
    }
    return {std::move(key), std::move(mask)};
  }

 private:
  static bool Matches(ByteView row, const Pair& p) {
    const size_t n = std::min(row.size(), p.key.size());
    for (size_t i = 0; i < n; ++i)
      if ((row[i] & static_cast<uint8_t>(p.mask[i])) != static_cast<uint8_t>(p.key[i]))
        return false;
    return true;
  }
  std::vector<Pair> pairs_;
  bool filter_row_ = false;
};

// DependentColumnFilter: of a row, only the cells whose timestamp one of
// the dependent column's (family:qualifier) cells has, those whose value
// passes the comparator when there is one; the dependent column's own
// cells are dropped when drop_dependent_column is set.
class DependentColumnFilter final : public Filter {
 public:
  DependentColumnFilter(const pbw::DependentColumnFilter& f, std::unique_ptr<Comparator> cmp)
      : family_(f.column_family()),
        qualifier_(f.column_qualifier()),
        drop_(f.drop_dependent_column()),
        op_(f.compare_filter().compare_op()),
        cmp_(std::move(cmp)) {}
  void Reset() override { stamps_.clear(); }
  FilterCode FilterCell(const Cell& c) override {
    if (c.family != ByteView(family_) || c.qualifier != ByteView(qualifier_))
      return FilterCode::kInclude;  // Judged by FilterRowCells.
    if (cmp_ && !Passes(op_, cmp_->CompareTo(c.value))) return FilterCode::kSkip;
    stamps_.insert(c.timestamp);
    return drop_ ? FilterCode::kSkip : FilterCode::kInclude;
  }
  bool HasFilterRow() const override { return true; }
  void FilterRowCells(std::vector<Cell>* cells, size_t first) override {
    const auto kept = std::remove_if(cells->begin() + ptrdiff_t(first), cells->end(),
                                     [&](const Cell& c) { return !stamps_.contains(c.timestamp); });
    cells->erase(kept, cells->end());
  }

 private:
  std::string family_, qualifier_;
  bool drop_;
  hbase::CompareType op_;
  std::unique_ptr<Comparator> cmp_;  // None: every dependent cell counts.
  std::set<uint64_t> stamps_;
};

// FirstKeyValueMatchingQualifiersFilter (deprecated in HBase 2): a row's
// cells up to and including the first whose qualifier is one of the set;
// the rest of the row is left out.
class FirstKeyValueMatchingQualifiersFilter final : public Filter {
 public:
  explicit FirstKeyValueMatchingQualifiersFilter(std::set<std::string, std::less<>> qualifiers)
      : qualifiers_(std::move(qualifiers)) {}
  void Reset() override { found_ = false; }
  FilterCode FilterCell(const Cell& c) override {
    if (found_) return FilterCode::kNextRow;
    found_ = qualifiers_.contains(c.qualifier.str());
    return FilterCode::kInclude;
  }

 private:
  std::set<std::string, std::less<>> qualifiers_;
  bool found_ = false;
};

// RandomRowFilter: each row kept when a draw in [0, 1) is below `chance`
// (a Java float, compared as HBase does: 0 or less keeps none, 1 or more
// keeps all, NaN none). HBase draws from an unseeded java.util.Random;
// wirebench draws 24-bit floats from a Mersenne Twister seeded with
// kRandomRowSeed when the filter is read, so a scan with the same chance
// over the same rows keeps the same rows each time.
constexpr uint32_t kRandomRowSeed = 0x5EEDu;
class RandomRowFilter final : public Filter {
 public:
  explicit RandomRowFilter(float chance) : chance_(chance), rng_(kRandomRowSeed) {}
  void Reset() override { out_ = false; }
  bool FilterRowKey(ByteView) override {
    if (chance_ < 0) {
      out_ = true;
    } else if (chance_ > 1) {
      out_ = false;
    } else {
      const float draw = float(rng_() >> 8) * (1.0f / 16777216.0f);
      out_ = !(draw < chance_);  // NaN: out.
    }
    return out_;
  }
  FilterCode FilterCell(const Cell&) override {
    return out_ ? FilterCode::kNextRow : FilterCode::kInclude;
  }
  bool HasFilterRow() const override { return true; }
  bool FilterRow() override { return out_; }

 private:
  float chance_;
  std::mt19937 rng_;
  bool out_ = false;
};

// Most restrictive first, for MUST_PASS_ALL.
int Rank(FilterCode c) {
  switch (c) {
    case FilterCode::kInclude: return 0;
    case FilterCode::kIncludeAndNextCol: return 1;
    case FilterCode::kSkip: return 2;
    case FilterCode::kNextCol: return 3;
    case FilterCode::kNextRow: return 4;
  }
  return 0;
}
bool Includes(FilterCode c) {
  return c == FilterCode::kInclude || c == FilterCode::kIncludeAndNextCol;
}

class FilterList final : public Filter {
 public:
  FilterList(bool all, std::vector<std::unique_ptr<Filter>> filters)
      : all_(all), filters_(std::move(filters)), out_(filters_.size(), false),
        included_(filters_.size(), false) {}
  void Reset() override {
    for (auto& f : filters_) f->Reset();
    std::fill(out_.begin(), out_.end(), false);
  }
  bool FilterAllRemaining() const override {
    if (filters_.empty()) return false;
    for (const auto& f : filters_) {
      if (all_ && f->FilterAllRemaining()) return true;
      if (!all_ && !f->FilterAllRemaining()) return false;
    }
    return !all_;
  }
  bool FilterRowKey(ByteView row) override {
    if (filters_.empty()) return false;
    bool any = false, every = true;
    for (size_t i = 0; i < filters_.size(); ++i) {
      // A MUST_PASS_ONE member that left the row out has no say about its cells.
      out_[i] = filters_[i]->FilterAllRemaining() || filters_[i]->FilterRowKey(row);
      any = any || out_[i];
      every = every && out_[i];
    }
    return all_ ? any : every;
  }
  FilterCode FilterCell(const Cell& c) override {
    if (filters_.empty()) return FilterCode::kInclude;
    if (all_) {
      FilterCode worst = FilterCode::kInclude;
      for (auto& f : filters_) {
        const FilterCode code = f->FilterCell(c);
        if (Rank(code) > Rank(worst)) worst = code;
        if (!Includes(worst)) break;  // HBase stops at the first member that excludes.
      }
      return worst;
    }
    FilterCode best = FilterCode::kNextRow;
    bool any = false;
    for (size_t i = 0; i < filters_.size(); ++i) {
      included_[i] = false;
      if (out_[i]) continue;
      const FilterCode code = filters_[i]->FilterCell(c);
      included_[i] = Includes(code);
      if (!any || Rank(code) < Rank(best)) best = code;
      any = true;
    }
    return any ? best : FilterCode::kNextRow;
  }
  void TransformCell(Cell* c, std::deque<std::string>* storage) override {
    for (size_t i = 0; i < filters_.size(); ++i)
      if (all_ || included_[i]) filters_[i]->TransformCell(c, storage);
  }
  bool HasFilterRow() const override {
    return std::any_of(filters_.begin(), filters_.end(),
                       [](const auto& f) { return f->HasFilterRow(); });
  }
  void FilterRowCells(std::vector<Cell>* cells, size_t first) override {
    for (auto& f : filters_) f->FilterRowCells(cells, first);  // As FilterListBase.
  }
  bool FilterRow() override {
    if (filters_.empty()) return false;
    bool any = false, every = true;
    for (size_t i = 0; i < filters_.size(); ++i) {
      const bool out = out_[i] || filters_[i]->FilterRow();
      any = any || out;
      every = every && out;
    }
    return all_ ? any : every;
  }

 private:
  bool all_;
  std::vector<std::unique_ptr<Filter>> filters_;
  std::vector<bool> out_;       // Members that left the current row out by its key.
  std::vector<bool> included_;  // Members that included the current cell.
};

StatusOr<std::unique_ptr<Filter>> Make(std::string_view name, std::string_view bytes,
                                       int depth);

StatusOr<std::unique_ptr<Filter>> MakeCompare(Part part, std::string_view name,
                                              std::string_view bytes) {
  // Row/Family/Qualifier/ValueFilter all hold one CompareFilter at field 1.
  pbw::RowFilter f;
  if (!Parse(&f, bytes)) return Malformed(name);
  auto cmp = MakeComparator(f.compare_filter().comparator());
  if (!cmp.ok()) return cmp.status();
  return std::unique_ptr<Filter>(
      new CompareFilter(part, f.compare_filter().compare_op(), std::move(cmp).value()));
}

// FuzzyRowFilter, DependentColumnFilter, FirstKeyValueMatchingQualifiersFilter
// and RandomRowFilter; nullopt when `base` is none of them.
std::optional<StatusOr<std::unique_ptr<Filter>>> MakeRowSampleFilter(std::string_view base,
                                                                     std::string_view name,
                                                                     std::string_view bytes) {
  if (base == "FuzzyRowFilter") {
    pbw::FuzzyRowFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    std::vector<FuzzyRowFilter::Pair> pairs;
    for (const pbw::BytesBytesPair& p : f.fuzzy_keys_data()) {
      if (p.first().size() != p.second().size())
        return Status::InvalidArgument(
            "java.lang.IllegalArgumentException: Fuzzy pair lengths do not match: a " +
            std::to_string(p.first().size()) + "-byte key with a " +
            std::to_string(p.second().size()) +
            "-byte mask (give each key a mask byte per key byte)");
      pairs.push_back(FuzzyRowFilter::Prepare(p.first(), p.second()));
    }
    return std::unique_ptr<Filter>(new FuzzyRowFilter(std::move(pairs)));
  }
  if (base == "DependentColumnFilter") {
    pbw::DependentColumnFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    std::unique_ptr<Comparator> cmp;
    if (f.compare_filter().has_comparator()) {
      auto made = MakeComparator(f.compare_filter().comparator());
      if (!made.ok()) return made.status();
      cmp = std::move(made).value();
    }
    return std::unique_ptr<Filter>(new DependentColumnFilter(f, std::move(cmp)));
  }
  if (base == "FirstKeyValueMatchingQualifiersFilter") {
    pbw::FirstKeyValueMatchingQualifiersFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    return std::unique_ptr<Filter>(new FirstKeyValueMatchingQualifiersFilter(
        std::set<std::string, std::less<>>(f.qualifiers().begin(), f.qualifiers().end())));
  }
  if (base == "RandomRowFilter") {
    pbw::RandomRowFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    return std::unique_ptr<Filter>(new RandomRowFilter(f.chance()));
  }
  return std::nullopt;
}

// The column, timestamp, row-range and wrapper filters; nullopt when
// `base` is none of them.
std::optional<StatusOr<std::unique_ptr<Filter>>> MakeColumnOrRowFilter(std::string_view base,
                                                                       std::string_view name,
                                                                       std::string_view bytes,
                                                                       int depth) {
  if (base == "ColumnPaginationFilter") {
    pbw::ColumnPaginationFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    return std::unique_ptr<Filter>(new ColumnPaginationFilter(
        f.limit(), f.offset(),
        f.has_column_offset() ? std::optional<std::string>(f.column_offset()) : std::nullopt));
  }
  if (base == "ColumnRangeFilter") {
    pbw::ColumnRangeFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    return std::unique_ptr<Filter>(new ColumnRangeFilter(f));
  }
  if (base == "MultipleColumnPrefixFilter") {
    pbw::MultipleColumnPrefixFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    return std::unique_ptr<Filter>(new MultipleColumnPrefixFilter(
        std::set<std::string>(f.sorted_prefixes().begin(), f.sorted_prefixes().end())));
  }
  if (base == "TimestampsFilter") {
    pbw::TimestampsFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    std::set<uint64_t> ts;
    for (int64_t t : f.timestamps()) ts.insert(uint64_t(t));
    return std::unique_ptr<Filter>(new TimestampsFilter(std::move(ts)));
  }
  if (base == "InclusiveStopFilter") {
    pbw::InclusiveStopFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    return std::unique_ptr<Filter>(new InclusiveStopFilter(f.stop_row_key()));
  }
  if (base == "ColumnCountGetFilter") {
    pbw::ColumnCountGetFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    return std::unique_ptr<Filter>(new ColumnCountGetFilter(f.limit()));
  }
  if (base == "MultiRowRangeFilter") {
    pbw::MultiRowRangeFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    return std::unique_ptr<Filter>(new MultiRowRangeFilter(f));
  }
  if (base == "SkipFilter" || base == "WhileMatchFilter") {
    pbw::SkipFilter f;  // WhileMatchFilter has the same layout.
    if (!Parse(&f, bytes)) return Malformed(name);
    auto inner = Make(f.filter().name(), f.filter().serialized_filter(), depth + 1);
    if (!inner.ok()) return inner.status();
    if (base == "SkipFilter") return std::unique_ptr<Filter>(new SkipFilter(std::move(inner).value()));
    return std::unique_ptr<Filter>(new WhileMatchFilter(std::move(inner).value()));
  }
  return MakeRowSampleFilter(base, name, bytes);
}

StatusOr<std::unique_ptr<Filter>> Make(std::string_view name, std::string_view bytes,
                                       int depth) {
  if (depth > 32)
    return Status::InvalidArgument(
        std::string("filters nested more than 32 deep (a ") + std::string(Short(name)) +
        " inside FilterLists, SkipFilters or WhileMatchFilters): flatten the filter");
  const std::string_view base = Short(name);
  if (base == "PrefixFilter") {
    pbw::PrefixFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    return std::unique_ptr<Filter>(new PrefixFilter(f.prefix()));
  }
  if (base == "ColumnPrefixFilter") {
    pbw::ColumnPrefixFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    return std::unique_ptr<Filter>(new ColumnPrefixFilter(f.prefix()));
  }
  if (base == "RowFilter") return MakeCompare(Part::kRow, name, bytes);
  if (base == "FamilyFilter") return MakeCompare(Part::kFamily, name, bytes);
  if (base == "QualifierFilter") return MakeCompare(Part::kQualifier, name, bytes);
  if (base == "ValueFilter") return MakeCompare(Part::kValue, name, bytes);
  if (base == "SingleColumnValueFilter") {
    pbw::SingleColumnValueFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    auto cmp = MakeComparator(f.comparator());
    if (!cmp.ok()) return cmp.status();
    return std::unique_ptr<Filter>(new SingleColumnValueFilter(f, std::move(cmp).value()));
  }
  if (base == "FirstKeyOnlyFilter") return std::unique_ptr<Filter>(new FirstKeyOnlyFilter());
  if (base == "KeyOnlyFilter") {
    pbw::KeyOnlyFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    return std::unique_ptr<Filter>(new KeyOnlyFilter(f.len_as_val()));
  }
  if (base == "PageFilter") {
    pbw::PageFilter f;
    if (!Parse(&f, bytes)) return Malformed(name);
    return std::unique_ptr<Filter>(new PageFilter(f.page_size()));
  }
  if (auto more = MakeColumnOrRowFilter(base, name, bytes, depth)) return std::move(*more);
  if (base == "FilterList") {
    pbw::FilterList f;
    if (!Parse(&f, bytes)) return Malformed(name);
    std::vector<std::unique_ptr<Filter>> members;
    for (const pbw::Filter& m : f.filters()) {
      auto made = Make(m.name(), m.serialized_filter(), depth + 1);
      if (!made.ok()) return made.status();
      members.push_back(std::move(made).value());
    }
    return std::unique_ptr<Filter>(
        new FilterList(f.operator_() != pbw::FilterList::MUST_PASS_ONE, std::move(members)));
  }
  return Status::Unimplemented("java.lang.ClassNotFoundException: " + std::string(name) + " (" +
                               std::string(kSupported) + ")");
}

}  // namespace

StatusOr<std::unique_ptr<Filter>> MakeFilter(std::string_view name, std::string_view serialized) {
  return Make(name, serialized, 0);
}

StatusOr<std::unique_ptr<Filter>> ParseFilter(std::string_view filter_message) {
  pbw::Filter f;
  if (!Parse(&f, filter_message) || !f.has_name())
    return Status::InvalidArgument("cannot read the request's Filter (name and serialized_filter)");
  return Make(f.name(), f.serialized_filter(), 0);
}

bool FilterOneRow(Filter* f, ByteView row, std::span<const Cell> cells, uint32_t max_versions,
                  std::vector<Cell>* out, std::deque<std::string>* storage) {
  f->Reset();
  const size_t first = out->size();
  if (f->FilterRowKey(row)) return false;
  const Cell* prev = nullptr;
  uint32_t versions = 0;
  bool skip_column = false;
  bool skip_family = false;
  for (const Cell& c : cells) {
    const bool same_family = prev && prev->family == c.family;
    const bool same_column = same_family && prev->qualifier == c.qualifier;
    prev = &c;
    if (!same_family) skip_family = false;
    if (!same_column) {
      skip_column = false;
      versions = 0;
    }
    if (skip_family || skip_column) continue;
    const FilterCode code = f->FilterCell(c);
    switch (code) {
      case FilterCode::kSkip: continue;
      case FilterCode::kNextCol: skip_column = true; continue;
      case FilterCode::kNextRow: skip_family = true; continue;
      case FilterCode::kIncludeAndNextCol: skip_column = true; break;
      case FilterCode::kInclude: break;
    }
    if (versions >= max_versions) {
      skip_column = true;
      continue;
    }
    ++versions;
    Cell kept = c;
    f->TransformCell(&kept, storage);
    out->push_back(kept);
  }
  if (f->HasFilterRow()) {
    f->FilterRowCells(out, first);
    if (f->FilterRow()) {
      out->resize(first);
      return false;
    }
  }
  return out->size() > first;
}

}  // namespace wirebench::hbaserpc
