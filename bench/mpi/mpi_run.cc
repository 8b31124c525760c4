// `wirebench load|run --mpi`, with Open MPI. The sequence (every rank):
//   1. MPI_Init; hosts gathered; the control channel opened (rank 0 listens,
//      the port, a token and rank 0's addresses are broadcast; every rank
//      connects): failures and results travel on it (control_channel.h).
//   2. Without --server: rank 0 starts the co-located server and broadcasts
//      its address; the other ranks wait for it.
//   3. Each rank runs RunYcsb as part `rank` of `ranks` (load partition, own
//      seed), quiet but for rank 0's notes, with the driver's phase hooks:
//      on_ready   (connected, warmed up) every rank says whether it is ready
//                 (MPI_Gather) and rank 0 says go or no-go (MPI_Bcast, with
//                 every unready rank's reason); then 8 ping-pongs per rank
//                 estimate each rank's clock offset from rank 0's.
//      on_start   rank 0 broadcasts an instant 50 ms ahead; every rank waits
//                 for it by its own clock (offset-corrected); the window
//                 starts (CLOCK_REALTIME recorded). Rank 0 takes the
//                 server's "before" Stats just before (no warm-up) or just
//                 after it (warm-up operations run up to the instant).
//      [measured phase: no MPI call at all]
//      on_end     the window has ended; a rank whose run failed says so on
//                 the control channel (rank 0 stops the others); then an
//                 MPI_Ibarrier, tested every millisecond (no busy-poll while
//                 other ranks still measure), given up when a rank died.
//      [rank 0 takes the server's "after" Stats]
//   4. Every rank sends its result document to rank 0 on the control
//      channel; rank 0 merges them (MergeResults, as `wirebench merge`),
//      prints the one report and writes the one JSON result and .hlog, then
//      closes the control channel, which lets the other ranks exit.
// `compare --mpi` (StartMpiCells) opens the job once (step 1) and runs steps
// 2-4 once per cell (MpiRun::RunOne), rank 0 writing each cell's result;
// after each cell the ranks agree whether to go on (AgreeToGoOn); rank 0
// closes the control channel after the last (End).
// With --servers N (RunWithJobCluster) the last N ranks serve a null cluster
// (job_cluster.h) and steps 1-4 run among the others, in a communicator of
// their own; at the end they release the servers with a barrier over all.
// MPI_THREAD_FUNNELED: only the main thread (the driver's) calls MPI.
#include <sched.h>
#include <mpi.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <thread>

#include "hdr/histogram_log.h"
#include "bench/loadgen/stop_on_signal.h"
#include "bench/loadgen/stop_request.h"
#include "bench/mpi/control_channel.h"
#include "bench/mpi/host_addresses.h"
#include "bench/mpi/job_cluster.h"
#include "bench/mpi/mpi_run.h"
#include "bench/results/merge.h"
#include "bench/results/report.h"
#include "common/str_cat.h"

namespace wirebench {

bool MpiBuiltIn() { return true; }

std::string MpiNotBuiltInMessage() { return ""; }

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kMsg = 1024;       // A rank's readiness message.
constexpr int kVerdict = 8192;   // Rank 0's verdict, every unready rank's reason.
constexpr int kPingPongs = 8;    // Per rank, for its clock offset.
// How far ahead rank 0 sets the common start (OnStart).
constexpr int64_t kStartMarginNs = 50'000'000;
// How long rank 0 waits for the other ranks' results: in a healthy run they
// come at once; after a rank died the launcher SIGTERMs every survivor about
// 1 s after the death and SIGKILLs it 1 s later, so the report must be out
// by then.
constexpr double kResultsTimeoutS = 30;
constexpr double kResultsAfterDeathS = 1.0;

int64_t RealtimeNs() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// Every thread of this process: client threads, the driver's, MPI's own
// (PMIx, the runtime's event loop) and the control channel's watcher.
int64_t ProcessCpuNs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// The CPUs this process may run on, as a list ("0", "0-1,4"), and how many
// of the host's online CPUs that leaves out. mpirun binds each rank to one core
// by default when it starts two ranks or fewer, and a co-located server started
// by rank 0 inherits the binding: client and server then share a core, which
// changes CPU per operation against a run outside mpirun.
struct Affinity {
  std::string cpus;
  int allowed = 0;
  int online = 0;
};

Affinity ThisProcessAffinity() {
  Affinity a;
  a.online = int(sysconf(_SC_NPROCESSORS_ONLN));
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    a.cpus = "unknown";
    a.allowed = a.online;
    return a;
  }
  a.allowed = CPU_COUNT(&set);
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    a.cpus += StrCat(a.cpus.empty() ? "" : ",", std::to_string(c));
    if (last > c) a.cpus += StrCat("-", std::to_string(last));
    c = last;
  }
  return a;
}

void ToBuf(const std::string& s, std::vector<char>* b) {
  std::fill(b->begin(), b->end(), '\0');
  std::memcpy(b->data(), s.data(), std::min(s.size(), b->size() - 1));
}

std::string FromBuf(const char* p, size_t n) { return std::string(p, strnlen(p, n)); }

std::string Us(double ns) {
  char b[64];
  std::snprintf(b, sizeof(b), "%.1f", ns / 1000.0);
  return b;
}

class MpiRun {
 public:
  // `comm`: the client ranks (all of the job's but a cluster's servers).
  explicit MpiRun(MPI_Comm comm = MPI_COMM_WORLD) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &ranks_);
  }
  // The job's own cluster (--servers), whose serving ranks wait for the
  // client ranks' release.
  void SetJobCluster(const mpi::JobCluster* c) { job_cluster_ = c; }

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  // `run --mpi`: Open, RunOne, print, End.
  int Run(YcsbRunOptions o);
  // The job's connections: hosts gathered, the control channel opened.
  Status Open();
  // One run by every rank (see its definition).
  StatusOr<YcsbOutcome> RunOne(YcsbRunOptions o);
  // After a cell of compare --mpi: false when the matrix must stop (on every rank).
  bool AgreeToGoOn();
  // After the last run: the control channel closed, this rank ended.
  int End(int code);

 private:
  std::string Name(int r) const {
    return StrCat("rank ", std::to_string(r), " (host ",
                  r < int(hosts_.size()) ? hosts_[size_t(r)] : "?", ")");
  }
  void GatherHosts();
  Status OpenControl();
  // `watch`: the control channel is open, and a rank's death gives up the
  // agreement (OnReady); before it is open, the collectives block.
  Status Agree(bool ok, const std::string& why, bool watch = false);
  Status GaveUpAgreeing();
  Status OnReady();
  void MeasureClockOffsets();
  void OnStart();
  void OnEnd(const RunResult& r);
  json RankInfo(const RunResult& r) const;
  StatusOr<YcsbOutcome> Report(YcsbOutcome outcome);
  // Report's parts: the ranks' results (rank 0's first) and what is missing
  // or failed; the windows aligned; the [MPI] lines; the files written.
  std::string CollectResults(YcsbOutcome* outcome, std::vector<NamedResult>* inputs);
  struct Windows;
  Windows AlignWindows(const std::vector<NamedResult>& inputs) const;
  std::string RankLines(const json& per_rank) const;
  std::string ServerRankLines() const;
  std::string SummaryLines(const Windows& w, const std::vector<NamedResult>& inputs,
                           const std::string& partial) const;
  void WriteOutputs(const MergeOutcome& merged, int64_t first_start);
  // Every rank alive and in step (every collective can complete).
  bool InStep();
  bool Wait(MPI_Request* req);
  // Ends this rank: MPI_Finalize when every rank is alive and in step, else
  // (a rank died, a barrier was given up) without it: the launcher ends the job.
  int Finish(int code, bool in_step);

  MPI_Comm comm_;
  const mpi::JobCluster* job_cluster_ = nullptr;
  YcsbRunOptions o_;
  std::string json_out_, hlog_out_;  // Rank 0 writes them, merged.
  int rank_ = 0;
  int ranks_ = 1;
  std::vector<std::string> hosts_;
  mpi::ControlHub hub_;
  mpi::ControlLink link_;
  bool voted_ = false;
  bool server_sent_ = false;
  bool barrier_given_up_ = false;
  bool write_failed_ = false;  // Rank 0 could not write the JSON result or .hlog.
  std::vector<int64_t> offsets_ns_;  // Each rank's clock minus rank 0's.
  int64_t best_rtt_ns_ = 0;
  double max_half_rtt_ns_ = 0;  // Bound on an offset's error: half the shortest round trip.
  int64_t start_ns_ = 0, end_ns_ = 0, cpu_start_ = 0, cpu_end_ = 0;
  double client_cpu_ns_ = 0;
};

void MpiRun::GatherHosts() {
  std::vector<char> mine(256), all(size_t(256 * ranks_));
  ToBuf(mpi::Hostname(), &mine);
  MPI_Allgather(mine.data(), 256, MPI_CHAR, all.data(), 256, MPI_CHAR, comm_);
  for (int r = 0; r < ranks_; ++r) hosts_.push_back(FromBuf(&all[size_t(256 * r)], 256));
}

// Rank 0 listens; every other rank connects, trying loopback first when it
// shares rank 0's host name, then rank 0's other addresses.
Status MpiRun::OpenControl() {
  std::vector<char> info(4096);
  Status st;
  if (rank_ == 0) {
    st = hub_.Listen();
    std::random_device rd;
    const uint64_t token = (uint64_t(rd()) << 32) ^ rd();
    std::string addrs;
    for (const std::string& a : mpi::Ipv4Addresses()) addrs += a + ",";
    ToBuf(st.ok() ? StrCat(std::to_string(hub_.port()), " ", std::to_string(token), " ", addrs)
                  : StrCat("ERR ", st.ToString()),
          &info);
  }
  MPI_Bcast(info.data(), int(info.size()), MPI_CHAR, 0, comm_);
  const std::string text = FromBuf(info.data(), info.size());
  if (text.rfind("ERR ", 0) == 0) return Status::Unavailable(text.substr(4));
  std::istringstream in(text);
  unsigned port = 0;
  uint64_t token = 0;
  std::string addrs;
  in >> port >> token >> addrs;
  if (rank_ == 0) {
    st = hub_.AcceptAll(ranks_, token, 20.0, hosts_);
  } else {
    std::vector<std::string> candidates;
    if (hosts_[size_t(rank_)] == hosts_[0]) candidates.push_back("127.0.0.1");
    std::stringstream list(addrs);
    for (std::string a; std::getline(list, a, ',');)
      if (!a.empty()) candidates.push_back(a);
    st = link_.Connect(candidates, uint16_t(port), rank_, token);
  }
  return Agree(st.ok(), st.ok() ? "" : st.ToString());
}

// Every rank says whether it is ready; rank 0 gives the verdict to all.
Status MpiRun::Agree(bool ok, const std::string& why, bool watch) {
  std::vector<char> mine(kMsg), all(rank_ == 0 ? size_t(kMsg * ranks_) : 1), verdict(kVerdict);
  ToBuf(ok ? "" : (why.empty() ? std::string("not ready") : why), &mine);
  // Non-blocking, given up when a rank died (Wait): a blocking gather never
  // returns once a rank has gone, and mpirun SIGKILLs rank 0 before its report.
  MPI_Request req;
  const auto done = [&] {
    return watch ? Wait(&req) : MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
  };
  if (MPI_Igather(mine.data(), kMsg, MPI_CHAR, all.data(), kMsg, MPI_CHAR, 0, comm_,
                  &req) != MPI_SUCCESS ||
      !done())
    return GaveUpAgreeing();
  if (rank_ == 0) {
    std::string v;
    for (int r = 0; r < ranks_; ++r) {
      const std::string m = FromBuf(&all[size_t(kMsg * r)], kMsg);
      if (!m.empty()) v += StrCat(v.empty() ? "" : "; ", Name(r), ": ", m);
    }
    ToBuf(v, &verdict);
  }
  if (MPI_Ibcast(verdict.data(), kVerdict, MPI_CHAR, 0, comm_, &req) != MPI_SUCCESS ||
      !done())
    return GaveUpAgreeing();
  const std::string v = FromBuf(verdict.data(), kVerdict);
  if (v.empty()) return Status::Ok();
  return Status::Unavailable(v);
}

// A rank died (or a stop nobody explained came) while the ranks agreed: no
// collective can complete any more.
Status MpiRun::GaveUpAgreeing() {
  barrier_given_up_ = true;
  const std::string failure = rank_ == 0 ? hub_.FirstFailure() : std::string();
  return Status::Unavailable(
      failure.empty() ? std::string("a rank left while the ranks agreed to start") : failure);
}

Status MpiRun::OnReady() {
  voted_ = true;
  Status st = Agree(!StopRequested(), StopRequested() ? "stopped before measuring" : "",
                    /*watch=*/true);
  if (!st.ok()) return Status::Unavailable(StrCat("no rank started measuring: ", st.message()));
  MeasureClockOffsets();
  return Status::Ok();
}

// NTP's estimate, from the round trip with the shortest time: a rank's
// clock reads t1 halfway between rank 0's t0 and t2.
void MpiRun::MeasureClockOffsets() {
  offsets_ns_.assign(size_t(ranks_), 0);
  for (int k = 1; k < ranks_; ++k) {
    if (rank_ == 0) {
      int64_t& best = best_rtt_ns_;
      best = INT64_MAX;
      for (int i = 0; i < kPingPongs; ++i) {
        int64_t t0 = RealtimeNs(), t1 = 0;
        MPI_Send(&t0, 1, MPI_INT64_T, k, 7, comm_);
        MPI_Recv(&t1, 1, MPI_INT64_T, k, 8, comm_, MPI_STATUS_IGNORE);
        const int64_t t2 = RealtimeNs();
        if (t2 - t0 < best) {
          best = t2 - t0;
          offsets_ns_[size_t(k)] = t1 - (t0 + (t2 - t0) / 2);
        }
      }
    } else if (rank_ == k) {
      for (int i = 0; i < kPingPongs; ++i) {
        int64_t t0 = 0;
        MPI_Recv(&t0, 1, MPI_INT64_T, 0, 7, comm_, MPI_STATUS_IGNORE);
        int64_t t1 = RealtimeNs();
        MPI_Send(&t1, 1, MPI_INT64_T, 0, 8, comm_);
      }
    }
    if (rank_ == 0) max_half_rtt_ns_ = std::max(max_half_rtt_ns_, double(best_rtt_ns_) / 2);
  }
  // Every rank needs its own offset to find the common start.
  MPI_Bcast(offsets_ns_.data(), ranks_, MPI_INT64_T, 0, comm_);
}

// The start: rank 0 names an instant kStartMarginNs ahead by its clock
// (MPI_Bcast); every rank waits for that instant by its own clock, corrected by its
// offset, sleeping until the last 200 us and then reading the clock. A
// barrier alone releases the ranks as the scheduler wakes them, which on a
// loaded host is milliseconds apart; the wait absorbs that. With a warm-up
// rank 0 fetches the server's "before" Stats right after the instant (the
// driver does), so other ranks' warm-up operations do not fall between that
// snapshot and their windows' start; without one, right before the
// broadcast, so no measured operation can precede it.
void MpiRun::OnStart() {
  int64_t at = rank_ == 0 ? RealtimeNs() + kStartMarginNs : 0;
  MPI_Bcast(&at, 1, MPI_INT64_T, 0, comm_);
  const int64_t mine = at + offsets_ns_[size_t(rank_)];
  const int64_t sleep_until = mine - 200'000;
  if (RealtimeNs() < sleep_until) {
    timespec t{time_t(sleep_until / 1'000'000'000), long(sleep_until % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &t, nullptr) == EINTR) {
    }
  }
  while (RealtimeNs() < mine) {
  }
  start_ns_ = RealtimeNs();
  cpu_start_ = ProcessCpuNs();
}

void MpiRun::OnEnd(const RunResult& r) {
  end_ns_ = RealtimeNs();
  cpu_end_ = ProcessCpuNs();
  client_cpu_ns_ = r.client_usage.cpu_ns;
  // This rank's own failure (not a stop it was told to make): stop the others.
  if (r.partial) {
    const std::string told = rank_ == 0 ? hub_.FirstFailure() : link_.StopReason();
    if (told.empty()) {
      const std::string why =
          r.error.ok() ? StrCat("its run ended early (", StopReasonText(StopRequestReason()), ")")
                       : r.error.ToString();
      if (rank_ == 0)
        hub_.StopOthers(StrCat(Name(0), " failed: ", why));
      else
        link_.SendFailure(why);
    }
  }
  if (rank_ == 0 ? hub_.AnyDied() : link_.PeerDied()) {  // No barrier can complete.
    barrier_given_up_ = true;
    return;
  }
  MPI_Request req;
  if (MPI_Ibarrier(comm_, &req) != MPI_SUCCESS || !Wait(&req)) barrier_given_up_ = true;
}

json MpiRun::RankInfo(const RunResult& r) const {
  const Affinity a = ThisProcessAffinity();
  return {{"rank", rank_},
          {"cpus", a.cpus},
          {"cpus_left_out", a.online - a.allowed},
          {"host", hosts_[size_t(rank_)]},
          {"window_start_ns", start_ns_},
          {"window_end_ns", end_ns_},
          {"client_cpu_ns", client_cpu_ns_},
          {"process_cpu_ns", double(cpu_end_ - cpu_start_)},
          {"operations", r.operations},
          {"runtime_s", r.runtime_s},
          {"partial", r.partial}};
}

int MpiRun::Finish(int code, bool in_step) {
  // The job's own cluster: its servers wait for every client rank.
  if (in_step && (!job_cluster_ || mpi::ReleaseServers(kResultsTimeoutS))) {
    MPI_Finalize();
    return code;
  }
  // Without MPI_Finalize (it could wait for a dead rank): the launcher ends
  // the job and exits non-zero. _Exit: no static destructors while MPI's
  // threads still run; every result file is already written.
  // The job's own cluster servers, waiting for a release that cannot come,
  // end with the job too: mpirun, and srun's PMIx plugin, end every rank
  // once one has left without MPI_Finalize.
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code == 0 ? 3 : code);
}

// Opens the job: hosts gathered, control channel opened.
Status MpiRun::Open() {
  GatherHosts();
  return OpenControl();
}

bool MpiRun::InStep() {
  if (barrier_given_up_) return false;
  return rank_ == 0 ? !hub_.AnyDied() : !link_.PeerDied();
}

// Waits for a non-blocking collective without busy-polling, giving up when
// a rank died (it can never complete then) or after an unexplained stop.
bool MpiRun::Wait(MPI_Request* req) {
  Clock::time_point stopped_at = Clock::time_point::max();
  for (;;) {
    int done = 0;
    if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
    if (done) return true;
    if (rank_ == 0 ? hub_.AnyDied() : link_.PeerDied()) return false;
    // A stop nobody explained (the launcher's SIGTERM after it lost a host):
    // the collective may never complete.
    if (StopRequested() && stopped_at == Clock::time_point::max()) stopped_at = Clock::now();
    if (Clock::now() - stopped_at > std::chrono::seconds(2)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// One run (`run --mpi`'s, or one cell of `compare --mpi`'s) by every rank.
// Errors are in step (every rank returns the same kind at the same point):
// nobody measured. Rank 0 returns the merged outcome (its outputs written);
// the other ranks their own, after sending it to rank 0.
StatusOr<YcsbOutcome> MpiRun::RunOne(YcsbRunOptions o) {
  o_ = std::move(o);
  voted_ = false;
  server_sent_ = false;
  offsets_ns_.assign(size_t(ranks_), 0);
  max_half_rtt_ns_ = 0;
  start_ns_ = end_ns_ = cpu_start_ = cpu_end_ = 0;
  client_cpu_ns_ = 0;
  if (rank_ == 0) hub_.NextRound();
  json_out_ = o_.json_out;
  hlog_out_ = o_.hlog_out;
  o_.json_out.clear();
  o_.hlog_out.clear();
  o_.part = rank_;
  o_.parts = ranks_;
  o_.write_outputs = false;
  o_.fetch_server_stats = rank_ == 0;
  if (rank_ != 0) {
    o_.quiet = true;
    o_.status = false;
  }
  const bool colocated = o_.server.empty() && o_.cluster.servers.empty();
  if (colocated) {
    if (rank_ == 0) {
      o_.on_server = [this](const std::string& host, uint16_t port) {
        std::vector<char> b(kMsg);
        ToBuf(StrCat("OK ", host, ":", std::to_string(port)), &b);
        MPI_Bcast(b.data(), kMsg, MPI_CHAR, 0, comm_);
        server_sent_ = true;
      };
    } else {
      std::vector<char> b(kMsg);
      MPI_Bcast(b.data(), kMsg, MPI_CHAR, 0, comm_);
      const std::string m = FromBuf(b.data(), kMsg);
      if (m.rfind("OK ", 0) != 0)
        return Status::Unavailable("rank 0 could not start the co-located server");
      o_.server = m.substr(3);
    }
  }
  o_.on_ready = [this] { return OnReady(); };
  o_.on_start = [this] { OnStart(); };
  o_.on_end = [this](const RunResult& r) { OnEnd(r); };

  auto outcome = RunYcsb(o_);
  if (rank_ == 0 && colocated && !server_sent_) {  // Failed before the server started.
    std::vector<char> b(kMsg);
    ToBuf("ERR", &b);
    MPI_Bcast(b.data(), kMsg, MPI_CHAR, 0, comm_);
    return outcome.ok() ? Status::Unavailable("the co-located server did not start")
                        : outcome.status();
  }
  if (!voted_) {  // Failed before it was ready (options, connect): nobody measures.
    const std::string why = outcome.ok() ? "ended before it was ready" : outcome.status().ToString();
    Status st = Agree(false, why);
    return Status::Unavailable(StrCat("no rank started measuring: ", st.message()));
  }
  if (!outcome.ok()) return outcome.status();  // The verdict was no-go.
  if (rank_ != 0) {
    json doc = outcome->json;
    doc["mpi"] = RankInfo(outcome->result);
    if (!link_.SendResult(doc.dump()).ok()) {  // Rank 0 is gone: nobody can report.
      std::fprintf(stderr, "wirebench: --mpi: %s: %s; no report\n", Name(rank_).c_str(),
                   link_.StopReason().c_str());
      Finish(3, false);
    }
    return outcome;
  }
  return Report(std::move(outcome).value());
}

int MpiRun::Run(YcsbRunOptions o) {
  if (Status st = Open(); !st.ok()) {
    if (rank_ == 0) std::fprintf(stderr, "wirebench: --mpi: %s\n", st.ToString().c_str());
    return Finish(2, true);
  }
  auto r = RunOne(std::move(o));
  if (!r.ok()) {
    if (rank_ == 0) std::fprintf(stderr, "wirebench: --mpi: %s\n", std::string(r.status().message()).c_str());
    return End(2);
  }
  if (rank_ != 0) return End(0);
  std::fputs(r->text.c_str(), stdout);
  std::fflush(stdout);
  int code = write_failed_ ? 2 : 0;
  if (r->result.error_replies > 0 && code == 0) code = 1;
  if (r->result.partial) {
    std::fprintf(stderr, "wirebench: --mpi run stopped early: %s (results above are partial)\n",
                 r->result.error.ToString().c_str());
    code = 3;
  }
  return End(code);
}

// After the last run: rank 0 closes the control channel (the others may
// exit); the others wait for that (rank 0 has written the report).
int MpiRun::End(int code) {
  if (rank_ == 0) {
    const bool in_step = InStep();
    hub_.Close();
    return Finish(code, in_step);
  }
  link_.WaitForClose(kResultsTimeoutS + 10);
  const bool in_step = !barrier_given_up_ && !link_.RankDied();
  link_.Close();
  return Finish(in_step ? code : 3, in_step);
}

// compare --mpi: after each cell every rank learns whether any rank wants
// the matrix stopped (a signal, a rank's failure); a rank that died stops it
// for all.
bool MpiRun::AgreeToGoOn() {
  int stop = StopRequested() ? 1 : 0, any = 0;
  if (InStep()) {
    MPI_Request req;
    if (MPI_Iallreduce(&stop, &any, 1, MPI_INT, MPI_MAX, comm_, &req) == MPI_SUCCESS &&
        Wait(&req)) {
      if (any) RequestStop(StopReason::kRequested);
      return !any;
    }
    barrier_given_up_ = true;
  }
  RequestStop(StopReason::kRequested);
  return false;
}

// Gathers the ranks' results into `inputs`, rank 0's first, and returns
// what failed or is missing ("" when every rank sent one).
std::string MpiRun::CollectResults(YcsbOutcome* outcome, std::vector<NamedResult>* inputs) {
  hub_.WaitForResults(hub_.AnyDied() ? kResultsAfterDeathS : kResultsTimeoutS);
  json doc0 = std::move(outcome->json);
  doc0["mpi"] = RankInfo(outcome->result);
  inputs->push_back({Name(0), doc0});
  std::vector<std::string> missing;
  for (auto& [r, st] : hub_.Ranks()) {
    json doc = st.has_result ? json::parse(st.result, nullptr, false) : json();
    if (!doc.is_object() || !doc.contains("results")) {
      missing.push_back(StrCat(Name(r), st.dead ? " (died)" : " (sent none)"));
      continue;
    }
    // Rank 0's Stats bracket every rank's window (the barriers align them).
    doc["results"]["server"] = doc0["results"]["server"];
    inputs->push_back({Name(r), std::move(doc)});
  }
  std::string partial = hub_.FirstFailure();
  // Rank 0's own error (its server connection's), which its stop message may
  // not carry, when it was the first to fail.
  const Status& error = outcome->result.error;
  if (!error.ok() && (partial.empty() || partial.rfind(Name(0), 0) == 0) &&
      partial.find(error.ToString()) == std::string::npos)
    partial = StrCat(Name(0), ": ", error.ToString(), partial.empty() ? "" : "; ", partial);
  if (!missing.empty()) {
    std::string m;
    for (const std::string& s : missing) m += StrCat(m.empty() ? "" : ", ", s);
    partial = StrCat(partial, partial.empty() ? "" : "; ", "the report covers the ranks that "
                     "sent a result (none from ", m, ")");
  }
  return partial;
}

// The ranks' measured windows by rank 0's clock (offsets from the
// ping-pongs), and the CPU their processes spent outside the client threads.
struct MpiRun::Windows {
  int64_t first_start = INT64_MAX, last_start = INT64_MIN;
  int64_t first_end = INT64_MAX, last_end = INT64_MIN;
  double uncounted_ns = 0;
  json per_rank = json::array();
};

MpiRun::Windows MpiRun::AlignWindows(const std::vector<NamedResult>& inputs) const {
  Windows w;
  for (const NamedResult& in : inputs) {
    const json& m = in.doc["mpi"];
    const int r = m.value("rank", 0);
    const int64_t off = r < int(offsets_ns_.size()) ? offsets_ns_[size_t(r)] : 0;
    const int64_t s = m.value("window_start_ns", int64_t(0)) - off;
    const int64_t e = m.value("window_end_ns", int64_t(0)) - off;
    w.first_start = std::min(w.first_start, s);
    w.last_start = std::max(w.last_start, s);
    w.first_end = std::min(w.first_end, e);
    w.last_end = std::max(w.last_end, e);
    const double other = m.value("process_cpu_ns", 0.0) - m.value("client_cpu_ns", 0.0);
    w.uncounted_ns += other;
    json pr = m;
    pr["clock_offset_ns"] = off;
    pr["uncounted_threads_cpu_ns"] = other;
    w.per_rank.push_back(pr);
  }
  // Window starts relative to the earliest, now that it is known.
  for (json& pr : w.per_rank)
    pr["window_start_offset_ns"] = pr.value("window_start_ns", int64_t(0)) -
                                   pr.value("clock_offset_ns", int64_t(0)) - w.first_start;
  return w;
}

// "[MPI], Ranks" and a line per rank; when mpirun bound a rank to fewer CPUs
// than the host has, a "[MPI], Binding" line (and a note on stderr).
std::string MpiRun::RankLines(const json& per_rank) const {
  std::ostringstream out;
  std::string bound;
  out << "[MPI], Ranks, " << ranks_ << "\n";
  for (const json& pr : per_rank) {
    const double ops = pr.value("operations", 0.0), rt = pr.value("runtime_s", 0.0);
    char line[512];
    std::snprintf(line, sizeof(line),
                  "[MPI], Rank%d, host %s, %.0f operations, %.3f s, %.1f ops/sec, client CPU "
                  "%.3f us/op, window start +%.1f us, clock offset %+.1f us, cpus %s\n",
                  pr.value("rank", 0), pr.value("host", std::string("?")).c_str(), ops, rt,
                  rt > 0 ? ops / rt : 0.0,
                  ops > 0 ? pr.value("client_cpu_ns", 0.0) / 1000.0 / ops : 0.0,
                  pr.value("window_start_offset_ns", 0.0) / 1000.0,
                  pr.value("clock_offset_ns", 0.0) / 1000.0,
                  pr.value("cpus", std::string("?")).c_str());
    out << line;
    if (pr.value("cpus_left_out", 0) > 0 && bound.empty()) bound = StrCat(
        "rank ", std::to_string(pr.value("rank", 0)), " on ", pr.value("host", std::string("?")),
        " may run only on CPU(s) ", pr.value("cpus", std::string("?")), ": mpirun binds each "
        "rank to a core by default (with 2 ranks or fewer) and a co-located server shares "
        "it, so CPU per op is not comparable with runs outside mpirun; pass --bind-to none "
        "to mpirun for that");
  }
  if (!bound.empty()) out << "[MPI], Binding, " << bound << "\n";
  if (!bound.empty() && !o_.quiet) std::fprintf(stderr, "wirebench: note: %s\n", bound.c_str());
  return out.str();
}

// The job's own cluster (--servers): which ranks served, where.
std::string MpiRun::ServerRankLines() const {
  if (!job_cluster_) return "";
  std::string lines =
      StrCat("[MPI], ServerRanks, ", std::to_string(job_cluster_->servers.size()),
             " (the job's last ranks: the cluster's servers, not counted above)\n");
  for (size_t k = 0; k < job_cluster_->servers.size(); ++k) {
    const mpi::ServerRank& s = job_cluster_->servers[k];
    lines += StrCat("[MPI], Server", std::to_string(k), ", rank ", std::to_string(s.rank),
                    ", host ", s.host, ", ", s.address, "\n");
  }
  return lines;
}

// The skews, the clock offsets' error, the uncounted CPU and the failure.
std::string MpiRun::SummaryLines(const Windows& w, const std::vector<NamedResult>& inputs,
                                 const std::string& partial) const {
  std::string lines;
  lines += StrCat("[MPI], StartSkew(us), ", Us(double(w.last_start - w.first_start)),
                  " (latest minus earliest start of the ranks' measured phases, by rank 0's clock)\n");
  lines += StrCat("[MPI], ClockOffsetError(us), ", Us(max_half_rtt_ns_),
                  " (at most: half the shortest ping-pong round trip, the largest over the ranks)\n");
  lines += StrCat("[MPI], EndSkew(us), ", Us(double(w.last_end - w.first_end)), "\n");
  uint64_t total_ops = 0;
  for (const NamedResult& in : inputs) total_ops += in.doc["mpi"].value("operations", uint64_t(0));
  lines += StrCat("[MPI], UncountedThreadsCpu(us), ", Us(w.uncounted_ns),
                  " (all ranks, in the window: threads not counted as client CPU: the driver's, "
                  "MPI's, the control channel's)\n");
  char per_op[64];
  std::snprintf(per_op, sizeof(per_op), "%.4f",
                total_ops > 0 ? w.uncounted_ns / 1000.0 / double(total_ops) : 0.0);
  lines += StrCat("[MPI], UncountedThreadsCpuPerOp(us), ", per_op, "\n");
  if (!partial.empty()) lines += StrCat("[MPI], Failed, ", partial, "\n");
  return lines;
}

// The merged JSON result and the .hlog (one interval over the window, one
// tag per operation type), where asked for; write_failed_ says whether
// either could not be written.
void MpiRun::WriteOutputs(const MergeOutcome& merged, int64_t first_start) {
  write_failed_ = false;
  if (!json_out_.empty()) {
    if (Status st = WriteFileAtomically(json_out_, merged.json.dump(2)); !st.ok()) {
      std::fprintf(stderr, "wirebench: %s\n", st.ToString().c_str());
      write_failed_ = true;
    }
  }
  if (hlog_out_.empty()) return;
  std::ostringstream text;
  hdr::HistogramLogWriter log(&text);
  const int64_t start_ms = (first_start == INT64_MAX ? RealtimeNs() : first_start) / 1'000'000;
  Status st = log.WriteComment(StrCat("[wirebench ", o_.load_phase ? "load" : "run", " --mpi, ",
                                      std::to_string(ranks_), " ranks, codec ", o_.codec->name(),
                                      "]"));
  if (st.ok()) st = log.WriteHeader(start_ms, start_ms);
  for (int t = 0; t < kOpTypes && st.ok(); ++t)
    if (merged.result.ops[size_t(t)].latency.total_count() > 0)
      st = log.WriteInterval(OpTypeName(OpType(t)), 0, merged.result.runtime_s,
                             merged.result.ops[size_t(t)].latency);
  if (st.ok()) st = log.Flush();
  if (st.ok()) st = WriteFileAtomically(hlog_out_, text.str());
  if (!st.ok()) {
    std::fprintf(stderr, "wirebench: %s\n", st.ToString().c_str());
    write_failed_ = true;
  }
}

StatusOr<YcsbOutcome> MpiRun::Report(YcsbOutcome outcome) {
  std::vector<NamedResult> inputs;
  const std::string partial = CollectResults(&outcome, &inputs);
  Windows w = AlignWindows(inputs);
  const std::string lines =
      RankLines(w.per_rank) + ServerRankLines() + SummaryLines(w, inputs, partial);
  auto merged = MergeResults(inputs, MergeNotes{lines, partial});
  if (!merged.ok()) {
    return Status::Internal(StrCat("cannot merge the ranks' results: ", merged.status().ToString()));
  }
  merged->json["config"]["mpi_ranks"] = ranks_;
  merged->json["mpi"] = {{"ranks", ranks_},
                         {"hosts", hosts_},
                         {"start_skew_ns", double(w.last_start - w.first_start)},
                         {"clock_offset_error_ns", max_half_rtt_ns_},
                         {"end_skew_ns", double(w.last_end - w.first_end)},
                         {"uncounted_threads_cpu_ns", w.uncounted_ns},
                         {"failed", partial},
                         {"per_rank", std::move(w.per_rank)}};
  if (job_cluster_) {
    json servers = json::array();
    for (const mpi::ServerRank& s : job_cluster_->servers)
      servers.push_back({{"rank", s.rank}, {"host", s.host}, {"address", s.address}});
    merged->json["mpi"]["servers"] = std::move(servers);
  }
  WriteOutputs(*merged, w.first_start);
  YcsbOutcome out;
  out.result = std::move(merged->result);
  out.costs = std::move(merged->costs);
  out.json = std::move(merged->json);
  out.text = std::move(merged->text);
  return out;
}

}  // namespace

namespace {

// --servers N under --mpi: the last N ranks serve (job_cluster.h), the
// others are the run's clients, driving the cluster as --cluster would.
int RunWithJobCluster(YcsbRunOptions o) {
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  mpi::JobCluster cluster;
  if (Status st = mpi::PlaceJobCluster(o, &cluster); !st.ok()) {
    if (world_rank == 0) std::fprintf(stderr, "wirebench: --mpi: %s\n", st.ToString().c_str());
    MPI_Finalize();
    return 2;
  }
  if (cluster.serving) {
    const int code = mpi::ServeUntilReleased(&cluster);
    MPI_Finalize();
    return code;
  }
  o.cluster.servers = cluster.list;
  o.servers = 1;
  MpiRun run(cluster.comm);
  run.SetJobCluster(&cluster);
  return run.Run(std::move(o));
}

}  // namespace

int RunYcsbMpi(YcsbRunOptions o) {
  // Before MPI_Init, so that MPI's own threads inherit SIGINT/SIGTERM
  // blocked: the launcher's SIGTERM (after a rank died) then only asks the
  // run to stop, and rank 0 still writes what was measured.
  StopOnSignal stop_on_signal;
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "wirebench: --mpi: MPI_Init failed (is this process started by mpirun or srun?)\n");
    return 2;
  }
  // An error (a peer's connection reset after it died) is returned, not
  // fatal: rank 0 still reports.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (o.servers > 1) return RunWithJobCluster(std::move(o));
  MpiRun run;
  return run.Run(std::move(o));
}

namespace {

class MpiCells final : public MpiCellRunner {
 public:
  explicit MpiCells(std::unique_ptr<StopOnSignal> stop) : stop_(std::move(stop)) {}
  int rank() const override { return run_.rank(); }
  int ranks() const override { return run_.ranks(); }
  Status Open() { return run_.Open(); }
  StatusOr<YcsbOutcome> RunCell(YcsbRunOptions o) override {
    auto r = run_.RunOne(std::move(o));
    run_.AgreeToGoOn();
    return r;
  }
  int Finish(int code) override { return run_.End(code); }

 private:
  std::unique_ptr<StopOnSignal> stop_;
  MpiRun run_;
};

}  // namespace

std::unique_ptr<MpiCellRunner> StartMpiCells(int* exit_code) {
  auto stop = std::make_unique<StopOnSignal>();  // Before MPI_Init: see RunYcsbMpi.
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "wirebench: --mpi: MPI_Init failed (is this process started by mpirun or srun?)\n");
    *exit_code = 2;
    return nullptr;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  auto cells = std::make_unique<MpiCells>(std::move(stop));
  if (Status st = cells->Open(); !st.ok()) {
    if (cells->rank() == 0) std::fprintf(stderr, "wirebench: --mpi: %s\n", st.ToString().c_str());
    MPI_Finalize();
    *exit_code = 2;
    return nullptr;
  }
  return cells;
}

}  // namespace wirebench
