#include "bench/loadgen/colocated_server.h"

namespace wirebench {

std::vector<std::string> ChildServerArgs(const ColocatedServerOptions& o, bool quiet) {
  std::vector<std::string> args = {"--io-threads", std::to_string(o.io_threads), "--handlers",
                                   std::to_string(o.handlers)};
  if (o.rpc != nullptr) args.insert(args.begin(), {"--rpc", std::string(o.rpc->name())});
  const std::vector<std::string> region = RegionArgs(o.region);
  args.insert(args.end(), region.begin(), region.end());
  if (quiet) args.push_back("--quiet");
  return args;
}

}  // namespace wirebench
