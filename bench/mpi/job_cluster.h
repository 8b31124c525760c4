// `run|load --mpi --servers N`: a null cluster placed by the launcher as
// ranks of the same MPI job as its clients. The last N ranks serve (rank 0,
// which prints the report, stays a client, and the client ranks keep the
// numbers 0..C-1 that partition the load); each serving rank picks the
// address of its host that rank 0's host is reached from (or its address
// in --mpi-server-network) and a free port on it, the addresses go to
// every rank (MPI_Allgather), and every rank builds the same plan from them
// (start codes derive from the list). Each serving rank then starts its
// server as `run --servers` starts a co-located one (a child `wirebench
// server --cluster LIST --cluster-index K --bind ADDRESS`) and waits; the
// client ranks run as `run --mpi --cluster LIST` in a communicator of
// their own and, once rank 0 has reported, release the servers with a
// barrier over every rank.
// Every step is collective and ends alike on every rank: either every rank
// goes on or every rank gets the same error (rank 0 prints it).
// Thread-safety: used from the main thread only (MPI_THREAD_FUNNELED).
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/loadgen/local_server.h"
#include "bench/loadgen/ycsb_run.h"

namespace wirebench::mpi {

// One server of the job's cluster.
struct ServerRank {
  int rank = 0;
  std::string host;     // The rank's host name.
  std::string address;  // HOST:PORT, as the plan lists it.
};

struct JobCluster {
  bool serving = false;
  int index = -1;                       // A serving rank's place in the plan.
  MPI_Comm comm = MPI_COMM_NULL;        // This rank's side: the clients', or the servers'.
  std::vector<ServerRank> servers;      // In the plan's order.
  std::string list;                     // HOST:PORT,... for --cluster.
  std::unique_ptr<LocalServer> server;  // A serving rank's server process.
};

// Places the cluster (see above); collective over MPI_COMM_WORLD.
Status PlaceJobCluster(const YcsbRunOptions& o, JobCluster* out);

// A serving rank, once placed: keeps its server up until the client ranks
// release it (ReleaseServers), then stops it. Returns the rank's exit
// status: 0, or 3 when its server died before the release. A stop request
// (the launcher's SIGTERM) ends the process at once.
int ServeUntilReleased(JobCluster* c);

// A client rank at its end, after rank 0 has reported: the barrier that
// releases the servers. False when it did not complete within `timeout_s`.
bool ReleaseServers(double timeout_s);

}  // namespace wirebench::mpi
