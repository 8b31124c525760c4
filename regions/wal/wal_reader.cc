#include "regions/wal/wal_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace wirebench::wal {

namespace {

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

}  // namespace

StatusOr<std::unique_ptr<WalReader>> WalReader::Open(const std::string& directory,
                                                     const WalReaderOptions& options) {
  auto segs = ListSegments(directory);
  if (!segs.ok()) return segs.status();
  return std::unique_ptr<WalReader>(new WalReader(std::move(segs.value()), options));
}

StatusOr<bool> WalReader::LoadNextSegment() {
  if (next_segment_ >= segments_.size()) return false;
  const SegmentFile& seg = segments_[next_segment_++];
  WB_RETURN_IF_ERROR(ReadWholeFile(seg.path, &data_));
  offset_ = 0;
  loaded_ = true;
  uint64_t number;
  if (!DecodeSegmentHeader(ByteView(data_), &number)) {
    WB_RETURN_IF_ERROR(Damage("segment header is missing or torn"));
    return true;
  }
  if (number != seg.number) {
    return Status::Corruption("wal: " + seg.path + " says it is segment " + std::to_string(number) +
                              "; the log directory is mixed up");
  }
  offset_ = kSegmentHeaderSize;
  return true;
}

Status WalReader::Damage(const std::string& why) {
  const SegmentFile& seg = segments_[next_segment_ - 1];
  const bool last = next_segment_ == segments_.size();
  if (last && options_.tolerate_torn_tail) {
    torn_tail_ = TornTail{seg.path, offset_, data_.size(), why};
    done_ = true;
    return Status::Ok();
  }
  return Status::Corruption("wal: " + seg.path + " at offset " + std::to_string(offset_) + ": " +
                            why + (last ? "" : " (not the last segment, so not a torn tail)"));
}

StatusOr<bool> WalReader::Next(WalRecord* rec) {
  for (;;) {
    if (done_) return false;
    if (!loaded_ || offset_ >= data_.size()) {
      auto more = LoadNextSegment();
      if (!more.ok()) return more.status();
      if (!more.value()) {
        done_ = true;
        return false;
      }
      continue;
    }
    ByteView rest = ByteView(data_).Sub(offset_, data_.size() - offset_);
    ByteView body;
    size_t size = 0;
    RecordCheck check = CheckRecord(rest, &body, &size);
    if (check != RecordCheck::kOk) {
      WB_RETURN_IF_ERROR(Damage(RecordCheckName(check)));
      continue;
    }
    Status s = DecodeRecordBody(body, &rec->sequence, &rec->mutation, &cells_);
    if (!s.ok()) {
      WB_RETURN_IF_ERROR(Damage(std::string(s.message())));
      continue;
    }
    if (rec->sequence <= last_sequence_) {
      const SegmentFile& seg = segments_[next_segment_ - 1];
      return Status::Corruption("wal: " + seg.path + " at offset " + std::to_string(offset_) +
                                ": sequence id " + std::to_string(rec->sequence) +
                                " does not follow " + std::to_string(last_sequence_));
    }
    last_sequence_ = rec->sequence;
    const SegmentFile& seg = segments_[next_segment_ - 1];
    rec->segment_number = seg.number;
    rec->segment_path = &seg.path;
    rec->offset = offset_;
    offset_ += size;
    ++records_read_;
    return true;
  }
}

}  // namespace wirebench::wal
