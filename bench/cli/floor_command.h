// `wirebench floor`: the machine's floor for a cell's bytes, a framing-only
// loop over loopback (bench/loadgen/floor.h): what a framed RPC of these
// sizes costs here at the least, to read wirebench's figures against.
#pragma once

#include <CLI/CLI.hpp>

namespace wirebench {

void AddFloorCommand(CLI::App& app, int* exit_code);

}  // namespace wirebench
