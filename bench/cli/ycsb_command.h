// `wirebench load` and `wirebench run`: YCSB's command line (-P, -p,
// -threads, -target, -s, -l) against a wirebench server, co-located (a child
// server process) unless --server is given. The flags are declared here;
// the run itself is RunYcsb (bench/loadgen/ycsb_run.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace wirebench {

struct YcsbRunOptions;

// --instructions and --instruction-warmup-ops (run, load and compare).
void AddInstructionFlags(CLI::App* cmd, YcsbRunOptions* o);
// When --instructions was given and this process is not yet the one under
// callgrind: re-runs this command line under Valgrind, sets *exit_code and
// returns true.
bool ReRunUnderCallgrind(const YcsbRunOptions& o, int* exit_code);

void AddYcsbCommands(CLI::App& app, int* exit_code);
// Rewrites YCSB's single-dash long options (-threads, -target, -load, -db)
// into the double-dash form CLI11 parses.
std::vector<std::string> TranslateYcsbArgs(int argc, char** argv);

}  // namespace wirebench
