#include "regions/wal/wal.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "regions/wal/wal_format.h"
#include "regions/wal/wal_reader.h"
#include "regions/wal/wal_recovery.h"
#include "regions/wal/wal_region.h"
#include "common/str_cat.h"
#include "tests/read_file.h"
#include "tests/region_mutations.h"
#include "tests/temp_dir.h"

namespace wirebench {
namespace {

namespace fs = std::filesystem;

using testing::ReadFile;
using testing::TempDir;

void WriteFile(const std::string& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

Status PutOne(Region* r, const std::string& row, const std::string& value) {
  return testing::PutCell(r, row, "f", "q", value);
}

// The value of f:q in row, or "<none>".
std::string GetOne(Region* r, const std::string& row) {
  RegionScratch s;
  GetRequest req;
  req.row = ByteView(row);
  GetResponse resp;
  EXPECT_TRUE(r->Get(req, &s, &resp).ok());
  if (resp.result.cells.empty()) return "<none>";
  return resp.result.cells[0].value.ToString();
}

std::unique_ptr<Region> OpenRegion(const WalOptions& o) {
  auto r = NewWalRegion(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r.value()) : nullptr;
}

std::string RowName(int i) { return StrCat("row", std::to_string(100 + i)); }
std::string ValueOf(int i) { return "value-" + std::to_string(i * 7919); }

TEST(WalFormat, RecordRoundTripsAndChecksAreStrict) {
  const std::string row = "user123", f = "family", q1 = "q1", q2 = "", v1 = "hello", v2(300, 'x');
  Cell cells[2];
  cells[0] = Cell{ByteView(row), ByteView(f), ByteView(q1), 17, CellType::kPut, ByteView(v1)};
  cells[1] =
      Cell{ByteView(row), ByteView(f), ByteView(q2), 0, CellType::kDeleteFamily, ByteView(v2)};
  Mutation m;
  m.row = ByteView(row);
  m.type = MutationType::kDelete;
  m.timestamp = 99;
  m.cells = cells;
  ByteBuffer buf;
  buf.Append(ByteView("junk"));  // Records append; they never clear.
  wal::EncodeRecord(42, m, &buf);
  ASSERT_EQ(buf.size(), 4 + wal::EncodedRecordSize(m));
  ByteView rec = buf.view().Sub(4, buf.size() - 4);

  ByteView body;
  size_t size = 0;
  ASSERT_EQ(wal::CheckRecord(rec, &body, &size), wal::RecordCheck::kOk);
  EXPECT_EQ(size, rec.size());
  uint64_t seq = 0;
  Mutation out;
  std::vector<Cell> out_cells;
  ASSERT_TRUE(wal::DecodeRecordBody(body, &seq, &out, &out_cells).ok());
  EXPECT_EQ(seq, 42u);
  EXPECT_EQ(out.row.str(), row);
  EXPECT_EQ(out.type, MutationType::kDelete);
  EXPECT_EQ(out.timestamp, 99u);
  ASSERT_EQ(out.cells.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(out.cells[i].row, cells[i].row);
    EXPECT_EQ(out.cells[i].family, cells[i].family);
    EXPECT_EQ(out.cells[i].qualifier, cells[i].qualifier);
    EXPECT_EQ(out.cells[i].timestamp, cells[i].timestamp);
    EXPECT_EQ(out.cells[i].type, cells[i].type);
    EXPECT_EQ(out.cells[i].value, cells[i].value);
  }
  // Every strict prefix is incomplete; every flipped body byte fails the checksum.
  for (size_t n = 0; n < rec.size(); ++n)
    EXPECT_EQ(wal::CheckRecord(rec.Sub(0, n), &body, &size), wal::RecordCheck::kIncomplete) << n;
  std::string copy(rec.chars(), rec.size());
  for (size_t i = wal::kRecordHeaderSize; i < copy.size(); ++i) {
    copy[i] ^= 0x20;
    EXPECT_EQ(wal::CheckRecord(ByteView(copy), &body, &size), wal::RecordCheck::kBadChecksum) << i;
    copy[i] ^= 0x20;
  }
  // A zero-filled tail is not an empty record.
  std::string zeros(64, '\0');
  EXPECT_EQ(wal::CheckRecord(ByteView(zeros), &body, &size), wal::RecordCheck::kBadLength);
}

TEST(WalRegion, EditsSurviveReopen) {
  TempDir dir;
  WalOptions o;
  o.directory = dir.path();
  {
    auto r = OpenRegion(o);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->name(), "wal");
    ASSERT_TRUE(PutOne(r.get(), "a", "1").ok());
    ASSERT_TRUE(PutOne(r.get(), "b", "2").ok());
    ASSERT_TRUE(PutOne(r.get(), "a", "3").ok());
    Mutation del;
    del.row = ByteView("b");
    del.type = MutationType::kDelete;
    MutateResponse resp;
    ASSERT_TRUE(r->Mutate(del, &resp).ok());
    EXPECT_EQ(GetOne(r.get(), "a"), "3");
    EXPECT_EQ(GetOne(r.get(), "b"), "<none>");
    nlohmann::json j;
    r->AppendStats(&j);
    EXPECT_EQ(j["wal"]["appends"], 4);
    EXPECT_EQ(j["wal"]["acked_waits"], 4);
    EXPECT_EQ(j["wal"]["acked_unsynced"], 0);
    EXPECT_GE(j["wal"]["fsyncs"].get<uint64_t>(), 1u);
  }
  auto r = OpenRegion(o);
  ASSERT_TRUE(r);
  EXPECT_EQ(GetOne(r.get(), "a"), "3");
  EXPECT_EQ(GetOne(r.get(), "b"), "<none>");
  nlohmann::json j;
  r->AppendStats(&j);
  EXPECT_EQ(j["wal"]["recovered_records"], 4);
  // Sequence ids continue after the recovered ones.
  ASSERT_TRUE(PutOne(r.get(), "c", "4").ok());
  r->AppendStats(&j);
  EXPECT_EQ(j["wal"]["last_sequence"], 5);
}

// Writes `n` puts (row i = RowName(i)) into a fresh log of one segment and
// returns the segment's path and the end offset of every record.
std::string WriteSmallLog(const std::string& dir, int n, std::vector<uint64_t>* ends,
                          std::string (*value_of)(int) = ValueOf) {
  WalOptions o;
  o.directory = dir;
  o.nosync = true;
  {
    auto r = OpenRegion(o);
    for (int i = 0; i < n; ++i) EXPECT_TRUE(PutOne(r.get(), RowName(i), value_of(i)).ok());
  }
  auto reader = wal::WalReader::Open(dir);
  EXPECT_TRUE(reader.ok());
  wal::WalRecord rec;
  std::string path;
  for (;;) {
    auto more = reader.value()->Next(&rec);
    EXPECT_TRUE(more.ok());
    if (!more.ok() || !more.value()) break;
    path = *rec.segment_path;
    ends->push_back(rec.offset + wal::EncodedRecordSize(rec.mutation));
  }
  EXPECT_EQ(ends->size(), size_t(n));
  EXPECT_EQ(reader.value()->segments().size(), 1u);
  return path;
}

TEST(WalRegion, RecoversExactlyTheCompleteRecordsAtEveryTruncation) {
  TempDir dir;
  std::vector<uint64_t> ends;
  const std::string seg = WriteSmallLog(dir.sub("orig"), 20, &ends);
  const std::string bytes = ReadFile(seg);
  ASSERT_EQ(bytes.size(), ends.back());
  const std::string name = fs::path(seg).filename().string();
  for (size_t cut = 0; cut <= bytes.size(); ++cut) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    const std::string d = dir.sub("cut");
    fs::remove_all(d);
    fs::create_directories(d);
    WriteFile(d + "/" + name, bytes.substr(0, cut));
    int complete = 0;
    while (complete < 20 && ends[complete] <= cut) ++complete;
    WalOptions o;
    o.directory = d;
    o.nosync = true;
    {
      auto r = OpenRegion(o);
      ASSERT_TRUE(r);
      for (int i = 0; i < 20; ++i)
        ASSERT_EQ(GetOne(r.get(), RowName(i)), i < complete ? ValueOf(i) : "<none>") << i;
      // The torn tail is gone from the file; a torn header is completed
      // (the segment is never deleted).
      if (cut < wal::kSegmentHeaderSize) {
        EXPECT_EQ(ReadFile(d + "/" + name), bytes.substr(0, wal::kSegmentHeaderSize));
      } else {
        EXPECT_EQ(fs::file_size(d + "/" + name),
                  complete ? ends[complete - 1] : wal::kSegmentHeaderSize);
      }
      ASSERT_TRUE(PutOne(r.get(), "after", "x").ok());
    }
    auto r = OpenRegion(o);
    ASSERT_TRUE(r);
    EXPECT_EQ(GetOne(r.get(), "after"), "x");
    if (complete > 0) {
      EXPECT_EQ(GetOne(r.get(), RowName(complete - 1)), ValueOf(complete - 1));
    }
    if (complete < 20) {
      EXPECT_EQ(GetOne(r.get(), RowName(complete)), "<none>");
    }
    nlohmann::json j;
    r->AppendStats(&j);
    EXPECT_EQ(j["wal"]["recovered_records"], complete + 1);
  }
}

TEST(WalRegion, FlippedByteInLastRecordIsATornTail) {
  TempDir dir;
  std::vector<uint64_t> ends;
  const std::string seg = WriteSmallLog(dir.sub("orig"), 20, &ends);
  const std::string bytes = ReadFile(seg);
  const std::string name = fs::path(seg).filename().string();
  for (uint64_t pos = ends[18]; pos < ends[19]; ++pos) {
    SCOPED_TRACE("flip at " + std::to_string(pos));
    const std::string d = dir.sub("flip");
    fs::remove_all(d);
    fs::create_directories(d);
    std::string damaged = bytes;
    damaged[pos] ^= 0x01;
    WriteFile(d + "/" + name, damaged);
    WalOptions o;
    o.directory = d;
    o.nosync = true;
    auto r = OpenRegion(o);
    ASSERT_TRUE(r);
    EXPECT_EQ(GetOne(r.get(), RowName(18)), ValueOf(18));
    EXPECT_EQ(GetOne(r.get(), RowName(19)), "<none>");
    EXPECT_EQ(fs::file_size(d + "/" + name), ends[18]);
  }
  // The strict reader calls the same damage corruption.
  const std::string d = dir.sub("strict");
  fs::create_directories(d);
  std::string damaged = bytes;
  damaged[ends[19] - 1] ^= 0x01;
  WriteFile(d + "/" + name, damaged);
  wal::WalReaderOptions strict;
  strict.tolerate_torn_tail = false;
  auto reader = wal::WalReader::Open(d, strict);
  ASSERT_TRUE(reader.ok());
  wal::WalRecord rec;
  StatusOr<bool> more = true;
  int n = 0;
  while ((more = reader.value()->Next(&rec)).ok() && more.value()) ++n;
  EXPECT_EQ(n, 19);
  EXPECT_EQ(more.status().code(), Status::Code::kCorruption);
}

TEST(WalRegion, RollsSegmentsAndRecoversAcrossThem) {
  TempDir dir;
  WalOptions o;
  o.directory = dir.path();
  o.segment_bytes = 1024;
  {
    auto r = OpenRegion(o);
    ASSERT_TRUE(r);
    for (int i = 0; i < 200; ++i) ASSERT_TRUE(PutOne(r.get(), RowName(i), ValueOf(i)).ok());
    nlohmann::json j;
    r->AppendStats(&j);
    EXPECT_GT(j["wal"]["rolls"].get<uint64_t>(), 5u);
    EXPECT_EQ(j["wal"]["acked_unsynced"], 0);
  }
  auto segs = wal::ListSegments(dir.path());
  ASSERT_TRUE(segs.ok());
  EXPECT_GT(segs.value().size(), 5u);
  for (const auto& s : segs.value()) EXPECT_LE(fs::file_size(s.path), 1024u + 200u);
  {
    auto r = OpenRegion(o);
    ASSERT_TRUE(r);
    for (int i = 0; i < 200; ++i) ASSERT_EQ(GetOne(r.get(), RowName(i)), ValueOf(i));
    ASSERT_TRUE(PutOne(r.get(), RowName(0), "changed").ok());
  }
  auto r = OpenRegion(o);
  ASSERT_TRUE(r);
  EXPECT_EQ(GetOne(r.get(), RowName(0)), "changed");
  EXPECT_EQ(GetOne(r.get(), RowName(199)), ValueOf(199));
}

TEST(WalRegion, DamageInAnOlderSegmentIsCorruptionNamingFileAndOffset) {
  TempDir dir;
  WalOptions o;
  o.directory = dir.path();
  o.segment_bytes = 512;
  o.nosync = true;
  {
    auto r = OpenRegion(o);
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(PutOne(r.get(), RowName(i), ValueOf(i)).ok());
  }
  auto segs = wal::ListSegments(dir.path());
  ASSERT_TRUE(segs.ok());
  ASSERT_GE(segs.value().size(), 3u);
  const std::string victim = segs.value()[0].path;
  std::string bytes = ReadFile(victim);
  const size_t pos = wal::kSegmentHeaderSize + wal::kRecordHeaderSize + 2;  // First record's body.
  bytes[pos] ^= 0x40;
  WriteFile(victim, bytes);
  auto r = NewWalRegion(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kCorruption);
  EXPECT_NE(r.status().message().find(victim), std::string_view::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("offset 16"), std::string_view::npos)
      << r.status().ToString();
}

// 16 threads append through the log at once: syncs are shared (fewer
// fdatasyncs than appends) and no append is acknowledged before its
// sequence id is synced.
TEST(Wal, GroupCommitSharesSyncsAndNeverAcksEarly) {
  TempDir dir;
  WalOptions o;
  o.directory = dir.path();
  auto opened = Wal::Open(o, 1, 0);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Wal* wal = opened.value().get();
  constexpr int kThreads = 16, kAppends = 150;
  std::atomic<int> early{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string row = StrCat("t", std::to_string(t)), value(100, char('a' + t));
      Cell c{ByteView(row), ByteView("f"), ByteView("q"), 1, CellType::kPut, ByteView(value)};
      Mutation m{ByteView(row), MutationType::kPut, 1, std::span<const Cell>(&c, 1)};
      for (int i = 0; i < kAppends; ++i) {
        auto seq = wal->Append(m, true);
        if (!seq.ok()) {
          ++failed;
          return;
        }
        if (wal->highest_synced() < seq.value()) ++early;
      }
    });
  }
  for (auto& th : threads) th.join();
  const WalCounters c = wal->counters();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(early.load(), 0);
  EXPECT_EQ(c.appends, uint64_t(kThreads * kAppends));
  EXPECT_EQ(c.acked_waits, uint64_t(kThreads * kAppends));
  EXPECT_EQ(c.acked_unsynced, 0u);
  EXPECT_EQ(c.highest_synced, c.last_sequence);
  EXPECT_LT(c.fsyncs, c.appends);
  EXPECT_GT(wal->appends_per_sync().mean(), 1.0);
  std::printf("appends=%llu fsyncs=%llu syncs=%llu appends/sync mean=%.2f max=%llu\n",
              (unsigned long long)c.appends, (unsigned long long)c.fsyncs,
              (unsigned long long)c.syncs, wal->appends_per_sync().mean(),
              (unsigned long long)wal->appends_per_sync().max());
  ASSERT_TRUE(wal->Close().ok());
  // Everything acknowledged is in the log, in sequence order.
  wal::WalReaderOptions strict;
  strict.tolerate_torn_tail = false;
  auto reader = wal::WalReader::Open(dir.path(), strict);
  ASSERT_TRUE(reader.ok());
  wal::WalRecord rec;
  uint64_t n = 0;
  for (;;) {
    auto more = reader.value()->Next(&rec);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!more.value()) break;
    EXPECT_EQ(rec.sequence, ++n);
  }
  EXPECT_EQ(n, uint64_t(kThreads * kAppends));
}

TEST(WalRegion, ConcurrentMutatesAndMultiAreDurableAndShareSyncs) {
  TempDir dir;
  WalOptions o;
  o.directory = dir.path();
  constexpr int kThreads = 16, kPuts = 60;
  {
    auto r = OpenRegion(o);
    ASSERT_TRUE(r);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPuts; ++i)
          EXPECT_TRUE(PutOne(r.get(), StrCat("r", std::to_string(t * 1000 + i)), ValueOf(i)).ok());
      });
    }
    for (auto& th : threads) th.join();
    // One Multi: two puts and a get of the first, logged as one batch.
    Cell c1{ByteView("m1"), ByteView("f"), ByteView("q"), 0, CellType::kPut, ByteView("one")};
    Cell c2{ByteView("m2"), ByteView("f"), ByteView("q"), 0, CellType::kPut, ByteView("two")};
    Action a[3];
    a[0].index = 0;
    a[0].mutation = Mutation{ByteView("m1"), MutationType::kPut, 0, std::span<const Cell>(&c1, 1)};
    a[1].index = 1;
    a[1].mutation = Mutation{ByteView("m2"), MutationType::kPut, 0, std::span<const Cell>(&c2, 1)};
    a[2].index = 2;
    a[2].kind = ActionKind::kGet;
    a[2].get.row = ByteView("m1");
    RegionScratch s;
    MultiResponse resp;
    ASSERT_TRUE(r->Multi(MultiRequest{a}, &s, &resp).ok());
    ASSERT_EQ(resp.results.size(), 3u);
    ASSERT_EQ(resp.results[2].result.cells.size(), 1u);
    EXPECT_EQ(resp.results[2].result.cells[0].value.str(), "one");
    nlohmann::json j;
    r->AppendStats(&j);
    const uint64_t appends = j["wal"]["appends"];
    EXPECT_EQ(appends, uint64_t(kThreads * kPuts + 2));
    EXPECT_EQ(j["wal"]["acked_unsynced"], 0);
    EXPECT_EQ(j["wal"]["acked_waits"], uint64_t(kThreads * kPuts + 1));  // Multi waits once.
    EXPECT_LT(j["wal"]["fsyncs"].get<uint64_t>(), appends);
  }
  auto r = OpenRegion(o);
  ASSERT_TRUE(r);
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kPuts; ++i)
      ASSERT_EQ(GetOne(r.get(), StrCat("r", std::to_string(t * 1000 + i))), ValueOf(i));
  EXPECT_EQ(GetOne(r.get(), "m2"), "two");
}

TEST(WalRegion, EveryNEditsModeKeepsEditsAcrossCleanClose) {
  TempDir dir;
  WalOptions o;
  o.directory = dir.path();
  o.sync_mode = WalSyncMode::kEveryNEdits;
  o.sync_interval_edits = 10;
  {
    auto r = OpenRegion(o);
    for (int i = 0; i < 95; ++i) ASSERT_TRUE(PutOne(r.get(), RowName(i), ValueOf(i)).ok());
    nlohmann::json j;
    r->AppendStats(&j);
    EXPECT_EQ(j["wal"]["acked_waits"], 0);  // Nobody waited for a sync.
  }
  auto r = OpenRegion(o);
  ASSERT_TRUE(r);
  for (int i = 0; i < 95; ++i) ASSERT_EQ(GetOne(r.get(), RowName(i)), ValueOf(i));
}

TEST(WalRegion, RefusesBadOptionsAndMutations) {
  auto none = NewWalRegion(WalOptions{});
  EXPECT_EQ(none.status().code(), Status::Code::kInvalidArgument);
  TempDir dir;
  WalOptions o;
  o.directory = dir.path();
  auto r = OpenRegion(o);
  ASSERT_TRUE(r);
  EXPECT_EQ(PutOne(r.get(), "", "v").code(), Status::Code::kInvalidArgument);
  Mutation inc;
  inc.row = ByteView("r");
  inc.type = MutationType::kIncrement;
  MutateResponse resp;
  EXPECT_EQ(r->Mutate(inc, &resp).code(), Status::Code::kUnimplemented);
  nlohmann::json j;
  r->AppendStats(&j);
  EXPECT_EQ(j["wal"]["appends"], 0);  // Refused edits are never logged.
}

// ~560-byte values, so a few thousand records make a log of megabytes.
std::string BigValueOf(int i) { return ValueOf(i) + std::string(540, char('a' + i % 26)); }

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = char(rng());
  return s;
}

// A damaged log: one segment of kRecords records with 1 KB of garbage
// written over it at offset 1,000,000 (how the damage was first reproduced).
struct DamagedLog {
  static constexpr int kRecords = 4800;
  static constexpr uint64_t kAt = 1000000, kLen = 1024;
  std::vector<uint64_t> ends;
  std::string dir, seg, original, damaged;
  int first_hit = 0, last_hit = 0;  // Records the garbage overlaps.

  explicit DamagedLog(const std::string& d) : dir(d) {
    seg = WriteSmallLog(dir, kRecords, &ends, BigValueOf);
    original = ReadFile(seg);
    EXPECT_GT(original.size(), 2 * kAt);
    damaged = original;
    damaged.replace(kAt, kLen, RandomBytes(kLen, 12));
    WriteFile(seg, damaged);
    while (ends[size_t(first_hit)] <= kAt) ++first_hit;
    last_hit = first_hit;
    while (ends[size_t(last_hit)] < kAt + kLen) ++last_hit;
  }
  bool Hit(int i) const { return i >= first_hit && i <= last_hit; }
  uint64_t DamageStart() const { return ends[size_t(first_hit) - 1]; }
  uint64_t DamageEnd() const { return ends[size_t(last_hit)]; }
};

TEST(WalRecovery, GarbageFollowedByIntactRecordsIsRefusedAndNothingChanges) {
  TempDir dir;
  DamagedLog log(dir.path());
  WalOptions o;
  o.directory = dir.path();
  WalRecoveryReport report;
  auto r = NewWalRegion(o, &report);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kCorruption);
  const std::string msg(r.status().message());
  EXPECT_NE(msg.find(log.seg + " at offset " + std::to_string(log.DamageStart())),
            std::string::npos) << msg;
  EXPECT_NE(msg.find("valid records resume at offset " + std::to_string(log.DamageEnd())),
            std::string::npos) << msg;
  EXPECT_NE(msg.find("--wal-recover=skip-damaged"), std::string::npos) << msg;
  EXPECT_EQ(report.records, uint64_t(log.first_hit));
  // Nothing was truncated, deleted or added.
  EXPECT_EQ(ReadFile(log.seg), log.damaged);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(WalRecovery, SkipDamagedReplaysEveryIntactRecordAndKeepsTheDamagedBytes) {
  TempDir dir;
  DamagedLog log(dir.path());
  ASSERT_GT(log.first_hit, 1000);
  ASSERT_LT(log.last_hit, DamagedLog::kRecords - 1000);
  WalOptions o;
  o.directory = dir.path();
  o.recovery = WalRecovery::kSkipDamaged;
  const int lost = log.last_hit - log.first_hit + 1;
  {
    WalRecoveryReport report;
    auto r = NewWalRegion(o, &report);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(report.records, uint64_t(DamagedLog::kRecords - lost));
    for (int i = 0; i < DamagedLog::kRecords; ++i)
      ASSERT_EQ(GetOne(r.value().get(), RowName(i)), log.Hit(i) ? "<none>" : BigValueOf(i)) << i;
    ASSERT_EQ(report.skipped.size(), 1u);
    EXPECT_EQ(report.skipped[0].offset, log.DamageStart());
    EXPECT_EQ(report.skipped[0].end, log.DamageEnd());
    ASSERT_EQ(report.side_files.size(), 1u);
    EXPECT_EQ(ReadFile(report.side_files[0]),
              log.damaged.substr(log.DamageStart(), log.DamageEnd() - log.DamageStart()));
    EXPECT_FALSE(report.torn_tail);
    const std::string text = report.ToString();
    EXPECT_NE(text.find(std::to_string(DamagedLog::kRecords - lost) + " record(s) replayed"),
              std::string::npos) << text;
    EXPECT_NE(text.find("kept in " + report.side_files[0]), std::string::npos) << text;
    EXPECT_NE(text.find("rewrote " + log.seg), std::string::npos) << text;
    // The segment is still there, now without the damaged bytes.
    EXPECT_EQ(fs::file_size(log.seg), log.original.size() - report.skipped_bytes());
    ASSERT_TRUE(PutOne(r.value().get(), "after", "x").ok());
  }
  // The repaired log opens without the option and keeps everything.
  o.recovery = WalRecovery::kRefuseDamaged;
  WalRecoveryReport report;
  auto r = NewWalRegion(o, &report);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(report.records, uint64_t(DamagedLog::kRecords - lost + 1));
  EXPECT_TRUE(report.skipped.empty());
  EXPECT_EQ(GetOne(r.value().get(), "after"), "x");
  EXPECT_EQ(GetOne(r.value().get(), RowName(DamagedLog::kRecords - 1)),
            BigValueOf(DamagedLog::kRecords - 1));
}

TEST(WalRecovery, TornTailIsTruncatedAndReported) {
  TempDir dir;
  std::vector<uint64_t> ends;
  const std::string seg = WriteSmallLog(dir.path(), 20, &ends);
  // The last record was cut in the middle of its body.
  const uint64_t cut = ends[18] + 20;
  fs::resize_file(seg, cut);
  WalOptions o;
  o.directory = dir.path();
  WalRecoveryReport report;
  auto r = NewWalRegion(o, &report);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(report.records, 19u);
  ASSERT_TRUE(report.torn_tail);
  EXPECT_EQ(report.torn_tail->offset, ends[18]);
  EXPECT_EQ(report.truncated_bytes, 20u);
  EXPECT_EQ(fs::file_size(seg), ends[18]);
  const std::string text = report.ToString();
  EXPECT_NE(text.find("torn tail in " + seg + " at offset " + std::to_string(ends[18])),
            std::string::npos) << text;
  EXPECT_NE(text.find("truncated 20 byte(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("19 record(s) replayed from 1 segment(s)"), std::string::npos) << text;
}

// A last segment that is random bytes, or whose header is wrong, is not a
// torn tail: refused, and the file is left exactly as it was.
TEST(WalRecovery, BadHeaderOrRandomSegmentIsRefusedNeverDeleted) {
  TempDir dir;
  std::vector<uint64_t> ends;
  const std::string first = WriteSmallLog(dir.sub("log"), 20, &ends);
  const std::string valid = ReadFile(first);
  std::string bad_magic = valid;
  bad_magic[2] ^= 0x10;
  struct Case {
    const char* name;
    std::string bytes;
    int intact;  // Records of the damaged segment that are intact.
  };
  for (const Case& c : {Case{"random", RandomBytes(4096, 7), 0},
                        Case{"random-short", RandomBytes(9, 8), 0},
                        Case{"bad-magic", bad_magic, 20}}) {
    SCOPED_TRACE(c.name);
    const std::string d = dir.sub(c.name);
    fs::remove_all(d);
    fs::create_directories(d);
    fs::copy_file(first, d + "/" + wal::SegmentFileName(1));
    // The damaged segment is the last one, numbered 2; its records (when
    // intact) carry sequence ids after segment 1's.
    std::string bytes = c.bytes;
    if (c.intact) {
      std::vector<uint64_t> ends2;
      const std::string two = WriteSmallLog(dir.sub(std::string(c.name) + "-src"), 40, &ends2);
      const std::string all = ReadFile(two);
      bytes = bad_magic.substr(0, wal::kSegmentHeaderSize) + all.substr(ends2[19]);
    }
    const std::string seg2 = d + "/" + wal::SegmentFileName(2);
    WriteFile(seg2, bytes);
    WalOptions o;
    o.directory = d;
    auto r = NewWalRegion(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Status::Code::kCorruption);
    EXPECT_NE(r.status().message().find(seg2 + " at offset 0"), std::string_view::npos)
        << r.status().ToString();
    EXPECT_EQ(ReadFile(seg2), bytes);
    EXPECT_EQ(ReadFile(d + "/" + wal::SegmentFileName(1)), valid);

    // skip-damaged keeps the bad bytes aside and replays what is intact.
    o.recovery = WalRecovery::kSkipDamaged;
    WalRecoveryReport report;
    auto skipped = NewWalRegion(o, &report);
    ASSERT_TRUE(skipped.ok()) << skipped.status().ToString();
    EXPECT_EQ(report.records, uint64_t(20 + c.intact));
    ASSERT_EQ(report.side_files.size(), 1u);
    const uint64_t kept = c.intact ? wal::kSegmentHeaderSize : bytes.size();
    EXPECT_EQ(ReadFile(report.side_files[0]), bytes.substr(0, kept));
    EXPECT_TRUE(fs::exists(seg2));
    for (int i = 0; i < 20 + c.intact; ++i)
      ASSERT_EQ(GetOne(skipped.value().get(), RowName(i)), ValueOf(i)) << i;
  }
}

}  // namespace
}  // namespace wirebench
