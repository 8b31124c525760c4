// Reliability, through the `wirebench` binary: outputs that
// cannot be written make `compare` fail naming them (a small tmpfs, as
// root), and the other failures here end with a status other
// than 0 and a message naming the cause.
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>

#include "tests/sanitized_build.h"
#include "tests/silent_listener.h"
#include "tests/wirebench_paths.h"

namespace wirebench {
namespace {

namespace fs = std::filesystem;
using testing::ProcessAlive;
using testing::ProcessGroup;
using testing::WirebenchProcess;

std::string Stem(const std::string& name) {
  return std::string(WIREBENCH_BINARY_DIR) + "/reliability_" + name;
}

struct Outcome {
  int rc;
  std::string out, err;
};

Outcome RunWirebench(const std::string& name, const std::vector<std::string>& args,
                     std::chrono::seconds bound = std::chrono::seconds(120)) {
  WirebenchProcess p(kBinary, args, Stem(name));
  const int rc = p.Wait(bound);
  return {rc, p.Stdout(), p.Stderr()};
}

// A tmpfs of `bytes` mounted on a fresh directory for the test's life.
class SmallTmpfs {
 public:
  SmallTmpfs(const std::string& name, uint64_t bytes) : dir_(Stem(name)) {
    umount2(dir_.c_str(), MNT_DETACH);  // Left by an earlier run that was killed.
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::string opts = "size=" + std::to_string(bytes);
    if (mount("tmpfs", dir_.c_str(), "tmpfs", 0, opts.c_str()) != 0)
      error_ = std::string("cannot mount a tmpfs (needs root): ") + std::strerror(errno);
  }
  ~SmallTmpfs() {
    if (error_.empty()) umount2(dir_.c_str(), MNT_DETACH);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const std::string& dir() const { return dir_; }
  const std::string& error() const { return error_; }

 private:
  std::string dir_, error_;
};

std::vector<std::string> CompareArgs(const std::string& out) {
  return {"compare",   "--codecs", "raw", "--workloads", kWorkloadA, "--threads", "1",
          "--repeat",  "1",        "--seconds", "0.3", "--warmup",   "0",         "--records",
          "100",       "--out",    out};
}

uint64_t Pages(uint64_t bytes) { return (bytes + 4095) / 4096 * 4096; }

// A file system that holds the cells' results but not the
// comparison: exit 2, naming every file not written and the cause.
TEST(Reliability, CompareFailsWhenItCannotWriteItsReport) {
  // The same comparison on a roomy disk first: how much its cells take.
  const std::string roomy = Stem("compare_roomy");
  fs::remove_all(roomy);
  Outcome o = RunWirebench("compare_roomy", CompareArgs(roomy));
  ASSERT_EQ(o.rc, 0) << o.err;
  uint64_t cells = 0;
  for (const auto& e : fs::directory_iterator(roomy + "/cells")) cells += Pages(e.file_size());
  ASSERT_GT(fs::file_size(roomy + "/comparison.json"), 3 * 4096u);
  // Room for the cells (give or take a page each) and not for the rest.
  SmallTmpfs tmpfs("compare_tmpfs", cells + 2 * 4096);
  if (!tmpfs.error().empty()) GTEST_SKIP() << tmpfs.error();
  o = RunWirebench("compare_full", CompareArgs(tmpfs.dir()));
  EXPECT_EQ(o.rc, 2) << o.err;
  EXPECT_NE(o.err.find("the comparison is incomplete"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("No space left on device"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(tmpfs.dir() + "/comparison.json"), std::string::npos) << o.err;
  // Nothing is listed as written that is not there in full.
  const size_t wrote = o.err.find("wirebench compare: wrote");
  ASSERT_NE(wrote, std::string::npos) << o.err;
  std::istringstream listed(o.err.substr(wrote, o.err.find('\n', wrote) - wrote));
  std::string word;
  while (listed >> word) {
    if (word.rfind(tmpfs.dir(), 0) != 0 || word == tmpfs.dir() + "/cells") continue;
    std::error_code ec;
    EXPECT_GT(fs::file_size(word, ec), 0u) << word << " listed as written: " << o.err;
    EXPECT_FALSE(ec) << word << " listed as written: " << o.err;
  }
  fs::remove_all(roomy);
}

// The report's own path unusable (a directory stands there): the same.
TEST(Reliability, CompareFailsWhenAReportPathIsADirectory) {
  const std::string out = Stem("compare_dir");
  fs::remove_all(out);
  fs::create_directories(out + "/comparison.csv");
  const Outcome o = RunWirebench("compare_dir", CompareArgs(out));
  EXPECT_EQ(o.rc, 2) << o.err;
  EXPECT_NE(o.err.find("cannot write " + out + "/comparison.csv: it is a directory"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("the comparison is incomplete"), std::string::npos) << o.err;
  fs::remove_all(out);
}

// A wal region on a full disk. The cause is in the
// server's log (the co-located server's stderr is the client's), in the
// error replies and in the client's summary, which exits 1.
TEST(Reliability, WalWriteErrorsAreReportedEverywhere) {
  SmallTmpfs tmpfs("wal_tmpfs", 256u << 10);
  if (!tmpfs.error().empty()) GTEST_SKIP() << tmpfs.error();
  const Outcome o = RunWirebench(
      "wal_full", {"run", "-P", kWorkloadA, "--region", "wal", "--wal-dir", tmpfs.dir(),
                   "--handlers", "4", "--ops", "2000", "-p", "recordcount=100", "-p",
                   "readproportion=0", "-p", "updateproportion=1"});
  EXPECT_EQ(o.rc, 1) << o.err;
  // The server's log, once.
  const std::string logged = "wirebench server: I/O error: wal: cannot write " + tmpfs.dir();
  const size_t at = o.err.find(logged);
  ASSERT_NE(at, std::string::npos) << o.err;
  EXPECT_EQ(o.err.find(logged, at + 1), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("No space left on device; the wal region refuses every write from now on"),
            std::string::npos)
      << o.err;
  // The client's summary, quoting the error reply.
  EXPECT_NE(o.err.find("with an error (counted as Return=ERROR); the first: Mutate: "),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("region 'wal' failed Mutate: I/O error: wal: cannot write " + tmpfs.dir()),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.out.find("Return=ERROR"), std::string::npos) << o.out;
}

// Ctrl-C at a terminal signals the whole process group.
// The co-located server ignores it; the client stops its run as
// interrupted (exit 3) with the server's figures, then stops the server.
TEST(Reliability, GroupSigintStopsTheRunNotItsServer) {
  WirebenchProcess run(kBinary,
                       {"run", "-P", kWorkloadA, "--seconds", "60", "-p", "recordcount=100",
                        "-s", "-p", "status.interval=1"},
                       Stem("group_sigint"), ProcessGroup::kOwn);
  // Signalled once a status line counts operations: a run stopped before its
  // first operation has no per-operation figure to report.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::regex_search(run.Stderr(), std::regex(" sec: [1-9][0-9]* operations"))) {
    ASSERT_EQ(run.Wait(std::chrono::milliseconds(5)), -1) << run.Stderr();
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << run.Stderr();
  }
  ASSERT_EQ(kill(-run.pid(), SIGINT), 0);
  EXPECT_EQ(run.Wait(std::chrono::seconds(30)), 3) << run.Stderr();
  const std::string err = run.Stderr();
  EXPECT_NE(err.find("SIGINT"), std::string::npos) << err;
  EXPECT_EQ(err.find("server process died"), std::string::npos) << err;
  EXPECT_NE(run.Stdout().find("[SERVER], CpuPerOp(us), "), std::string::npos) << run.Stdout();
  EXPECT_EQ(run.Stdout().find("[SERVER], CpuPerOp(us), unavailable"), std::string::npos) << run.Stdout();
}

// A server stopped (SIGSTOP) under a run bounded only by
// --ops: the run ends by itself after --stall-timeout, with a partial
// report naming the stall, in both thread models.
TEST(Reliability, StalledServerEndsAnOpsRun) {
  WirebenchProcess server(kBinary, {"server", "--port", "0", "--quiet"}, Stem("stall_server"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::string listening;
  while ((listening = server.Stdout()).find('\n') == std::string::npos) {
    ASSERT_EQ(server.Wait(std::chrono::milliseconds(5)), -1) << server.Stderr();
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
  }
  const std::string addr = listening.substr(listening.find("127.0.0.1:"));
  const std::string host_port = addr.substr(0, addr.find('\n'));
  for (const char* model : {"coroutines", "os"}) {
    SCOPED_TRACE(model);
    WirebenchProcess run(kBinary,
                         {"run", "-P", kWorkloadA, "--server", host_port, "--ops", "1000000000",
                          "--stall-timeout", "1", "--thread-model", model, "-threads", "2", "-p",
                          "recordcount=100", "-s", "-p", "status.interval=1"},
                         Stem(std::string("stall_run_") + model));
    // Operations flow once a status line counts some.
    while (!std::regex_search(run.Stderr(), std::regex(" sec: [1-9][0-9]* operations"))) {
      ASSERT_EQ(run.Wait(std::chrono::milliseconds(5)), -1) << run.Stderr();
      ASSERT_LT(std::chrono::steady_clock::now(), deadline + std::chrono::seconds(30));
    }
    server.Signal(SIGSTOP);
    EXPECT_EQ(run.Wait(std::chrono::seconds(60)), 3) << run.Stderr();
    EXPECT_NE(run.Stderr().find("completed no operation for 1.0 s (--stall-timeout): it stalled"),
              std::string::npos)
        << run.Stderr();
    EXPECT_NE(run.Stdout().find("[OVERALL], RunTime(ms)"), std::string::npos) << run.Stdout();
    server.Signal(SIGCONT);
  }
}

// The processes descended from `root` (by parent pid in /proc).
std::vector<pid_t> Descendants(pid_t root) {
  std::map<pid_t, pid_t> parent;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state;
    pid_t ppid;
    if (rest >> state >> ppid) parent[std::stoi(name)] = ppid;
  }
  std::vector<pid_t> out;
  for (const auto& [pid, ppid] : parent)
    for (pid_t p = ppid; p > 1; p = parent.count(p) ? parent[p] : 0)
      if (p == root) {
        out.push_back(pid);
        break;
      }
  return out;
}

std::string CallgrindDirOf(pid_t pid) {
  std::ifstream env("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  std::string var;
  while (std::getline(env, var, '\0'))
    if (var.rfind("WIREBENCH_CALLGRIND_DIR=", 0) == 0) return var.substr(24);
  return "";
}

// Whatever signal ends the `wirebench run --instructions`
// the user started, the Valgrind'd client and server it started are gone
// within 5 s of it, and (but for SIGKILL) so is the callgrind directory.
TEST(Reliability, InstructionsRunLeavesNothingBehindWhateverSignalEndsIt) {
  if (testing::kSanitizedBuild) GTEST_SKIP() << "a sanitizer build does not run under Valgrind";
  if (std::system("command -v valgrind >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "valgrind is not installed (scripts/install-deps installs it)";
  for (int sig : {SIGTERM, SIGINT, SIGKILL}) {
    SCOPED_TRACE(strsignal(sig));
    WirebenchProcess run(kBinary,
                         {"run", "-P", kWorkloadA, "--instructions", "--ops", "1000000000", "-p",
                          "recordcount=100"},
                         Stem("instructions_" + std::to_string(sig)), ProcessGroup::kOwn);
    // Running once the client under callgrind has started its server.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    std::vector<pid_t> procs;
    std::string dir;
    while ((procs = Descendants(run.pid())).size() < 2) {  // The client under valgrind, its server.
      ASSERT_EQ(run.Wait(std::chrono::seconds(0)), -1) << run.Stderr();
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << run.Stderr();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // Polling /proc.
    }
    for (pid_t p : procs)
      if (dir.empty()) dir = CallgrindDirOf(p);
    ASSERT_NE(dir, "");
    ASSERT_EQ(kill(run.pid(), sig), 0);
    ASSERT_NE(run.Wait(std::chrono::seconds(60)), -1) << run.Stderr();
    const auto exited = std::chrono::steady_clock::now();
    for (pid_t p : procs) {
      while (ProcessAlive(p) && std::chrono::steady_clock::now() < exited + std::chrono::seconds(5))
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // Polling /proc.
      EXPECT_FALSE(ProcessAlive(p))
          << "process " << p << " outlived the run by 5 s: " << run.Stderr();
    }
    if (sig != SIGKILL) {
      EXPECT_FALSE(fs::exists(dir)) << dir << " left behind: " << run.Stderr();
    } else {
      fs::remove_all(dir);  // Nothing is left to remove it after a SIGKILL.
    }
  }
}

// Processes whose command line is exactly `argv` (by /proc/PID/cmdline).
std::vector<pid_t> ProcessesRunning(const std::vector<std::string>& argv) {
  std::string want;
  for (const std::string& a : argv) want += a + std::string(1, '\0');
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    const std::string cmdline((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    if (cmdline == want && ProcessAlive(std::stoi(name))) out.push_back(std::stoi(name));
  }
  return out;
}

// `--builds a=/usr/bin/yes` ran `yes version` with no
// bound (and wrote without end); now the probe is killed past 10 s or 1 MiB
// of output and the build refused, naming why; nothing is left running.
TEST(Reliability, CompareBuildsKillsAProbeThatNeverEnds) {
  if (access("/usr/bin/yes", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/yes";
  const std::string out = Stem("endless_probe");
  fs::remove_all(out);
  std::vector<std::string> args = CompareArgs(out);
  args.insert(args.begin() + 1, {"--builds", "a=/usr/bin/yes,b=" + kBinary});
  const Outcome o = RunWirebench("endless_probe", args, std::chrono::seconds(60));
  EXPECT_EQ(o.rc, 2) << o.err;
  EXPECT_NE(o.err.find("--builds a=/usr/bin/yes is not a wirebench binary (`/usr/bin/yes version` "
                       "did not finish within 10 s"),
            std::string::npos)
      << o.err;
  EXPECT_TRUE(ProcessesRunning({"/usr/bin/yes", "version"}).empty());
  fs::remove_all(out);
}

// SIGKILL of `compare --builds` in the middle of a cell
// left the cell's wirebench and its co-located server running. Each child
// now dies with the process that started it.
TEST(Reliability, CompareBuildsKilledLeavesNoCellRunning) {
  const std::string out = Stem("killed_builds");
  fs::remove_all(out);
  std::vector<std::string> args = {"compare", "--builds", "x=" + kBinary + ",y=" + kBinary,
                                   "--codecs", "raw", "--workloads", kWorkloadA, "--threads", "1",
                                   "--repeat", "1", "--seconds", "60", "--warmup", "0",
                                   "--records", "100", "--out", out};
  WirebenchProcess run(kBinary, args, Stem("killed_builds"), ProcessGroup::kOwn);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::vector<pid_t> procs;
  // The cell's `wirebench compare` and its co-located server (and what that
  // starts) are running.
  while ((procs = Descendants(run.pid())).size() < 2) {
    ASSERT_EQ(run.Wait(std::chrono::seconds(0)), -1) << run.Stderr();
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << run.Stderr();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // Polling /proc.
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  procs = Descendants(run.pid());
  ASSERT_EQ(kill(run.pid(), SIGKILL), 0);
  ASSERT_NE(run.Wait(std::chrono::seconds(10)), -1);
  const auto killed = std::chrono::steady_clock::now();
  for (pid_t p : procs) {
    while (ProcessAlive(p) && std::chrono::steady_clock::now() < killed + std::chrono::seconds(10))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // Polling /proc.
    EXPECT_FALSE(ProcessAlive(p)) << "process " << p << " outlived compare by 10 s";
  }
  fs::remove_all(out);
}

}  // namespace
}  // namespace wirebench
