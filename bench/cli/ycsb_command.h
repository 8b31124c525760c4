// `wirebench load` and `wirebench run`: YCSB's command line (-P, -p,
// -threads, -target, -s, -l) against a wirebench server, co-located (a child
// server process) unless --server is given. The flags are declared here;
// the run itself is RunYcsb (bench/loadgen/ycsb_run.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace wirebench {

void AddYcsbCommands(CLI::App& app, int* exit_code);
// Rewrites YCSB's single-dash long options (-threads, -target, -load, -db)
// into the double-dash form CLI11 parses.
std::vector<std::string> TranslateYcsbArgs(int argc, char** argv);

}  // namespace wirebench
