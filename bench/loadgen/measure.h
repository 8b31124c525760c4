// `wirebench measure`: the cost per operation of a client wirebench did not
// write (HBASE-10001's experiment, where YCSB's Java client was the thing
// measured). Starts the co-located server as `run` does (or uses --server),
// takes its Stats, runs COMMAND as the client to its end, takes its Stats
// again, and reports per operation counted by the server (its calls between
// the two snapshots, Stats and Ping left out): the command's whole process
// tree's CPU and context switches (process_tree.h), the server's CPU by
// thread role, allocations and copies, and wire bytes, as the YCSB-style
// lines and the JSON result of a `run` (bench/results/), plus the calls by
// method and what became of the command.
//
// The command learns where the server is from its environment
// (WIREBENCH_SERVER=HOST:PORT, WIREBENCH_SERVER_HOST, WIREBENCH_SERVER_PORT,
// WIREBENCH_SERVERS=HOST:PORT,... (a cluster's, in order; the one server's
// otherwise), WIREBENCH_ZOOKEEPER when --zookeeper is given) and from the
// placeholders {server}, {servers}, {host}, {port} and {zookeeper} in its
// arguments. Against a null cluster ({server} is its first server, which
// holds hbase:meta) each server's Stats are read and reported apart, as
// `run` reports them.
// Thread-safety: RunMeasure is called from one thread at a time.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/loadgen/colocated_server.h"
#include "common/status.h"

namespace wirebench {

struct MeasureOptions {
  std::vector<std::string> command;
  const Transport* rpc = &DefaultTransport();  // --rpc; never null.
  std::string server;     // HOST:PORT of a running server; empty = co-located.
  std::string zookeeper;  // Passed to the co-located servers (--rpc hbase).
  // A null cluster: `servers` co-located servers (--servers), or a running
  // one (cluster.servers, --cluster); the plan's regions and split.
  int servers = 1;
  ClusterFlags cluster;
  ColocatedServerOptions colocated;
  std::string out;        // JSON result file; empty = none.
  std::string label;
  std::chrono::milliseconds sample_interval{20};
  bool quiet = false;     // No report on stdout.
};

struct MeasureOutcome {
  int command_exit_code = 0;
  bool server_figures = false;  // Both Stats snapshots were taken.
  uint64_t operations = 0;
  int stop_signal = 0;  // SIGINT/SIGTERM received while the command ran (0: none).
  nlohmann::json json;
  std::string text;
};

// An error when nothing could be measured (bad options, a server that did
// not start, a command that could not be started); otherwise the outcome,
// whatever the command's exit status.
StatusOr<MeasureOutcome> RunMeasure(const MeasureOptions& o);

// The server's calls between two Stats snapshots, by method, Stats and
// Ping left out (they are the instrument's, not the client's).
nlohmann::json CallsBetween(const nlohmann::json& before, const nlohmann::json& after);

}  // namespace wirebench
