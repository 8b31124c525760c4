#include "regions/wal/walpe/walpe.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "regions/wal/wal_reader.h"

namespace wirebench {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "walpe_test-XXXXXX").string();
    EXPECT_NE(mkdtemp(t.data()), nullptr);
    path_ = t;
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs walpe in-process with the given arguments; returns its exit code and
// sets *out to what it printed.
int Walpe(std::vector<std::string> args, std::string* out) {
  args.insert(args.begin(), "walpe");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  testing::internal::CaptureStdout();
  const int rc = RunWalpe(int(argv.size()), argv.data());
  *out = testing::internal::GetCapturedStdout();
  return rc;
}

TEST(Walpe, SmallRunVerifiesEveryRecord) {
  TempDir dir;
  std::string out;
  ASSERT_EQ(Walpe({"-threads", "4", "-iterations", "250", "-verify", "-path", dir.path()}, &out), 0)
      << out;
  EXPECT_NE(out.find("Verify: OK, 1000 records"), std::string::npos) << out;
  EXPECT_NE(out.find("Summary: threads=4, iterations=250, syncInterval=0 took "), std::string::npos)
      << out;
  EXPECT_NE(out.find("Append meter: count=1000,"), std::string::npos) << out;
  EXPECT_NE(out.find("countPerSync (appends per sync): count="), std::string::npos) << out;
  EXPECT_NE(out.find("Latency of one append+sync (ns): count=1000,"), std::string::npos) << out;
  EXPECT_NE(out.find("CPU per op: "), std::string::npos) << out;
  EXPECT_NE(out.find("Context switches per op: "), std::string::npos) << out;
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

}  // namespace
}  // namespace wirebench
