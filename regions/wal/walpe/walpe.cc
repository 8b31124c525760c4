#include "regions/wal/walpe/walpe.h"

#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "common/status.h"
#include "regions/wal/log_histogram.h"
#include "regions/wal/wal.h"
#include "regions/wal/wal_reader.h"

namespace wirebench {

namespace {

struct WalpeOptions {
  std::vector<uint32_t> threads = {1};
  uint64_t iterations = 10000;  // Per thread.
  uint32_t key_size = 16;
  uint32_t value_size = 512;
  uint32_t sync_interval = 0;  // 0: sync every append; N: every N appends.
  bool nosync = false;
  bool verify = false;
  std::string path;  // Empty: a fresh temporary directory.
  bool nocleanup = false;
  uint32_t sync_runners = 5;
  uint64_t seed = 20240601;
};

constexpr uint32_t kMinKeySize = 12;      // u32 thread + u64 iteration.
constexpr size_t kValuePoolExtra = 4096;  // Values are windows of a random pool.

// What one thread appends: key = LE u32 thread, LE u64 iteration, then
// filler; value = a window of the thread's seeded random pool.
class RecordMaker {
 public:
  RecordMaker(const WalpeOptions& o, uint32_t thread)
      : value_size_(o.value_size), key_(o.key_size, 'k') {
    std::mt19937_64 rng(o.seed + thread);
    pool_.resize(o.value_size + kValuePoolExtra);
    for (char& c : pool_) c = char(rng());
    StoreLE32(reinterpret_cast<uint8_t*>(key_.data()), thread);
    cell_.family = ByteView("f");
    cell_.qualifier = ByteView("q");
    cell_.type = CellType::kPut;
    m_.type = MutationType::kPut;
    m_.cells = std::span<const Cell>(&cell_, 1);
  }

  const Mutation& Make(uint64_t i) {
    StoreLE64(reinterpret_cast<uint8_t*>(key_.data()) + 4, i);
    m_.row = ByteView(key_);
    m_.timestamp = i + 1;
    cell_.row = m_.row;
    cell_.timestamp = i + 1;
    cell_.value = Value(i);
    return m_;
  }
  ByteView Value(uint64_t i) const {
    return ByteView(pool_.data() + (i * 131) % kValuePoolExtra, value_size_);
  }
  ByteView Filler() const { return ByteView(key_).Sub(kMinKeySize, key_.size() - kMinKeySize); }

 private:
  uint32_t value_size_;
  std::string key_;
  std::string pool_;
  Cell cell_;
  Mutation m_;
};

struct RunResult {
  uint32_t threads = 0;
  double seconds = 0;
  uint64_t appends = 0;
  uint64_t syncs = 0;
  double appends_per_sync = 0;
  double cpu_us_per_op = 0;
  double cs_per_op = 0;
};

double ProcessCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

uint64_t ContextSwitches(uint64_t* voluntary, uint64_t* involuntary) {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  *voluntary = uint64_t(ru.ru_nvcsw);
  *involuntary = uint64_t(ru.ru_nivcsw);
  return *voluntary + *involuntary;
}

// Reads the log back and checks every record: count, order per thread, key and value.
Status Verify(const WalpeOptions& o, uint32_t threads, const std::string& dir) {
  wal::WalReaderOptions ro;
  ro.tolerate_torn_tail = false;
  auto reader = wal::WalReader::Open(dir, ro);
  if (!reader.ok()) return reader.status();
  std::vector<std::unique_ptr<RecordMaker>> makers;
  for (uint32_t t = 0; t < threads; ++t) makers.push_back(std::make_unique<RecordMaker>(o, t));
  std::vector<uint64_t> next(threads, 0);
  wal::WalRecord rec;
  uint64_t n = 0;
  auto bad = [&](const std::string& why) {
    return Status::Corruption("walpe verify: record " + std::to_string(n) + " (sequence " +
                              std::to_string(rec.sequence) + ", " + *rec.segment_path + " offset " +
                              std::to_string(rec.offset) + "): " + why);
  };
  for (;;) {
    auto more = reader.value()->Next(&rec);
    if (!more.ok()) return more.status();
    if (!more.value()) break;
    const Mutation& m = rec.mutation;
    if (m.row.size() != o.key_size) return bad("wrong key size");
    const uint32_t t = LoadLE32(m.row.data());
    const uint64_t i = LoadLE64(m.row.data() + 4);
    if (t >= threads) return bad("key names thread " + std::to_string(t));
    if (i != next[t])
      return bad("thread " + std::to_string(t) + " iteration " + std::to_string(i) + ", expected " +
                 std::to_string(next[t]));
    if (m.row.Sub(kMinKeySize, o.key_size - kMinKeySize) != makers[t]->Filler())
      return bad("key filler differs");
    if (m.type != MutationType::kPut || m.timestamp != i + 1 || m.cells.size() != 1)
      return bad("wrong mutation header");
    const Cell& c = m.cells[0];
    if (c.family != ByteView("f") || c.qualifier != ByteView("q") || c.timestamp != i + 1 ||
        c.type != CellType::kPut)
      return bad("wrong cell key");
    if (c.value != makers[t]->Value(i)) return bad("value differs from what was appended");
    ++next[t];
    ++n;
  }
  if (n != uint64_t(threads) * o.iterations)
    return Status::Corruption("walpe verify: " + std::to_string(n) + " records, expected " +
                              std::to_string(uint64_t(threads) * o.iterations));
  std::printf("Verify: OK, %" PRIu64 " records in %zu segment(s)\n", n,
              reader.value()->segments().size());
  return Status::Ok();
}

// Memory one appending thread needs beyond its stack's address space: the
// stack pages it touches (an estimate), its latency histogram and its value
// pool.
uint64_t BytesPerThread(const WalpeOptions& o) {
  constexpr uint64_t kTouchedStack = 64 << 10;
  return kTouchedStack + sizeof(LogHistogram) + o.key_size + o.value_size + kValuePoolExtra;
}

// A number from a /proc file (kernel limits, /proc/meminfo's "Key: N kB"), or 0.
uint64_t ReadProcNumber(const char* path, const char* key = nullptr) {
  std::ifstream in(path);
  std::string word;
  if (!key) return (in >> word) ? std::strtoull(word.c_str(), nullptr, 10) : 0;
  while (in >> word) {
    if (word == key && (in >> word)) return std::strtoull(word.c_str(), nullptr, 10) * 1024;
  }
  return 0;
}

// Refuses up front a thread count this machine cannot run (without the check,
// 100,000 threads ended in an uncaught std::system_error).
Status CheckResources(const WalpeOptions& o) {
  const uint64_t workers = *std::max_element(o.threads.begin(), o.threads.end());
  const std::string what = "walpe: -threads " + std::to_string(workers);
  const uint64_t need_bytes = workers * BytesPerThread(o);
  const uint64_t available = ReadProcNumber("/proc/meminfo", "MemAvailable:");
  if (available && need_bytes > available / 10 * 8) {
    return Status::ResourceExhausted(
        what + " with -valueSize " + std::to_string(o.value_size) + " needs about " +
        std::to_string(need_bytes >> 20) + " MiB (" + std::to_string(BytesPerThread(o) >> 10) +
        " KiB per thread) but only " + std::to_string(available >> 20) +
        " MiB of memory is available; lower -threads or -valueSize");
  }
  // Workers, sync runners, the appender and this thread.
  const uint64_t need_threads = workers + o.sync_runners + 2;
  rlimit nproc;
  if (getrlimit(RLIMIT_NPROC, &nproc) == 0 && nproc.rlim_cur != RLIM_INFINITY &&
      need_threads > nproc.rlim_cur) {
    return Status::ResourceExhausted(what + " needs " + std::to_string(need_threads) +
                                     " threads but RLIMIT_NPROC (ulimit -u) allows " +
                                     std::to_string(nproc.rlim_cur) +
                                     " processes and threads; lower -threads or raise ulimit -u");
  }
  const uint64_t threads_max = ReadProcNumber("/proc/sys/kernel/threads-max");
  if (threads_max && need_threads > threads_max) {
    return Status::ResourceExhausted(what + " needs " + std::to_string(need_threads) +
                                     " threads but /proc/sys/kernel/threads-max is " +
                                     std::to_string(threads_max) + "; lower -threads");
  }
  // Each thread stack is two memory mappings (the stack and its guard page).
  const uint64_t max_maps = ReadProcNumber("/proc/sys/vm/max_map_count");
  if (max_maps && 2 * need_threads + 1000 > max_maps) {
    return Status::ResourceExhausted(what + " needs about " + std::to_string(2 * need_threads) +
                                     " memory mappings for thread stacks but "
                                     "/proc/sys/vm/max_map_count is " +
                                     std::to_string(max_maps) + "; lower -threads");
  }
  return Status::Ok();
}

// Set by SIGINT/SIGTERM while a ScopedStopSignals lives: appending threads
// stop, and walpe cleans up and exits instead of dying with its files left.
volatile std::sig_atomic_t g_stop_signal = 0;

class ScopedStopSignals {
 public:
  ScopedStopSignals() {
    g_stop_signal = 0;
    struct sigaction sa = {};
    sa.sa_handler = [](int sig) { g_stop_signal = sig; };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~ScopedStopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  ScopedStopSignals(const ScopedStopSignals&) = delete;
  ScopedStopSignals& operator=(const ScopedStopSignals&) = delete;

 private:
  struct sigaction old_int_ = {}, old_term_ = {};
};

// Removes a directory walpe made when it goes out of scope, on every path out
// (errors and exceptions included), unless told to keep it.
class DirectoryGuard {
 public:
  DirectoryGuard(std::string path, bool keep) : path_(std::move(path)), keep_(keep) {}
  ~DirectoryGuard() {
    std::error_code ec;
    if (!keep_ && !path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  DirectoryGuard(const DirectoryGuard&) = delete;
  DirectoryGuard& operator=(const DirectoryGuard&) = delete;

 private:
  const std::string path_;
  const bool keep_;
};

// One appending thread: o.iterations appends (and syncs) of maker's records,
// each timed into hist, until done, stop is set or a stop signal arrives.
Status AppendLoop(const WalpeOptions& o, Wal* wal, RecordMaker* maker, LogHistogram* hist,
                  const std::atomic<bool>& stop) {
  for (uint64_t i = 0;
       i < o.iterations && !stop.load(std::memory_order_relaxed) && g_stop_signal == 0; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const Mutation& m = maker->Make(i);
    const bool sync_now = o.sync_interval == 0 || (i + 1) % o.sync_interval == 0;
    auto seq = wal->Append(m, o.sync_interval == 0);
    if (seq.ok() && o.sync_interval != 0 && sync_now) {
      Status s = wal->Sync(seq.value());
      if (!s.ok()) seq = s;
    }
    if (!seq.ok()) return seq.status();
    hist->Record(uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count()));
  }
  return Status::Ok();
}

// Starts n threads running body(0..n-1) into *threads, all released
// together once the last has started. If one cannot be started (a limit
// CheckResources does not model, e.g. ulimit -v), sets *stop and releases
// those already started without running body, and says so; the caller joins
// *threads. Held at the gate, a thread has not yet allocated: one that did so
// while the address space was running out could fail inside the allocator
// (jemalloc segfaulted there in about 1 run in 45 under ulimit -v).
Status StartThreads(uint32_t n, const std::function<void(uint32_t)>& body,
                    std::vector<std::thread>* threads, std::atomic<bool>* stop) {
  // Shared with the threads, which may still be at the gate when this returns.
  auto open = std::make_shared<std::atomic<bool>>(false);
  auto release = [open] {
    open->store(true, std::memory_order_release);
    open->notify_all();
  };
  auto gated = [open, body, stop](uint32_t t) {
    open->wait(false, std::memory_order_acquire);
    if (!stop->load()) body(t);
  };
  for (uint32_t t = 0; t < n; ++t) {
    try {
      threads->emplace_back(gated, t);
    } catch (const std::system_error& e) {
      stop->store(true);
      release();
      return Status::ResourceExhausted(
          "walpe: could not start thread " + std::to_string(t + 1) + " of " + std::to_string(n) +
          " (" + e.what() +
          "); lower -threads (limits: ulimit -u, ulimit -v, /proc/sys/kernel/threads-max, "
          "/proc/sys/vm/max_map_count)");
    }
  }
  release();
  return Status::Ok();
}

StatusOr<RunResult> RunOnce(const WalpeOptions& o, uint32_t threads, const std::string& dir) {
  WalOptions wo;
  wo.directory = dir;
  wo.nosync = o.nosync;
  wo.sync_runners = o.sync_runners;
  auto opened = Wal::Open(wo, 1, 0);
  if (!opened.ok()) return opened.status();
  Wal* wal = opened.value().get();

  std::vector<std::unique_ptr<RecordMaker>> makers;
  std::vector<std::unique_ptr<LogHistogram>> latency;
  for (uint32_t t = 0; t < threads; ++t) {
    makers.push_back(std::make_unique<RecordMaker>(o, t));
    latency.push_back(std::make_unique<LogHistogram>());
  }
  std::vector<Status> errors(threads);

  uint64_t vol0, invol0;
  const uint64_t cs0 = ContextSwitches(&vol0, &invol0);
  const double cpu0 = ProcessCpuSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  std::atomic<bool> stop{false};
  Status early_stop = StartThreads(
      threads,
      [&](uint32_t t) { errors[t] = AppendLoop(o, wal, makers[t].get(), latency[t].get(), stop); },
      &workers, &stop);
  for (auto& w : workers) w.join();
  if (g_stop_signal != 0 && early_stop.ok())
    early_stop = Status::Aborted(std::string("walpe: stopped by ") +
                                 (g_stop_signal == SIGINT ? "SIGINT" : "SIGTERM"));
  if (!early_stop.ok()) {
    (void)wal->Close();
    return early_stop;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = ProcessCpuSeconds() - cpu0;
  uint64_t vol1, invol1;
  const uint64_t cs = ContextSwitches(&vol1, &invol1) - cs0;
  for (const Status& s : errors) WB_RETURN_IF_ERROR(s);
  WB_RETURN_IF_ERROR(wal->Close());

  const WalCounters c = wal->counters();
  LogHistogram all;
  for (auto& h : latency) all.Merge(*h);
  RunResult r;
  r.threads = threads;
  r.seconds = seconds;
  r.appends = c.appends;
  r.syncs = c.syncs;
  r.appends_per_sync = wal->appends_per_sync().mean();
  r.cpu_us_per_op = c.appends ? cpu * 1e6 / double(c.appends) : 0;
  r.cs_per_op = c.appends ? double(cs) / double(c.appends) : 0;

  std::printf("walpe: threads=%u iterations=%" PRIu64
              " keySize=%u valueSize=%u syncInterval=%u"
              " nosync=%d syncRunners=%u seed=%" PRIu64 " path=%s\n",
              threads, o.iterations, o.key_size, o.value_size, o.sync_interval, o.nosync ? 1 : 0,
              o.sync_runners, o.seed, dir.c_str());
  std::printf("Append meter: count=%" PRIu64 ", %.1f appends/s, %.1f bytes/s (%" PRIu64
              " bytes in %" PRIu64 " writes)\n",
              c.appends, double(c.appends) / seconds, double(c.append_bytes) / seconds,
              c.append_bytes, c.writes);
  std::printf("Sync meter: count=%" PRIu64 ", %.1f syncs/s (fdatasync calls=%" PRIu64
              ", mean fdatasync %.1f us)\n",
              c.syncs, double(c.syncs) / seconds, c.fsyncs,
              c.fsyncs ? double(c.fsync_ns) / double(c.fsyncs) / 1e3 : 0.0);
  std::printf("Latency of one append+sync (ns): %s\n", all.Summary().c_str());
  std::printf("countPerSync (appends per sync): %s\n", wal->appends_per_sync().Summary().c_str());
  std::printf("CPU per op: %.2f us (process CPU %.3f s over %" PRIu64 " appends)\n",
              r.cpu_us_per_op, cpu, c.appends);
  std::printf("Context switches per op: %.3f (voluntary %" PRIu64 ", involuntary %" PRIu64 ")\n",
              r.cs_per_op, vol1 - vol0, invol1 - invol0);
  std::printf("Summary: threads=%u, iterations=%" PRIu64 ", syncInterval=%u took %.3fs %.3fops/s\n",
              threads, o.iterations, o.sync_interval, seconds, double(c.appends) / seconds);
  if (o.verify) WB_RETURN_IF_ERROR(Verify(o, threads, dir));
  std::fflush(stdout);
  return r;
}

bool ParseThreadList(const std::string& s, std::vector<uint32_t>* out) {
  out->clear();
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    unsigned long v = std::strtoul(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v == 0 || v > 100000) return false;
    out->push_back(uint32_t(v));
  }
  return !out->empty();
}

// Accepts HBase's single-dash long options (-threads) by doubling the dash.
std::vector<std::string> NormalizeArgs(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 2 && a[0] == '-' && a[1] != '-' &&
        std::isalpha(static_cast<unsigned char>(a[1])))
      a = "-" + a;
    args.push_back(a);
  }
  return args;
}

// Parses the command line into *o: 0 to go on, else the exit code.
int ParseWalpeArgs(int argc, char** argv, WalpeOptions* o) {
  std::string threads = "1";
  CLI::App app("walpe: WAL performance evaluation (HBase's WALPerformanceEvaluation)", "walpe");
  app.add_option("--threads", threads,
                 "Appending threads (1 to 100000), or a comma list for a sweep (1,3,5)");
  int64_t iterations = int64_t(o->iterations);  // Signed, so "-1" is refused, not wrapped.
  app.add_option("--iterations", iterations, "Appends per thread (at least 1)");
  app.add_option("--keySize", o->key_size, "Row key bytes (at least 12)")
      ->check(CLI::Range(kMinKeySize, 1u << 16));
  app.add_option("--valueSize", o->value_size, "Value bytes")->check(CLI::Range(0u, 1u << 26));
  app.add_option("--syncInterval", o->sync_interval,
                 "0 = sync every append; N = each thread syncs after every N appends");
  app.add_flag("--nosync", o->nosync, "Never fdatasync (syncs complete at once)");
  app.add_flag("--verify", o->verify, "Read the log back and check every record");
  app.add_option("--path", o->path, "Directory for the log (default: a fresh temporary directory)");
  app.add_flag("--nocleanup", o->nocleanup, "Keep the log files afterwards");
  app.add_option("--syncRunners", o->sync_runners, "Sync runner threads")
      ->check(CLI::Range(1u, 64u));
  app.add_option("--seed", o->seed, "Seed of the value generator");
  std::vector<std::string> args = NormalizeArgs(argc, argv);
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector.
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? -1 : 2;
  }
  if (!ParseThreadList(threads, &o->threads)) {
    std::fprintf(stderr,
                 "walpe: --threads wants a number from 1 to 100000 or a comma list like 1,3,5; "
                 "got '%s'\n",
                 threads.c_str());
    return 2;
  }
  if (iterations < 1) {
    std::fprintf(stderr,
                 "walpe: --iterations must be at least 1 (appends per thread); got %" PRId64 "\n",
                 iterations);
    return 2;
  }
  o->iterations = uint64_t(iterations);
  return 0;
}

void PrintSweep(const std::vector<RunResult>& results) {
  std::printf("\n%8s %10s %12s %10s %14s %12s %10s\n", "clients", "time(s)", "ops/s", "syncs/s",
              "appends/sync", "cpu_us/op", "cs/op");
  for (const RunResult& r : results) {
    std::printf("%8u %10.3f %12.1f %10.1f %14.2f %12.2f %10.3f\n", r.threads, r.seconds,
                double(r.appends) / r.seconds, double(r.syncs) / r.seconds, r.appends_per_sync,
                r.cpu_us_per_op, r.cs_per_op);
  }
}

// Runs every thread count of the sweep under `base`; the exit code.
int RunSweep(const WalpeOptions& o, const std::string& base) {
  std::vector<RunResult> results;
  int rc = 0;
  for (uint32_t t : o.threads) {
    const std::string dir = base + "/walpe-" + std::to_string(getpid()) + "-t" + std::to_string(t);
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    DirectoryGuard remove_dir(dir, o.nocleanup);
    auto r = RunOnce(o, t, dir);
    if (!r.ok()) {
      std::fprintf(stderr, "walpe: threads=%u failed: %s\n", t, r.status().ToString().c_str());
      rc = 1;
      break;
    }
    results.push_back(r.value());
  }
  if (o.nocleanup) std::printf("Log files kept under %s\n", base.c_str());
  if (results.size() > 1) PrintSweep(results);
  return rc;
}

}  // namespace

int RunWalpe(int argc, char** argv) {
  WalpeOptions o;
  if (int rc = ParseWalpeArgs(argc, argv, &o); rc != 0) return rc < 0 ? 0 : rc;
  if (Status s = CheckResources(o); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 2;
  }
  // From here on SIGINT/SIGTERM stop the run and walpe cleans up.
  ScopedStopSignals stop_signals;
  std::string base = o.path;
  if (base.empty()) {
    std::error_code ec;
    std::string tmpl = (std::filesystem::temp_directory_path(ec) / "walpe-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) {
      std::fprintf(stderr, "walpe: cannot create a temporary directory %s: %s\n", tmpl.c_str(),
                   std::strerror(errno));
      return 1;
    }
    base = tmpl;
  }
  // Removes the temporary directory (not a --path the user gave) on every way out.
  DirectoryGuard remove_base(o.path.empty() ? base : "", o.nocleanup);
  int rc = 1;
  try {
    rc = RunSweep(o, base);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "walpe: failed: %s\n", e.what());
  }
  std::fflush(stdout);
  return rc;
}

}  // namespace wirebench
