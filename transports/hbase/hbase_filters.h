// HBase's scan and get filters (Filter.proto, Comparator.proto), evaluated
// over the message model's cells: wirebench's own code, following the
// behaviour of HBase 2.x's filter classes. A filter sees one row at a time:
// FilterRowKey, then FilterCell for each of the row's cells in HBase's order
// (all versions in the time range, newest first), then FilterRow; the
// versions it includes are then counted against max_versions per column.
// Supported: PrefixFilter, ColumnPrefixFilter, SingleColumnValueFilter,
// FilterList (MUST_PASS_ALL, MUST_PASS_ONE, nested), FirstKeyOnlyFilter,
// KeyOnlyFilter, PageFilter, RowFilter, QualifierFilter, ValueFilter and
// FamilyFilter with BinaryComparator, BinaryPrefixComparator,
// RegexStringComparator and SubstringComparator; ColumnPaginationFilter,
// ColumnRangeFilter, MultipleColumnPrefixFilter, TimestampsFilter,
// InclusiveStopFilter (forward scans), ColumnCountGetFilter,
// MultiRowRangeFilter, SkipFilter, WhileMatchFilter, FuzzyRowFilter,
// DependentColumnFilter, FirstKeyValueMatchingQualifiersFilter and
// RandomRowFilter. Anything else is refused by ParseFilter with the
// DoNotRetryIOException HBase would send.
// Thread-safety: a filter has per-row state; one scanner (one thread at a
// time) uses it.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "codecs/message.h"
#include "common/status.h"

namespace wirebench::hbaserpc {

// HBase's Filter.ReturnCode, the ones these filters give.
enum class FilterCode : uint8_t {
  kInclude,
  kIncludeAndNextCol,  // Include, then skip the column's older versions.
  kSkip,               // Leave this cell out.
  kNextCol,            // Leave out this cell and the column's older versions.
  kNextRow,            // Leave out the rest of this family's cells in this row (a
                       // region server's store scanner moves to the next row).
};

class Filter {
 public:
  virtual ~Filter() = default;
  // Called before each row.
  virtual void Reset() {}
  // True when no later row can pass (PageFilter's page is full).
  virtual bool FilterAllRemaining() const { return false; }
  // True to leave the whole row out, by its key.
  virtual bool FilterRowKey(ByteView /*row*/) { return false; }
  virtual FilterCode FilterCell(const Cell& /*c*/) { return FilterCode::kInclude; }
  // Rewrites an included cell (KeyOnlyFilter); new bytes go to `storage`.
  virtual void TransformCell(Cell* /*c*/, std::deque<std::string>* /*storage*/) {}
  // True when FilterRow must be asked after the row's cells.
  virtual bool HasFilterRow() const { return false; }
  // Drops cells from the row's passing cells, (*cells)[first..], before
  // FilterRow is asked (HBase's filterRowCells; DependentColumnFilter).
  virtual void FilterRowCells(std::vector<Cell>* /*cells*/, size_t /*first*/) {}
  // True to leave the row out after seeing its cells.
  virtual bool FilterRow() { return false; }
};

// RegexStringComparator patterns longer or nested deeper than these are
// refused (a DoNotRetryIOException naming the limit): compiling one costs
// time linear in its size, on a handler thread, and these keep it under
// about 100 ms.
inline constexpr size_t kMaxRegexPatternBytes = 64 * 1024;
inline constexpr size_t kMaxRegexNesting = 1000;
// The most memory one compiled pattern uses (RE2's max_mem: its program and
// its DFA cache; past it RE2 matches more slowly, never fails).
inline constexpr int64_t kRegexMemoryBytes = int64_t{2} << 20;

// Reads a Filter message (name + serialized filter), as Get.filter and
// Scan.filter carry it. Errors name the filter; an unknown one reads
// "org.apache.hadoop.hbase.DoNotRetryIOException: java.lang.ClassNotFoundException: NAME ...".
StatusOr<std::unique_ptr<Filter>> ParseFilter(std::string_view filter_message);
// The same from a name and its serialized form.
StatusOr<std::unique_ptr<Filter>> MakeFilter(std::string_view name, std::string_view serialized);

// Runs `f` over one row: `cells` are the row's cells in HBase's order, every
// version in the read's time range. Appends the cells that pass (at most
// max_versions per column) to `out` and returns true, or returns false when
// the row is left out. Transformed values live in `storage`.
bool FilterOneRow(Filter* f, ByteView row, std::span<const Cell> cells, uint32_t max_versions,
                  std::vector<Cell>* out, std::deque<std::string>* storage);

}  // namespace wirebench::hbaserpc
