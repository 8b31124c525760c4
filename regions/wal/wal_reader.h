// WalReader: iterates the records of a log directory in order, across
// segments. Used by recovery, by walpe -verify and by tests.
//
// Damage handling: at a record that is partial, has an impossible length,
// fails its checksum or does not decode, the reader scans forward for the
// next valid record (length + checksum + body that decode, sequence id
// above the last one read) to tell two cases apart:
//  - no valid record follows and this is the LAST segment: a torn tail (a
//    crash mid-write; nothing from there on was acknowledged as durable).
//    With tolerate_torn_tail the log ends there and torn_tail() says where.
//    A last segment that is a strict prefix of its own header (a crash while
//    the segment was being created) is a torn tail at offset 0.
//  - anything else (valid records follow, an older segment, a segment header
//    that is wrong rather than short): corruption. With skip_damaged the
//    reader records the damaged range in damaged() and resumes at the next
//    valid record (or the next segment); otherwise Next() fails with a
//    Corruption error naming the file, the offset and where records resume.
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codecs/message.h"
#include "common/status.h"
#include "regions/wal/wal_format.h"

namespace wirebench::wal {

struct WalReaderOptions {
  // Treat damage in the last segment as a torn tail (recovery) rather than
  // as corruption (strict verification).
  bool tolerate_torn_tail = true;
  // Skip damaged bytes that are not a torn tail (recording them in
  // damaged()) instead of failing.
  bool skip_damaged = false;
};

// One record. The views stay valid until the next call to Next().
struct WalRecord {
  uint64_t sequence = 0;
  Mutation mutation;
  uint64_t segment_number = 0;
  const std::string* segment_path = nullptr;
  uint64_t offset = 0;  // Of the record's header within its segment.
};

// Where a torn tail was found: the last segment is valid up to `offset`.
struct TornTail {
  std::string path;
  uint64_t offset = 0;     // Valid bytes; 0 means even the segment header is torn.
  uint64_t file_size = 0;  // Bytes the file had.
  std::string reason;
};

// Damaged bytes that are not a torn tail: [offset, end) of a segment.
struct DamagedRange {
  std::string path;
  uint64_t segment_number = 0;
  uint64_t offset = 0;     // First damaged byte (0: the segment header is bad).
  uint64_t end = 0;        // Where valid records resume; file_size when none do.
  uint64_t file_size = 0;  // Bytes the file had.
  std::string reason;
  uint64_t bytes() const { return end - offset; }
  // "PATH at offset O: REASON; valid records resume at offset E (N damaged bytes)".
  std::string Describe() const;
};

class WalReader {
 public:
  [[nodiscard]] static StatusOr<std::unique_ptr<WalReader>> Open(
      const std::string& directory, const WalReaderOptions& options = {});
  WalReader(const WalReader&) = delete;
  WalReader& operator=(const WalReader&) = delete;

  // Reads the next record into *rec: true, or false at the end of the log.
  [[nodiscard]] StatusOr<bool> Next(WalRecord* rec);

  const std::vector<SegmentFile>& segments() const { return segments_; }
  // Set once Next() has returned false because of a torn tail.
  const std::optional<TornTail>& torn_tail() const { return torn_tail_; }
  // The ranges skipped with skip_damaged, in log order. Without
  // skip_damaged, the range that made Next() fail (if damage did).
  const std::vector<DamagedRange>& damaged() const { return damaged_; }
  uint64_t records_read() const { return records_read_; }

 private:
  WalReader(std::vector<SegmentFile> segments, const WalReaderOptions& options)
      : options_(options), segments_(std::move(segments)) {}
  // Loads segments_[next_segment_]; false when there is none left.
  [[nodiscard]] StatusOr<bool> LoadNextSegment();
  // Handles damage at offset_ in the current segment.
  [[nodiscard]] Status Damage(const std::string& why);
  // The offset of the first valid record at or after `from` in data_ whose
  // sequence id follows last_sequence_, or data_.size() if there is none.
  size_t FindNextValidRecord(size_t from);

  const WalReaderOptions options_;
  std::vector<SegmentFile> segments_;
  size_t next_segment_ = 0;  // Index of the segment to load next.
  std::string data_;         // The current segment's bytes.
  size_t offset_ = 0;        // Read position in data_.
  bool loaded_ = false;
  bool done_ = false;
  uint64_t last_sequence_ = 0;
  uint64_t records_read_ = 0;
  std::vector<Cell> cells_;
  std::optional<TornTail> torn_tail_;
  std::vector<DamagedRange> damaged_;
};

}  // namespace wirebench::wal
