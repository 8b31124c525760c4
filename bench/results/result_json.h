// The result file's schema, in one place: the "results" section of a result
// document (`wirebench run --json`), written from a RunResult and read back
// into one by the same field list (result_json.cc lists each field once, for
// both directions), so writer and reader cannot drift apart. Write, read and
// write again gives the same bytes.
//
// A result document: {"wirebench_result_version": 1, "config": {...},
// "environment": {...}, "results": {...}}. "results" holds the model
// (run_id, partial/error, runtime_s, operations, per-op return counts and
// encoded histograms, schedule figures, client_raw counters, server Stats
// before/after) and, written only, what is derived from it (runtime_ms,
// throughput, latency summaries, per-op costs).
// Thread-safety: pure functions (ReadResultFile reads a file; NewRunId reads
// the clock and a random device).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "bench/results/costs.h"
#include "bench/results/report_options.h"
#include "bench/results/run_result.h"
#include "common/status.h"

namespace wirebench {

// The wirebench_result_version this code reads and writes.
inline constexpr int kResultVersion = 1;

// One input: a full result document (as `wirebench run --json` writes it)
// and a name for messages (its path).
struct NamedResult {
  std::string name;
  nlohmann::json doc;
};

// Reads and parses one result file; checks it is a wirebench result of a
// version this code reads. Errors name the file and say what to do.
[[nodiscard]] StatusOr<NamedResult> ReadResultFile(const std::string& path);

// The "results" section of a result document. A result without a run_id is
// given a fresh one (NewRunId), so every written result can be told apart.
nlohmann::json ResultToJson(const RunResult& r, const RunCosts& costs, const ReportOptions& o);

// Rebuilds the RunResult of a document's "results" section. Fields a file
// lacks (older versions) keep their defaults. `name` is used in errors.
[[nodiscard]] StatusOr<RunResult> RunResultFromJson(const nlohmann::json& results,
                                                    const std::string& name);

// A fresh run id: 64 random bits in hex, the host name, the pid and the UTC
// time, e.g. "9f2c41d07a3be815-bench1-4242-20261203T060401Z".
std::string NewRunId();

// What identifies the run of a result document: its results.run_id, or for
// files written before run ids, the client host and when the run started
// (the server's uptime at its "before" Stats snapshot), else its size.
std::string RunIdentity(const nlohmann::json& doc);

}  // namespace wirebench
