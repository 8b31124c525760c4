// The settings of a server region and of the co-located server a load
// starts (`wirebench server` as a child process, see local_server.h), and
// the child's command line built from them. The `server` command parses the
// same RegionConfig (bench/cli/region_factory.h builds the region).
// Thread-safety: plain values and a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wirebench {

struct RegionConfig {
  std::string name = "null";
  std::string null_reads = "empty";
  uint32_t spin_us = 0;
  uint32_t delay_us = 0;
  uint32_t spin_instructions = 0;  // Null region: a loop of exactly this many instructions per call.
  std::string wal_dir;
  std::string wal_sync = "every";  // Sync mode for the wal region.
  uint32_t wal_sync_interval = 100;
  std::string wal_recover = "refuse";  // What recovery does with damage: refuse or skip-damaged.
};

struct ColocatedServerOptions {
  std::string rpc = "wirebench";  // The child's --rpc (set to the client's by RunYcsb).
  int io_threads = 1;
  int handlers = 0;
  std::string cpus;  // Pin the child to these CPUs (empty = no pinning).
  RegionConfig region;
};

// `wirebench server` arguments (without --port, which LocalServer adds).
std::vector<std::string> ChildServerArgs(const ColocatedServerOptions& o, bool quiet);

}  // namespace wirebench
