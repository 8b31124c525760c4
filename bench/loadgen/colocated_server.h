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

}  // namespace wirebench
