// The settings of a server region and of the co-located server a load
// starts (`wirebench server` as a child process, see local_server.h), and
// the child's command line built from them. The region and its options come
// from the region registry (regions/registry.h), as the `server` command
// parses them.
// Thread-safety: plain values and a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/loadgen/cluster_flags.h"
#include "bench/loadgen/local_server.h"
#include "common/status.h"
#include "regions/registry.h"
#include "transports/transport.h"

namespace wirebench {

struct ColocatedServerOptions {
  // The child's --rpc (RunYcsb sets the client's); nullptr: the server's default.
  const Transport* rpc = nullptr;
  int io_threads = 1;
  int handlers = 0;
  std::string cpus;  // Pin the child to these CPUs (empty = no pinning).
  RegionConfig region;
};

// `wirebench server` arguments (without --port, which LocalServer adds).
std::vector<std::string> ChildServerArgs(const ColocatedServerOptions& o, bool quiet);

// The most servers `--servers` starts on one host (run, measure).
constexpr int kMaxColocatedServers = 64;

// `--servers N` in range, or the error that says so.
Status CheckColocatedServers(int servers);

// Server k of the cluster `flags` lists: the child's arguments, the whole
// plan spelled out, so every server computes the same one.
std::vector<std::string> ClusterMemberArgs(const ColocatedServerOptions& server,
                                           const ClusterFlags& flags, const ClusterPlan& plan,
                                           int k, bool quiet);

// `servers` co-located servers as one null cluster on loopback (`run
// --servers`, `measure --servers`): each a child process pinned as
// `server.cpus` says, started with the same plan (`flags` without servers:
// their regions and split) and `extra` arguments, appended to `local` in
// plan order. Returns the plan they serve.
StatusOr<ClusterPlan> SpawnColocatedCluster(int servers, const ClusterFlags& flags,
                                            const ColocatedServerOptions& server,
                                            const std::vector<std::string>& extra, bool quiet,
                                            LocalServers* local);

}  // namespace wirebench
