// Turns a RunResult into what users read: YCSB's text output line for line
// (plus wirebench's cost lines in the same `[SECTION], name, value` shape),
// per-operation costs on both sides, and the self-describing JSON result.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/results/run_result.h"

namespace wirebench {

// Per-operation costs of one side, over the measured phase.
struct SideCosts {
  bool available = false;  // False when the figures could not be fetched.
  std::string unavailable_reason;
  double cpu_us = 0, user_us = 0, sys_us = 0;
  double io_cpu_us = 0, handler_cpu_us = 0;  // Server: by thread role.
  double allocs = 0, alloc_bytes = 0;
  bool allocs_available = false;
  double encode_copied = 0, decode_copied = 0;  // Payload bytes copied by codecs.
  double voluntary_switches = 0, involuntary_switches = 0;
  double wire_bytes_out = 0, wire_bytes_in = 0;
  // Hardware counters per op; when !hw_available, hw_reason says why.
  bool hw_available = false;
  std::string hw_reason;
  double cycles = 0, instructions = 0, cache_misses = 0;
  int threads = 0;
};

struct RunCosts {
  SideCosts client, server;
  double frames_per_write = 0;  // Client-side coalescing.
};

RunCosts ComputeCosts(const RunResult& r);

struct ReportOptions {
  std::vector<double> percentiles = {50, 95, 99};
  // Which latencies to print: "op", "intended" or "both" (measurement.interval).
  std::string measurement_interval = "op";
};

// YCSB's text output followed by wirebench's cost lines.
std::string FormatTextReport(const RunResult& r, const RunCosts& costs, const ReportOptions& o);

// Result JSON: "results" (per operation type: counts, latency summary,
// encoded histogram), "costs" and "server" (Stats before/after). The caller
// adds "config" and "environment".
nlohmann::json ResultToJson(const RunResult& r, const RunCosts& costs, const ReportOptions& o);

// The environment of this build and machine: CPU, kernel, compiler,
// library versions, git revision, build type.
nlohmann::json EnvironmentJson();

// Writes `contents` to `path` atomically (temp file + rename), so an
// interrupted run never leaves a half-written file where a good one was.
Status WriteFileAtomically(const std::string& path, const std::string& contents);

}  // namespace wirebench
