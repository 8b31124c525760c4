// `wirebench compare`: the flags of the codec comparison; the matrix itself
// runs in RunCompare (bench/loadgen/compare_runner.h).
#pragma once

#include <CLI/CLI.hpp>

namespace wirebench {

void AddCompareCommand(CLI::App& app, int* exit_code);

}  // namespace wirebench
