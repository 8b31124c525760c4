// One YCSB load or run phase, orchestrated: reads the property files and
// overrides, validates the command-line values, starts the co-located
// server (unless a server address is given), drives the load, and writes
// YCSB's text report, its JSON exports, the wirebench JSON result and the
// .hlog interval log. `wirebench load/run` and `compare` (per cell) call it.
// Thread-safety: RunYcsb is called from one thread at a time (it installs a
// SIGINT/SIGTERM watcher for the duration of the run; a stop request it
// sees stays set, see stop_request.h, until the caller resets it).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/loadgen/cluster_flags.h"
#include "bench/loadgen/colocated_server.h"
#include "bench/loadgen/driver.h"
#include "bench/loadgen/local_server.h"
#include "bench/results/report.h"

namespace wirebench {

// Options of one load/run invocation. An unset optional falls back to its
// YCSB property.
struct YcsbRunOptions {
  bool load_phase = false;
  std::vector<std::string> property_files;
  std::vector<std::string> properties;  // key=value overrides.
  // threadcount and target set by code (compare); the command line turns
  // -threads and -target into -p overrides (TranslateYcsbArgs).
  std::optional<int> threads;
  std::optional<double> target;  // 0 = unthrottled, as YCSB's target=0.
  std::string db;                // The db property (YCSB's -db), recorded.
  std::string binding;           // bin/ycsb's binding name ("hbase2"), or empty.
  bool status = false;
  std::string label;
  std::string server;  // HOST:PORT or [IPV6]:PORT; empty = co-located.
  // A null cluster (nullregion/cluster.h): --servers N co-located servers,
  // or a running cluster's servers (cluster.servers, --cluster).
  int servers = 1;
  ClusterFlags cluster;
  // --mpi with --servers: the network (CIDR) whose address each serving
  // rank is reached at; empty: the one its host reaches rank 0's from.
  std::string mpi_server_network;
  // --codec and --rpc, resolved where they were parsed; the co-located
  // server runs the same transport. Never null.
  const CodecInfo* codec = &Codecs().front();
  const Transport* rpc = &DefaultTransport();
  OptionSettings transport_client_options;  // Transports' own client options, by flag (--grpc-cq-threads).
  int connections = 1;
  int client_io_threads = 1;
  // --batch: operations per Multi call (wirebench.batch); 0 = off.
  int64_t batch = 0;
  int pipeline = 1;  // --pipeline (DriverOptions::pipeline).
  std::string thread_model = "coroutines";
  std::optional<int64_t> ops;     // --ops (operationcount).
  std::optional<int64_t> records;  // --records (recordcount).
  std::optional<double> seconds;  // --seconds (maxexecutiontime).
  double warmup = 0;
  double stall_timeout = 30;  // --stall-timeout (DriverOptions::stall_timeout_s).
  std::string json_out;
  std::string hlog_out;
  std::string client_cpus;
  // --floor: after the run, the machine's floor for its bytes (co-located
  // runs only), and its total CPU against it.
  bool floor = false;
  ColocatedServerOptions colocated;
  bool quiet = false;  // No text report on stdout (compare prints its own).
  // --instructions: this process runs under callgrind (bench/loadgen/instructions.h);
  // a fixed operation count after instruction_warmup_ops unmeasured ones.
  bool instructions = false;
  int64_t instruction_warmup_ops = 2000;

  // One of `parts` client processes of one run (--mpi, bench/mpi/): the load
  // phase inserts only this part's contiguous share of [insertstart,
  // insertstart + insertcount) (YCSB's way of running parallel loads), and
  // the run phase's seed is offset by `part` so the processes do not repeat
  // one another's key sequence. Both are set as properties, so the result
  // records them.
  int part = 0;
  int parts = 1;
  // false: nothing is printed on stdout or written (report, --json, --hlog,
  // exports); the caller merges the outcome (--mpi).
  bool write_outputs = true;
  // false: the server's Stats are not fetched (another process of the run
  // takes them, around every process's window).
  bool fetch_server_stats = true;
  // Called once the server's address is known (the co-located server's
  // after it started), before anything connects.
  std::function<void(const std::string& host, uint16_t port)> on_server;
  // The driver's phase hooks (DriverOptions::on_ready, on_start, on_end).
  std::function<Status()> on_ready;
  std::function<void()> on_start;
  std::function<void(const RunResult& result)> on_end;
};

// What one invocation produced.
struct YcsbOutcome {
  RunResult result;
  RunCosts costs;
  nlohmann::json json;  // The full result document.
  std::string text;     // The text report.
};

// What a null cluster's client refuses in the run's flags (--servers or
// --cluster with --server, --instructions, --batch), before anything starts.
Status CheckClusterOptions(const YcsbRunOptions& o);

// What --floor refuses in the run's flags alone (--instructions, --server,
// --cluster, --servers, --mpi), checked before an --instructions run
// re-runs itself under Valgrind, which a sanitizer build cannot do.
Status CheckFloorOptions(const YcsbRunOptions& o);

// Server `index` of the null cluster `flags` describes (every server
// listed, the run's regions and split), started as the co-located servers
// are (`wirebench server` as a child process, with the run's --rpc, region
// and server options and the workload's canned record), listening on
// `bind` at its port in the list: a serving rank of an MPI job
// (bench/mpi/). The child ends when the calling thread does.
StatusOr<std::unique_ptr<LocalServer>> StartClusterMember(const YcsbRunOptions& o,
                                                          const ClusterFlags& flags, int index,
                                                          const std::string& bind);

// Runs one load or run and returns its outcome (results are kept even when
// the run stopped early: see RunResult::partial).
StatusOr<YcsbOutcome> RunYcsb(const YcsbRunOptions& o);

}  // namespace wirebench
