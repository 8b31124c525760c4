// The wal region: every mutation is appended to a write-ahead log (Wal,
// group commit) and acknowledged only once durable (WalSyncMode::kEveryEdit),
// then applied to an embedded memstore, which serves Get and Scan.
//
// Opening a region recovers the log directory (RecoverWal, wal_recovery.h):
// every intact record of every segment is replayed into the memstore in
// order; a torn tail of the last segment (a partial or checksum-failing
// record with nothing valid after it, typically from a crash mid-write) is
// truncated away; other damage fails the open with a Corruption error naming
// the file and offset, unless options.recovery is kSkipDamaged (then the
// damaged bytes go to a side file). New edits go to a new segment.
// Edits of one row hold a striped row lock from append to apply, so the log
// and the memstore see them in the same order.
// Thread-safety: as every Region, safe for any number of threads.
#pragma once

#include <memory>

#include "common/status.h"
#include "nullregion/region.h"
#include "regions/wal/wal.h"
#include "regions/wal/wal_recovery.h"

namespace wirebench {

// Recovers options.directory and returns a region named "wal" over it. If
// report is given, it receives what recovery found and did (also on error).
[[nodiscard]] StatusOr<std::unique_ptr<Region>> NewWalRegion(const WalOptions& options,
                                                             WalRecoveryReport* report = nullptr);

}  // namespace wirebench
