// `wirebench load|run --mpi`: one run made of several client processes
// (MPI ranks, placed by mpirun, Slurm's srun or Kubernetes' MPI operator),
// measured as one. Every rank is a client with the run's options; the load
// phase is partitioned among them; all connect and warm up, a barrier starts
// their measured phases together and another ends them; rank 0 takes the
// server's Stats around the whole window, gathers every rank's result and
// merges them with `wirebench merge`'s code (bench/results/merge.h) into one
// report, one JSON result and one .hlog. Without --server, rank 0 starts the
// co-located server and tells the other ranks where it is. With --servers N
// the job's last N ranks are a null cluster's servers instead of clients,
// and the others drive it (job_cluster.h).
// `compare --mpi` runs one such run per cell of its matrix (MpiCellRunner).
// MPI is called only at phase boundaries; failures are handled over a
// control channel beside it (control_channel.h). See docs/multi-host.md.
// This header is the only one the rest of wirebench sees; it is built with
// or without Open MPI (no_mpi.cc says how to get it).
#pragma once

#include <memory>
#include <string>

#include "bench/loadgen/ycsb_run.h"

namespace wirebench {

// True when this binary was built with Open MPI.
bool MpiBuiltIn();

// What --mpi says in a build without Open MPI: that, and how to get it.
std::string MpiNotBuiltInMessage();

// Runs `o` as this process's rank of an MPI job; returns the exit status
// (0, 1 error replies, 2 not started, 3 partial: a rank failed or died).
int RunYcsbMpi(YcsbRunOptions o);

// `compare --mpi`: one MPI job running a sequence of runs (cells), each as
// `run --mpi` runs one. Every rank must call RunCell with the same cells in
// the same order. Used from one thread.
class MpiCellRunner {
 public:
  virtual ~MpiCellRunner() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  // One cell by every rank: connect and warm up, the aligned window, rank
  // 0's server Stats around it, every rank's result merged on rank 0 (which
  // writes the cell's JSON result and .hlog; `o.quiet` decides whether the
  // merged report is printed: never by compare). Rank 0 gets the merged
  // outcome, the others their own. Errors are every rank's alike (nobody
  // measured: a rank could not connect, the server did not start). After
  // the cell the ranks agree whether to go on; when any wants to stop (a
  // signal, a rank failed or died) StopRequested() is true on every rank.
  virtual StatusOr<YcsbOutcome> RunCell(YcsbRunOptions o) = 0;
  // After the last cell, with this rank's exit status: rank 0 releases the
  // others; returns the status to exit with (or, when a rank died, ends
  // the process without MPI_Finalize: the launcher ends the job).
  virtual int Finish(int code) = 0;
};

// Initialises MPI and opens the job's control channel. nullptr (the reason
// on rank 0's stderr, `exit_code` set) when that failed or MPI is not built in.
std::unique_ptr<MpiCellRunner> StartMpiCells(int* exit_code);

}  // namespace wirebench
