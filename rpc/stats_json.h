// Pieces of a server's Stats reply that every RPC layer writes the same way
// (the network core's rpc::NetServer, the gRPC transport's GrpcServer): the call counts, one
// thread's entry in "threads", the registered server threads, and the process-wide tail (allocation counting,
// hardware counters, getrusage, the Service's own figures).
// Thread-safety: pure functions over counters that may be read from any
// thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/calls.h"
#include "common/thread_stats.h"
#include "rpc/service.h"

namespace wirebench::rpc {

// {"role", "name", "tid", "cpu_ns", ..., "decode_copied"} for one thread.
nlohmann::json ThreadJson(std::string_view role, const std::string& name, int tid,
                          const ThreadUsage& usage, const CounterTotals& counters);

// The entries of every live registered thread with a server role.
nlohmann::json ServerThreadsJson();

// This server process, unlike any other (its pid, when this was first
// called, and random bits): results from different server processes
// cannot be merged (bench/results/merge.h).
const std::string& ServerInstanceId();

// Sets the call counts every transport's Stats reply carries: "calls" (by
// method name, Mutate..Ping, from `calls` indexed by Method), "failed_calls",
// "unknown_method_calls", "frames_in" and "frames_out".
void AppendCallCounts(const uint64_t (&calls)[kMaxMethod + 1], uint64_t failed,
                      uint64_t unknown_method, uint64_t frames_in, uint64_t frames_out,
                      nlohmann::json* j);

// Sets "server"."instance", "allocation_counting", "hw_counters" and
// "process" in `j`, then merges in `service`'s figures.
void AppendProcessAndServiceStats(Service* service, nlohmann::json* j);

}  // namespace wirebench::rpc
