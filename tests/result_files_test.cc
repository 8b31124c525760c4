// The result files of a real `wirebench run` (the binary, co-located
// server): --json to /dev/full fails with a message and leaves the device
// alone; --json through a symlink writes its target and keeps the link;
// the result carries a run id, so merging it with itself is refused.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "bench/results/result_json.h"
#include "tests/read_file.h"
#include "tests/temp_dir.h"
#include "tests/wirebench_paths.h"

namespace wirebench {
namespace {

namespace fs = std::filesystem;

const std::string kRun = kBinary + " run -P " + std::string(WIREBENCH_SOURCE_DIR) +
                         "/workloads/workloada -p recordcount=100 -p operationcount=200";

class ResultFiles : public ::testing::Test {
 protected:
  // Runs a command line; returns its exit status, with stderr in *err.
  int Run(const std::string& cmd, std::string* err) {
    const std::string e = (dir_ / "stderr.txt").string();
    const int st = std::system((cmd + " >/dev/null 2>" + e).c_str());
    *err = testing::ReadFile(e);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  const testing::TempDir tmp_{"wirebench_result_files_test"};
  const fs::path dir_{tmp_.path()};
};

TEST_F(ResultFiles, JsonToDevFullIsAnErrorAndTheDeviceStays) {
  std::string err;
  EXPECT_NE(Run(kRun + " --json /dev/full", &err), 0);
  EXPECT_NE(err.find("cannot write /dev/full"), std::string::npos) << err;
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST_F(ResultFiles, JsonThroughASymlinkWritesTheTargetAndMergeRefusesItTwice) {
  fs::create_directories(dir_ / "kept");
  const fs::path link = dir_ / "latest.json";
  fs::create_symlink("kept/run1.json", link);
  std::string err;
  ASSERT_EQ(Run(kRun + " --json " + link.string(), &err), 0) << err;
  EXPECT_TRUE(fs::is_symlink(link));
  auto doc = ReadResultFile((dir_ / "kept/run1.json").string());
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_TRUE(doc->doc["results"]["run_id"].is_string());
  EXPECT_EQ(Run(kBinary + " merge " + link.string() + " " + (dir_ / "kept/run1.json").string(),
                &err),
            2);
  EXPECT_NE(err.find("are the same run"), std::string::npos) << err;
}

}  // namespace
}  // namespace wirebench
