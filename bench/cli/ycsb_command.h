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
// Rewrites YCSB's command line into what CLI11 parses: for load and run,
// -threads N, -target N and -db CLASS (single- or double-dash) become
// -p threadcount=N, -p target=N and -p db=CLASS in place, so the later of a
// flag and its -p property wins as in YCSB; -load becomes --load.
std::vector<std::string> TranslateYcsbArgs(int argc, char** argv);

// The binding names `wirebench run <binding> -P ...` accepts (bin/ycsb's form).
const std::vector<std::string>& YcsbBindingList();
std::string YcsbBindingNames();  // "hbase2, hbase1, ..."

}  // namespace wirebench
