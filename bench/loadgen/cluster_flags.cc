#include "bench/loadgen/cluster_flags.h"

#include <utility>
#include <vector>

#include "bench/loadgen/host_port.h"

namespace wirebench {

StatusOr<ClusterPlan> ClusterPlanFromFlags(const ClusterFlags& flags) {
  auto split = ParseSplitAlgorithm(flags.split);
  if (!split.ok()) return split.status();
  std::vector<rpc::Endpoint> servers;
  if (!flags.servers.empty()) {
    size_t start = 0;
    while (start <= flags.servers.size()) {
      size_t comma = flags.servers.find(',', start);
      if (comma == std::string::npos) comma = flags.servers.size();
      rpc::Endpoint e;
      WB_RETURN_IF_ERROR(
          ParseHostPort(flags.servers.substr(start, comma - start), &e.host, &e.port, "--cluster"));
      servers.push_back(std::move(e));
      start = comma + 1;
    }
  }
  return MakeClusterPlan(std::move(servers), flags.regions, *split, flags.start_code);
}

}  // namespace wirebench
