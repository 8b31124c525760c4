// The on-disk format of the write-ahead log: segment files and records.
//
// A log is a directory of segment files named "wal-<20-digit number>.log",
// read in number order. A segment starts with a 16-byte header (8-byte magic
// "WBWALv1\n", u64 segment number) followed by records. Every record is
//   u32 body length, u32 checksum of the body, body
// where the checksum is zlib's crc32 (the IEEE/Ethernet polynomial, not
// CRC32C) and the body encodes one mutation:
//   u64 sequence id, u8 mutation type, u64 timestamp, bytes row, u32 ncells,
//   ncells x { bytes family, bytes qualifier, u64 timestamp, u8 cell type, bytes value }
// with "bytes" = u32 length + the bytes. All integers little-endian.
// Thread-safety: free functions over caller-owned buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codecs/message.h"
#include "common/bytes.h"
#include "common/status.h"

namespace wirebench::wal {

inline constexpr char kSegmentMagic[8] = {'W', 'B', 'W', 'A', 'L', 'v', '1', '\n'};
inline constexpr size_t kSegmentHeaderSize = 16;
inline constexpr size_t kRecordHeaderSize = 8;
// The smallest valid body (sequence, types, timestamp, empty row, no cells).
inline constexpr size_t kMinBodySize = 8 + 1 + 8 + 4 + 4;
// Bodies longer than this are treated as damage, not allocated.
inline constexpr size_t kMaxBodySize = size_t(1) << 30;

// The size EncodeRecord() appends for m.
size_t EncodedRecordSize(const Mutation& m);
// Appends one complete record (header and body) for m to out.
void EncodeRecord(uint64_t sequence, const Mutation& m, ByteBuffer* out);

enum class RecordCheck {
  kOk,           // A whole record with a matching checksum.
  kIncomplete,   // Fewer bytes than the header or the declared body length.
  kBadLength,    // Declared body length below kMinBodySize or above kMaxBodySize.
  kBadChecksum,  // The body does not match its checksum.
};
const char* RecordCheckName(RecordCheck c);

// Checks the record at the start of `in`; on kOk sets *body and *record_size.
RecordCheck CheckRecord(ByteView in, ByteView* body, size_t* record_size);

// Decodes a checked body. Views in *m and *cells point into body; m->cells
// points into *cells.
[[nodiscard]] Status DecodeRecordBody(ByteView body, uint64_t* sequence, Mutation* m,
                                      std::vector<Cell>* cells);

// Segment file header and names.
void EncodeSegmentHeader(uint64_t segment_number, uint8_t out[kSegmentHeaderSize]);
// True when the header is valid; sets *segment_number.
bool DecodeSegmentHeader(ByteView in, uint64_t* segment_number);
// True when `in` is shorter than a header and a prefix of segment
// segment_number's header (empty included): a segment whose creation was cut
// short. Such a file holds no records.
bool IsTornSegmentHeader(ByteView in, uint64_t segment_number);
std::string SegmentFileName(uint64_t segment_number);
// True for names SegmentFileName() makes; sets *segment_number.
bool ParseSegmentFileName(std::string_view name, uint64_t* segment_number);

// File helpers shared by the log, its reader and recovery. Errors name the path.
[[nodiscard]] Status ReadWholeFile(const std::string& path, std::string* out);
[[nodiscard]] Status WriteAll(int fd, const uint8_t* p, size_t n, const std::string& path);
// Creates or replaces `path` with `bytes` and fdatasyncs it.
[[nodiscard]] Status WriteFileSynced(const std::string& path, std::string_view bytes);

struct SegmentFile {
  uint64_t number = 0;
  std::string path;
};
// The segments of a log directory, in number order. A missing directory is
// an empty log.
[[nodiscard]] StatusOr<std::vector<SegmentFile>> ListSegments(const std::string& directory);

// "wal: <what> <path>: <strerror(errno)>", an IoError; call right after the
// failing system call, before anything can change errno.
Status IoErrno(const std::string& what, const std::string& path);

}  // namespace wirebench::wal
