// The `--instructions` figures (bench/results/instruction_figures.h) in the
// result JSON: the "instructions" object of "results". The text lines are
// part of the report's measurements (report.cc); the compare rows are typed
// metrics (compare_metrics.cc).
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "bench/results/instruction_figures.h"

namespace wirebench {

// What instruction counts cover, as the reports say it.
inline constexpr char kInstructionScope[] =
    "user-space instructions only (Valgrind callgrind); kernel work is not counted";

// {"operations", "scope", "client": {...}, "server": {...}} with per-op
// "total", "codec", "rpc", "region", "harness", "other" ("available": false
// and "unavailable_reason" when a side has none).
nlohmann::json InstructionsToJson(const InstructionFigures& f);

}  // namespace wirebench
