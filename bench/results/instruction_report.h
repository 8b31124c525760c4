// The `--instructions` figures as report lines (`[CLIENT], InstructionsPerOp,
// ...`, in the text report's `[SECTION], name, value` shape) and as the
// result JSON's "instructions" object.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "bench/results/run_result.h"

namespace wirebench {

// The instruction lines of both sides, then the kernel-side figures that
// instructions leave out (socket calls per op; context switches are in the
// side's own lines).
std::string FormatInstructionLines(const RunResult& r, const InstructionFigures& f);

// {"operations", "scope", "client": {...}, "server": {...}} with per-op
// "total", "codec", "rpc", "region", "harness", "other" (null when a side
// is unavailable, with "unavailable_reason").
nlohmann::json InstructionsToJson(const InstructionFigures& f);

}  // namespace wirebench
