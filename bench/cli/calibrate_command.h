// `wirebench calibrate`: the instrument checks itself with short co-located
// runs against the null region's calibration knobs (--spin-us, --delay-us),
// compares the CPU it accounts for with what the OS charged, and measures
// its own per-operation timing cost; prints one small table (see
// bench/loadgen/calibrate.h).
#pragma once

#include <CLI/CLI.hpp>

namespace wirebench {

void AddCalibrateCommand(CLI::App& app, int* exit_code);

}  // namespace wirebench
