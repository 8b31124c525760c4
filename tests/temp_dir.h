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
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace wirebench::testing
