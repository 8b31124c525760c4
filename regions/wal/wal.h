// Wal: the write-ahead log with group commit, after HBase's FSHLog once
// HBASE-8755 and HBASE-10156 were in.
//
// Handler threads encode their records into a shared pending buffer under a
// short lock (which also assigns sequence ids, so buffer order is sequence
// order) and go to sleep on a private futex word. One appender thread swaps
// the pending buffer out, writes it to the current segment in one write(),
// and hands "sync up to sequence S, then wake these waiters" to one of
// several sync runner threads in turn. A runner fdatasync()s (no lock held),
// raises the highest synced sequence id, and wakes its waiters. A runner
// whose target is already covered by another runner's sync skips the call,
// so while one fsync is in flight the next batch grows: appends per sync
// rise with the number of writers. Segments roll once they pass
// segment_bytes; the old segment is synced before the new one is used, so
// "highest synced = S" always means every record up to S is durable.
// Thread-safety: Append, Sync and the accessors may be called from any
// number of threads; Close from one.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "codecs/message.h"
#include "common/bytes.h"
#include "common/status.h"
#include "regions/memstore/memstore_region.h"
#include "regions/wal/log_histogram.h"

namespace wirebench {

enum class WalSyncMode : uint8_t {
  // A mutation is acknowledged once the sync covering it has completed
  // (group commit). The default, and the only durable mode.
  kEveryEdit = 0,
  // A mutation is acknowledged once the appender has it; the appender syncs
  // after every sync_interval_edits edits and whenever it runs out of work.
  // Acknowledged edits may be lost in a crash (HBase's deferred/ASYNC_WAL).
  kEveryNEdits = 1,
};

// What recovery (opening the wal region) does with damage that is not a
// torn tail: damaged bytes followed by intact records, an older segment's
// damage, a wrong segment header.
enum class WalRecovery : uint8_t {
  // Refuse to open, naming the file and offset; nothing is changed on disk.
  kRefuseDamaged = 0,
  // Replay every intact record, move the damaged bytes to a side file next
  // to their segment and rewrite the segment without them.
  kSkipDamaged = 1,
};

// Options of both the log and the wal region (which also uses `memstore`
// and `row_lock_stripes`).
struct WalOptions {
  // The log directory; created if missing. Required.
  std::string directory;
  WalSyncMode sync_mode = WalSyncMode::kEveryEdit;
  // For kEveryNEdits: edits between syncs.
  uint32_t sync_interval_edits = 100;
  // Append but never fdatasync (sync requests complete at once): for
  // measuring everything but the disk. Not durable.
  bool nosync = false;
  // A segment rolls to a new file once it holds this many bytes.
  uint64_t segment_bytes = 64ull << 20;
  // Threads issuing fdatasync (HBase's hbase.wal.syncer.count is 5).
  uint32_t sync_runners = 5;
  // Appenders block while this many bytes wait for the appender.
  uint64_t max_pending_bytes = 64ull << 20;
  // wal region only: what recovery does with damage that is not a torn tail.
  WalRecovery recovery = WalRecovery::kRefuseDamaged;
  // wal region only: the memstore that holds what the log recovered and
  // every edit acknowledged since.
  MemstoreOptions memstore;
  // wal region only: row lock stripes, so edits of one row reach the log and
  // the memstore in the same order.
  uint32_t row_lock_stripes = 1024;
};

// Counters of one log, read with Wal::counters().
struct WalCounters {
  uint64_t appends = 0;         // Records appended.
  uint64_t append_bytes = 0;    // Record bytes written to segments.
  uint64_t writes = 0;          // write() batches by the appender.
  uint64_t syncs = 0;           // Sync requests that advanced the synced sequence.
  uint64_t fsyncs = 0;          // fdatasync calls (0 with nosync).
  uint64_t fsync_ns = 0;        // Time spent in fdatasync.
  uint64_t rolls = 0;           // Segments rolled.
  uint64_t acked_waits = 0;     // Sync waits that returned OK.
  uint64_t acked_unsynced = 0;  // Of those, returned before their sequence was synced (must be 0).
  uint64_t last_sequence = 0;   // Highest sequence id assigned.
  uint64_t highest_synced = 0;  // Highest sequence id known durable.
};

class Wal {
 public:
  // Opens a log in options.directory writing to a new segment numbered
  // first_segment; sequence ids continue after last_sequence.
  [[nodiscard]] static StatusOr<std::unique_ptr<Wal>> Open(const WalOptions& options,
                                                           uint64_t first_segment,
                                                           uint64_t last_sequence);
  ~Wal();
  Wal(const Wal&) = delete;
  Wal& operator=(const Wal&) = delete;

  // Appends the mutations as consecutive records and returns the sequence id
  // of the last one. With wait_for_sync, returns only once that record (and
  // so every earlier one) is durable.
  [[nodiscard]] StatusOr<uint64_t> Append(std::span<const Mutation> mutations, bool wait_for_sync);
  [[nodiscard]] StatusOr<uint64_t> Append(const Mutation& m, bool wait_for_sync) {
    return Append(std::span<const Mutation>(&m, 1), wait_for_sync);
  }
  // Waits until every record up to `sequence` is durable.
  [[nodiscard]] Status Sync(uint64_t sequence);

  // Writes and syncs everything appended, then stops the threads. Appends
  // after Close fail. Idempotent; the destructor calls it.
  [[nodiscard]] Status Close();

  uint64_t highest_synced() const { return highest_synced_.load(std::memory_order_acquire); }
  WalCounters counters() const;
  // Records covered by each sync (HBase WALPE's countPerSync).
  const LogHistogram& appends_per_sync() const { return appends_per_sync_; }
  const std::string& directory() const { return options_.directory; }

 private:
  struct Waiter;
  struct Segment;
  struct Runner;

  explicit Wal(const WalOptions& options);
  [[nodiscard]] Status OpenSegment(uint64_t number);
  // fdatasync of `seg`, counted and timed in the sync counters.
  [[nodiscard]] Status SyncSegment(const Segment& seg);
  [[nodiscard]] Status WaitFor(Waiter* w, uint64_t sequence);
  void AppenderLoop();
  void RunnerLoop(Runner* r);
  // Hands a sync up to `target` (and the waiters) to the next runner.
  void Dispatch(uint64_t target, std::vector<Waiter*>* waiters);
  void Fail(const Status& s);
  Status failure() const;
  void RaiseSynced(uint64_t target);

  const WalOptions options_;
  int dir_fd_ = -1;

  // Producer side, guarded by mu_.
  mutable std::mutex mu_;
  std::condition_variable appender_cv_;
  std::condition_variable space_cv_;
  ByteBuffer pending_;
  std::vector<Waiter*> pending_waiters_;
  uint64_t last_sequence_ = 0;
  uint64_t pending_records_ = 0;
  bool appender_idle_ = false;
  bool stopping_ = false;
  bool closed_ = false;

  // Appender-only state.
  ByteBuffer write_buf_;
  std::vector<Waiter*> batch_waiters_;
  uint64_t written_sequence_ = 0;
  uint64_t dispatched_sequence_ = 0;
  size_t next_runner_ = 0;

  // The segment being written; runners copy the pointer under segment_mu_.
  std::mutex segment_mu_;
  std::shared_ptr<Segment> segment_;

  std::vector<std::unique_ptr<Runner>> runners_;
  std::thread appender_;

  std::atomic<uint64_t> highest_synced_{0};
  std::atomic<bool> failed_{false};
  mutable std::mutex failure_mu_;
  Status failure_;

  std::atomic<uint64_t> appends_{0}, append_bytes_{0}, writes_{0}, syncs_{0}, fsyncs_{0},
      fsync_ns_{0}, rolls_{0}, acked_waits_{0}, acked_unsynced_{0};
  LogHistogram appends_per_sync_;
};

}  // namespace wirebench
