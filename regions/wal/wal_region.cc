#include "regions/wal/wal_region.h"

#include <algorithm>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "regions/memstore/memstore_region.h"
#include "regions/wal/wal_recovery.h"

namespace wirebench {

namespace {

bool Loggable(const Mutation& m) {
  return !m.row.empty() && (m.type == MutationType::kPut || m.type == MutationType::kDelete);
}

Status NotLoggable(const Mutation& m) {
  if (m.row.empty()) return Status::InvalidArgument("wal: mutation has an empty row key");
  return Status::Unimplemented("wal: only Put and Delete mutations are supported");
}

class WalRegion final : public Region {
 public:
  WalRegion(const WalOptions& options, std::unique_ptr<Region> memstore, WalRecoveryReport recovery)
      : options_(options),
        memstore_(std::move(memstore)),
        recovery_(std::move(recovery)),
        row_locks_(std::max<uint32_t>(1, options.row_lock_stripes)) {}

  ~WalRegion() override {
    if (wal_) (void)wal_->Close();
  }

  Status Start(uint64_t first_segment, uint64_t last_sequence) {
    auto wal = Wal::Open(options_, first_segment, last_sequence);
    if (!wal.ok()) return wal.status();
    wal_ = std::move(wal.value());
    return Status::Ok();
  }

  std::string_view name() const override { return "wal"; }

  Status Mutate(const Mutation& m, MutateResponse* resp) override {
    if (!Loggable(m)) return NotLoggable(m);
    Mutation stamped = Stamp(m);
    std::lock_guard lock(RowLock(m.row));
    auto seq = wal_->Append(stamped, durable());
    if (!seq.ok()) return seq.status();
    return memstore_->Mutate(stamped, resp);
  }

  // The log records no table, so the wal region keeps every table in the
  // memstore's default one: what recovery rebuilds is what was served.
  Status Get(const GetRequest& req, RegionScratch* scratch, GetResponse* resp) override {
    GetRequest g = req;
    g.table = ByteView();
    return memstore_->Get(g, scratch, resp);
  }

  Status Scan(const ScanRequest& req, RegionScratch* scratch, ScanResponse* resp) override {
    ScanRequest sr = req;
    sr.table = ByteView();
    return memstore_->Scan(sr, scratch, resp);
  }

  // Logs every mutation of the Multi as one batch with one sync wait, then
  // lets the memstore apply them and answer the gets in action order.
  Status Multi(const MultiRequest& req, RegionScratch* scratch, MultiResponse* resp) override {
    std::vector<Action> actions(req.actions.begin(), req.actions.end());
    std::vector<Mutation> batch;
    std::vector<size_t> stripes;
    for (size_t i = 0; i < actions.size(); ++i) {
      Action& a = actions[i];
      if (a.kind != ActionKind::kMutation) continue;
      if (!Loggable(a.mutation)) continue;  // The memstore refuses it per action too.
      a.mutation = Stamp(a.mutation);
      batch.push_back(a.mutation);
      stripes.push_back(StripeOf(a.mutation.row));
    }
    // Take the row locks in stripe order, so two Multis cannot deadlock.
    std::sort(stripes.begin(), stripes.end());
    stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
    for (size_t s : stripes) row_locks_[s].mu.lock();
    Status logged = Status::Ok();
    if (!batch.empty()) {
      auto seq = wal_->Append(batch, durable());
      if (!seq.ok()) logged = seq.status();
    }
    if (!logged.ok()) {
      for (size_t s : stripes) row_locks_[s].mu.unlock();
      return logged;
    }
    Status st = memstore_->Multi(MultiRequest{std::span<const Action>(actions)}, scratch, resp);
    for (size_t s : stripes) row_locks_[s].mu.unlock();
    return st;
  }

  void AppendStats(nlohmann::json* out) const override {
    memstore_->AppendStats(out);
    const WalCounters c = wal_->counters();
    nlohmann::json& j = (*out)["wal"];
    j["directory"] = options_.directory;
    j["sync_mode"] = options_.sync_mode == WalSyncMode::kEveryEdit ? "every_edit" : "every_n_edits";
    j["nosync"] = options_.nosync;
    j["appends"] = c.appends;
    j["append_bytes"] = c.append_bytes;
    j["writes"] = c.writes;
    j["syncs"] = c.syncs;
    j["fsyncs"] = c.fsyncs;
    j["fsync_ns"] = c.fsync_ns;
    j["rolls"] = c.rolls;
    j["acked_waits"] = c.acked_waits;
    j["acked_unsynced"] = c.acked_unsynced;
    j["last_sequence"] = c.last_sequence;
    j["highest_synced"] = c.highest_synced;
    j["appends_per_sync_mean"] = wal_->appends_per_sync().mean();
    j["recovered_records"] = recovery_.records;
    j["recovered_segments"] = recovery_.segments;
    j["recovery_truncated_bytes"] = recovery_.truncated_bytes;
    j["recovery_skipped_ranges"] = recovery_.skipped.size();
    j["recovery_skipped_bytes"] = recovery_.skipped_bytes();
  }

 private:
  struct alignas(64) RowLockStripe {
    std::mutex mu;
  };

  bool durable() const { return options_.sync_mode == WalSyncMode::kEveryEdit; }

  // The server chooses "latest" timestamps before logging, so replay
  // rebuilds exactly the values that were acknowledged. A delete of one
  // version at "latest" (the newest version, resolved by the memstore, the
  // same on replay) keeps its "latest": a stamp would make it the version at
  // the server's clock.
  static Mutation Stamp(const Mutation& m) {
    Mutation s = m;
    s.table = ByteView();  // One store for every table (see Get).
    const bool latest = s.timestamp == 0 || s.timestamp == kLatestTimestamp;
    if (latest && m.type == MutationType::kDelete &&
        std::any_of(m.cells.begin(), m.cells.end(), [](const Cell& c) {
          return c.type == CellType::kDelete && (c.timestamp == 0 || c.timestamp == kLatestTimestamp);
        }))
      return s;
    if (latest) s.timestamp = MemstoreNowMillis();
    return s;
  }

  size_t StripeOf(ByteView row) const {
    return std::hash<std::string_view>()(row.str()) % row_locks_.size();
  }
  std::mutex& RowLock(ByteView row) { return row_locks_[StripeOf(row)].mu; }

  const WalOptions options_;
  std::unique_ptr<Region> memstore_;
  const WalRecoveryReport recovery_;
  std::vector<RowLockStripe> row_locks_;
  std::unique_ptr<Wal> wal_;
};

}  // namespace

StatusOr<std::unique_ptr<Region>> NewWalRegion(const WalOptions& options,
                                               WalRecoveryReport* report) {
  if (options.directory.empty())
    return Status::InvalidArgument("wal: no log directory given (WalOptions::directory)");
  std::unique_ptr<Region> memstore = NewMemstoreRegion(options.memstore);
  WalRecoveryReport recovery;
  Status s = RecoverWal(
      options,
      [&](const Mutation& m) {
        MutateResponse ignored;
        return memstore->Mutate(m, &ignored);
      },
      &recovery);
  if (report) *report = recovery;
  if (!s.ok()) return s;
  const uint64_t first_segment = recovery.next_segment, last_sequence = recovery.last_sequence;
  auto region = std::make_unique<WalRegion>(options, std::move(memstore), std::move(recovery));
  WB_RETURN_IF_ERROR(region->Start(first_segment, last_sequence));
  return std::unique_ptr<Region>(std::move(region));
}

}  // namespace wirebench
