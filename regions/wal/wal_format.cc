#include "regions/wal/wal_format.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "codecs/wire_reader.h"

namespace wirebench::wal {

namespace {

uint8_t* PutBytes(uint8_t* p, ByteView v) {
  StoreLE32(p, uint32_t(v.size()));
  if (!v.empty()) std::memcpy(p + 4, v.data(), v.size());
  return p + 4 + v.size();
}

uint32_t Crc(ByteView v) { return uint32_t(crc32(crc32(0L, Z_NULL, 0), v.data(), uInt(v.size()))); }

}  // namespace

size_t EncodedRecordSize(const Mutation& m) {
  size_t n = kRecordHeaderSize + kMinBodySize + m.row.size();
  for (const Cell& c : m.cells)
    n += 4 + c.family.size() + 4 + c.qualifier.size() + 8 + 1 + 4 + c.value.size();
  return n;
}

void EncodeRecord(uint64_t sequence, const Mutation& m, ByteBuffer* out) {
  const size_t size = EncodedRecordSize(m);
  uint8_t* start = out->Extend(size);
  uint8_t* body = start + kRecordHeaderSize;
  uint8_t* p = body;
  StoreLE64(p, sequence);
  p[8] = uint8_t(m.type);
  StoreLE64(p + 9, m.timestamp);
  p = PutBytes(p + 17, m.row);
  PutLE(p, uint32_t(m.cells.size()));
  for (const Cell& c : m.cells) {
    p = PutBytes(p, c.family);
    p = PutBytes(p, c.qualifier);
    StoreLE64(p, c.timestamp);
    p[8] = uint8_t(c.type);
    p = PutBytes(p + 9, c.value);
  }
  const size_t body_size = size_t(p - body);
  StoreLE32(start, uint32_t(body_size));
  StoreLE32(start + 4, Crc(ByteView(body, body_size)));
}

Status IoErrno(const std::string& what, const std::string& path) {
  return Status::IoError("wal: " + what + " " + path + ": " + std::strerror(errno));
}

const char* RecordCheckName(RecordCheck c) {
  switch (c) {
    case RecordCheck::kOk:
      return "ok";
    case RecordCheck::kIncomplete:
      return "incomplete record";
    case RecordCheck::kBadLength:
      return "impossible record length";
    case RecordCheck::kBadChecksum:
      return "checksum mismatch";
  }
  return "?";
}

RecordCheck CheckRecord(ByteView in, ByteView* body, size_t* record_size) {
  if (in.size() < kRecordHeaderSize) return RecordCheck::kIncomplete;
  const uint32_t len = LoadLE32(in.data());
  const uint32_t crc = LoadLE32(in.data() + 4);
  if (len < kMinBodySize || len > kMaxBodySize) return RecordCheck::kBadLength;
  if (in.size() - kRecordHeaderSize < len) return RecordCheck::kIncomplete;
  ByteView b = in.Sub(kRecordHeaderSize, len);
  if (Crc(b) != crc) return RecordCheck::kBadChecksum;
  *body = b;
  *record_size = kRecordHeaderSize + len;
  return RecordCheck::kOk;
}

Status DecodeRecordBody(ByteView body, uint64_t* sequence, Mutation* m, std::vector<Cell>* cells) {
  WireReader r(body);
  uint8_t type;
  uint32_t n;
  if (!r.U64LE(sequence) || !r.U8(&type) || !r.U64LE(&m->timestamp) || !r.LenBytesLE(&m->row) ||
      !r.U32LE(&n))
    return Status::Corruption("wal: record body is malformed (mutation header)");
  if (type != uint8_t(MutationType::kPut) && type != uint8_t(MutationType::kDelete))
    return Status::Corruption("wal: record has unknown mutation type " + std::to_string(type));
  m->type = MutationType(type);
  // Each cell takes at least 21 bytes: refuse counts the body cannot hold.
  if (n > r.remaining() / 21) return Status::Corruption("wal: record cell count is impossible");
  cells->resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    Cell& c = (*cells)[i];
    uint8_t ct;
    if (!r.LenBytesLE(&c.family) || !r.LenBytesLE(&c.qualifier) || !r.U64LE(&c.timestamp) ||
        !r.U8(&ct) || !r.LenBytesLE(&c.value))
      return Status::Corruption("wal: record body is malformed (cell)");
    if (!IsValidCellType(ct))
      return Status::Corruption("wal: record has unknown cell type " + std::to_string(ct));
    c.type = CellType(ct);
    c.row = m->row;
  }
  if (!r.done()) return Status::Corruption("wal: record body has trailing bytes");
  m->cells = std::span<const Cell>(cells->data(), n);
  return Status::Ok();
}

void EncodeSegmentHeader(uint64_t segment_number, uint8_t out[kSegmentHeaderSize]) {
  std::memcpy(out, kSegmentMagic, sizeof(kSegmentMagic));
  StoreLE64(out + 8, segment_number);
}

bool DecodeSegmentHeader(ByteView in, uint64_t* segment_number) {
  if (in.size() < kSegmentHeaderSize) return false;
  if (std::memcmp(in.data(), kSegmentMagic, sizeof(kSegmentMagic)) != 0) return false;
  *segment_number = LoadLE64(in.data() + 8);
  return true;
}

bool IsTornSegmentHeader(ByteView in, uint64_t segment_number) {
  if (in.size() >= kSegmentHeaderSize) return false;
  uint8_t header[kSegmentHeaderSize];
  EncodeSegmentHeader(segment_number, header);
  return in.empty() || std::memcmp(in.data(), header, in.size()) == 0;
}

std::string SegmentFileName(uint64_t segment_number) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "wal-%020llu.log",
                static_cast<unsigned long long>(segment_number));
  return buf;
}

bool ParseSegmentFileName(std::string_view name, uint64_t* segment_number) {
  if (name.size() != 4 + 20 + 4 || name.substr(0, 4) != "wal-" || name.substr(24) != ".log")
    return false;
  uint64_t v = 0;
  for (char c : name.substr(4, 20)) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + uint64_t(c - '0');
  }
  *segment_number = v;
  return true;
}

Status ReadWholeFile(const std::string& path, std::string* out) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError("wal: cannot open " + path + ": " + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return Status::IoError("wal: cannot stat " + path + ": " + std::strerror(e));
  }
  out->resize(size_t(st.st_size));
  size_t done = 0;
  while (done < out->size()) {
    ssize_t n = read(fd, out->data() + done, out->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n < 0 ? errno : 0;
      close(fd);
      if (n == 0) {
        out->resize(done);  // The file shrank while being read.
        return Status::Ok();
      }
      return Status::IoError("wal: cannot read " + path + ": " + std::strerror(e));
    }
    done += size_t(n);
  }
  close(fd);
  return Status::Ok();
}

Status WriteAll(int fd, const uint8_t* p, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return Status::IoError("wal: cannot write " + path + ": " + std::strerror(errno));
    p += w;
    n -= size_t(w);
  }
  return Status::Ok();
}

Status WriteFileSynced(const std::string& path, std::string_view bytes) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IoError("wal: cannot create " + path + ": " + std::strerror(errno));
  Status s = WriteAll(fd, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), path);
  if (s.ok() && fdatasync(fd) != 0)
    s = Status::IoError("wal: cannot sync " + path + ": " + std::strerror(errno));
  close(fd);
  return s;
}

StatusOr<std::vector<SegmentFile>> ListSegments(const std::string& directory) {
  std::vector<SegmentFile> out;
  DIR* d = opendir(directory.c_str());
  if (!d) {
    if (errno == ENOENT) return out;
    return Status::IoError("wal: cannot list " + directory + ": " + std::strerror(errno));
  }
  while (struct dirent* e = readdir(d)) {
    uint64_t n;
    if (ParseSegmentFileName(e->d_name, &n)) out.push_back({n, directory + "/" + e->d_name});
  }
  closedir(d);
  std::sort(out.begin(), out.end(),
            [](const SegmentFile& a, const SegmentFile& b) { return a.number < b.number; });
  return out;
}

}  // namespace wirebench::wal
