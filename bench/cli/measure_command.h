// `wirebench measure [options] -- COMMAND ARGS...`: the per-operation cost of
// a client wirebench did not write, counted by the server
// (bench/loadgen/measure.h).
#pragma once

#include <CLI/CLI.hpp>

namespace wirebench {

// Adds the `measure` subcommand to `app`; its callback runs it and sets
// `exit_code` to the command's exit status (2 when nothing could be measured).
void AddMeasureCommand(CLI::App& app, int* exit_code);

}  // namespace wirebench
