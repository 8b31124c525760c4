// The load driver: N closed-loop (or open-loop, with a target rate) logical
// clients, run as coroutines on a few client event-loop threads, sharing a
// few multiplexed connections, each with one operation in flight (or
// DriverOptions::pipeline, as lanes). It
// records latency per operation type in per-thread HdrHistograms (merged
// without loss at the end), counts results as YCSB does, and measures the
// client's own CPU, allocations and context switches over the measured
// phase, with the server's figures fetched over the Stats call before and
// after it.
// RunLoad drives one run through its phases (see LoadRun in driver.cc):
// start the client threads, connect, warm up, measure, drain, collect.
// Thread-safety: RunLoad is called from one thread; it owns every thread it
// starts and joins them before returning. A stop may be requested from any
// thread (stop_request.h).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/loadgen/operation.h"
#include "bench/loadgen/stop_request.h"
#include "bench/results/run_result.h"
#include "nullregion/cluster.h"
#include "common/status.h"
#include "common/thread_stats.h"
#include "rpc/call_channel.h"
#include "transports/transport.h"

namespace wirebench {

// One logical client's stream of operations. Used by one thread.
class OpStream {
 public:
  virtual ~OpStream() = default;
  // Plans the next operation. False when this client has nothing more to do
  // (its share of the operation count is done).
  virtual bool Next(PlannedOp* op) = 0;
  // Called as soon as a Get reply of `op` is decoded, while its views are
  // valid (they are not by the time the operation finishes, because other
  // logical clients share the codec). Returns the result to count: kOk, or
  // kNotFound (the null region's empty answer). A stream that checks the
  // values (YCSB's dataintegrity) sets `verify` too.
  virtual OpResult OnRead(const PlannedOp& op, const GetResponse& read) {
    return read.result.exists || !read.result.cells.empty() ? OpResult::kOk : OpResult::kNotFound;
  }
  // The same for each read a batch carried (PlannedOp::batched_read), as its
  // Multi reply is decoded: `get` is the read's action, `result` its answer.
  virtual OpResult OnBatchedRead(const GetRequest& get, const Result& result) {
    return result.exists || !result.cells.empty() ? OpResult::kOk : OpResult::kNotFound;
  }
  // The most reads one batch holds (0: reads are not batched), so the
  // logical client sizes their bookkeeping once.
  virtual uint32_t max_batched_reads() const { return 0; }
  // Called after every operation with the result counted for it.
  virtual void Finish(const PlannedOp& op, OpResult result) {}
  // After Next() returned false or the run was stopped: plans a final flush
  // of buffered writes (clientbuffering). False when there is none.
  virtual bool Flush(PlannedOp* op) { return false; }

  // The check of the last read's values, as YCSB's CoreWorkload.verifyRow
  // times it: its result (kOk, kUnexpectedState, or kError for no data) and
  // how long it took. Set by OnRead; the logical client records it as a
  // VERIFY operation when the operation finishes and resets `result`.
  struct Verification {
    OpResult result = OpResult::kCount;  // kCount: no check pending.
    int64_t ns = 0;
  };
  Verification verify;
};

// Makes one OpStream per logical client.
class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::unique_ptr<OpStream> NewStream(int client_index, int client_count) = 0;
};

enum class ThreadModel {
  kCoroutines,  // Logical clients as coroutines on client_io_threads event loops.
  kOs,          // One OS thread per logical client; the threads share the connections
                // (rpc::SharedConnection, rpc/shared_channel.h), or, over a transport without
                // shared connections, each thread has its own endpoint.
};

struct DriverOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  // A null cluster (nullregion/cluster.h), when it has several servers:
  // host and port are unused; each client thread keeps `connections` to
  // every server and each call goes to the server holding its row's region
  // (HBase's codecs name that region), as HBase's client sends each
  // operation to its region's server. The server's figures are the
  // cluster's, with each server's beside them (RunResult::cluster_servers).
  ClusterPlan cluster;
  // The codec every connection uses (codecs/codec.h). Never null.
  const CodecInfo* codec = &Codecs().front();
  // RPC layer (--rpc); the server must serve the same one. Never null.
  const Transport* transport = &DefaultTransport();
  // The transport's own client options (Transport::ClientOptionSpecs, by
  // flag: gRPC's --grpc-cq-threads).
  OptionSettings transport_client_options;
  // Logical clients (YCSB -threads), each with `pipeline` operations in flight.
  int threads = 1;
  // Operations each logical client keeps in flight on its connection
  // (memtier_benchmark's --pipeline). A logical client is `pipeline` lanes:
  // LogicalClients that share its client thread, connection and codec, each
  // with one operation in flight and its own stream (lane j of client i
  // draws stream j * threads + i of threads * pipeline), latency timed from
  // its own send. The client's share of `operations` is split over its
  // lanes; in an open loop each lane keeps 1/pipeline of the client's rate,
  // so -target is the same in all and the pipeline bounds what is
  // outstanding. Coroutine model only: an OS-model thread blocks for each reply.
  int pipeline = 1;
  // Client event-loop threads the logical clients are spread over.
  int client_io_threads = 1;
  // Connections in all, spread over the client threads (at least one each;
  // with ThreadModel::kOs the threads share them, at most one per thread).
  int connections = 1;
  ThreadModel thread_model = ThreadModel::kCoroutines;
  // Operations to measure in all (0 = no limit); split evenly over clients.
  int64_t operations = 0;
  // Stop measuring after this many seconds (0 = no limit).
  double max_seconds = 0;
  // Run this long before measuring; warm-up operations are not recorded
  // and do not count against `operations`.
  double warmup_seconds = 0;
  // Open loop: operations per second in all (0 = closed loop).
  double target_ops = 0;
  // Every this many seconds, call `on_status` from the driver's thread (0 = never).
  double status_interval_s = 0;
  std::function<void(double elapsed_s, const struct StatusSnapshot&)> on_status;
  // End the run (partial, the error naming the stall) when no operation
  // has completed for this many seconds while measuring (0 = never); in an
  // open loop, plus one client's interval between operations.
  double stall_timeout_s = 30;
  // Fetch the server's Stats before and after the measured phase.
  bool fetch_server_stats = true;
  // Keep every measured latency sample (RunResult::samples): YCSB's raw and
  // timeseries measurement types and its .hdr logs need them. Costs memory
  // per operation (reserved up front when the operation count is known).
  bool keep_samples = false;
  // Allocate each client thread's latency histograms of the operation types
  // before the measured phase, as a warm-up does: for a run with no warm-up
  // of its own whose measured phase must not count their allocation (the
  // --instructions run, whose warm-up is a run before it).
  bool histograms_up_front = false;
  // The binding times its own cleanup as well as DBWrapper does (HBaseClient2:
  // two CLEANUP samples per logical client); false for YCSB's BasicDB, whose
  // cleanup DBWrapper alone times (one per client). A cleanup that flushed
  // buffered puts is always the binding's UPDATE sample too.
  bool binding_times_cleanup = true;
  // YCSB's BasicDB basicdb.simulatedelay: each operation's call waits this
  // many ms first, inside its measured latency (0 = none); with
  // `call_delay_random` (basicdb.randomizedelay) a uniform whole number of
  // ms in [0, call_delay_ms) instead, as ThreadLocalRandom.nextInt draws it.
  int64_t call_delay_ms = 0;
  bool call_delay_random = true;
  // YCSB's BasicDB itself (the basic binding): no server and no connection.
  // Each planned call is answered in the client's own process as BasicDB
  // answers it (Status.OK; a read leaves its result empty, a scan returns no
  // records), so the run measures the client's own cost alone: workload,
  // keys, values, measurement. host, port and fetch_server_stats are unused.
  bool in_process = false;
  // A run of several client processes measured as one (--mpi, bench/mpi/):
  // called on the driver's thread at the phase boundaries, and only there.
  // `ready`: every connection is up and the warm-up has run; a non-OK status
  // ends the run before anything is measured (RunLoad returns it). `start`:
  // the measured phase starts when it returns (the client's "before"
  // snapshots and the phase change follow at once); the server's "before"
  // Stats are fetched right after it with a warm-up (operations run up to
  // the start), right before it without one. `end`: the measured
  // phase has ended and drained and the client's "after" snapshots are
  // taken (`result` holds them), before the server's "after" Stats.
  std::function<Status()> on_ready;
  std::function<void()> on_start;
  std::function<void(const RunResult& result)> on_end;
};

// Checks each option (ranges, the codec name) and the load's size against
// the call-slot limit and this host (client_limits.h); messages name the
// command-line flag and its valid range. RunLoad calls it first.
Status ValidateDriverOptions(const DriverOptions& options);

// Runs the workload against the server in `options`. Never loses what was
// measured: on a server failure or a stop request the result is returned
// with partial = true and the error set. Never blocks for long once a stop
// is requested or max_seconds has passed: calls the server leaves
// unanswered are given up (the connection closed) after a short drain.
StatusOr<RunResult> RunLoad(const DriverOptions& options, Workload* workload);

}  // namespace wirebench
