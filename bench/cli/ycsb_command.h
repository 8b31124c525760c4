// `wirebench load` and `wirebench run`: YCSB's command line (-P, -p,
// -threads, -target, -s, -l) against a wirebench server, co-located (a child
// server process) unless --server is given. Prints YCSB's text output and
// wirebench's cost lines; writes the JSON result and exports on request.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "bench/loadgen/driver.h"
#include "bench/cli/region_factory.h"
#include "bench/results/report.h"

namespace wirebench {

// Options of one load/run invocation (also used by `compare` per cell).
struct YcsbCommandOptions {
  bool load_phase = false;
  std::vector<std::string> property_files;
  std::vector<std::string> properties;  // key=value overrides.
  int threads = 0;                      // 0 = threadcount property.
  double target = -1;                   // <0 = target property.
  bool status = false;
  std::string label;
  std::string server;  // HOST:PORT; empty = co-located.
  std::string codec = "raw";
  int connections = 1;
  int client_io_threads = 1;
  std::string thread_model = "coroutines";
  int64_t ops = -1;      // operationcount override.
  double seconds = -1;   // maxexecutiontime override.
  double warmup = 0;
  std::string json_out;
  std::string hlog_out;
  std::string client_cpus;
  // Co-located server.
  int server_io_threads = 1;
  int handlers = 0;
  std::string server_cpus;
  RegionConfig region;
  bool quiet = false;  // No text report on stdout (compare prints its own).
  // --instructions: count instructions under callgrind (bench/loadgen/instructions.h).
  bool instructions = false;
  int64_t instruction_warmup_ops = 2000;
  bool run_flag = false;  // YCSB's -t, accepted and implied.
  std::string db;         // YCSB's -db, accepted and ignored.
};

// What one invocation produced.
struct YcsbOutcome {
  RunResult result;
  RunCosts costs;
  nlohmann::json json;  // The full result document.
  std::string text;     // The text report.
};

void AddYcsbCommands(CLI::App& app, int* exit_code);
// Rewrites YCSB's single-dash long options (-threads, -target, -load, -db)
// into the double-dash form CLI11 parses.
std::vector<std::string> TranslateYcsbArgs(int argc, char** argv);
// Runs one load or run and returns its outcome (results are kept even when
// the run stopped early: see RunResult::partial).
StatusOr<YcsbOutcome> RunYcsb(const YcsbCommandOptions& o);

}  // namespace wirebench
