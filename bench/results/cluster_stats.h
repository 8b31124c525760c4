// A null cluster's server figures (DriverOptions::cluster): the Stats of
// every server combined into one document of the same shape, so every figure
// read from a run's server Stats (costs.h) is the whole cluster's, and each
// server's own figures beside it: its calls, CPU per call, bytes, and how
// unevenly the calls fell.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/results/run_result.h"

namespace wirebench {

// One document from every server's Stats: each server's threads (told apart
// by their tids, which no two processes share), its counters summed (calls,
// bytes, frames, the process's and the region's counts), and the first
// server's description ("server": address, RPC layer, instance).
nlohmann::json CombineClusterStats(const std::vector<nlohmann::json>& each);

// One server's share of a run.
struct ClusterServerFigures {
  std::string address;
  double calls = 0;        // Region calls it answered (Mutate, Get, Scan, Multi).
  double share = 0;        // Of all servers' calls.
  double cpu_us_per_call = 0;
  double cpu_s = 0;        // Its CPU over the measured phase.
  double bytes_in_per_call = 0, bytes_out_per_call = 0;
  bool available = false;  // Both its Stats were read.
};

struct ClusterFigures {
  std::vector<ClusterServerFigures> servers;
  // The busiest server's calls over the mean (1 = even).
  double imbalance = 0;
  // The run's operations per second of server CPU, summed over the
  // servers: gRPC's benchmark reports the same figure (QPS per server core).
  double ops_per_server_core_s = 0;
  // Region lookups in hbase:meta the servers answered (--rpc hbase; the
  // other layers route from the plan and make none): over the measured
  // phase per operation, and before it (the clients' connect). -1: no
  // server counts them.
  double meta_lookups_per_op = -1;
  int64_t meta_lookups_before = -1;
};

// Empty `servers` when the run was not against a cluster.
ClusterFigures ComputeClusterFigures(const RunResult& r);

}  // namespace wirebench
