#include "regions/wal/walpe/walpe.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "regions/wal/wal_reader.h"
#include "tests/expect_text.h"
#include "tests/temp_dir.h"
#include "tests/sanitized_build.h"

namespace wirebench {
namespace {

namespace fs = std::filesystem;

using testing::ExpectHoldsAll;
using testing::TempDir;

// Runs walpe in-process with the given arguments; returns its exit code and
// sets *out to what it printed.
int Walpe(std::vector<std::string> args, std::string* out) {
  args.insert(args.begin(), "walpe");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  const int rc = RunWalpe(int(argv.size()), argv.data());
  *out = ::testing::internal::GetCapturedStdout();
  return rc;
}

TEST(Walpe, SmallRunVerifiesEveryRecord) {
  TempDir dir;
  std::string out;
  ASSERT_EQ(Walpe({"-threads", "4", "-iterations", "250", "-verify", "-path", dir.path()}, &out), 0)
      << out;
  ExpectHoldsAll(out, {"Verify: OK, 1000 records",
                       "Summary: threads=4, iterations=250, syncInterval=0 took ",
                       "Append meter: count=1000,", "countPerSync (appends per sync): count=",
                       "Latency of one append+sync (ns): count=1000,", "CPU per op: ",
                       "Context switches per op: "});
  // Cleaned up afterwards: nothing left in the directory.
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(Walpe, SyncIntervalNosyncAndKeptLogReadBack) {
  TempDir dir;
  std::string out;
  ASSERT_EQ(Walpe({"--threads", "3", "--iterations", "100", "--syncInterval", "10", "--nosync",
                   "--keySize", "20", "--valueSize", "64", "--verify", "--nocleanup", "--path",
                   dir.path()},
                  &out),
            0)
      << out;
  EXPECT_NE(out.find("Verify: OK, 300 records"), std::string::npos) << out;
  EXPECT_NE(out.find("fdatasync calls=0"), std::string::npos) << out;
  // The log was kept: read it back independently.
  std::string run_dir;
  for (const auto& e : fs::directory_iterator(dir.path())) run_dir = e.path().string();
  ASSERT_FALSE(run_dir.empty());
  auto reader = wal::WalReader::Open(run_dir);
  ASSERT_TRUE(reader.ok());
  wal::WalRecord rec;
  int n = 0;
  for (;;) {
    auto more = reader.value()->Next(&rec);
    ASSERT_TRUE(more.ok());
    if (!more.value()) break;
    EXPECT_EQ(rec.mutation.row.size(), 20u);
    ASSERT_EQ(rec.mutation.cells.size(), 1u);
    EXPECT_EQ(rec.mutation.cells[0].value.size(), 64u);
    ++n;
  }
  EXPECT_EQ(n, 300);
}

TEST(Walpe, SweepPrintsOneRowPerThreadCount) {
  TempDir dir;
  std::string out;
  ASSERT_EQ(Walpe({"--threads", "1,2,5", "--iterations", "40", "--path", dir.path()}, &out), 0)
      << out;
  EXPECT_NE(out.find("clients"), std::string::npos) << out;
  for (const char* t : {"threads=1,", "threads=2,", "threads=5,"})
    EXPECT_NE(out.find(std::string("Summary: ") + t), std::string::npos) << t << "\n" << out;
}

TEST(Walpe, RejectsBadArguments) {
  std::string out;
  EXPECT_EQ(Walpe({"--threads", "1,x"}, &out), 2);
  EXPECT_EQ(Walpe({"--keySize", "4"}, &out), 2);
  EXPECT_EQ(Walpe({"--bogus"}, &out), 2);
}

TEST(Walpe, RejectsZeroAndNegativeIterationsNamingTheFlag) {
  for (const char* n : {"0", "-1"}) {
    std::string out;
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(Walpe({"-iterations", n}, &out), 2) << n;
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("--iterations must be at least 1 (appends per thread); got " +
                       std::string(n)),
              std::string::npos)
        << err;
    EXPECT_LT(err.size(), 200u) << err;  // Not CLI11's 300-digit range.
  }
}

// Runs walpe in a child process with TMPDIR=tmp (so its temporary directory
// lands there) after `limit(child)` adjusts the child's limits. Returns the
// wait status; *err gets the child's stderr.
int WalpeInChild(const std::vector<std::string>& args, const std::string& tmp,
                 void (*limit)(), std::string* err,
                 const std::function<void(pid_t)>& while_running = nullptr) {
  TempDir out_dir;
  const std::string err_path = out_dir.path() + "/stderr";
  const pid_t pid = fork();
  if (pid == 0) {
    FILE* f = std::freopen(err_path.c_str(), "w", stderr);
    if (!f) _exit(120);
    setenv("TMPDIR", tmp.c_str(), 1);
    limit();
    std::vector<std::string> a = args;
    a.insert(a.begin(), "walpe");
    std::vector<char*> argv;
    for (std::string& s : a) argv.push_back(s.data());
    const int rc = RunWalpe(int(argv.size()), argv.data());
    std::fflush(stderr);
    _exit(rc);
  }
  if (while_running) while_running(pid);
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  std::ifstream in(err_path);
  err->assign(std::istreambuf_iterator<char>(in), {});
  return status;
}

// More threads than the process may have is refused up
// front with a message naming the limit, and no temporary directory is left.
TEST(Walpe, RefusesMoreThreadsThanRlimitNprocUpFront) {
  TempDir tmp;
  std::string err;
  const int status = WalpeInChild({"-threads", "100", "-iterations", "1", "-nosync"}, tmp.path(),
                                  [] {
                                    rlimit rl;
                                    getrlimit(RLIMIT_NPROC, &rl);
                                    rl.rlim_cur = 50;
                                    setrlimit(RLIMIT_NPROC, &rl);
                                  },
                                  &err);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 2) << err;
  EXPECT_NE(err.find("-threads 100 needs 107 threads but RLIMIT_NPROC (ulimit -u) allows 50"),
            std::string::npos)
      << err;
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

// A thread that cannot be created (here: address space for its stack runs
// out under ulimit -v, a limit the up-front check does not model) fails the
// run with a message instead of an uncaught std::system_error (abort, rc
// 134), and the temporary directory is removed.
// Not in sanitizer builds: under the address-space limit ASan's own per-thread
// allocations (its fake stacks) can be what fails first, and it aborts.
TEST(Walpe, ThreadCreationFailureIsReportedAndTheTemporaryDirectoryRemoved) {
  if (testing::kSanitizedBuild)
    GTEST_SKIP() << "the sanitizer runtime's own allocations run into the address-space limit";
  TempDir tmp;
  std::string err;
  const int status = WalpeInChild({"-threads", "4000", "-iterations", "1", "-nosync"}, tmp.path(),
                                  [] {
                                    // Room for the run's data, not for 4000 thread stacks.
                                    std::ifstream statm("/proc/self/statm");
                                    uint64_t pages = 0;
                                    statm >> pages;
                                    const rlim_t as = rlim_t(pages * uint64_t(getpagesize()) +
                                                             (uint64_t(1) << 30));
                                    rlimit rl{as, as};
                                    setrlimit(RLIMIT_AS, &rl);
                                  },
                                  &err);
  ASSERT_TRUE(WIFEXITED(status)) << "walpe died: " << status << "\n" << err;
  EXPECT_EQ(WEXITSTATUS(status), 1) << err;
  ExpectHoldsAll(err, {"could not start thread ", " of 4000 (", "lower -threads"});
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

// SIGINT in the middle of a run stops it, and the temporary directory goes
// with it (the run would take hours otherwise).
TEST(Walpe, SigintStopsTheRunAndRemovesTheTemporaryDirectory) {
  TempDir tmp;
  const int watch = inotify_init1(IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  ASSERT_GE(inotify_add_watch(watch, tmp.path().c_str(), IN_CREATE), 0);
  std::string err;
  bool created = false;
  const int status = WalpeInChild(
      {"-threads", "2", "-iterations", "1000000000", "-nosync"}, tmp.path(), [] {}, &err,
      [&](pid_t child) {
        // walpe makes its temporary directory once its signal handlers are in.
        pollfd p{watch, POLLIN, 0};
        created = poll(&p, 1, 60000) == 1;
        kill(child, created ? SIGINT : SIGKILL);
      });
  close(watch);
  ASSERT_TRUE(created) << "walpe never created its temporary directory";
  ASSERT_TRUE(WIFEXITED(status)) << "walpe died: " << status << "\n" << err;
  EXPECT_EQ(WEXITSTATUS(status), 1) << err;
  EXPECT_NE(err.find("stopped by SIGINT"), std::string::npos) << err;
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

}  // namespace
}  // namespace wirebench
