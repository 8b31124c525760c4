// The result model of one run: per-operation-type latency histograms and
// result counts, open-loop schedule figures, the client's CPU and counters
// over the measured phase, and the server's Stats replies before and after
// it. The load generator fills it (bench/loadgen/driver.h); reports, the
// result file and merge read it (bench/results/).
// Thread-safety: plain values.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hdr/histogram.h"
#include "bench/results/floor_figure.h"
#include "bench/results/instruction_figures.h"
#include "bench/results/op_type.h"
#include "common/status.h"
#include "common/thread_stats.h"
#include "rpc/call_channel.h"

namespace wirebench {

// Per-operation-type figures of a run (or of an interval).
struct OpStats {
  // Every answered operation, OK and NOT_FOUND, ns from the actual send:
  // what the wire and the server did (compare's and the hlog's latency).
  hdr::Histogram latency;
  // The NOT_FOUND ones among them (a subset of `latency`). YCSB's report
  // counts them as failed: its <OP> is latency minus these, its <OP>-FAILED
  // (or <OP>-NOT_FOUND) these plus failed_latency.
  hdr::Histogram not_found_latency;
  // The same from the intended start time (open loop), YCSB's Intended-<OP>.
  hdr::Histogram intended_latency;
  // Failed operations (ERROR; UNEXPECTED_STATE for VERIFY), ns from the actual send.
  hdr::Histogram failed_latency;
  std::array<uint64_t, size_t(OpResult::kCount)> results{};
  uint64_t count() const {
    uint64_t n = 0;
    for (uint64_t r : results) n += r;
    return n;
  }
  // Has anything to report: counted operations, or latencies recorded with
  // no result (CLEANUP; with clientbuffering, the binding's UPDATE sample of
  // its final flush).
  bool present() const { return count() > 0 || latency.total_count() > 0; }
  void Add(const OpStats& o);
};

// One recorded latency, kept only when a measurement type needs every
// sample (YCSB's raw and timeseries measurements, its .hdr interval logs).
struct LatencySample {
  int64_t end_ns = 0;       // Steady-clock ns of the operation's end.
  int64_t latency_ns = 0;   // From the actual start.
  int64_t intended_ns = -1;  // From the intended start (open loop), or -1.
  OpType type = OpType::kRead;
  OpResult result = OpResult::kOk;
  // Measured by the binding itself (HBaseClient2's cleanup sample): in
  // YCSB's op measurements only, never in its intended ones.
  bool binding_only = false;
};

struct StatusSnapshot {
  bool final = false;                     // The last one, at the end of the run.
  uint64_t operations = 0;                // Since the measured phase began.
  std::array<OpStats, kOpTypes> interval;  // Since the previous snapshot.
};

struct RunResult {
  // Names this run in merges ("merge a.json a.json" is refused). The result
  // JSON writer gives a result without one a fresh id (result_json.h).
  std::string run_id;
  // A merged result: the run ids it was made of (so it cannot be merged
  // again with one of its own inputs).
  std::vector<std::string> merged_run_ids;
  bool partial = false;  // Stopped early (server lost, SIGINT): figures cover what ran.
  Status error;          // Why it stopped early.
  // Calls the server answered with an error (e.g. a wal region that cannot
  // write: Return=ERROR operations), and the first one's reason.
  uint64_t error_replies = 0;
  std::string first_error_reply;
  double runtime_s = 0;  // Of the measured phase.
  uint64_t operations = 0;  // Measured operations.
  // YCSB's [OVERALL] span (Client.java's st..en): from the client threads'
  // start (before they connect) to the end of the last one, cleanup (the
  // final flush) included, and every operation the clients did in it
  // (warm-up included: YCSB's opsDone). 0 in files written before them.
  double client_run_s = 0;
  uint64_t client_operations = 0;
  // measurementtype raw, hdrhistogram+raw, timeseries, or hdrhistogram.fileoutput:
  // every measured latency sample (not stored in the result file).
  std::vector<LatencySample> samples;
  // samples[i].end_ns + samples_epoch_ns = wall-clock ns since the epoch.
  int64_t samples_epoch_ns = 0;
  std::array<OpStats, kOpTypes> ops;
  // Open loop: how late operations started against their schedule, ns (all
  // operations; includes waiting for the client's previous operation).
  hdr::Histogram schedule_lateness;
  // Open loop: lateness of the operations whose client was idle and woke on
  // its timer for them: the pacing's own precision.
  hdr::Histogram timer_lateness;
  // Open loop: operations that found their client still busy with the
  // previous one at their intended start (the server fell behind).
  uint64_t behind_schedule = 0;
  // Set by `wirebench measure` (bench/loadgen/measure.h): the client was
  // this command, which wirebench did not write. client_usage is then its
  // whole process tree's CPU and context switches; its allocations, codec
  // copies and hardware counters are not known.
  std::string external_client;
  ThreadUsage client_usage;      // Client loop threads, over the measured phase.
  CounterTotals client_counters;  // Allocations and copies of client loop threads.
  rpc::ClientConnectionStats connections;
  // Stats replies, or null when not fetched. Against a null cluster, the
  // whole cluster's (CombineClusterStats): every server's threads, and its
  // counters summed, so every figure read from them is the cluster's.
  nlohmann::json server_before;
  nlohmann::json server_after;
  std::string server_stats_error;
  // run --floor: the machine's floor for this run's bytes, measured right
  // after it (none when not asked, or floor_error says why it is missing).
  std::optional<FloorFigure> floor;
  std::string floor_error;
  // Against a null cluster: each server's own Stats, in the plan's order.
  struct ClusterServer {
    std::string address;  // HOST:PORT
    nlohmann::json before, after;  // Null when not read (after: the server was lost).
    // Logical clients whose call to it failed (its connection broke), and
    // when the first did, in seconds from the start of the measured phase
    // (< 0: none failed).
    uint64_t client_failures = 0;
    double first_failure_s = -1;
  };
  std::vector<ClusterServer> cluster_servers;
  // --instructions runs only (hook: bench/loadgen/instructions.h fills it).
  std::optional<InstructionFigures> instructions;
};

}  // namespace wirebench
