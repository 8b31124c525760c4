// Recovery of a log directory, as the wal region does it on open: replays
// every intact record in order through a callback, then repairs the
// directory so the log can be appended to again:
//  - a torn tail of the last segment is truncated away (a torn segment
//    header is completed instead: the segment stays, holding no records);
//  - damage that is not a torn tail (intact records after it, an older
//    segment, a wrong header) fails recovery with a Corruption error naming
//    the file, the offset and where intact records resume, and changes
//    nothing, unless WalOptions::recovery is kSkipDamaged: then each damaged
//    range is copied to a side file "<segment>.damaged-<offset>-<end>" and
//    the segment is rewritten (atomically, by rename) without it.
// Recovery never deletes a segment. WalRecoveryReport says what it found and
// did, for the server to print.
// Thread-safety: one recovery per directory at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codecs/message.h"
#include "common/status.h"
#include "regions/wal/wal.h"
#include "regions/wal/wal_reader.h"

namespace wirebench {

struct WalRecoveryReport {
  std::string directory;
  uint64_t segments = 0;       // Segment files found.
  uint64_t records = 0;        // Records replayed.
  uint64_t last_sequence = 0;  // Of the last record replayed.
  uint64_t next_segment = 1;   // Number for the log's next new segment.
  std::optional<wal::TornTail> torn_tail;
  uint64_t truncated_bytes = 0;            // Of the torn tail.
  std::vector<wal::DamagedRange> skipped;  // With kSkipDamaged.
  std::vector<std::string> side_files;     // Where each skipped range was kept, same order.
  std::vector<std::string> rewritten;      // Segments rewritten without their skipped bytes.

  uint64_t skipped_bytes() const;
  // One "wal: ..." line per finding and action, each ending in a newline.
  std::string ToString() const;
};

// The side file that keeps the bytes of `d`: "<segment>.damaged-<offset>-<end>".
std::string DamagedSideFileName(const wal::DamagedRange& d);

// Recovers options.directory (see above), calling apply for every intact
// record in sequence order. On error, *report holds what was replayed so far.
[[nodiscard]] Status RecoverWal(const WalOptions& options,
                                const std::function<Status(const Mutation&)>& apply,
                                WalRecoveryReport* report);

}  // namespace wirebench
