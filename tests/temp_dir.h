// A fresh directory under the system's temporary folder, removed with
// everything in it when the test ends.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace wirebench::testing {

class TempDir {
 public:
  // `stem` names the folder (stem-XXXXXX), so a leftover says whose it was.
  explicit TempDir(const std::string& stem) {
    std::string t = (std::filesystem::temp_directory_path() / (stem + "-XXXXXX")).string();
    EXPECT_NE(mkdtemp(t.data()), nullptr);
    path_ = t;
  }
  // Named after the running test (Suite.Name), or "wirebench_test" outside one.
  TempDir() : TempDir(RunningTestStem()) {}
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  static std::string RunningTestStem() {
    const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
    if (t == nullptr) return "wirebench_test";
    std::string stem = std::string(t->test_suite_name()) + "." + t->name();
    // A parameterized test's name holds '/', which would make a path.
    for (char& c : stem)
      if (c == '/') c = '_';
    return stem;
  }

  std::string path_;
};

}  // namespace wirebench::testing
