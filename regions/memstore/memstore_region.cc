#include "regions/memstore/memstore_region.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <shared_mutex>
#include <string>
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

// Orders columns by (family, qualifier); transparent so lookups need no copy.
struct ColumnLess {
  using is_transparent = void;
  static ColumnRef Ref(const ColumnKey& k) { return {k.family, k.qualifier}; }
  static ColumnRef Ref(const ColumnRef& r) { return r; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return Ref(a) < Ref(b);
  }
};

struct StoredCell {
  std::string value;
  uint64_t timestamp = 0;
};

using RowMap = std::map<ColumnKey, StoredCell, ColumnLess>;
using RowsMap = std::map<std::string, RowMap, std::less<>>;

std::string_view Sv(ByteView v) { return v.str(); }

struct alignas(64) Shard {
  mutable std::shared_mutex mu;
  RowsMap rows;
  // Guarded by mu (written under the exclusive lock).
  uint64_t cells = 0;
  uint64_t bytes = 0;  // Row, family, qualifier and value bytes stored.
};

// Operation counters, bumped with relaxed atomics by any thread.
struct alignas(64) OpCounters {
  std::atomic<uint64_t> puts{0};
  std::atomic<uint64_t> deletes{0};
  std::atomic<uint64_t> gets{0};
  std::atomic<uint64_t> scans{0};
  std::atomic<uint64_t> multis{0};
  std::atomic<uint64_t> cells_returned{0};
};

uint64_t CellBytes(std::string_view row, const ColumnKey& k, const StoredCell& c) {
  return row.size() + k.family.size() + k.qualifier.size() + c.value.size();
}

// True when the column (family, qualifier) is selected by `columns`
// (empty = all; a selector with an empty qualifier selects its family).
bool Selected(const ColumnKey& k, std::span<const Column> columns) {
  if (columns.empty()) return true;
  for (const Column& c : columns) {
    if (Sv(c.family) != k.family) continue;
    if (c.qualifier.empty() || Sv(c.qualifier) == k.qualifier) return true;
  }
  return false;
}

class MemstoreRegion final : public Region {
 public:
  explicit MemstoreRegion(const MemstoreOptions& options)
      : options_(options), shards_(std::max<uint32_t>(1, options.shards)) {}

  std::string_view name() const override { return "memstore"; }

  Status Mutate(const Mutation& m, MutateResponse* resp) override {
    WB_RETURN_IF_ERROR(Apply(m));
    if (resp) resp->processed = true;
    return Status::Ok();
  }

  Status Get(const GetRequest& req, RegionScratch* scratch, GetResponse* resp) override {
    ResultBuilder b(scratch);
    size_t idx = AddGet(req, &b);
    b.Finish();
    resp->result = scratch->results[idx];
    return Status::Ok();
  }

  Status Scan(const ScanRequest& req, RegionScratch* scratch, ScanResponse* resp) override {
    ops_.scans.fetch_add(1, std::memory_order_relaxed);
    uint32_t limit = req.number_of_rows == 0 ? options_.max_scan_rows
                                             : std::min(req.number_of_rows, options_.max_scan_rows);
    ResultBuilder b(scratch);
    const std::string_view start = Sv(req.start_row);
    const std::string_view stop = Sv(req.stop_row);
    auto in_range = [&](const std::string& row) { return stop.empty() || row < stop; };

    // Lock every shard for reading (always in index order; writers take one
    // shard only, so this cannot deadlock) and merge their rows in order.
    std::vector<std::shared_lock<std::shared_mutex>> locks;
    locks.reserve(shards_.size());
    for (const Shard& s : shards_) locks.emplace_back(s.mu);
    using It = RowsMap::const_iterator;
    std::vector<std::pair<It, It>> cursors;
    cursors.reserve(shards_.size());
    for (const Shard& s : shards_) cursors.emplace_back(s.rows.lower_bound(start), s.rows.end());

    uint32_t returned = 0;
    uint64_t cells = 0;
    bool more = false;
    for (;;) {
      std::pair<It, It>* best = nullptr;
      for (auto& c : cursors) {
        if (c.first == c.second || !in_range(c.first->first)) continue;
        if (!best || c.first->first < best->first->first) best = &c;
      }
      if (!best) break;
      if (returned == limit) {
        more = true;
        break;
      }
      const auto& [row, cols] = *best->first;
      b.BeginResult(ByteView(row), true);
      for (const auto& [k, v] : cols) {
        if (Selected(k, req.columns))
          b.AddCell(ByteView(k.family), ByteView(k.qualifier), v.timestamp, CellType::kPut,
                    ByteView(v.value));
      }
      if (b.current_cells() == 0) {
        b.DropResult();  // HBase skips rows with no selected cells.
      } else {
        cells += b.current_cells();
        ++returned;
      }
      ++best->first;
    }
    locks.clear();
    b.Finish();
    ops_.cells_returned.fetch_add(cells, std::memory_order_relaxed);
    resp->results = std::span<const Result>(scratch->results.data(), scratch->results.size());
    resp->more_results = more;
    return Status::Ok();
  }

  // Every get of the Multi is built in the same scratch by one builder, so
  // each result stays valid; mutations are applied in order.
  Status Multi(const MultiRequest& req, RegionScratch* scratch, MultiResponse* resp) override {
    ops_.multis.fetch_add(1, std::memory_order_relaxed);
    ResultBuilder b(scratch);
    std::vector<ActionResult>& out = scratch->action_results;
    out.resize(req.actions.size());
    for (size_t i = 0; i < req.actions.size(); ++i) {
      const Action& a = req.actions[i];
      ActionResult& ar = out[i];
      ar = ActionResult{};
      ar.index = a.index;
      if (a.kind == ActionKind::kMutation) {
        Status s = Apply(a.mutation);
        if (!s.ok()) {
          ar.ok = false;
          ar.error = ErrorText(s);
        }
      } else {
        AddGet(a.get, &b);
      }
    }
    b.Finish();
    size_t next = 0;
    for (size_t i = 0; i < req.actions.size(); ++i) {
      if (req.actions[i].kind == ActionKind::kGet) out[i].result = scratch->results[next++];
    }
    resp->results = std::span<const ActionResult>(out.data(), req.actions.size());
    return Status::Ok();
  }

  void AppendStats(nlohmann::json* out) const override {
    uint64_t rows = 0, cells = 0, bytes = 0;
    for (const Shard& s : shards_) {
      std::shared_lock lock(s.mu);
      rows += s.rows.size();
      cells += s.cells;
      bytes += s.bytes;
    }
    nlohmann::json& j = (*out)["memstore"];
    j["rows"] = rows;
    j["cells"] = cells;
    j["bytes"] = bytes;
    j["puts"] = ops_.puts.load(std::memory_order_relaxed);
    j["deletes"] = ops_.deletes.load(std::memory_order_relaxed);
    j["gets"] = ops_.gets.load(std::memory_order_relaxed);
    j["scans"] = ops_.scans.load(std::memory_order_relaxed);
    j["multis"] = ops_.multis.load(std::memory_order_relaxed);
    j["cells_returned"] = ops_.cells_returned.load(std::memory_order_relaxed);
  }

 private:
  // Fixed texts for Multi action errors (views must outlive the call).
  static ByteView ErrorText(const Status& s) {
    switch (s.code()) {
      case Status::Code::kInvalidArgument:
        return ByteView("memstore: invalid mutation");
      case Status::Code::kUnimplemented:
        return ByteView("memstore: mutation type not supported");
      default:
        return ByteView("memstore: mutation failed");
    }
  }

  Shard& ShardFor(ByteView row) {
    return shards_[std::hash<std::string_view>()(Sv(row)) % shards_.size()];
  }

  Status Apply(const Mutation& m) {
    if (m.row.empty()) return Status::InvalidArgument("memstore: mutation has an empty row key");
    if (m.type == MutationType::kPut) {
      ops_.puts.fetch_add(1, std::memory_order_relaxed);
      if (m.cells.empty()) return Status::Ok();  // Nothing to store; no empty row.
      uint64_t now = m.timestamp;
      if (now == 0 && std::any_of(m.cells.begin(), m.cells.end(),
                                  [](const Cell& c) { return c.timestamp == 0; }))
        now = MemstoreNowMillis();
      Shard& s = ShardFor(m.row);
      std::unique_lock lock(s.mu);
      auto row_it = s.rows.find(Sv(m.row));
      if (row_it == s.rows.end()) row_it = s.rows.emplace(m.row.ToString(), RowMap()).first;
      const std::string& row = row_it->first;
      RowMap& cols = row_it->second;
      for (const Cell& c : m.cells) {
        const ColumnRef ref{Sv(c.family), Sv(c.qualifier)};
        auto it = cols.find(ref);
        if (it == cols.end()) {
          it = cols.emplace(ColumnKey{c.family.ToString(), c.qualifier.ToString()}, StoredCell())
                   .first;
          ++s.cells;
        } else {
          s.bytes -= CellBytes(row, it->first, it->second);
        }
        it->second.value.assign(c.value.chars(), c.value.size());
        it->second.timestamp = c.timestamp ? c.timestamp : now;
        s.bytes += CellBytes(row, it->first, it->second);
      }
      return Status::Ok();
    }
    if (m.type != MutationType::kDelete)
      return Status::Unimplemented("memstore: only Put and Delete mutations are supported");
    ops_.deletes.fetch_add(1, std::memory_order_relaxed);
    Shard& s = ShardFor(m.row);
    std::unique_lock lock(s.mu);
    auto row_it = s.rows.find(Sv(m.row));
    if (row_it == s.rows.end()) return Status::Ok();
    const std::string& row = row_it->first;
    RowMap& cols = row_it->second;
    auto erase = [&](RowMap::iterator it) {
      s.bytes -= CellBytes(row, it->first, it->second);
      --s.cells;
      return cols.erase(it);
    };
    if (m.cells.empty()) {
      for (auto it = cols.begin(); it != cols.end();) it = erase(it);
    }
    for (const Cell& c : m.cells) {
      if (c.type == CellType::kDeleteFamily) {
        auto it = cols.lower_bound(ColumnRef{Sv(c.family), std::string_view()});
        while (it != cols.end() && it->first.family == Sv(c.family)) it = erase(it);
      } else {
        // kDelete and kDeleteColumn (and a kPut-typed cell in a delete, which
        // some encodings produce) remove the one column: one version is kept.
        auto it = cols.find(ColumnRef{Sv(c.family), Sv(c.qualifier)});
        if (it != cols.end()) erase(it);
      }
    }
    if (cols.empty()) s.rows.erase(row_it);
    return Status::Ok();
  }

  // Adds the result of one get to the builder and returns its index.
  size_t AddGet(const GetRequest& req, ResultBuilder* b) {
    ops_.gets.fetch_add(1, std::memory_order_relaxed);
    Shard& s = ShardFor(req.row);
    std::shared_lock lock(s.mu);
    auto row_it = s.rows.find(Sv(req.row));
    if (row_it == s.rows.end()) return b->BeginResult(req.row, false);
    size_t idx = b->BeginResult(req.row, true);
    for (const auto& [k, v] : row_it->second) {
      if (Selected(k, req.columns))
        b->AddCell(ByteView(k.family), ByteView(k.qualifier), v.timestamp, CellType::kPut,
                   ByteView(v.value));
    }
    ops_.cells_returned.fetch_add(b->current_cells(), std::memory_order_relaxed);
    return idx;
  }

  const MemstoreOptions options_;
  std::vector<Shard> shards_;
  OpCounters ops_;
};

}  // namespace

std::unique_ptr<Region> NewMemstoreRegion(const MemstoreOptions& options) {
  return std::make_unique<MemstoreRegion>(options);
}

}  // namespace wirebench
