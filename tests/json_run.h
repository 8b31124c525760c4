// Runs the real binary with `--json FILE` and reads the file back: what the
// end-to-end run tests check (exit status, stderr, the result document).
#pragma once

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/silent_listener.h"
#include "tests/wirebench_paths.h"

namespace wirebench::testing {

struct JsonRun {
  int rc = -1;
  std::string err;
  nlohmann::json doc;  // The whole result file; null when none was written.
};

// `wirebench ARGS --json STEM.json`, its output in STEM.out and STEM.err,
// bounded by two minutes.
inline JsonRun RunForJson(const std::string& stem, std::vector<std::string> args) {
  const std::string json_path = stem + ".json";
  std::remove(json_path.c_str());
  args.push_back("--json");
  args.push_back(json_path);
  WirebenchProcess p(kBinary, args, stem);
  JsonRun out;
  out.rc = p.Wait(std::chrono::seconds(120));
  out.err = p.Stderr();
  std::ifstream in(json_path);
  if (in) out.doc = nlohmann::json::parse(in, nullptr, false);
  return out;
}

}  // namespace wirebench::testing
