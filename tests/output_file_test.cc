// WriteOutputFile (bench/results/output_file.h): a regular file is replaced
// atomically; a FIFO, /dev/null, /dev/full, a symlink and "-" are written
// through or followed and never replaced; a write error is a Status; a
// directory is a clear error. WriteFileAtomically forwards to it.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>

#include "bench/results/output_file.h"
#include "bench/results/report.h"
#include "tests/read_file.h"
#include "tests/temp_dir.h"

namespace wirebench {
namespace {

namespace fs = std::filesystem;

class OutputFile : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string Read(const std::string& path) { return testing::ReadFile(path); }
  // Files left in the directory besides `expected` (no temp files left over).
  size_t Entries() const {
    return size_t(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  const testing::TempDir tmp_{"wirebench_output_file_test"};
  const fs::path dir_{tmp_.path()};
};

TEST_F(OutputFile, RegularFileIsReplacedAtomicallyAndKeepsItsMode) {
  const std::string p = Path("out.json");
  ASSERT_TRUE(WriteOutputFile(p, "first").ok());
  EXPECT_EQ(Read(p), "first");
  ASSERT_EQ(::chmod(p.c_str(), 0600), 0);
  ASSERT_TRUE(WriteFileAtomically(p, "second").ok());
  EXPECT_EQ(Read(p), "second");
  EXPECT_EQ(fs::status(p).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(Entries(), 1u);  // No temp file left behind.
}

TEST_F(OutputFile, DevFullIsAnErrorAndStaysADevice) {
  Status s = WriteOutputFile("/dev/full", "some bytes");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.ToString().find("/dev/full"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find(std::strerror(ENOSPC)), std::string::npos) << s.ToString();
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  // /dev/null swallows the bytes and stays a device.
  EXPECT_TRUE(WriteFileAtomically("/dev/null", "x").ok());
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(OutputFile, FifoIsWrittenThroughToItsReader) {
  const std::string p = Path("pipe");
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  auto reader = std::async(std::launch::async, [&] { return Read(p); });
  const std::string body(200000, 'r');  // More than a pipe buffer.
  const Status s = WriteOutputFile(p, body);
  if (!s.ok()) ::close(::open(p.c_str(), O_WRONLY | O_NONBLOCK));  // Release the reader.
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(reader.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  EXPECT_EQ(reader.get(), body);
  EXPECT_TRUE(fs::is_fifo(p));
}

TEST_F(OutputFile, SymlinkIsFollowedAndStaysALink) {
  fs::create_directories(dir_ / "real");
  const std::string target = Path("real/result.json");
  std::ofstream(target) << "old";
  const std::string link = Path("link.json");
  fs::create_symlink("real/result.json", link);  // Relative to the link's directory.
  const std::string chain = Path("chain.json");
  fs::create_symlink(link, chain);
  ASSERT_TRUE(WriteOutputFile(chain, "new").ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_symlink(chain));
  EXPECT_EQ(Read(target), "new");
  EXPECT_EQ(size_t(std::distance(fs::directory_iterator(dir_ / "real"), fs::directory_iterator())),
            1u);
  // A dangling link: the file it names is created, the link kept.
  const std::string dangling = Path("dangling.json");
  fs::create_symlink("real/created.json", dangling);
  ASSERT_TRUE(WriteOutputFile(dangling, "made").ok());
  EXPECT_TRUE(fs::is_symlink(dangling));
  EXPECT_EQ(Read(Path("real/created.json")), "made");
}

TEST_F(OutputFile, DashWritesToStdout) {
  const std::string captured = Path("stdout.txt");
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  const int fd = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ::dup2(fd, STDOUT_FILENO);
  ::close(fd);
  std::printf("before ");  // Buffered stdio output comes first.
  const Status s = WriteOutputFile("-", "to stdout\n");
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Read(captured), "before to stdout\n");
  EXPECT_FALSE(fs::exists(Path("-")));
}

TEST_F(OutputFile, DirectoryIsAClearError) {
  Status s = WriteOutputFile(dir_.string(), "x");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.ToString().find("is a directory"), std::string::npos) << s.ToString();
  EXPECT_TRUE(fs::is_directory(dir_));
  // A directory that does not exist: the error names the path.
  s = WriteOutputFile(Path("no/such/dir/out.json"), "x");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("no/such/dir/out.json"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace wirebench
