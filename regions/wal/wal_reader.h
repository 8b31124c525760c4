// WalReader: iterates the records of a log directory in order, across
// segments. Used by recovery, by walpe -verify and by tests.
//
// Damage handling: a record that is partial, has an impossible length, fails
// its checksum or does not decode ends the log when it lies in the LAST
// segment and tolerate_torn_tail is set (a torn tail: everything from there on
// was never acknowledged as durable); the reader then reports where the torn
// tail starts. Anywhere else it is a Corruption error naming the file and the
// record's offset.
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
  uint64_t records_read() const { return records_read_; }

 private:
  WalReader(std::vector<SegmentFile> segments, const WalReaderOptions& options)
      : options_(options), segments_(std::move(segments)) {}
  // Loads segments_[next_segment_]; false when there is none left.
  [[nodiscard]] StatusOr<bool> LoadNextSegment();
  // Handles damage at offset_ in the current segment.
  [[nodiscard]] Status Damage(const std::string& why);

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
};

}  // namespace wirebench::wal
