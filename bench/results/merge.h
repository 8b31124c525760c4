// Merging the results of client processes that ran against one server at
// the same time (a multi-host run: one server, clients on several hosts),
// into one result with exactly the shape of a single run's: latency
// histograms merged bucket by bucket, counts and client CPU, allocations,
// copies and wire bytes summed, throughput as the summed operations over the
// longest runtime, and the server's figures taken once, from the earliest
// "before" and the latest "after" Stats snapshot (by the server's uptime),
// divided by the summed operations (report.h's ComputeCosts does the
// arithmetic, so merged and single-run costs cannot drift apart).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/results/report.h"
#include "bench/results/result_json.h"
#include "bench/results/run_result.h"
#include "common/status.h"

namespace wirebench {

// Merges runs made against one server at the same time. Fails when `runs`
// is empty, when their server Stats name different servers (bind, port,
// io_threads), or when one run is given twice (same run_id, directly or
// inside a merged input: its counts would double). Runs without server Stats leave the merged server figures
// unavailable (server_stats_error says which input lacked them).
// `names` (same length as runs, or empty) is used in messages.
[[nodiscard]] StatusOr<RunResult> MergeRunResults(const std::vector<RunResult>& runs,
                                                  const std::vector<std::string>& names = {});

struct MergeOutcome {
  RunResult result;
  RunCosts costs;
  nlohmann::json json;  // The merged result document (same shape as one run's).
  std::string text;     // YCSB text report with wirebench's cost lines.
  std::vector<std::string> warnings;  // E.g. runs that did not overlap in time.
};

// Merges whole result documents: MergeRunResults (a document without a
// run_id, written before run ids, is identified by RunIdentity) plus the document around
// it ("config" lists the inputs' configurations, "environment" this host's
// and the inputs'), the text report, and the report options (percentiles,
// measurement.interval) of the first input.
[[nodiscard]] StatusOr<MergeOutcome> MergeResults(const std::vector<NamedResult>& inputs);

// What a caller that gathered the inputs itself (--mpi) adds to the merge.
struct MergeNotes {
  std::string head;            // Lines printed before the [MERGE] lines.
  std::string partial_reason;  // Not empty: the merged result is partial, for this reason.
};
[[nodiscard]] StatusOr<MergeOutcome> MergeResults(const std::vector<NamedResult>& inputs,
                                                  const MergeNotes& notes);

}  // namespace wirebench
