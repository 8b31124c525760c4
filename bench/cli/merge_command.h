// `wirebench merge`: combines the JSON results of client processes that ran
// against one server at the same time (clients on several hosts) into one
// result of the same shape as a single run's (see bench/results/merge.h), prints
// its YCSB-style text report and writes the merged JSON atomically.
#pragma once

#include <CLI/CLI.hpp>

namespace wirebench {

void AddMergeCommand(CLI::App& app, int* exit_code);

}  // namespace wirebench
