// `wirebench load|run --mpi` under a real `mpirun --oversubscribe` with 2-3
// ranks on loopback, against a real `wirebench server --region memstore`
// started once for the whole binary (each test loads its own key range):
// the load partition (every record inserted once: the memstore's row and put
// counts), the aligned windows (the server's calls between rank 0's two
// Stats snapshots equal the ranks' operations within 2%), one report, the
// co-located server, a rank that cannot reach the server (nobody measures),
// and a rank killed with SIGKILL mid-run (the run ends within seconds with a
// partial report naming it; no rank is left running).
// `compare --mpi` runs its matrix the same way, one such run per cell: one
// report, every codec's cells, each cell's server calls the ranks' summed
// operations, the rank count recorded; and a rank killed mid-matrix ends it
// with a partial report of the cells measured so far.
// `run --mpi --servers 2`: the job's last two ranks serve its own cluster,
// the others drive it; one report with every server's figures; and what
// such a job cannot be is refused saying what to do.
// Built without Open MPI, the binary's --mpi must say so and how to get it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/read_file.h"
#include "tests/wirebench_paths.h"

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// A child process; stdout (and stderr) to a file.
class Child {
 public:
  Child(std::vector<std::string> args, const std::string& out_file) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);  // Its own group: the test can end everything it started.
      const int fd = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      execvp(argv[0], argv.data());
      _exit(127);
    }
  }
  ~Child() {
    if (pid_ > 0) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  // The exit status, or -1 (killed by a signal, or not done within `seconds`).
  int Wait(double seconds, bool* timed_out = nullptr) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    int st = 0;
    while (Clock::now() < deadline) {
      const pid_t r = waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        pid_ = -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (timed_out) *timed_out = true;
    return -1;
  }

 private:
  pid_t pid_ = -1;
};

using wirebench::kBinary;
using wirebench::kWorkloadA;
using wirebench::testing::ReadFile;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

int64_t Calls(const json& stats) {
  int64_t n = 0;
  for (const char* m : {"Mutate", "Get", "Scan", "Multi"})
    n += stats["calls"].value(m, int64_t(0));
  return n;
}

#ifdef WIREBENCH_TEST_MPIEXEC

class MpiRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // CI runs as root; Open MPI refuses that unless told.
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    // Under AddressSanitizer: Open MPI's own allocations live until exit.
    const char* asan = std::getenv("ASAN_OPTIONS");
    setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":detect_leaks=0").c_str(), 1);
    dir_ = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                     ("wb_mpi_" + std::to_string(getpid())));
    std::filesystem::create_directories(*dir_);
    // One memstore server for the binary.
    server_ = new Child({kBinary, "server", "--port", "0", "--region", "memstore", "--io-threads",
                         "2"},
                        (*dir_ / "server.log").string());
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while (Clock::now() < deadline) {
      const std::string log = ReadFile((*dir_ / "server.log").string());
      const size_t at = log.find("listening on ");
      const size_t eol = at == std::string::npos ? at : log.find('\n', at);
      if (eol != std::string::npos) {
        address_ = new std::string(log.substr(at + 13, eol - at - 13));
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  static void TearDownTestSuite() {
    delete server_;
    std::filesystem::remove_all(*dir_);
    delete dir_;
    delete address_;
  }
  void SetUp() override { ASSERT_NE(address_, nullptr) << "the memstore server did not start"; }

  // mpirun [MPIRUN_ARGS] -np N wirebench ARGS..., its output in `out`.
  std::unique_ptr<Child> Mpirun(int np, const std::vector<std::string>& args,
                                const std::string& out,
                                const std::vector<std::string>& mpirun_args = {}) {
    std::vector<std::string> argv = {WIREBENCH_TEST_MPIEXEC, "--oversubscribe"};
    argv.insert(argv.end(), mpirun_args.begin(), mpirun_args.end());
    argv.insert(argv.end(), {"-np", std::to_string(np), kBinary});
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<Child>(argv, out);
  }
  std::string Path(const std::string& name) { return (*dir_ / name).string(); }
  // Runs `ranks` ranks measuring for up to 60 s, sends `sig` to rank 1 once
  // they measure, and checks that the run ends within `bound_s` seconds of
  // it, non-zero, with a partial report naming rank 1 and `why`.
  void ExpectLosingRankOneEndsTheRun(const std::string& name, size_t ranks, int sig,
                                     double bound_s, const std::string& why);

  // Waits (at most 30 s) for mpirun to end, which must be with a failure, and
  // sets *text to what it printed.
  static void ExpectRunFails(Child* run, const std::string& out, std::string* text) {
    bool timed_out = false;
    const int rc = run->Wait(30, &timed_out);
    *text = ReadFile(out);
    ASSERT_FALSE(timed_out) << *text;
    EXPECT_NE(rc, 0) << *text;
  }

  static std::filesystem::path* dir_;
  static Child* server_;
  static std::string* address_;
};

std::filesystem::path* MpiRun::dir_ = nullptr;
Child* MpiRun::server_ = nullptr;
std::string* MpiRun::address_ = nullptr;

// Three ranks load 3001 records (not a multiple of 3) from insertstart
// 100000: each record exactly once.
TEST_F(MpiRun, LoadPartitionInsertsEveryRecordOnce) {
  const std::string out = Path("load.out"), result = Path("load.json");
  auto run = Mpirun(3,
                    {"load", "--mpi", "-P", kWorkloadA, "--server", *address_, "-p",
                     "insertstart=100000", "-p", "insertcount=3001", "-p", "recordcount=200000",
                     "--threads", "2", "--json", result},
                    out);
  const int rc = run->Wait(120);
  const std::string text = ReadFile(out);
  ASSERT_EQ(rc, 0) << text;
  EXPECT_EQ(Count(text, "[OVERALL], RunTime(ms)"), 1u) << text;  // One report.
  EXPECT_NE(text.find("[MPI], Ranks, 3"), std::string::npos) << text;
  const json j = json::parse(ReadFile(result));
  const json& r = j["results"];
  EXPECT_EQ(r["operations"], 3001);
  EXPECT_EQ(r["ops"]["INSERT"]["return"].value("OK", 0), 3001) << r["ops"]["INSERT"];
  EXPECT_EQ(j["mpi"]["ranks"], 3);
  ASSERT_EQ(j["mpi"]["per_rank"].size(), 3u);
  int64_t sum = 0;
  for (const json& pr : j["mpi"]["per_rank"]) {
    EXPECT_GE(pr["operations"].get<int64_t>(), 1000);
    EXPECT_LE(pr["operations"].get<int64_t>(), 1001);
    sum += pr["operations"].get<int64_t>();
  }
  EXPECT_EQ(sum, 3001);
  // --oversubscribe leaves ranks unbound: every rank may use every CPU.
  for (const json& pr : j["mpi"]["per_rank"]) EXPECT_EQ(pr["cpus_left_out"], 0) << pr;
  EXPECT_EQ(text.find("[MPI], Binding"), std::string::npos) << text;
  // The memstore: 3001 new rows from 3001 puts, so no key was inserted twice.
  const json& before = r["server"]["before"];
  const json& after = r["server"]["after"];
  ASSERT_TRUE(before.is_object() && after.is_object()) << r["server"];
  EXPECT_EQ(after["memstore"]["rows"].get<int64_t>() - before["memstore"]["rows"].get<int64_t>(),
            3001);
  EXPECT_EQ(after["memstore"]["puts"].get<int64_t>() - before["memstore"]["puts"].get<int64_t>(),
            3001);
}

// The server's calls between rank 0's Stats snapshots are the ranks' operations.
// No warm-up: rank 0 then takes its "before" Stats ahead of the start, so the
// count does not depend on how fast it gets them on a busy machine.
TEST_F(MpiRun, AlignedWindowsCoverEveryRanksOperations) {
  const std::string out = Path("run.out"), result = Path("run.json"), hlog = Path("run.hlog");
  auto run = Mpirun(3,
                    {"run", "--mpi", "-P", kWorkloadA, "--server", *address_, "--ops", "4000",
                     "--threads", "4", "--warmup", "0", "--json", result, "--hlog", hlog},
                    out);
  const int rc = run->Wait(120);
  const std::string text = ReadFile(out);
  ASSERT_EQ(rc, 0) << text;
  EXPECT_EQ(Count(text, "[OVERALL], RunTime(ms)"), 1u) << text;
  EXPECT_NE(text.find("[MPI], StartSkew(us), "), std::string::npos) << text;
  const json j = json::parse(ReadFile(result));
  const json& r = j["results"];
  EXPECT_EQ(r["operations"], 12000);
  const int64_t calls = Calls(r["server"]["after"]) - Calls(r["server"]["before"]);
  EXPECT_NEAR(double(calls), 12000.0, 12000.0 * 0.02) << "server calls in the window: " << calls;
  EXPECT_EQ(j["config"]["mpi_ranks"], 3);
  EXPECT_NE(ReadFile(hlog).find("READ"), std::string::npos);
}

// Without --server rank 0 starts the server and the others find it.
TEST_F(MpiRun, CoLocatedServerStartedByRankZero) {
  const std::string out = Path("colo.out");
  auto run = Mpirun(2, {"run", "--mpi", "-P", kWorkloadA, "--ops", "1000", "--threads", "2"}, out);
  const int rc = run->Wait(120);
  const std::string text = ReadFile(out);
  ASSERT_EQ(rc, 0) << text;
  EXPECT_EQ(Count(text, "[OVERALL], RunTime(ms)"), 1u) << text;
  EXPECT_NE(text.find("[MEASURED], Operations, 2000"), std::string::npos) << text;
}

// A rank that cannot reach the server: said before the barrier, nobody measures.
TEST_F(MpiRun, UnreachableServerStopsEveryRankBeforeMeasuring) {
  const std::string out = Path("unreach.out");
  // A port nothing listens on: bound and closed again.
  auto run = Mpirun(2,
                    {"run", "--mpi", "-P", kWorkloadA, "--server", "127.0.0.1:1", "--ops", "100"},
                    out);
  const int rc = run->Wait(120);
  const std::string text = ReadFile(out);
  EXPECT_NE(rc, 0) << text;
  EXPECT_NE(text.find("no rank started measuring"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 1 (host"), std::string::npos) << text;
  EXPECT_EQ(text.find("[OVERALL], RunTime(ms)"), std::string::npos) << text;
}

// The ranks mpirun started (its children) and their rank numbers.
std::vector<std::pair<pid_t, int>> Ranks(pid_t mpirun) {
  std::vector<std::pair<pid_t, int>> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = ReadFile(e.path().string() + "/stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream in(stat.substr(close + 2));
    char state;
    pid_t ppid = 0;
    in >> state >> ppid;
    if (ppid != mpirun) continue;
    const std::string env = ReadFile(e.path().string() + "/environ");
    const size_t at = env.find("OMPI_COMM_WORLD_RANK=");
    if (at == std::string::npos) continue;
    out.push_back({pid_t(std::stoi(name)), std::atoi(env.c_str() + at + 21)});
  }
  return out;
}

// The ranks of `mpirun` (pid, rank) once `n` of them run, and then 3 s more
// so they are measuring; fewer when they did not all start within 30 s.
std::vector<std::pair<pid_t, int>> RunningRanks(pid_t mpirun, size_t n) {
  std::vector<std::pair<pid_t, int>> ranks;
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline && ranks.size() < n) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ranks = Ranks(mpirun);
  }
  if (ranks.size() == n) std::this_thread::sleep_for(std::chrono::seconds(3));
  return ranks;
}

// The pid of rank `rank` among `ranks` (pid, rank); 0 when it is not there.
pid_t PidOfRank(const std::vector<std::pair<pid_t, int>>& ranks, int rank) {
  for (auto [pid, r] : ranks)
    if (r == rank) return pid;
  return 0;
}

// Nothing of `ranks` left running, waiting up to 2 s each (an exited rank
// may be a zombie until init reaps it).
void ExpectNoneRunning(const std::vector<std::pair<pid_t, int>>& ranks) {
  for (auto [pid, rank] : ranks) {
    bool running = true;
    for (int i = 0; i < 100 && running; ++i) {
      const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
      const size_t close = stat.rfind(')');
      running = close != std::string::npos && stat[close + 2] != 'Z' && stat[close + 2] != 'X';
      if (running) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_FALSE(running) << "rank " << rank << " (pid " << pid << ") still runs";
  }
}

void MpiRun::ExpectLosingRankOneEndsTheRun(const std::string& name, size_t ranks, int sig,
                                           double bound_s, const std::string& why) {
  const std::string out = Path(name + ".out"), result = Path(name + ".json");
  auto run = Mpirun(int(ranks),
                    {"run", "--mpi", "-P", kWorkloadA, "--server", *address_, "--seconds", "60",
                     "--threads", "2", "-p", "recordcount=1000", "--json", result},
                    out);
  // Wait until the ranks measure: rank 0's report would be empty before.
  const std::vector<std::pair<pid_t, int>> running = RunningRanks(run->pid(), ranks);
  ASSERT_EQ(running.size(), ranks) << ReadFile(out);
  const pid_t victim = PidOfRank(running, 1);
  ASSERT_GT(victim, 0);
  const auto signalled_at = Clock::now();
  ASSERT_EQ(kill(victim, sig), 0);
  bool timed_out = false;
  const int rc = run->Wait(bound_s + 25, &timed_out);
  const double took = std::chrono::duration<double>(Clock::now() - signalled_at).count();
  if (sig == SIGSTOP) kill(victim, SIGCONT);  // Whatever is left of it may go.
  const std::string text = ReadFile(out);
  ASSERT_FALSE(timed_out) << text;
  std::printf("the run ended %.2f s after rank 1 got %s\n", took, strsignal(sig));
  EXPECT_LT(took, bound_s) << text;  // The bound the caller gives, in seconds.
  EXPECT_NE(rc, 0) << text;
  EXPECT_NE(text.find("[OVERALL], Partial, true"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 1 (host"), std::string::npos) << text;
  EXPECT_NE(text.find(why), std::string::npos) << text;
  const json j = json::parse(ReadFile(result));
  EXPECT_TRUE(j["results"]["partial"].get<bool>());
  EXPECT_GT(j["results"]["operations"].get<int64_t>(), 0);
  ExpectNoneRunning(running);
}

// A client rank of a job that serves its own cluster, killed mid-run: the
// job ends (rank 0 reports what it has and leaves without MPI_Finalize;
// mpirun then ends the serving ranks, which wait for a release that cannot
// come), non-zero, naming rank 1, and neither a rank nor a server is left.
TEST_F(MpiRun, JobClusterEndsWithItsServersWhenAClientRankDies) {
  const std::string out = Path("jobcluster-kill.out");
  // fieldlength 995 marks this test's servers (their canned record's length).
  auto run = Mpirun(4,
                    {"run", "--mpi", "--servers", "2", "-P", kWorkloadA, "--seconds", "60",
                     "--threads", "2", "-p", "fieldlength=995"},
                    out);
  const std::vector<std::pair<pid_t, int>> running = RunningRanks(run->pid(), 4);
  ASSERT_EQ(running.size(), 4u) << ReadFile(out);
  const pid_t victim = PidOfRank(running, 1);
  ASSERT_GT(victim, 0);
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  bool timed_out = false;
  const int rc = run->Wait(60, &timed_out);
  const std::string text = ReadFile(out);
  ASSERT_FALSE(timed_out) << "the job did not end:\n" << text;
  EXPECT_NE(rc, 0) << text;
  EXPECT_NE(text.find("rank 1 (host"), std::string::npos) << text;
  if (text.find("[OVERALL], RunTime(ms)") != std::string::npos) {  // Killed while measuring.
    EXPECT_NE(text.find("[OVERALL], Partial, true"), std::string::npos) << text;
  }
  ExpectNoneRunning(running);
  std::string left;  // "[-]": the shell running pgrep does not match itself.
  for (int i = 0; i < 100; ++i) {
    left.clear();
    FILE* p = popen("pgrep -f -a -- '[c]anned-field-length 995 .*--cluster-index'", "r");
    char line[512];
    while (p && fgets(line, sizeof(line), p)) left += line;
    if (p) pclose(p);
    if (left.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(left, "") << "cluster servers left running";
}

TEST_F(MpiRun, KilledRankEndsTheRunWithAPartialReportNamingIt) {
  ExpectLosingRankOneEndsTheRun("kill", 3, SIGKILL, 10.0, "died");
}

// A rank stopped with SIGSTOP keeps its sockets open, so nothing closes:
// the job hung (still running at 90 s, then a 92 s "measured" phase). Its
// silence on the control channel (5 s) now ends the run like a death.
TEST_F(MpiRun, StoppedRankEndsTheRunWithAPartialReportNamingIt) {
  ExpectLosingRankOneEndsTheRun("stop", 2, SIGSTOP, 15.0, "stopped answering");
}

// A rank whose own run ends early (here SIGINT to that rank alone: its
// run stops, as one whose server connection broke would) stops every rank;
// all are alive, so rank 0 reports all three, partial, naming it.
TEST_F(MpiRun, RankWhoseRunFailsStopsEveryRank) {
  const std::string out = Path("fail.out"), result = Path("fail.json");
  auto run = Mpirun(3,
                    {"run", "--mpi", "-P", kWorkloadA, "--server", *address_, "--seconds", "60",
                     "--threads", "2", "-p", "recordcount=1000", "--json", result},
                    out);
  const std::vector<std::pair<pid_t, int>> ranks = RunningRanks(run->pid(), 3);
  ASSERT_EQ(ranks.size(), 3u) << ReadFile(out);
  const pid_t failing = PidOfRank(ranks, 2);
  ASSERT_GT(failing, 0);
  ASSERT_EQ(kill(failing, SIGINT), 0);
  std::string text;
  ASSERT_NO_FATAL_FAILURE(ExpectRunFails(run.get(), out, &text));
  EXPECT_NE(text.find("[OVERALL], Partial, true (Unavailable: rank 2 (host"), std::string::npos)
      << text;
  EXPECT_NE(text.find("[MERGE], Inputs, 3"), std::string::npos) << text;  // Every rank's figures.
  const json j = json::parse(ReadFile(result));
  EXPECT_TRUE(j["results"]["partial"].get<bool>());
  ASSERT_EQ(j["mpi"]["per_rank"].size(), 3u);
  for (const json& pr : j["mpi"]["per_rank"]) EXPECT_GT(pr["operations"].get<int64_t>(), 0);
}

// A rank mpirun bound to one core (its default with 2 ranks or fewer) is named
// in the report, with the CPUs it may use, since its CPU per op is then not
// comparable with a run outside mpirun.
TEST_F(MpiRun, ACoreBindingIsReportedWithEachRanksCpus) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "one CPU: nothing to leave out";
  const std::string out = Path("bound.out"), result = Path("bound.json");
  Child run({WIREBENCH_TEST_MPIEXEC, "-np", "1", "--bind-to", "core", kBinary, "run", "--mpi",
             "-P", kWorkloadA, "--server", *address_, "-p", "operationcount=200", "--json",
             result},
            out);
  const int rc = run.Wait(60);
  const std::string text = ReadFile(out);
  ASSERT_EQ(rc, 0) << text;
  const json j = json::parse(ReadFile(result));
  ASSERT_EQ(j["mpi"]["per_rank"].size(), 1u);
  const json& pr = j["mpi"]["per_rank"][0];
  EXPECT_EQ(pr["cpus_left_out"].get<int>(), sysconf(_SC_NPROCESSORS_ONLN) - 1) << pr;
  EXPECT_EQ(pr["cpus"].get<std::string>().find_first_of(",-"), std::string::npos) << pr;
  EXPECT_NE(text.find("[MPI], Binding, rank 0 on "), std::string::npos) << text;
  EXPECT_NE(text.find("pass --bind-to none"), std::string::npos) << text;
}

// compare --mpi, two ranks, co-located (rank 0 starts a server per cell and
// broadcasts its address): one report; each codec's cell; in each cell the
// server's calls between rank 0's Stats snapshots are the two ranks' summed
// operations (no warm-up, as above); the rank count in every output. A few
// thousand operations per cell: -p target caps each rank's rate.
TEST_F(MpiRun, CompareRunsEveryCellFromEveryRank) {
  const std::string out = Path("cmp.out"), dir = Path("cmp");
  auto run = Mpirun(2,
                    {"compare", "--mpi", "--codecs", "raw,pb", "--workloads", "a", "--threads", "2",
                     "--repeat", "1", "--seconds", "1", "--warmup", "0", "--records", "1000", "-p",
                     "target=1500", "--out", dir},
                    out);
  const int rc = run->Wait(180);
  const std::string text = ReadFile(out);
  ASSERT_EQ(rc, 0) << text;
  EXPECT_EQ(Count(text, "# wirebench codec comparison"), 1u) << text;  // Rank 0 alone reports.
  EXPECT_NE(text.find("2 MPI ranks per cell"), std::string::npos) << text;
  const json cmp = json::parse(ReadFile(dir + "/comparison.json"));
  EXPECT_EQ(cmp["mpi_ranks"], 2);
  int cells = 0;
  for (const char* codec : {"raw", "pb"}) {
    const std::string file = dir + "/cells/workloada-t2-" + codec + "-r1.json";
    ASSERT_TRUE(std::filesystem::exists(file)) << file << "\n" << text;
    const json j = json::parse(ReadFile(file));
    const json& r = j["results"];
    EXPECT_EQ(j["mpi"]["ranks"], 2) << codec;
    ASSERT_EQ(j["mpi"]["per_rank"].size(), 2u) << codec;
    int64_t sum = 0;
    for (const json& pr : j["mpi"]["per_rank"]) sum += pr["operations"].get<int64_t>();
    EXPECT_EQ(sum, r["operations"].get<int64_t>()) << codec;
    EXPECT_GT(sum, 1000) << codec;
    ASSERT_TRUE(r["server"]["before"].is_object() && r["server"]["after"].is_object())
        << codec << ": " << r["server"];
    const int64_t calls = Calls(r["server"]["after"]) - Calls(r["server"]["before"]);
    EXPECT_NEAR(double(calls), double(sum), double(sum) * 0.02)
        << codec << ": server calls in the window " << calls << ", the ranks' operations " << sum;
    EXPECT_FALSE(r["partial"].get<bool>()) << codec;
    ++cells;
  }
  EXPECT_EQ(cells, 2);
}

// A rank killed mid-matrix: every rank ends within seconds, rank 0 writes
// the report of the cells measured so far (the last one partial), naming
// the rank; mpirun exits non-zero; nothing keeps running. mpirun is given the
// time docs/multi-host.md advises for a compare's report
// (odls_base_sigkill_timeout 10): with Open MPI's default, SIGKILL 1 s after
// its SIGTERM, a loaded host (sanitizers, -j2) ended rank 0 first.
TEST_F(MpiRun, CompareKilledRankEndsTheMatrixWithAPartialReport) {
  const std::string out = Path("cmpkill.out"), dir = Path("cmpkill");
  auto run = Mpirun(
      2, {"compare",   "--mpi",    "--server", *address_,     "--codecs", "raw,pb",   "--threads",
          "2",         "--repeat", "3",        "--seconds",   "4",        "--warmup", "0",
          "--records", "1000",     "-p",       "target=1000", "--out",    dir},
      out, {"--mca", "odls_base_sigkill_timeout", "10"});
  // Killed a few seconds into the matrix (in its first or second cell of 4 s).
  const std::vector<std::pair<pid_t, int>> ranks = RunningRanks(run->pid(), 2);
  ASSERT_EQ(ranks.size(), 2u) << ReadFile(out);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const pid_t victim = PidOfRank(ranks, 1);
  ASSERT_GT(victim, 0);
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  std::string text;
  ASSERT_NO_FATAL_FAILURE(ExpectRunFails(run.get(), out, &text));
  EXPECT_EQ(Count(text, "# wirebench codec comparison"), 1u) << text;
  EXPECT_NE(text.find("INTERRUPTED"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 1 (host"), std::string::npos) << text;
  EXPECT_NE(text.find("died"), std::string::npos) << text;
  // The cells measured: one cut short (partial), those before it whole, none
  // after; none partial when the rank died while the ranks agreed to start a
  // cell (that cell then failed before anyone measured, and says why).
  int whole = 0, partial = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/cells")) {
    if (e.path().extension() != ".json") continue;
    const json j = json::parse(ReadFile(e.path().string()));
    if (j["results"]["partial"].get<bool>()) {
      ++partial;
    } else {
      ++whole;
      EXPECT_EQ(j["mpi"]["per_rank"].size(), 2u) << e.path();
    }
  }
  EXPECT_LE(partial, 1) << text;
  if (partial == 0) {
    EXPECT_NE(text.find("no rank started measuring"), std::string::npos) << text;
  }
  EXPECT_LT(whole, 5) << text;
  const json cmp = json::parse(ReadFile(dir + "/comparison.json"));
  EXPECT_EQ(cmp["mpi_ranks"], 2);
  ExpectNoneRunning(ranks);
}

// `run --mpi --servers 2` with three ranks: rank 0 drives, ranks 1 and 2
// (the last two) serve the job's own cluster, here on loopback (every rank
// on this host). One report with both servers' figures; every operation
// answered once by its row's server; no server left once mpirun ends.
TEST_F(MpiRun, JobServesItsOwnCluster) {
  const std::string out = Path("jobcluster.out"), result = Path("jobcluster.json");
  auto run = Mpirun(3,
                    {"run", "--mpi", "--servers", "2", "-P", kWorkloadA, "--ops", "1500",
                     "--threads", "2", "--warmup", "0", "--json", result},
                    out);
  const int rc = run->Wait(120);
  const std::string text = ReadFile(out);
  ASSERT_EQ(rc, 0) << text;
  EXPECT_EQ(Count(text, "[OVERALL], RunTime(ms)"), 1u) << text;
  EXPECT_NE(text.find("[MPI], Ranks, 1"), std::string::npos) << text;
  EXPECT_NE(text.find("[MPI], ServerRanks, 2"), std::string::npos) << text;
  EXPECT_NE(text.find("[CLUSTER], Servers, 2"), std::string::npos) << text;
  const json j = json::parse(ReadFile(result));
  const json& r = j["results"];
  EXPECT_EQ(r["operations"], 1500);
  const json& servers = r["cluster"]["servers"];
  ASSERT_EQ(servers.size(), 2u) << r["cluster"];
  int64_t calls = 0;
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(j["mpi"]["servers"][k]["rank"], int(k) + 1);
    EXPECT_EQ(servers[k]["address"], j["mpi"]["servers"][k]["address"]);
    EXPECT_GT(servers[k]["calls"].get<double>(), 0) << servers[k]["address"];
    calls += Calls(servers[k]["after"]) - Calls(servers[k]["before"]);
  }
  EXPECT_EQ(calls, 1500);
  EXPECT_EQ(r["error_replies"], 0);
}

// What a job's own cluster cannot be is said, by rank 0, with what to do;
// every rank ends (mpirun returns) and nobody measures.
TEST_F(MpiRun, JobClusterRefusalsSayWhatToDo) {
  const struct {
    int np;
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {2, {"--servers", "2"}, "start 3 or more (mpirun -np, srun -n), or give fewer --servers"},
      {3, {"--servers", "2", "--mpi-server-network", "10.0.0.0/99"}, "is not an IPv4 network"},
      {3,
       {"--servers", "2", "--mpi-server-network", "0.0.0.0/32"},
       "is in --mpi-server-network 0.0.0.0/32"},
      {3, {"--servers", "2", "--server", *address_}, "give one of them"},
  };
  for (const auto& c : cases) {
    const std::string out = Path("jobcluster-refused.out");
    std::vector<std::string> args = {"run", "--mpi", "-P", kWorkloadA, "--ops", "100"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto run = Mpirun(c.np, args, out);
    std::string text;
    ExpectRunFails(run.get(), out, &text);
    EXPECT_NE(text.find(c.says), std::string::npos) << text;
    EXPECT_EQ(text.find("[OVERALL]"), std::string::npos) << text;
  }
  // Said before MPI starts: no mpirun needed.
  const std::string out = Path("jobcluster-front.out");
  Child running({kBinary, "run", "--mpi", "-P", kWorkloadA, "--cluster", "127.0.0.1:1,127.0.0.1:2"},
                out);
  EXPECT_EQ(running.Wait(60), 2);
  EXPECT_NE(ReadFile(out).find("--mpi with --cluster (a cluster already running) is not built"),
            std::string::npos)
      << ReadFile(out);
  Child network({kBinary, "run", "-P", kWorkloadA, "--mpi-server-network", "10.0.0.0/8"}, out);
  EXPECT_EQ(network.Wait(60), 2);
  EXPECT_NE(ReadFile(out).find("give it with --mpi and --servers N"), std::string::npos)
      << ReadFile(out);
}

// --mpi with what cannot work under it says what to do (no mpirun needed:
// the check comes before MPI starts).
TEST_F(MpiRun, CompareMpiRefusesBuildsAndInstructions) {
  const std::string out = Path("cmpbad.out");
  Child builds({kBinary, "compare", "--mpi", "--builds", "a=" + kBinary + ",b=" + kBinary}, out);
  EXPECT_EQ(builds.Wait(60), 2);
  EXPECT_NE(ReadFile(out).find("--mpi and --builds cannot be combined"), std::string::npos)
      << ReadFile(out);
  Child instr({kBinary, "compare", "--mpi", "--instructions"}, out);
  EXPECT_EQ(instr.Wait(60), 2);
  EXPECT_NE(ReadFile(out).find("--mpi and --instructions cannot be combined"), std::string::npos)
      << ReadFile(out);
}

#else  // Built without Open MPI.

TEST(MpiRun, NotBuiltInSaysHowToGetIt) {
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("wb_nompi_" + std::to_string(getpid()) + ".out"))
                              .string();
  Child c({kBinary, "run", "--mpi", "-P", kWorkloadA, "--ops", "10"}, out);
  EXPECT_EQ(c.Wait(60), 2);
  const std::string text = ReadFile(out);
  std::filesystem::remove(out);
  EXPECT_NE(text.find("--mpi is not built into this wirebench"), std::string::npos) << text;
  EXPECT_NE(text.find("libopenmpi-dev"), std::string::npos) << text;
  Child cmp({kBinary, "compare", "--mpi", "--codecs", "raw", "--repeat", "1", "--seconds", "1"},
            out);
  EXPECT_EQ(cmp.Wait(60), 2);
  const std::string cmp_text = ReadFile(out);
  std::filesystem::remove(out);
  EXPECT_NE(cmp_text.find("--mpi is not built into this wirebench"), std::string::npos) << cmp_text;
}

#endif

}  // namespace
