// Per-operation costs of a run on both sides, computed from a RunResult: the
// client's figures over the measured phase, and the server's as the
// difference of its Stats snapshots after and before it (threads matched by
// tid), split by thread role. The text report, the result JSON, merge and
// calibrate all read costs from here, so they cannot drift apart.
// Thread-safety: pure functions.
#pragma once

#include <string>

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
  int threads = 0;  // Threads; for an external client (measure), processes.
  // Non-empty for a client wirebench did not run (`measure`): why its
  // allocations, copies and hardware counters are not given.
  std::string counters_unavailable_reason;
};

struct RunCosts {
  SideCosts client, server;
  double frames_per_write = 0;  // Client-side coalescing.
};

RunCosts ComputeCosts(const RunResult& r);

}  // namespace wirebench
