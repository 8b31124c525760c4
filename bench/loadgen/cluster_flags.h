// The null cluster's flags (nullregion/cluster.h) as the commands hold
// them, and the plan they describe: the `server` command's place in a
// cluster, and `run`/`load`'s cluster, co-located (--servers N) or already
// running (--cluster LIST). Servers and clients read the same plan flags, so
// given the same ones they agree on every region.
// Thread-safety: plain values and a pure function.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "nullregion/cluster.h"

namespace wirebench {

struct ClusterFlags {
  std::string servers;         // --cluster HOST:PORT,HOST:PORT,...
  int index = -1;              // --cluster-index (server only)
  uint32_t regions = 0;        // --cluster-regions (0: kDefaultRegionsPerServer per server)
  std::string split = "ycsb";  // --cluster-split
  uint64_t start_code = 0;     // --cluster-start-code (0: derived from the list)
};

// The plan the flags describe (no --cluster: a plan with no servers, not a
// cluster). Errors name the flag.
StatusOr<ClusterPlan> ClusterPlanFromFlags(const ClusterFlags& flags);

}  // namespace wirebench
