// The codec comparison matrix behind `wirebench compare`: codecs x
// workloads x thread counts, co-located (a fresh server process per cell),
// each cell repeated, then the comparison tables (Markdown, CSV, JSON),
// per-cell results and .hlog files, and charts written into one folder.
// Thread-safety: RunCompare is called from one thread; it watches
// SIGINT/SIGTERM while it runs and stops the matrix on either.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "bench/loadgen/ycsb_run.h"
#include "bench/results/compare_report.h"
#include "common/host_env.h"
#include "common/status.h"

namespace wirebench {

struct CompareOptions {
  std::vector<const CodecInfo*> codecs;  // Empty = every codec.
  // RPC layers (--rpcs): each codec runs over each. Columns are labelled
  // "codec" for wirebench's own layer and "codec@rpc" for the others;
  // A transport that does not carry a codec (grpc-native carries pb only)
  // skips it.
  std::vector<const Transport*> rpcs = {&DefaultTransport()};
  std::vector<std::string> workloads = {"a"};
  std::string threads = "32";  // A list like "1,3,5,10".
  // Record-size sweep (--fieldlengths, --fieldcounts): lists like
  // "10,100,1000,10000"; empty = the workload's own. Each size is its own
  // cell group (CellWorkload: "workloada-1000B"), the client's records and
  // the co-located null region's canned read both of that shape.
  std::string fieldlengths;
  std::string fieldcounts;
  // Pipeline-depth sweep (--pipelines): a list like "1,8,64" of
  // DriverOptions::pipeline; empty = the cell's own. Each depth is its own
  // cell group (CellWorkload: "workloada-p8").
  std::string pipelines;
  // Batch-size sweep (--batches): a list like "1,10,100" of run's --batch
  // (operations per Multi call); empty = the cell's own. One of --pipelines
  // and --batches at a time.
  std::string batches;
  // Cluster-size sweep (--servers): a list like "1,3,5" of run's --servers
  // (a co-located null cluster of that many servers); empty = one server.
  std::string servers;
  int repeat = 3;
  std::string baseline = "pb";
  // --baseline was given: it must then name a column of the matrix (the
  // default may be absent from it, and the ratios are then left out).
  bool baseline_given = false;
  // --pairwise: also every column against every other for the headline
  // cost row (total instructions when measured, else total CPU).
  bool pairwise = false;
  std::string out;  // Empty = results/compare-<time>.
  double seconds = 5;
  double warmup = 1;
  int64_t records = 100000;
  // Pin the client to CPU 0 and the server to CPU 1 when the machine has 2+
  // CPUs and the cell settings pin neither (less scheduler noise).
  bool pin = true;
  YcsbRunOptions cell;  // Shared settings of every cell.
  // compare --mpi (bench/mpi/mpi_run.h): runs each cell in place of RunYcsb,
  // as one run of every rank of an MPI job (each rank runs this matrix, the
  // same cells in the same order).
  std::function<StatusOr<YcsbOutcome>(YcsbRunOptions)> run_cell;
  // False on the MPI ranks other than rank 0: no progress line, no notes on
  // failed cells (rank 0 gives them), no outputs written.
  bool report = true;
  // Print the comparison (Markdown) on stdout as soon as it is made, before
  // the files and charts are written: a stopped matrix (SIGTERM, a rank that
  // died under mpirun, which sends SIGKILL 1 s after its SIGTERM) shows its
  // table even if the charts do not get written.
  bool print_markdown = false;
  // Not 0: each cell's clients were this many MPI ranks (in the report's
  // setup line and comparison.json).
  int mpi_ranks = 0;
  // Measure the machine's floor for each column's bytes after the matrix
  // (bench/loadgen/floor.h) and add "Total CPU vs floor" rows: co-located
  // wall-clock comparisons only (--no-floor leaves it out).
  bool floor = true;
  // The host each cell's figures (load, steal, other processes' CPU) and the
  // busy-host check before the first cell are read from, and the progress
  // line's clock.
  HostEnv* host_env = &HostEnv::Default();
};

struct CompareOutcome {
  std::vector<CompareCell> cells;
  // The floors measured after the matrix, by (workload group, threads, column).
  std::map<std::tuple<std::string, int, std::string>, FloorFigure> floors;
  std::string out;       // The folder written.
  std::string markdown;  // comparison.md.
  std::vector<std::string> written;
  int repeats_run = 0;  // Repeats started (the last one cut short when interrupted).
  bool interrupted = false;
  // What went wrong, each naming the cell or file and the cause: cells that
  // failed (left out of the tables) and outputs that could not be written.
  // Not empty: the comparison is incomplete (`wirebench compare` exits 2).
  std::vector<std::string> failures;
};

// Runs the matrix and writes its outputs. Errors are for bad options (an
// unknown codec, a workload not found, --out not creatable); a cell that
// fails is reported on stderr, left out and listed in `failures`, as is an
// output that could not be written.
StatusOr<CompareOutcome> RunCompare(CompareOptions o);

// The column run k-th in repeat `rep` of a cell with n columns: the listed
// order on even repeats, reversed on odd ones (ABBA), so a drift in the
// host's speed over the matrix lands on every column alike and cancels in the
// paired ratios instead of favouring the column that always runs first.
size_t ColumnRunAt(size_t n, int rep, size_t k);

// The (codec, RPC layer) pairs of the matrix's columns, in column order,
// and their labels ("raw", "raw@grpc", "raw#2"): the codecs of --codecs (all
// when empty) over each layer of --rpcs, skipping pairs a transport does not
// carry. Errors when no pair is carried.
struct CompareColumns {
  std::vector<const CodecInfo*> codecs;
  std::vector<const Transport*> rpcs;
  std::vector<std::string> labels;
};
StatusOr<CompareColumns> ResolveColumns(const CompareOptions& o);

// A workload of --workloads ("a", "workloada", a file): its short name, e.g.
// "workloada". NotFound when it is none of those.
StatusOr<std::string> WorkloadName(const std::string& w);

// "32" or "1,3,5,10" -> {32} / {1,3,5,10}; each 1-100000.
StatusOr<std::vector<int>> ParseThreadList(const std::string& s);

// The record shapes of --fieldcounts x --fieldlengths: (fieldcount,
// fieldlength) pairs, 0 where a list is empty ({{0, 0}} when both are).
// Errors name the flag and its range (fieldcount 1-4096, fieldlength
// 0-67108864, as YCSB's properties), and a value listed twice.
StatusOr<std::vector<std::pair<int, int>>> ParseRecordShapes(const std::string& fieldcounts,
                                                           const std::string& fieldlengths);

// The values of a per-call sweep (CallSweeps(): --pipelines or --batches):
// "1,8,64" -> {1, 8, 64}; {0} (the cell's own) when empty. Errors name the
// flag and its range (depths 1-65534: the calls one connection carries;
// batches 1-4096, run's --batch), and a value listed twice.
StatusOr<std::vector<int>> ParseDepthList(const std::string& list, const CallSweep& sweep);

}  // namespace wirebench
