#include "regions/wal/wal_reader.h"


namespace wirebench::wal {


StatusOr<std::unique_ptr<WalReader>> WalReader::Open(const std::string& directory,
                                                     const WalReaderOptions& options) {
  auto segs = ListSegments(directory);
  if (!segs.ok()) return segs.status();
  return std::unique_ptr<WalReader>(new WalReader(std::move(segs.value()), options));
}

std::string DamagedRange::Describe() const {
  std::string s = path + " at offset " + std::to_string(offset) + ": " + reason;
  if (end < file_size) {
    s += "; valid records resume at offset " + std::to_string(end) + " (" +
         std::to_string(bytes()) + " damaged bytes)";
  } else {
    s += "; no valid record follows (" + std::to_string(bytes()) + " bytes to the end of the file)";
  }
  return s;
}

StatusOr<bool> WalReader::LoadNextSegment() {
  if (next_segment_ >= segments_.size()) return false;
  const SegmentFile& seg = segments_[next_segment_++];
  WB_RETURN_IF_ERROR(ReadWholeFile(seg.path, &data_));
  offset_ = 0;
  loaded_ = true;
  uint64_t number;
  if (!DecodeSegmentHeader(ByteView(data_), &number)) {
    // Only a header cut short can be a torn tail: the log syncs a segment's
    // header before it writes any record there, so a wrong one is damage.
    if (next_segment_ == segments_.size() && options_.tolerate_torn_tail &&
        IsTornSegmentHeader(ByteView(data_), seg.number)) {
      torn_tail_ = TornTail{seg.path, 0, data_.size(),
                            "segment header is torn (" + std::to_string(data_.size()) + " of " +
                                std::to_string(kSegmentHeaderSize) + " bytes)"};
      done_ = true;
      return true;
    }
    WB_RETURN_IF_ERROR(Damage(data_.size() < kSegmentHeaderSize
                                  ? "segment header is torn"
                                  : "segment header is not a WBWALv1 header"));
    return true;
  }
  if (number != seg.number) {
    return Status::Corruption("wal: " + seg.path + " says it is segment " + std::to_string(number) +
                              "; the log directory is mixed up");
  }
  offset_ = kSegmentHeaderSize;
  return true;
}

size_t WalReader::FindNextValidRecord(size_t from) {
  const ByteView all(data_);
  uint64_t sequence;
  Mutation m;
  for (size_t p = from; p + kRecordHeaderSize + kMinBodySize <= all.size(); ++p) {
    // Cheapest test first: over random bytes most lengths do not fit, and
    // most of the rest fail to decode at once. The checksum, which costs a
    // pass over the body, runs only on a body that decodes; checking it
    // first would make a scan of garbage quadratic in its size.
    const uint32_t len = LoadLE32(all.data() + p);
    if (len < kMinBodySize || len > all.size() - p - kRecordHeaderSize) continue;
    if (!DecodeRecordBody(all.Sub(p + kRecordHeaderSize, len), &sequence, &m, &cells_).ok() ||
        sequence <= last_sequence_)
      continue;
    ByteView body;
    size_t size;
    if (CheckRecord(all.Sub(p, all.size() - p), &body, &size) == RecordCheck::kOk) return p;
  }
  return all.size();
}

Status WalReader::Damage(const std::string& why) {
  const SegmentFile& seg = segments_[next_segment_ - 1];
  const bool last = next_segment_ == segments_.size();
  const size_t resume = FindNextValidRecord(offset_ + 1);
  if (last && resume == data_.size() && offset_ >= kSegmentHeaderSize &&
      options_.tolerate_torn_tail) {
    torn_tail_ = TornTail{seg.path, offset_, data_.size(), why};
    done_ = true;
    return Status::Ok();
  }
  damaged_.push_back(DamagedRange{seg.path, seg.number, offset_, resume, data_.size(), why});
  const DamagedRange& d = damaged_.back();
  if (options_.skip_damaged) {
    offset_ = resume;
    return Status::Ok();
  }
  std::string s = "wal: " + d.Describe();
  if (resume < data_.size()) {
    s += ": intact records follow the damage, so it is not a torn tail";
  } else if (!last) {
    s += ": not the last segment, so not a torn tail";
  } else if (offset_ < kSegmentHeaderSize) {
    s += ": a wrong segment header is damage, not a torn tail";
  }
  return Status::Corruption(s);
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
