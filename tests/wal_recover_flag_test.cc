// `wirebench server --region wal` on a damaged log, through the real binary:
// it refuses to start (naming --wal-recover) until started with
// --wal-recover=skip-damaged, and prints what recovery found and did.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "bench/loadgen/local_server.h"
#include "regions/wal/wal_format.h"
#include "regions/wal/wal_region.h"
#include "tests/wirebench_paths.h"

namespace wirebench {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Writes a log of 300 puts and overwrites 200 bytes in its middle.
std::string WriteDamagedLog(const std::string& dir) {
  WalOptions o;
  o.directory = dir;
  o.nosync = true;
  {
    auto r = NewWalRegion(o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    const std::string value(100, 'v');
    for (int i = 0; i < 300; ++i) {
      const std::string row = "row" + std::to_string(i);
      Cell c{ByteView(row), ByteView("f"), ByteView("q"), 0, CellType::kPut, ByteView(value)};
      Mutation m{ByteView(row), MutationType::kPut, 0, std::span<const Cell>(&c, 1)};
      MutateResponse resp;
      EXPECT_TRUE((*r)->Mutate(m, &resp).ok());
    }
  }
  const std::string seg = dir + "/" + wal::SegmentFileName(1);
  std::fstream f(seg, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(std::streamoff(fs::file_size(seg) / 2));
  f.write(std::string(200, '\x5a').data(), 200);
  return seg;
}

// Runs `wirebench server ARGS` to completion (it is expected to refuse to
// start); returns its exit status and its stdout+stderr.
int RunServerExpectingExit(const std::string& args, std::string* out) {
  FILE* p = popen(("timeout 60 " + kBinary + " server --port 0 " + args + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out->append(buf, n);
  return pclose(p);
}

TEST(WalRecoverFlag, RefusesDamageUntilToldToSkipItAndReportsWhatItDid) {
  ASSERT_TRUE(fs::exists(kBinary)) << kBinary;
  const std::string dir =
      (fs::temp_directory_path() / ("wb-walrec-" + std::to_string(getpid()))).string();
  fs::remove_all(dir);
  const std::string seg = WriteDamagedLog(dir);
  const std::string damaged = ReadFile(seg);

  std::string out;
  const int status = RunServerExpectingExit("--region wal --wal-dir " + dir, &out);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 2) << out;
  EXPECT_NE(out.find(seg + " at offset "), std::string::npos) << out;
  EXPECT_NE(out.find("valid records resume at offset"), std::string::npos) << out;
  EXPECT_NE(out.find("--wal-recover=skip-damaged"), std::string::npos) << out;
  EXPECT_EQ(out.find("listening on"), std::string::npos) << out;
  EXPECT_EQ(ReadFile(seg), damaged) << "a refused recovery changed the log";

  out.clear();
  EXPECT_NE(RunServerExpectingExit("--region wal --wal-dir " + dir + " --wal-recover=maybe", &out),
            0);
  EXPECT_NE(out.find("--wal-recover must be refuse or skip-damaged, got 'maybe'"),
            std::string::npos)
      << out;

  // Started with skip-damaged (its stderr captured through a file), the
  // server reports the skipped range and its side file, then serves.
  const std::string err_path = dir + ".stderr";
  fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  FILE* err = fopen(err_path.c_str(), "w");
  ASSERT_NE(err, nullptr);
  dup2(fileno(err), STDERR_FILENO);
  auto server = LocalServer::Spawn(
      {"--region", "wal", "--wal-dir", dir, "--wal-recover", "skip-damaged", "--quiet"}, "",
      kBinary);
  dup2(saved, STDERR_FILENO);
  close(saved);
  fclose(err);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  (*server)->Stop();
  const std::string report = ReadFile(err_path);
  EXPECT_NE(report.find("record(s) replayed from 1 segment(s)"), std::string::npos) << report;
  EXPECT_NE(report.find("wal: skipped damage: " + seg + " at offset "), std::string::npos)
      << report;
  EXPECT_NE(report.find("the damaged bytes are kept in " + seg + ".damaged-"), std::string::npos)
      << report;
  EXPECT_NE(report.find("wal: rewrote " + seg), std::string::npos) << report;
  EXPECT_TRUE(fs::exists(seg));
  bool side_file = false;
  for (const auto& e : fs::directory_iterator(dir))
    side_file |= e.path().filename().string().find(".damaged-") != std::string::npos;
  EXPECT_TRUE(side_file);

  // Repaired: a plain start now succeeds.
  auto again = LocalServer::Spawn({"--region", "wal", "--wal-dir", dir, "--quiet"}, "", kBinary);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  (*again)->Stop();
  fs::remove_all(dir);
  fs::remove(err_path);
}

}  // namespace
}  // namespace wirebench
