// `wirebench load|run --mpi`: one run made of several client processes
// (MPI ranks, placed by mpirun, Slurm's srun or Kubernetes' MPI operator),
// measured as one. Every rank is a client with the run's options; the load
// phase is partitioned among them; all connect and warm up, a barrier starts
// their measured phases together and another ends them; rank 0 takes the
// server's Stats around the whole window, gathers every rank's result and
// merges them with `wirebench merge`'s code (bench/results/merge.h) into one
// report, one JSON result and one .hlog. Without --server, rank 0 starts the
// co-located server and tells the other ranks where it is.
// MPI is called only at phase boundaries; failures are handled over a
// control channel beside it (control_channel.h). See docs/multi-host.md.
// This header is the only one the rest of wirebench sees; it is built with
// or without Open MPI (no_mpi.cc says how to get it).
#pragma once

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

}  // namespace wirebench
