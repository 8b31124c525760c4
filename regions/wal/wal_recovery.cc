#include "regions/wal/wal_recovery.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>

#include "regions/wal/wal_format.h"

namespace wirebench {

namespace {

Status SyncDirectory(const std::string& directory) {
  int fd = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return wal::IoErrno("cannot open directory", directory);
  const bool ok = fsync(fd) == 0;
  close(fd);
  return ok ? Status::Ok() : wal::IoErrno("cannot sync directory", directory);
}

// Cuts a torn tail off its segment, or completes a torn segment header (the
// segment then holds no records), and makes that durable.
Status CutTornTail(const wal::TornTail& t, uint64_t segment_number) {
  int fd = open(t.path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return wal::IoErrno("cannot open", t.path);
  Status s;
  if (t.offset == 0) {
    uint8_t header[wal::kSegmentHeaderSize];
    wal::EncodeSegmentHeader(segment_number, header);
    s = wal::WriteAll(fd, header, sizeof(header), t.path);
  }
  const off_t size = off_t(std::max<uint64_t>(t.offset, wal::kSegmentHeaderSize));
  if (s.ok() && (ftruncate(fd, size) != 0 || fdatasync(fd) != 0))
    s = wal::IoErrno("cannot truncate the torn tail of", t.path);
  close(fd);
  return s;
}

// Keeps each damaged range of one segment in its side file, then replaces
// the segment by a copy without those ranges and without anything from
// `keep_until` on (a torn tail), under a fresh header.
Status RewriteSegment(std::span<const wal::DamagedRange> ranges, uint64_t keep_until,
                      WalRecoveryReport* report) {
  const std::string& path = ranges.front().path;
  std::string data;
  WB_RETURN_IF_ERROR(wal::ReadWholeFile(path, &data));
  std::string out(wal::kSegmentHeaderSize, '\0');
  wal::EncodeSegmentHeader(ranges.front().segment_number, reinterpret_cast<uint8_t*>(out.data()));
  // A range at offset 0 covers a bad header; otherwise the old header is replaced.
  uint64_t pos = ranges.front().offset == 0 ? 0 : wal::kSegmentHeaderSize;
  for (const wal::DamagedRange& d : ranges) {
    if (d.end > data.size())
      return Status::Aborted("wal: " + path + " changed during recovery; nothing rewritten");
    const std::string side = DamagedSideFileName(d);
    WB_RETURN_IF_ERROR(
        wal::WriteFileSynced(side, std::string_view(data).substr(d.offset, d.bytes())));
    report->side_files.push_back(side);
    if (d.offset > pos) out.append(data, pos, d.offset - pos);
    pos = std::max(pos, d.end);
  }
  keep_until = std::min<uint64_t>(keep_until, data.size());
  if (keep_until > pos) out.append(data, pos, keep_until - pos);
  const std::string tmp = path + ".rewrite";
  WB_RETURN_IF_ERROR(wal::WriteFileSynced(tmp, out));
  if (rename(tmp.c_str(), path.c_str()) != 0) return wal::IoErrno("cannot replace", path);
  report->rewritten.push_back(path);
  return Status::Ok();
}

// Makes the directory appendable again after reading it (see the header).
Status Repair(const std::string& directory, WalRecoveryReport* report) {
  const std::optional<wal::TornTail>& torn = report->torn_tail;
  if (torn) report->truncated_bytes = torn->file_size - torn->offset;
  bool tail_done = false;
  const auto& skipped = report->skipped;
  for (size_t i = 0; i < skipped.size();) {
    size_t j = i;
    while (j < skipped.size() && skipped[j].path == skipped[i].path) ++j;
    const bool has_tail = torn && torn->path == skipped[i].path;
    tail_done |= has_tail;
    WB_RETURN_IF_ERROR(RewriteSegment(std::span(skipped).subspan(i, j - i),
                                      has_tail ? torn->offset : skipped[i].file_size, report));
    i = j;
  }
  if (torn && !tail_done) {
    uint64_t number = report->next_segment - 1;  // A torn tail is in the last segment.
    WB_RETURN_IF_ERROR(CutTornTail(*torn, number));
  }
  if (torn || !skipped.empty()) WB_RETURN_IF_ERROR(SyncDirectory(directory));
  return Status::Ok();
}

}  // namespace

std::string DamagedSideFileName(const wal::DamagedRange& d) {
  return d.path + ".damaged-" + std::to_string(d.offset) + "-" + std::to_string(d.end);
}

uint64_t WalRecoveryReport::skipped_bytes() const {
  uint64_t n = 0;
  for (const wal::DamagedRange& d : skipped) n += d.bytes();
  return n;
}

std::string WalRecoveryReport::ToString() const {
  if (segments == 0) return "wal: " + directory + " holds no log yet; starting a new one\n";
  std::string s = "wal: recovered " + directory + ": " + std::to_string(records) +
                  " record(s) replayed from " + std::to_string(segments) +
                  " segment(s), last sequence id " + std::to_string(last_sequence) + "\n";
  if (torn_tail && torn_tail->offset == 0) {
    s += "wal: " + torn_tail->path + ": " + torn_tail->reason +
         " (a crash while creating it); completed the header, the segment holds no records\n";
  } else if (torn_tail) {
    s += "wal: torn tail in " + torn_tail->path + " at offset " +
         std::to_string(torn_tail->offset) + " (" + torn_tail->reason + "): truncated " +
         std::to_string(truncated_bytes) + " byte(s) never acknowledged as durable\n";
  }
  for (size_t i = 0; i < skipped.size(); ++i) {
    s += "wal: skipped damage: " + skipped[i].Describe();
    if (i < side_files.size()) s += "; the damaged bytes are kept in " + side_files[i];
    s += "\n";
  }
  for (const std::string& p : rewritten) s += "wal: rewrote " + p + " without the damaged bytes\n";
  if (!torn_tail && skipped.empty()) s += "wal: no damage found\n";
  return s;
}

Status RecoverWal(const WalOptions& options, const std::function<Status(const Mutation&)>& apply,
                  WalRecoveryReport* report) {
  *report = WalRecoveryReport{};
  report->directory = options.directory;
  wal::WalReaderOptions ro;
  ro.skip_damaged = options.recovery == WalRecovery::kSkipDamaged;
  auto opened = wal::WalReader::Open(options.directory, ro);
  if (!opened.ok()) return opened.status();
  wal::WalReader& reader = *opened.value();
  report->segments = reader.segments().size();
  if (!reader.segments().empty()) report->next_segment = reader.segments().back().number + 1;
  wal::WalRecord rec;
  for (;;) {
    auto more = reader.Next(&rec);
    if (!more.ok()) {
      if (reader.damaged().empty()) return more.status();
      return Status::Corruption(
          std::string(more.status().message()) +
          ". Refusing to start so that nothing more is lost; nothing was changed on disk. To "
          "replay every intact record and keep the damaged bytes in a side file, start with "
          "--wal-recover=skip-damaged");
    }
    if (!more.value()) break;
    WB_RETURN_IF_ERROR(apply(rec.mutation));
    report->last_sequence = rec.sequence;
    ++report->records;
  }
  report->torn_tail = reader.torn_tail();
  report->skipped = reader.damaged();
  return Repair(options.directory, report);
}

}  // namespace wirebench
