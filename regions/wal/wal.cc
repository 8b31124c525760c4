#include "regions/wal/wal.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "common/thread_stats.h"
#include "regions/wal/wal_format.h"

namespace wirebench {

namespace {

// Sleeps while *word == expected (or until woken; callers loop).
void FutexWait(std::atomic<uint32_t>* word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr,
          nullptr, 0);
}
// Wakes one sleeper on word. Safe even if the word's owner has since gone
// away: the kernel only hashes the address.
void FutexWake(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

uint64_t NowNs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

}  // namespace

// One handler's wait for a sync; lives on the handler's stack.
struct Wal::Waiter {
  std::atomic<uint32_t> done{0};
  bool failed = false;
};

struct Wal::Segment {
  uint64_t number = 0;
  std::string path;
  int fd = -1;
  uint64_t size = 0;  // Appender-only.
  ~Segment() {
    if (fd >= 0) close(fd);
  }
};

struct Wal::Runner {
  std::mutex mu;
  std::condition_variable cv;
  uint64_t target = 0;           // Guarded by mu.
  std::vector<Waiter*> waiters;  // Guarded by mu.
  bool has_work = false;         // Guarded by mu.
  bool stop = false;             // Guarded by mu.
  std::vector<Waiter*> local;    // Runner thread only.
  std::thread thread;
};

Wal::Wal(const WalOptions& options) : options_(options) {}

StatusOr<std::unique_ptr<Wal>> Wal::Open(const WalOptions& options, uint64_t first_segment,
                                         uint64_t last_sequence) {
  if (options.directory.empty())
    return Status::InvalidArgument("wal: no log directory given (WalOptions::directory)");
  std::error_code ec;
  std::filesystem::create_directories(options.directory, ec);
  if (ec) return Status::IoError("wal: cannot create " + options.directory + ": " + ec.message());
  std::unique_ptr<Wal> wal(new Wal(options));
  wal->dir_fd_ = open(options.directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (wal->dir_fd_ < 0) return wal::IoErrno("cannot open directory", options.directory);
  wal->last_sequence_ = last_sequence;
  wal->written_sequence_ = last_sequence;
  wal->dispatched_sequence_ = last_sequence;
  wal->highest_synced_.store(last_sequence);
  WB_RETURN_IF_ERROR(wal->OpenSegment(first_segment));
  const uint32_t n = std::max<uint32_t>(1, options.sync_runners);
  try {
    for (uint32_t i = 0; i < n; ++i) {
      wal->runners_.push_back(std::make_unique<Runner>());
      Runner* r = wal->runners_.back().get();
      r->thread = std::thread([w = wal.get(), r] { w->RunnerLoop(r); });
    }
    wal->appender_ = std::thread([w = wal.get()] { w->AppenderLoop(); });
  } catch (const std::system_error& e) {
    // The destructor stops the threads that did start.
    return Status::ResourceExhausted(std::string("wal: cannot start the log's threads: ") +
                                     e.what());
  }
  return wal;
}

Wal::~Wal() { (void)Close(); }

Status Wal::OpenSegment(uint64_t number) {
  auto seg = std::make_shared<Segment>();
  seg->number = number;
  seg->path = options_.directory + "/" + wal::SegmentFileName(number);
  seg->fd = open(seg->path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (seg->fd < 0) return wal::IoErrno("cannot create segment", seg->path);
  uint8_t header[wal::kSegmentHeaderSize];
  wal::EncodeSegmentHeader(number, header);
  WB_RETURN_IF_ERROR(wal::WriteAll(seg->fd, header, sizeof(header), seg->path));
  seg->size = sizeof(header);
  if (!options_.nosync) {
    // The header and the directory entry must be durable before any record
    // in the file is acknowledged.
    if (fdatasync(seg->fd) != 0) return wal::IoErrno("cannot sync", seg->path);
    if (fsync(dir_fd_) != 0) return wal::IoErrno("cannot sync directory", options_.directory);
  }
  std::lock_guard lock(segment_mu_);
  segment_ = std::move(seg);
  return Status::Ok();
}

StatusOr<uint64_t> Wal::Append(std::span<const Mutation> mutations, bool wait_for_sync) {
  if (mutations.empty()) return Status::InvalidArgument("wal: nothing to append");
  Waiter waiter;
  uint64_t sequence;
  bool wake;
  {
    std::unique_lock lock(mu_);
    while (!stopping_ && pending_.size() >= options_.max_pending_bytes) space_cv_.wait(lock);
    if (stopping_) return Status::Aborted("wal: the log is closed");
    if (failed_.load(std::memory_order_relaxed)) return failure();
    for (const Mutation& m : mutations) wal::EncodeRecord(++last_sequence_, m, &pending_);
    pending_records_ += mutations.size();
    sequence = last_sequence_;
    if (wait_for_sync) pending_waiters_.push_back(&waiter);
    wake = appender_idle_;
  }
  if (wake) appender_cv_.notify_one();
  if (!wait_for_sync) return sequence;
  WB_RETURN_IF_ERROR(WaitFor(&waiter, sequence));
  return sequence;
}

Status Wal::Sync(uint64_t sequence) {
  if (highest_synced() >= sequence) return Status::Ok();
  Waiter waiter;
  bool wake;
  {
    std::unique_lock lock(mu_);
    if (sequence > last_sequence_)
      return Status::InvalidArgument("wal: Sync of sequence id " + std::to_string(sequence) +
                                     " that was never appended");
    if (stopping_) {
      return highest_synced() >= sequence ? Status::Ok()
                                          : Status::Aborted("wal: the log is closed");
    }
    pending_waiters_.push_back(&waiter);
    wake = appender_idle_;
  }
  if (wake) appender_cv_.notify_one();
  return WaitFor(&waiter, sequence);
}

Status Wal::WaitFor(Waiter* w, uint64_t sequence) {
  while (w->done.load(std::memory_order_acquire) == 0) FutexWait(&w->done, 0);
  if (w->failed) {
    Status s = failure();
    return s.ok() ? Status::IoError("wal: sync failed") : s;
  }
  acked_waits_.fetch_add(1, std::memory_order_relaxed);
  if (highest_synced() < sequence) acked_unsynced_.fetch_add(1, std::memory_order_relaxed);
  return Status::Ok();
}

void Wal::AppenderLoop() {
  RegisterThisThread(ThreadRole::kServerOther, "wal-append");
  const bool every_n = options_.sync_mode == WalSyncMode::kEveryNEdits;
  const uint64_t interval = std::max<uint32_t>(1, options_.sync_interval_edits);
  std::unique_lock lock(mu_);
  for (;;) {
    if (pending_.empty() && pending_waiters_.empty()) {
      if (stopping_) break;
      if (every_n && written_sequence_ > dispatched_sequence_) {
        // Out of work: sync what the interval left unsynced.
        lock.unlock();
        Dispatch(written_sequence_, nullptr);
        lock.lock();
        continue;
      }
      appender_idle_ = true;
      appender_cv_.wait(
          lock, [&] { return stopping_ || !pending_.empty() || !pending_waiters_.empty(); });
      appender_idle_ = false;
      continue;
    }
    write_buf_.Swap(pending_);
    batch_waiters_.swap(pending_waiters_);
    const uint64_t batch_last = last_sequence_;
    const uint64_t records = pending_records_;
    pending_records_ = 0;
    lock.unlock();
    space_cv_.notify_all();

    Status s = failure();
    if (s.ok() && !write_buf_.empty()) {
      std::shared_ptr<Segment> seg = segment_;  // Only this thread replaces it.
      if (seg->size > wal::kSegmentHeaderSize &&
          seg->size + write_buf_.size() > options_.segment_bytes) {
        // Roll: make the old segment durable first, so the synced sequence
        // never covers records a later segment's sync did not.
        if (!options_.nosync) s = SyncSegment(*seg);
        if (s.ok()) {
          RaiseSynced(written_sequence_);
          s = OpenSegment(seg->number + 1);
          rolls_.fetch_add(1, std::memory_order_relaxed);
        }
        seg = segment_;
      }
      if (s.ok()) s = wal::WriteAll(seg->fd, write_buf_.data(), write_buf_.size(), seg->path);
      if (s.ok()) {
        seg->size += write_buf_.size();
        append_bytes_.fetch_add(write_buf_.size(), std::memory_order_relaxed);
        appends_.fetch_add(records, std::memory_order_relaxed);
        writes_.fetch_add(1, std::memory_order_relaxed);
        written_sequence_ = batch_last;
      }
      if (!s.ok()) Fail(s);
    }
    if (!s.ok()) {
      for (Waiter* w : batch_waiters_) {
        w->failed = true;
        w->done.store(1, std::memory_order_release);
        FutexWake(&w->done);
      }
    } else if (!batch_waiters_.empty() ||
               (every_n && written_sequence_ - dispatched_sequence_ >= interval)) {
      Dispatch(written_sequence_, &batch_waiters_);
    }
    batch_waiters_.clear();
    write_buf_.Clear();
    lock.lock();
  }
}

Status Wal::SyncSegment(const Segment& seg) {
  const uint64_t t0 = NowNs();
  Status s = fdatasync(seg.fd) == 0 ? Status::Ok() : wal::IoErrno("cannot sync", seg.path);
  fsyncs_.fetch_add(1, std::memory_order_relaxed);
  fsync_ns_.fetch_add(NowNs() - t0, std::memory_order_relaxed);
  return s;
}

void Wal::Dispatch(uint64_t target, std::vector<Waiter*>* waiters) {
  Runner* r = runners_[next_runner_++ % runners_.size()].get();
  dispatched_sequence_ = std::max(dispatched_sequence_, target);
  {
    std::lock_guard lock(r->mu);
    r->target = std::max(r->target, target);
    if (waiters) r->waiters.insert(r->waiters.end(), waiters->begin(), waiters->end());
    r->has_work = true;
  }
  r->cv.notify_one();
}

void Wal::RunnerLoop(Runner* r) {
  RegisterThisThread(ThreadRole::kServerOther, "wal-sync");
  std::unique_lock lock(r->mu);
  for (;;) {
    r->cv.wait(lock, [&] { return r->has_work || r->stop; });
    if (!r->has_work) break;
    const uint64_t target = r->target;
    r->local.swap(r->waiters);
    r->has_work = false;
    lock.unlock();

    Status s = failure();
    if (s.ok() && highest_synced() < target) {
      if (!options_.nosync) {
        std::shared_ptr<Segment> seg;
        {
          std::lock_guard seg_lock(segment_mu_);
          seg = segment_;
        }
        s = SyncSegment(*seg);
      }
      if (s.ok()) {
        RaiseSynced(target);
      } else {
        Fail(s);
      }
    }
    for (Waiter* w : r->local) {
      w->failed = !s.ok();
      w->done.store(1, std::memory_order_release);
      FutexWake(&w->done);  // w may be gone from here on.
    }
    r->local.clear();
    lock.lock();
  }
}

void Wal::RaiseSynced(uint64_t target) {
  uint64_t cur = highest_synced_.load(std::memory_order_relaxed);
  while (cur < target &&
         !highest_synced_.compare_exchange_weak(cur, target, std::memory_order_acq_rel)) {
  }
  if (cur < target) {
    syncs_.fetch_add(1, std::memory_order_relaxed);
    appends_per_sync_.Record(target - cur);
  }
}

void Wal::Fail(const Status& s) {
  std::lock_guard lock(failure_mu_);
  if (failure_.ok()) {
    failure_ = s;
    // Once, in the server's log: every write is refused from here on.
    std::fprintf(stderr,
                 "wirebench server: %s; the wal region refuses every write from now on (its log "
                 "in %s cannot be trusted to hold them): free space there and restart the "
                 "server (it recovers what was acknowledged)\n",
                 s.ToString().c_str(), options_.directory.c_str());
  }
  failed_.store(true, std::memory_order_release);
}

Status Wal::failure() const {
  if (!failed_.load(std::memory_order_acquire)) return Status::Ok();
  std::lock_guard lock(failure_mu_);
  return failure_;
}

Status Wal::Close() {
  {
    std::lock_guard lock(mu_);
    if (closed_) return failure();
    closed_ = true;
    stopping_ = true;
  }
  appender_cv_.notify_all();
  space_cv_.notify_all();
  if (appender_.joinable()) appender_.join();
  // Everything appended is written; make the tail durable.
  if (failure().ok() && segment_ && highest_synced() < written_sequence_) {
    if (!options_.nosync && fdatasync(segment_->fd) != 0) {
      Fail(wal::IoErrno("cannot sync", segment_->path));
    } else {
      if (!options_.nosync) fsyncs_.fetch_add(1, std::memory_order_relaxed);
      RaiseSynced(written_sequence_);
    }
  }
  for (auto& r : runners_) {
    {
      std::lock_guard lock(r->mu);
      r->stop = true;
    }
    r->cv.notify_one();
    if (r->thread.joinable()) r->thread.join();
  }
  {
    std::lock_guard lock(segment_mu_);
    segment_.reset();
  }
  if (dir_fd_ >= 0) {
    close(dir_fd_);
    dir_fd_ = -1;
  }
  return failure();
}

WalCounters Wal::counters() const {
  WalCounters c;
  c.appends = appends_.load(std::memory_order_relaxed);
  c.append_bytes = append_bytes_.load(std::memory_order_relaxed);
  c.writes = writes_.load(std::memory_order_relaxed);
  c.syncs = syncs_.load(std::memory_order_relaxed);
  c.fsyncs = fsyncs_.load(std::memory_order_relaxed);
  c.fsync_ns = fsync_ns_.load(std::memory_order_relaxed);
  c.rolls = rolls_.load(std::memory_order_relaxed);
  c.acked_waits = acked_waits_.load(std::memory_order_relaxed);
  c.acked_unsynced = acked_unsynced_.load(std::memory_order_relaxed);
  {
    std::lock_guard lock(mu_);
    c.last_sequence = last_sequence_;
  }
  c.highest_synced = highest_synced();
  return c;
}

}  // namespace wirebench
