// `wirebench diff BASE NEW`: the before/after table of two saved comparisons
// (compare output folders or result files), with --fail-above as a CI gate;
// and `wirebench version`, what `compare --builds` asks a binary before it
// runs its cells (its result schema version and build environment, as JSON).
#pragma once

#include <CLI/CLI.hpp>

namespace wirebench {

void AddDiffCommand(CLI::App& app, int* exit_code);
void AddVersionCommand(CLI::App& app, int* exit_code);

}  // namespace wirebench
