#include "regions/memstore/memstore_region.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <string_view>
#include <utility>
#include <vector>

#include "regions/memstore/result_builder.h"

namespace wirebench {

uint64_t MemstoreNowMillis() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
}

namespace {

struct ColumnKey {
  std::string family;
  std::string qualifier;
};
using ColumnRef = std::pair<std::string_view, std::string_view>;

// Orders columns by (family, qualifier), bytes compared unsigned as HBase
// does; transparent so lookups need no copy.
struct ColumnLess {
  using is_transparent = void;
  static ColumnRef Ref(const ColumnKey& k) { return {k.family, k.qualifier}; }
  static ColumnRef Ref(const ColumnRef& r) { return r; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return Ref(a) < Ref(b);
  }
};

struct Version {
  uint64_t timestamp = 0;
  std::string value;
};

// A column's versions: the newest inline (the only one at --max-versions 1,
// so the common case allocates nothing more), older ones newest first.
struct ColumnCells {
  Version newest;
  std::vector<Version> older;
};

// What a delete marker HBase keeps masks, every version up to the marker's
// timestamp, so that later puts of older cells stay masked: the whole row
// (all_families), a family (kDeleteFamily) or a column (kDeleteColumn).
struct MarkerKey {
  bool all_families = false;
  CellType type = CellType::kDeleteFamily;
  std::string family;
  std::string qualifier;
};
using MarkerRef = std::tuple<bool, CellType, std::string_view, std::string_view>;

// Orders markers by kind, then column; transparent so lookups need no copy.
struct MarkerLess {
  using is_transparent = void;
  static MarkerRef Ref(const MarkerKey& k) {
    return {k.all_families, k.type, k.family, k.qualifier};
  }
  static MarkerRef Ref(const MarkerRef& r) { return r; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return Ref(a) < Ref(b);
  }
};

// Each marker's newest timestamp. Ordered: one Delete may name 100,000
// columns, and a list searched per cell made that O(n^2).
using MarkerMap = std::map<MarkerKey, uint64_t, MarkerLess>;

// A marker that masks one timestamp (Delete of one version, or
// DeleteFamilyVersion: qualifier empty), oldest first.
struct VersionMarker {
  uint64_t timestamp;
  CellType type;
  std::string family, qualifier;
  bool operator<(const VersionMarker& o) const {
    return std::tie(timestamp, type, family, qualifier) <
           std::tie(o.timestamp, o.type, o.family, o.qualifier);
  }
};

using ColumnMap = std::map<ColumnKey, ColumnCells, ColumnLess>;
struct RowData {
  ColumnMap cols;
  // Empty unless the row saw a delete. `markers` holds one marker per kind
  // and column (a newer one of the same kind replaces it); version markers
  // (one version, or a family's cells at one timestamp) sit in an ordered
  // set, at most kMaxVersionMarkers per row.
  MarkerMap markers;
  std::set<VersionMarker> version_markers;
  bool Empty() const { return cols.empty() && markers.empty() && version_markers.empty(); }
  bool HasMarkers() const { return !markers.empty() || !version_markers.empty(); }
};

// Version markers one row keeps. Past it the oldest is forgotten, as HBase's
// major compaction drops delete markers (counted in Stats); without a bound
// each delete of a version cost O(markers) and 150,000 of them on one cell
// took 45 s to write while the row's shard was locked.
constexpr size_t kMaxVersionMarkers = 10000;

// What the memstore spends on a delete marker besides its family and
// qualifier bytes (its node in the row's map or set), and on the first
// marker of a row besides the row's key (the row's node, which a row holding
// only markers takes as a row of cells does), about, as measured with
// jemalloc on x86-64 (see the memstore region's test).
constexpr uint64_t kMarkerOverheadBytes = 128;
constexpr uint64_t kMarkedRowOverheadBytes = 256;
using RowsMap = std::map<std::string, RowData, std::less<>>;
// Each table's rows apart, as HBase keeps each table in its own regions.
using TablesMap = std::map<std::string, RowsMap, std::less<>>;

std::string_view Sv(ByteView v) { return v.str(); }

bool IsLatest(uint64_t ts) { return ts == 0 || ts == kLatestTimestamp; }

struct alignas(64) Shard {
  mutable std::shared_mutex mu;
  TablesMap tables;  // A table's map is made by its first write to this shard.
  // Guarded by mu (written under the exclusive lock).
  uint64_t cells = 0;  // Versions stored.
  uint64_t bytes = 0;  // Row, family, qualifier and value bytes stored.
  uint64_t markers = 0;       // Delete markers kept.
  uint64_t marker_bytes = 0;  // What they take, their rows' share included.

  // REQUIRES: mu held. The table's rows, or nullptr when it has none here.
  // One table (a benchmark's) is the common case: one equality test.
  const RowsMap* Find(ByteView table) const {
    if (tables.size() == 1)
      return tables.begin()->first == table.str() ? &tables.begin()->second : nullptr;
    auto it = tables.find(table.str());
    return it == tables.end() ? nullptr : &it->second;
  }
  // REQUIRES: mu held exclusively. The table's rows, made on first use.
  RowsMap& Rows(ByteView table) {
    if (const RowsMap* rows = Find(table)) return const_cast<RowsMap&>(*rows);
    return tables.emplace(table.ToString(), RowsMap()).first->second;
  }
};

// Operation counters, bumped with relaxed atomics by any thread.
struct alignas(64) OpCounters {
  std::atomic<uint64_t> puts{0};
  std::atomic<uint64_t> deletes{0};
  std::atomic<uint64_t> gets{0};
  std::atomic<uint64_t> scans{0};
  std::atomic<uint64_t> multis{0};
  std::atomic<uint64_t> cells_returned{0};
  std::atomic<uint64_t> check_and_mutates{0};
  std::atomic<uint64_t> increments{0};
  std::atomic<uint64_t> appends{0};
  std::atomic<uint64_t> markers_dropped{0};  // Version markers forgotten (kMaxVersionMarkers).
};

uint64_t CellBytes(std::string_view row, const ColumnKey& k, const Version& v) {
  return row.size() + k.family.size() + k.qualifier.size() + v.value.size();
}

// The columns a Get or Scan asks for (none = all; an empty qualifier asks
// for its family), sorted once per request so that picking a row's cells
// costs O(min(asked, row's columns) log) instead of their product: a Get
// naming 100,000 columns of a 20,000-column row took 2e9 comparisons.
class ColumnSelection {
 public:
  explicit ColumnSelection(std::span<const Column> columns) {
    std::vector<ColumnRef> sorted;
    sorted.reserve(columns.size());
    for (const Column& c : columns) sorted.emplace_back(Sv(c.family), Sv(c.qualifier));
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    // A whole family sorts first among its own columns, which it makes redundant.
    asked_.reserve(sorted.size());
    for (const ColumnRef& c : sorted)
      if (asked_.empty() || !asked_.back().second.empty() || asked_.back().first != c.first)
        asked_.push_back(c);
  }

  // Calls add(key, cells) for each selected column of `cols`, in their order.
  template <typename F>
  void ForEach(const ColumnMap& cols, F add) const {
    if (asked_.empty() || asked_.size() >= cols.size()) {
      for (const auto& [k, cc] : cols)
        if (Selects(k)) add(k, cc);
      return;
    }
    // Fewer asked than the row holds: seek each.
    for (const ColumnRef& a : asked_) {
      if (!a.second.empty()) {
        auto it = cols.find(a);
        if (it != cols.end()) add(it->first, it->second);
        continue;
      }
      for (auto it = cols.lower_bound(a); it != cols.end() && it->first.family == a.first; ++it)
        add(it->first, it->second);
    }
  }

 private:
  bool Selects(const ColumnKey& k) const {
    if (asked_.empty()) return true;
    auto asked = [&](std::string_view qualifier) {
      return std::binary_search(asked_.begin(), asked_.end(), ColumnRef{k.family, qualifier});
    };
    return asked(std::string_view()) || (!k.qualifier.empty() && asked(k.qualifier));
  }

  std::vector<ColumnRef> asked_;  // Sorted; views into the request.
};

bool Masked(const RowData& data, std::string_view family, std::string_view qualifier,
            uint64_t ts) {
  auto covers = [&](const MarkerRef& key) {
    auto it = data.markers.find(key);
    return it != data.markers.end() && ts <= it->second;
  };
  if (!data.markers.empty() &&
      (covers({true, CellType::kDeleteFamily, {}, {}}) ||
       covers({false, CellType::kDeleteFamily, family, {}}) ||
       covers({false, CellType::kDeleteColumn, family, qualifier})))
    return true;
  if (data.version_markers.empty()) return false;
  VersionMarker key{ts, CellType::kDelete, std::string(family), std::string(qualifier)};
  if (data.version_markers.count(key)) return true;
  key.type = CellType::kDeleteFamilyVersion;
  key.qualifier.clear();
  return data.version_markers.count(key) != 0;
}

class MemstoreRegion final : public Region {
 public:
  explicit MemstoreRegion(const MemstoreOptions& options)
      : options_(options),
        max_versions_(std::max<uint32_t>(1, options.max_versions)),
        shards_(std::max<uint32_t>(1, options.shards)) {}

  std::string_view name() const override { return "memstore"; }

  Status Mutate(const Mutation& m, MutateResponse* resp) override {
    WB_RETURN_IF_ERROR(Apply(m, m.table));
    if (resp) resp->processed = true;
    return Status::Ok();
  }

  Status Get(const GetRequest& req, RegionScratch* scratch, GetResponse* resp) override {
    ResultBuilder b(scratch);
    size_t idx = AddGet(req, req.table, &b);
    b.Finish();
    resp->result = scratch->results[idx];
    return Status::Ok();
  }

  Status Scan(const ScanRequest& req, RegionScratch* scratch, ScanResponse* resp) override {
    ops_.scans.fetch_add(1, std::memory_order_relaxed);
    uint32_t limit = req.number_of_rows == 0 ? options_.max_scan_rows
                                             : std::min(req.number_of_rows, options_.max_scan_rows);
    ResultBuilder b(scratch);

    // Lock every shard for reading (always in index order; writers take one
    // shard only, so this cannot deadlock) and merge their rows in order.
    std::vector<std::shared_lock<std::shared_mutex>> locks;
    locks.reserve(shards_.size());
    for (const Shard& s : shards_) locks.emplace_back(s.mu);

    const ColumnSelection columns(req.columns);
    uint32_t returned = 0;
    uint64_t cells = 0;
    bool more = false;
    // Adds one row; false when the limit was reached before it.
    auto add_row = [&](const std::string& row, const RowData& data) {
      if (returned == limit) {
        more = true;
        return false;
      }
      b.BeginResult(ByteView(row), true);
      AddCells(data, columns, req.max_versions, req.time_range, &b);
      if (b.current_cells() == 0) {
        b.DropResult();  // HBase skips rows with no selected cells.
      } else {
        cells += b.current_cells();
        ++returned;
      }
      return true;
    };
    if (!req.reversed) {
      ScanForward(req, add_row);
    } else {
      ScanReversed(req, add_row);
    }
    locks.clear();
    b.Finish();
    ops_.cells_returned.fetch_add(cells, std::memory_order_relaxed);
    resp->results = std::span<const Result>(scratch->results.data(), scratch->results.size());
    resp->more_results = more;
    return Status::Ok();
  }

  // Gives the rows of the scanned table, in every (locked) shard, to
  // `add_row` in merged order (`before(a, b)`: row a comes first) while they
  // are before stop_row (or are it, when it is included), until add_row
  // returns false. `open(rows)` is a shard's cursor: its first row and end.
  template <typename Open, typename Before, typename AddRow>
  void ScanShards(const ScanRequest& req, const Open& open, const Before& before,
                  AddRow& add_row) const {
    const std::string_view stop = Sv(req.stop_row);
    auto in_range = [&](const std::string& row) {
      return stop.empty() || before(std::string_view(row), stop) ||
             (req.include_stop && row == stop);
    };
    using Cursor = decltype(open(std::declval<const RowsMap&>()));
    std::vector<Cursor> cursors;
    cursors.reserve(shards_.size());
    for (const Shard& s : shards_) {
      if (const RowsMap* rows = s.Find(req.table)) cursors.push_back(open(*rows));
    }
    for (;;) {
      Cursor* best = nullptr;
      for (auto& c : cursors) {
        if (c.first == c.second || !in_range(c.first->first)) continue;
        if (!best || before(c.first->first, best->first->first)) best = &c;
      }
      if (!best) break;
      if (!add_row(best->first->first, best->first->second)) break;
      ++best->first;
    }
  }

  // Ascending from start_row up to stop_row.
  template <typename AddRow>
  void ScanForward(const ScanRequest& req, AddRow& add_row) const {
    const std::string_view start = Sv(req.start_row);
    auto open = [&](const RowsMap& rows) {
      return std::pair(req.include_start ? rows.lower_bound(start) : rows.upper_bound(start),
                       rows.end());
    };
    ScanShards(req, open, std::less<>(), add_row);
  }

  // Descending from start_row (empty: the last row) down to stop_row.
  template <typename AddRow>
  void ScanReversed(const ScanRequest& req, AddRow& add_row) const {
    const std::string_view start = Sv(req.start_row);
    auto open = [&](const RowsMap& rows) {
      auto upper = start.empty()         ? rows.end()
                   : req.include_start ? rows.upper_bound(start)
                                       : rows.lower_bound(start);
      return std::pair(RowsMap::const_reverse_iterator(upper), rows.rend());
    };
    ScanShards(req, open, std::greater<>(), add_row);
  }

  // Every get of the Multi is built in the same scratch by one builder, so
  // each result stays valid; mutations are applied in order.
  Status Multi(const MultiRequest& req, RegionScratch* scratch, MultiResponse* resp) override {
    ops_.multis.fetch_add(1, std::memory_order_relaxed);
    ResultBuilder b(scratch);
    std::vector<ActionResult>& out = scratch->action_results;
    out.resize(req.actions.size());
    // A failed action's reason, kept in the scratch ("Class: text" when it
    // is one of HBase's exceptions, which the codecs send as that class):
    // action, offset, size.
    std::vector<std::tuple<size_t, uint32_t, size_t>> failed;
    for (size_t i = 0; i < req.actions.size(); ++i) {
      const Action& a = req.actions[i];
      ActionResult& ar = out[i];
      ar = ActionResult{};
      ar.index = a.index;
      if (a.kind == ActionKind::kMutation) {
        Status s = Apply(a.mutation, req.table);
        if (!s.ok()) {
          ar.ok = false;
          failed.emplace_back(i, b.Keep(ByteView(s.message())), s.message().size());
        }
      } else {
        AddGet(a.get, req.table, &b);
      }
    }
    b.Finish();
    size_t next = 0;
    for (size_t i = 0; i < req.actions.size(); ++i) {
      if (req.actions[i].kind == ActionKind::kGet) out[i].result = scratch->results[next++];
    }
    for (const auto& [i, offset, size] : failed) out[i].error = b.Kept(offset, size);
    resp->results = std::span<const ActionResult>(out.data(), req.actions.size());
    return Status::Ok();
  }

  Status CheckAndMutate(const Condition& c, std::span<const Mutation> mutations,
                        RegionScratch*, bool* processed) override {
    ops_.check_and_mutates.fetch_add(1, std::memory_order_relaxed);
    if (c.row.empty()) return Status::InvalidArgument("checkAndMutate: the condition has no row");
    for (const Mutation& m : mutations) {
      if (m.row != c.row)
        return Status::InvalidArgument("checkAndMutate: a mutation names row '" +
                                       m.row.ToString() + "', not the condition's '" +
                                       c.row.ToString() + "'");
      if (m.type != MutationType::kPut && m.type != MutationType::kDelete)
        return Status::Unimplemented(
            "checkAndMutate: only puts and deletes may follow a condition here");
    }
    Shard& s = ShardFor(c.row);
    std::unique_lock lock(s.mu);
    const Cell* newest = nullptr;
    Cell found;
    const RowsMap* rows = s.Find(c.table);
    auto row_it = rows ? rows->find(Sv(c.row)) : RowsMap::const_iterator();
    if (rows && row_it != rows->end()) {
      auto it = row_it->second.cols.find(ColumnRef{Sv(c.family), Sv(c.qualifier)});
      if (it != row_it->second.cols.end()) {
        const ColumnCells& cc = it->second;
        auto pick = [&](const Version& v) {
          if (newest == nullptr && c.time_range.Includes(v.timestamp)) {
            found.value = ByteView(v.value);
            found.timestamp = v.timestamp;
            newest = &found;
          }
        };
        pick(cc.newest);
        for (const Version& v : cc.older) pick(v);
      }
    }
    *processed = ConditionHolds(c, newest);
    if (!*processed) return Status::Ok();
    RowsMap& table = s.Rows(c.table);
    for (const Mutation& m : mutations) WB_RETURN_IF_ERROR(ApplyLocked(s, table, m));
    return Status::Ok();
  }

  Status ReadModifyWrite(const Mutation& m, RegionScratch* scratch, Result* out) override {
    const bool inc = m.type == MutationType::kIncrement;
    if (!inc && m.type != MutationType::kAppend)
      return Status::InvalidArgument("ReadModifyWrite takes an Increment or an Append");
    if (m.row.empty()) return Status::InvalidArgument("memstore: mutation has an empty row key");
    (inc ? ops_.increments : ops_.appends).fetch_add(1, std::memory_order_relaxed);
    for (const Cell& cell : m.cells)
      if (inc && cell.value.size() != 8)
        return Status::InvalidArgument("Increment: the amount for " + cell.qualifier.ToString() +
                                       " is " + std::to_string(cell.value.size()) +
                                       " bytes wide, not a long");
    ResultBuilder b(scratch);
    b.BeginResult(m.row, true);
    const uint64_t now = MemstoreNowMillis();
    WB_RETURN_IF_ERROR(CheckLimit(m.type));
    Shard& s = ShardFor(m.row);
    {
      std::unique_lock lock(s.mu);
      const Footprint before(s);
      struct AccountOnExit {
        MemstoreRegion* r;
        const Footprint& before;
        const Shard& s;
        ~AccountOnExit() { r->Account(before, s); }
      } account{this, before, s};
      RowsMap& rows = s.Rows(m.table);
      auto row_it = rows.find(Sv(m.row));
      // Check every result first: a bad one changes nothing.
      WB_RETURN_IF_ERROR(CheckResults(row_it == rows.end() ? nullptr : &row_it->second, m, inc));
      if (row_it == rows.end()) row_it = rows.emplace(m.row.ToString(), RowData()).first;
      const std::string& row = row_it->first;
      RowData& data = row_it->second;
      std::string value;
      for (const Cell& cell : m.cells) {
        const ColumnRef ref{Sv(cell.family), Sv(cell.qualifier)};
        auto it = data.cols.find(ref);
        uint64_t ts = now;
        if (it != data.cols.end()) {
          const Version& cur = it->second.newest;
          // HBase gives the new version a timestamp above the current one's.
          ts = std::max(now, cur.timestamp + 1);
          if (inc) {
            value.resize(8);
            StoreBE64(reinterpret_cast<uint8_t*>(value.data()),
                      LoadBE64(reinterpret_cast<const uint8_t*>(cur.value.data())) +
                          LoadBE64(cell.value.data()));
          } else {
            value = cur.value;
            value.append(cell.value.chars(), cell.value.size());
          }
        } else {
          value.assign(cell.value.chars(), cell.value.size());
        }
        if (data.HasMarkers() && Masked(data, ref.first, ref.second, ts)) {
          // A newer delete marker hides the result (HBase would too).
        } else {
          PutVersion(s, row, &data.cols, ref, ts, value);
        }
        b.AddCell(cell.family, cell.qualifier, ts, CellType::kPut, ByteView(value));
      }
      if (data.Empty()) rows.erase(row_it);  // No cells: no row left behind.
    }
    b.Finish();
    *out = scratch->results[0];
    return Status::Ok();
  }

  void AppendStats(nlohmann::json* out) const override {
    uint64_t rows = 0, cells = 0, bytes = 0, markers = 0;
    std::map<std::string, uint64_t, std::less<>> table_rows;
    for (const Shard& s : shards_) {
      std::shared_lock lock(s.mu);
      for (const auto& [table, table_map] : s.tables) {
        rows += table_map.size();
        table_rows[table] += table_map.size();
      }
      cells += s.cells;
      bytes += s.bytes;
      markers += s.markers;
    }
    nlohmann::json& j = (*out)["memstore"];
    j["rows"] = rows;
    // Rows per table. wirebench's own codecs carry no table name: they
    // address HBase's one region of "usertable" (pb's "usertable,,1"), so
    // the rows they wrote ("" here) are usertable's.
    nlohmann::json& t = j["tables"];
    t = nlohmann::json::object();
    for (const auto& [table, n] : table_rows) {
      nlohmann::json& rows_of = t[table.empty() ? "usertable" : table];
      rows_of = rows_of.is_null() ? n : rows_of.get<uint64_t>() + n;
    }
    j["cells"] = cells;
    j["bytes"] = bytes;
    j["footprint_bytes"] = footprint_.load(std::memory_order_relaxed);
    j["limit_bytes"] = options_.limit_bytes;
    j["refused_puts"] = refused_.load(std::memory_order_relaxed);
    j["refused_deletes"] = refused_deletes_.load(std::memory_order_relaxed);
    j["delete_markers"] = markers;
    j["delete_markers_dropped"] = ops_.markers_dropped.load(std::memory_order_relaxed);
    j["max_versions"] = max_versions_;
    j["puts"] = ops_.puts.load(std::memory_order_relaxed);
    j["deletes"] = ops_.deletes.load(std::memory_order_relaxed);
    j["gets"] = ops_.gets.load(std::memory_order_relaxed);
    j["scans"] = ops_.scans.load(std::memory_order_relaxed);
    j["multis"] = ops_.multis.load(std::memory_order_relaxed);
    j["check_and_mutates"] = ops_.check_and_mutates.load(std::memory_order_relaxed);
    j["increments"] = ops_.increments.load(std::memory_order_relaxed);
    j["appends"] = ops_.appends.load(std::memory_order_relaxed);
    j["cells_returned"] = ops_.cells_returned.load(std::memory_order_relaxed);
  }

 private:
  Shard& ShardFor(ByteView row) {
    return shards_[std::hash<std::string_view>()(Sv(row)) % shards_.size()];
  }

  // Stores one version of a column, keeping the newest max_versions_.
  void PutVersion(Shard& s, const std::string& row, ColumnMap* cols, const ColumnRef& ref,
                  uint64_t ts, std::string_view value) {
    auto it = cols->find(ref);
    if (it == cols->end()) {
      it = cols->emplace(ColumnKey{std::string(ref.first), std::string(ref.second)}, ColumnCells())
               .first;
      it->second.newest.value.assign(value);
      it->second.newest.timestamp = ts;
      ++s.cells;
      s.bytes += CellBytes(row, it->first, it->second.newest);
      return;
    }
    const ColumnKey& key = it->first;
    ColumnCells& cc = it->second;
    if (ts == cc.newest.timestamp || (ts > cc.newest.timestamp && max_versions_ == 1)) {
      // Same version (HBase: the later put wins), or the only one kept.
      s.bytes -= CellBytes(row, key, cc.newest);
      cc.newest.value.assign(value);
      cc.newest.timestamp = ts;
      s.bytes += CellBytes(row, key, cc.newest);
      return;
    }
    if (ts > cc.newest.timestamp) {
      cc.older.insert(cc.older.begin(), std::move(cc.newest));
      cc.newest = Version{ts, std::string(value)};
      ++s.cells;
      s.bytes += CellBytes(row, key, cc.newest);
    } else {
      if (max_versions_ == 1) return;  // Older than the one version kept.
      auto pos = std::find_if(cc.older.begin(), cc.older.end(),
                              [&](const Version& v) { return v.timestamp <= ts; });
      if (pos != cc.older.end() && pos->timestamp == ts) {
        s.bytes -= CellBytes(row, key, *pos);
        pos->value.assign(value);
        s.bytes += CellBytes(row, key, *pos);
        return;
      }
      pos = cc.older.insert(pos, Version{ts, std::string(value)});
      ++s.cells;
      s.bytes += CellBytes(row, key, *pos);
    }
    while (cc.older.size() + 1 > max_versions_) {
      s.bytes -= CellBytes(row, key, cc.older.back());
      --s.cells;
      cc.older.pop_back();
    }
  }

  // Removes the versions of one column that `drop` selects; erases the
  // column when none is left. Returns the next column.
  template <typename Pred>
  ColumnMap::iterator DropVersions(Shard& s, const std::string& row, ColumnMap* cols,
                                   ColumnMap::iterator it, Pred drop) {
    ColumnCells& cc = it->second;
    for (auto v = cc.older.begin(); v != cc.older.end();) {
      if (drop(v->timestamp)) {
        s.bytes -= CellBytes(row, it->first, *v);
        --s.cells;
        v = cc.older.erase(v);
      } else {
        ++v;
      }
    }
    if (drop(cc.newest.timestamp)) {
      s.bytes -= CellBytes(row, it->first, cc.newest);
      --s.cells;
      if (cc.older.empty()) return cols->erase(it);
      cc.newest = std::move(cc.older.front());
      cc.older.erase(cc.older.begin());
    }
    return std::next(it);
  }

  // What one more marker of (family, qualifier) takes in `data`'s row: the
  // first one also takes the row, which may hold no cell to pay for it.
  static uint64_t MarkerBytes(const RowData& data, std::string_view row, std::string_view family,
                              std::string_view qualifier) {
    uint64_t bytes = family.size() + qualifier.size() + kMarkerOverheadBytes;
    if (!data.HasMarkers()) bytes += row.size() + kMarkedRowOverheadBytes;
    return bytes;
  }

  // REQUIRES: s.mu held exclusively. Keeps a marker masking what `key`
  // names up to `ts` (an older one of the same key is moved up to it).
  void AddMarker(Shard& s, std::string_view row, RowData* data, MarkerKey key, uint64_t ts) {
    const uint64_t bytes = MarkerBytes(*data, row, key.family, key.qualifier);
    auto [it, added] = data->markers.try_emplace(std::move(key), ts);
    if (!added) {
      it->second = std::max(it->second, ts);
      return;
    }
    ++s.markers;
    s.marker_bytes += bytes;
  }

  // REQUIRES: s.mu held exclusively. Keeps a marker of one timestamp; past
  // kMaxVersionMarkers the row's oldest is forgotten.
  void AddVersionMarker(Shard& s, std::string_view row, RowData* data, VersionMarker m) {
    const uint64_t bytes = MarkerBytes(*data, row, m.family, m.qualifier);
    if (!data->version_markers.insert(std::move(m)).second) return;
    ++s.markers;
    s.marker_bytes += bytes;
    if (data->version_markers.size() <= kMaxVersionMarkers) return;
    const VersionMarker& oldest = *data->version_markers.begin();
    s.marker_bytes -= oldest.family.size() + oldest.qualifier.size() + kMarkerOverheadBytes;
    --s.markers;
    data->version_markers.erase(data->version_markers.begin());
    ops_.markers_dropped.fetch_add(1, std::memory_order_relaxed);
  }

  // What an Increment or Append of `data`'s row (nullptr: a new row) would
  // make, checked before any of it is applied: every counter a long, and no
  // result past the cell limit (cells of one column add up in order).
  Status CheckResults(const RowData* data, const Mutation& m, bool inc) const {
    std::map<ColumnRef, uint64_t> value_sizes;
    for (const Cell& cell : m.cells) {
      const ColumnRef ref{Sv(cell.family), Sv(cell.qualifier)};
      auto [size, first] = value_sizes.try_emplace(ref, 0);
      if (first && data) {
        auto it = data->cols.find(ref);
        if (it != data->cols.end()) size->second = it->second.newest.value.size();
        if (inc && it != data->cols.end() && size->second != 8)
          return Status::InvalidArgument("Field is not a long, it's " +
                                         std::to_string(size->second) + " bytes wide");
      }
      size->second = inc ? 8 : size->second + cell.value.size();
      WB_RETURN_IF_ERROR(CheckCellSize(m.row, ref, size->second));
    }
    return Status::Ok();
  }

  // The put path's cell limit, for a result of `value_size` bytes.
  Status CheckCellSize(ByteView row, const ColumnRef& col, uint64_t value_size) const {
    // PrivateCellUtil.estimatedSerializedSizeOf: the KeyValue with its int
    // length (lengths 4 + 4, row length 2, family length 1, timestamp 8, type 1).
    const uint64_t size = 4 + 4 + 4 + 2 + row.size() + 1 + col.first.size() +
                          col.second.size() + 8 + 1 + value_size;
    if (options_.max_cell_bytes == 0 || size <= options_.max_cell_bytes) return Status::Ok();
    return Status::InvalidArgument(
        "Cell[" + row.ToString() + "/" + std::string(col.first) + ":" + std::string(col.second) +
        "] with size " + std::to_string(size) + " exceeds limit of " +
        std::to_string(options_.max_cell_bytes) +
        " bytes (hbase.server.keyvalue.maxsize) as this Append or Increment would make it: "
        "split the value over several columns or rows, or keep it outside HBase");
  }

  // Applies a put or delete of `table`.
  Status Apply(const Mutation& m, ByteView table) {
    if (m.row.empty()) return Status::InvalidArgument("memstore: mutation has an empty row key");
    if (m.type != MutationType::kPut && m.type != MutationType::kDelete)
      return Status::Unimplemented(
          "memstore: Mutate takes puts and deletes (increments and appends go through "
          "ReadModifyWrite)");
    if (m.type == MutationType::kPut && m.cells.empty()) {
      ops_.puts.fetch_add(1, std::memory_order_relaxed);
      return Status::Ok();  // Nothing to store; no empty row.
    }
    Shard& s = ShardFor(m.row);
    std::unique_lock lock(s.mu);
    return ApplyLocked(s, s.Rows(table), m);
  }

  // REQUIRES: s.mu held exclusively; `rows` is a table's map in s; m is a
  // put or a delete of a non-empty row. Both are refused past the limit,
  // but for the delete of a whole row that holds cells.
  Status ApplyLocked(Shard& s, RowsMap& rows, const Mutation& m) {
    if (!DeletesRowOfCells(rows, m)) WB_RETURN_IF_ERROR(CheckLimit(m.type));
    const Footprint before(s);
    Status st = ApplyLockedUnchecked(s, rows, m);
    Account(before, s);
    return st;
  }

  // A delete of a whole row that holds cells, which the limit lets through:
  // the memstore has no flush to free room as HBase's does, so without it a
  // full memstore could never be emptied. What such deletes add (one marker
  // a row) is bounded by the rows put before the limit was reached.
  static bool DeletesRowOfCells(const RowsMap& rows, const Mutation& m) {
    if (m.type != MutationType::kDelete || !m.cells.empty()) return false;
    auto it = rows.find(Sv(m.row));
    return it != rows.end() && !it->second.cols.empty();
  }

  // The memory the shard's cells and delete markers take, about.
  struct Footprint {
    explicit Footprint(const Shard& s)
        : bytes(s.bytes), cells(s.cells), marker_bytes(s.marker_bytes) {}
    uint64_t bytes, cells, marker_bytes;
  };
  // REQUIRES: s.mu held. Adds what s gained or lost since `before`.
  void Account(const Footprint& before, const Shard& s) {
    const int64_t delta = int64_t(s.bytes - before.bytes) +
                          int64_t(s.cells - before.cells) * int64_t(kCellOverheadBytes) +
                          int64_t(s.marker_bytes - before.marker_bytes);
    if (delta != 0) footprint_.fetch_add(delta, std::memory_order_relaxed);
  }
  // Refuses a write of `type` past the limit, as HBase's
  // HRegion.checkResources refuses puts, deletes, increments and appends
  // while its memstore is over its blocking size.
  Status CheckLimit(MutationType type) {
    if (options_.limit_bytes == 0) return Status::Ok();
    const int64_t held = footprint_.load(std::memory_order_relaxed);
    if (held < int64_t(options_.limit_bytes)) return Status::Ok();
    (type == MutationType::kDelete ? refused_deletes_ : refused_)
        .fetch_add(1, std::memory_order_relaxed);
    if (!warned_.exchange(true, std::memory_order_relaxed))
      std::fprintf(stderr,
                   "wirebench server: the memstore holds %lld MiB, its limit "
                   "(--memstore-limit-mb %llu): writes are refused with RegionTooBusyException "
                   "until deletes of whole rows free room\n",
                   static_cast<long long>(held >> 20),
                   static_cast<unsigned long long>(options_.limit_bytes >> 20));
    return Status::ResourceExhausted(
        "org.apache.hadoop.hbase.RegionTooBusyException: Over memstore limit=" +
        std::to_string(options_.limit_bytes >> 20) + " MiB (it holds " +
        std::to_string(held >> 20) +
        " MiB); raise the server's --memstore-limit-mb, or delete whole rows to free room");
  }

  // A mutation's timestamps: a cell's own, else the mutation's, else the
  // server's clock (read once, when first needed).
  class TimestampResolver {
   public:
    explicit TimestampResolver(uint64_t mutation_ts)
        : mts_(IsLatest(mutation_ts) ? 0 : mutation_ts) {}
    uint64_t operator()(uint64_t ts) {
      if (!IsLatest(ts)) return ts;
      if (mts_ != 0) return mts_;
      if (now_ == 0) now_ = MemstoreNowMillis();
      return now_;
    }
    bool mutation_has_timestamp() const { return mts_ != 0; }

   private:
    const uint64_t mts_;
    uint64_t now_ = 0;
  };

  Status ApplyLockedUnchecked(Shard& s, RowsMap& rows, const Mutation& m) {
    TimestampResolver resolve(m.timestamp);
    if (m.type == MutationType::kPut) return ApplyPut(s, rows, m, resolve);
    return ApplyDelete(s, rows, m, resolve);
  }

  Status ApplyPut(Shard& s, RowsMap& rows, const Mutation& m, TimestampResolver& resolve) {
    ops_.puts.fetch_add(1, std::memory_order_relaxed);
    if (m.cells.empty()) return Status::Ok();
    auto row_it = rows.find(Sv(m.row));
    if (row_it == rows.end()) row_it = rows.emplace(m.row.ToString(), RowData()).first;
    const std::string& row = row_it->first;
    RowData& data = row_it->second;
    for (const Cell& c : m.cells) {
      const ColumnRef ref{Sv(c.family), Sv(c.qualifier)};
      const uint64_t ts = resolve(c.timestamp);
      if (data.HasMarkers() && Masked(data, ref.first, ref.second, ts)) continue;
      PutVersion(s, row, &data.cols, ref, ts, Sv(c.value));
    }
    if (data.Empty()) rows.erase(row_it);
    return Status::Ok();
  }

  // A delete without cells is the whole row's (a family marker over every
  // family); else each cell says what it deletes.
  Status ApplyDelete(Shard& s, RowsMap& rows, const Mutation& m, TimestampResolver& resolve) {
    ops_.deletes.fetch_add(1, std::memory_order_relaxed);
    auto row_it = rows.find(Sv(m.row));
    if (row_it == rows.end()) row_it = rows.emplace(m.row.ToString(), RowData()).first;
    const std::string& row = row_it->first;
    RowData& data = row_it->second;
    if (m.cells.empty()) {
      const uint64_t t = resolve(0);
      ColumnMap& cols = data.cols;
      for (auto it = cols.begin(); it != cols.end();)
        it = DropVersions(s, row, &cols, it, [t](uint64_t ts) { return ts <= t; });
      AddMarker(s, row, &data, MarkerKey{true, CellType::kDeleteFamily, "", ""}, t);
    }
    for (size_t i = 0; i < m.cells.size();) {
      if (FamilyLevel(m.cells[i])) {
        i = DeleteFamilyRun(s, row, &data, m.cells, i, resolve);
      } else {
        DeleteCell(s, row, &data, m.cells[i], resolve);
        ++i;
      }
    }
    if (data.Empty()) rows.erase(row_it);
    return Status::Ok();
  }

  static bool FamilyLevel(const Cell& c) {
    return c.type == CellType::kDeleteFamily || c.type == CellType::kDeleteFamilyVersion;
  }

  // The run of family deletes of one family that starts at cells[i]: its
  // markers, and one walk of the family's columns for them all, which drops
  // every version up to a DeleteFamily's timestamp and those at exactly a
  // DeleteFamilyVersion's (HBase's Delete.addFamilyVersion); LATEST_TIMESTAMP
  // is the server's clock. One walk per cell made a Delete of many such
  // cells on a wide row quadratic. Returns the index after the run.
  size_t DeleteFamilyRun(Shard& s, const std::string& row, RowData* data,
                         std::span<const Cell> cells, size_t i, TimestampResolver& resolve) {
    const std::string_view family = Sv(cells[i].family);
    uint64_t up_to = 0;
    bool any_up_to = false;
    std::vector<uint64_t> exact;
    size_t end = i;
    for (; end < cells.size() && FamilyLevel(cells[end]) && Sv(cells[end].family) == family; ++end) {
      const uint64_t t = resolve(cells[end].timestamp);
      if (cells[end].type == CellType::kDeleteFamily) {
        up_to = any_up_to ? std::max(up_to, t) : t;
        any_up_to = true;
        AddMarker(s, row, data, MarkerKey{false, CellType::kDeleteFamily, std::string(family), ""},
                  t);
      } else {
        exact.push_back(t);
        AddVersionMarker(s, row, data,
                         VersionMarker{t, CellType::kDeleteFamilyVersion, std::string(family), ""});
      }
    }
    std::sort(exact.begin(), exact.end());
    auto drop = [&](uint64_t ts) {
      return (any_up_to && ts <= up_to) || std::binary_search(exact.begin(), exact.end(), ts);
    };
    ColumnMap& cols = data->cols;
    auto it = cols.lower_bound(ColumnRef{family, std::string_view()});
    while (it != cols.end() && it->first.family == family) it = DropVersions(s, row, &cols, it, drop);
    return end;
  }

  // One cell of a delete that names a column: its newest (or given) version,
  // or the column up to a timestamp; the versions dropped and a marker left
  // for what is written later at or below it.
  void DeleteCell(Shard& s, const std::string& row, RowData* data, const Cell& c,
                  TimestampResolver& resolve) {
    ColumnMap& cols = data->cols;
    const std::string_view family = Sv(c.family), qualifier = Sv(c.qualifier);
    if (c.type == CellType::kDelete) {
      // One version: the newest (HBase's LATEST_TIMESTAMP), or the one at
      // the cell's timestamp.
      auto it = cols.find(ColumnRef{family, qualifier});
      uint64_t t;
      if (IsLatest(c.timestamp) && !resolve.mutation_has_timestamp()) {
        if (it == cols.end()) return;  // Nothing to delete.
        t = it->second.newest.timestamp;
      } else {
        t = resolve(c.timestamp);
      }
      if (it != cols.end()) DropVersions(s, row, &cols, it, [t](uint64_t ts) { return ts == t; });
      AddVersionMarker(s, row, data,
                       VersionMarker{t, CellType::kDelete, std::string(family),
                                     std::string(qualifier)});
    } else {
      // kDeleteColumn (and a kPut-typed cell in a delete, which some
      // encodings produce): every version up to the timestamp.
      const uint64_t t = resolve(c.timestamp);
      auto it = cols.find(ColumnRef{family, qualifier});
      if (it != cols.end()) DropVersions(s, row, &cols, it, [t](uint64_t ts) { return ts <= t; });
      AddMarker(s, row, data,
                MarkerKey{false, CellType::kDeleteColumn, std::string(family),
                          std::string(qualifier)},
                t);
    }
  }

  // Adds a row's selected cells: per column up to max_versions (capped by
  // the region's) versions in the time range, newest first.
  void AddCells(const RowData& data, const ColumnSelection& columns, uint32_t max_versions,
                const TimeRange& tr, ResultBuilder* b) const {
    const uint32_t want = std::max<uint32_t>(1, std::min(max_versions, max_versions_));
    const bool all_time = tr.all();
    columns.ForEach(data.cols, [&](const ColumnKey& k, const ColumnCells& cc) {
      const ByteView family(k.family), qualifier(k.qualifier);
      if (all_time && want == 1) {  // The common case: the newest version.
        b->AddCell(family, qualifier, cc.newest.timestamp, CellType::kPut,
                   ByteView(cc.newest.value));
        return;
      }
      uint32_t n = 0;
      auto add = [&](const Version& v) {
        if (n < want && tr.Includes(v.timestamp)) {
          b->AddCell(family, qualifier, v.timestamp, CellType::kPut, ByteView(v.value));
          ++n;
        }
      };
      add(cc.newest);
      for (const Version& v : cc.older) add(v);
    });
  }

  // Adds the result of one get to the builder and returns its index.
  size_t AddGet(const GetRequest& req, ByteView table, ResultBuilder* b) {
    ops_.gets.fetch_add(1, std::memory_order_relaxed);
    Shard& s = ShardFor(req.row);
    std::shared_lock lock(s.mu);
    const RowsMap* rows = s.Find(table);
    if (rows == nullptr) return b->BeginResult(req.row, false);
    auto row_it = rows->find(Sv(req.row));
    if (row_it == rows->end() || row_it->second.cols.empty())
      return b->BeginResult(req.row, false);
    size_t idx = b->BeginResult(req.row, true);
    AddCells(row_it->second, ColumnSelection(req.columns), req.max_versions, req.time_range, b);
    ops_.cells_returned.fetch_add(b->current_cells(), std::memory_order_relaxed);
    return idx;
  }

  const MemstoreOptions options_;
  std::atomic<int64_t> footprint_{0};  // Sum of Account's deltas.
  std::atomic<uint64_t> refused_{0};          // Puts, increments, appends refused at the limit.
  std::atomic<uint64_t> refused_deletes_{0};  // Deletes refused at the limit.
  std::atomic<bool> warned_{false};
  const uint32_t max_versions_;
  std::vector<Shard> shards_;
  OpCounters ops_;
};

}  // namespace

std::unique_ptr<Region> NewMemstoreRegion(const MemstoreOptions& options) {
  return std::make_unique<MemstoreRegion>(options);
}

}  // namespace wirebench
