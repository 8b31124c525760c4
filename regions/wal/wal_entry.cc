// `--region wal`: a write-ahead log with group commit, recovered on start,
// in front of a memstore.
#include <cstdio>

#include "nullregion/region_entry.h"
#include "regions/wal/wal_region.h"

namespace wirebench {

namespace {

StatusOr<WalOptions> OptionsFrom(const RegionSettings& s) {
  WalOptions w;
  w.directory = s.Get("--wal-dir");
  if (w.directory.empty())
    return Status::InvalidArgument("--region wal needs --wal-dir DIR (the log's directory)");
  const std::string& sync = s.Get("--wal-sync");
  if (sync == "every") {
    w.sync_mode = WalSyncMode::kEveryEdit;
  } else if (sync == "every-n") {
    w.sync_mode = WalSyncMode::kEveryNEdits;
    auto interval = s.GetUint32("--wal-sync-interval", 1, 1u << 30);
    if (!interval.ok()) return interval.status();
    w.sync_interval_edits = *interval;
  } else if (sync == "none") {
    w.nosync = true;
  } else {
    return Status::InvalidArgument("--wal-sync must be every, every-n or none, got '" + sync +
                                   "'");
  }
  const std::string& recover = s.Get("--wal-recover");
  if (recover == "refuse") {
    w.recovery = WalRecovery::kRefuseDamaged;
  } else if (recover == "skip-damaged") {
    w.recovery = WalRecovery::kSkipDamaged;
  } else {
    return Status::InvalidArgument("--wal-recover must be refuse or skip-damaged, got '" +
                                   recover + "'");
  }
  return w;
}

StatusOr<std::unique_ptr<Region>> Make(const RegionSettings& s) {
  auto w = OptionsFrom(s);
  if (!w.ok()) return w.status();
  WalRecoveryReport report;
  auto region = NewWalRegion(*w, &report);
  if (region.ok()) std::fprintf(stderr, "%s", report.ToString().c_str());  // What recovery did.
  return region;
}

std::string Advice(const RegionSettings&, int handlers) {
  if (handlers != 0) return "";
  return "the wal region blocks each put until its fsync; with --handlers 0 the I/O thread "
         "stalls and group commit cannot form (use e.g. --handlers 32)";
}

}  // namespace

const RegionEntry& WalRegionEntry() {
  static const RegionEntry entry{
      {"wal",
       "a write-ahead log with group commit in front of a memstore, recovered on start",
       {"wirebench::WalRegion::", "wirebench::Wal::", "wirebench::wal::",
        "wirebench::LogHistogram::"}},
      {{"--wal-dir", "wal region: directory of the log (recovered on start)", ""},
       {"--wal-sync",
        "wal region: 'every' (acknowledge after the covering sync: group commit), 'every-n' "
        "(sync every --wal-sync-interval edits, acknowledge before), or 'none' (never fsync)",
        "every"},
       {"--wal-sync-interval", "wal region: N for --wal-sync every-n", "100"},
       {"--wal-recover",
        "wal region: what recovery does with damaged bytes that are not a torn tail (intact "
        "records follow them, or an older segment, or a bad segment header): 'refuse' (do not "
        "start; change nothing) or 'skip-damaged' (replay every intact record, keep the damaged "
        "bytes in <segment>.damaged-<from>-<to> and rewrite the segment without them)",
        "refuse"}},
      [](const RegionSettings& s) { return OptionsFrom(s).status(); },
      &Make,
      &Advice};
  return entry;
}

}  // namespace wirebench
