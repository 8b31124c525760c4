#include "bench/loadgen/colocated_server.h"

namespace wirebench {

std::vector<std::string> ChildServerArgs(const ColocatedServerOptions& o, bool quiet) {
  const RegionConfig& r = o.region;
  std::vector<std::string> args = {"--rpc", o.rpc, "--io-threads", std::to_string(o.io_threads),
                                   "--handlers",   std::to_string(o.handlers),
                                   "--region",     r.name,
                                   "--null-reads", r.null_reads,
                                   "--spin-us",    std::to_string(r.spin_us),
                                   "--delay-us",   std::to_string(r.delay_us),
                                   "--spin-instructions", std::to_string(r.spin_instructions)};
  if (!r.wal_dir.empty()) {
    args.insert(args.end(), {"--wal-dir", r.wal_dir, "--wal-sync", r.wal_sync,
                             "--wal-sync-interval", std::to_string(r.wal_sync_interval), "--wal-recover", r.wal_recover});
  }
  if (quiet) args.push_back("--quiet");
  return args;
}

}  // namespace wirebench
