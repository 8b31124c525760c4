#include "bench/cli/region_factory.h"

#include <cstdio>

#include "regions/memstore/memstore_region.h"
#include "regions/wal/wal_region.h"

namespace wirebench {

void AddRegionOptions(CLI::App* cmd, RegionConfig* c) {
  cmd->add_option("--region", c->name, "Region behind the server: " + RegionNames())
      ->capture_default_str();
  cmd->add_option("--null-reads", c->null_reads,
                  "What the null region answers to Get: empty (HBASE-10001) or canned (one "
                  "pre-built 10 x 100 B record)")
      ->capture_default_str();
  cmd->add_option("--spin-us", c->spin_us,
                  "Calibration: burn this many us of CPU per operation in the null region")
      ->capture_default_str();
  cmd->add_option("--delay-us", c->delay_us,
                  "Calibration: hold every reply this many us without using CPU")
      ->capture_default_str();
  cmd->add_option("--spin-instructions", c->spin_instructions,
                  "Calibration for --instructions: execute this many instructions per "
                  "operation in the null region (0-1000000000)")
      ->check(CLI::Range(0u, 1000000000u))
      ->capture_default_str();
  cmd->add_option("--wal-dir", c->wal_dir, "wal region: directory of the log (recovered on start)");
  cmd->add_option("--wal-sync", c->wal_sync,
                  "wal region: 'every' (acknowledge after the covering sync: group commit), "
                  "'every-n' (sync every --wal-sync-interval edits, acknowledge before), or "
                  "'none' (never fsync)")
      ->capture_default_str();
  cmd->add_option("--wal-sync-interval", c->wal_sync_interval, "wal region: N for --wal-sync every-n")
      ->capture_default_str();
  cmd->add_option("--wal-recover", c->wal_recover,
                  "wal region: what recovery does with damaged bytes that are not a torn tail "
                  "(intact records follow them, or an older segment, or a bad segment header): "
                  "'refuse' (do not start; change nothing) or 'skip-damaged' (replay every intact "
                  "record, keep the damaged bytes in <segment>.damaged-<from>-<to> and rewrite the "
                  "segment without them)")
      ->capture_default_str();
}

std::string RegionNames() { return "null, memstore, wal"; }

StatusOr<std::unique_ptr<Region>> NewRegion(const RegionConfig& c) {
  if (c.name == "null") {
    NullRegionOptions o;
    auto reads = ParseNullReads(c.null_reads);
    if (!reads.ok()) return reads.status();
    o.reads = *reads;
    o.spin_us = c.spin_us;
    o.delay_us = c.delay_us;
    o.spin_instructions = c.spin_instructions;
    return NewNullRegion(o);
  }
  if (c.name == "memstore") return NewMemstoreRegion();
  if (c.name == "wal") {
    if (c.wal_dir.empty())
      return Status::InvalidArgument("--region wal needs --wal-dir DIR (the log's directory)");
    WalOptions w;
    w.directory = c.wal_dir;
    if (c.wal_sync == "every") {
      w.sync_mode = WalSyncMode::kEveryEdit;
    } else if (c.wal_sync == "every-n") {
      w.sync_mode = WalSyncMode::kEveryNEdits;
      w.sync_interval_edits = c.wal_sync_interval;
    } else if (c.wal_sync == "none") {
      w.nosync = true;
    } else {
      return Status::InvalidArgument("--wal-sync must be every, every-n or none, got '" +
                                     c.wal_sync + "'");
    }
    if (c.wal_recover == "refuse") {
      w.recovery = WalRecovery::kRefuseDamaged;
    } else if (c.wal_recover == "skip-damaged") {
      w.recovery = WalRecovery::kSkipDamaged;
    } else {
      return Status::InvalidArgument("--wal-recover must be refuse or skip-damaged, got '" +
                                     c.wal_recover + "'");
    }
    WalRecoveryReport report;
    auto region = NewWalRegion(w, &report);
    if (region.ok()) std::fprintf(stderr, "%s", report.ToString().c_str());
    return region;
  }
  return Status::InvalidArgument("unknown region '" + c.name + "'; known regions: " +
                                 RegionNames());
}

}  // namespace wirebench
