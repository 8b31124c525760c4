// A whole file's bytes, for tests that read what a command wrote.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace wirebench::testing {

// The file's contents, or "" when it cannot be read.
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace wirebench::testing
