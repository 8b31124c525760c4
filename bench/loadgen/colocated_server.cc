#include "bench/loadgen/colocated_server.h"

#include <cerrno>
#include <cstring>

#include "bench/loadgen/instructions.h"
#include "rpc/free_ports.h"

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

Status CheckColocatedServers(int servers) {
  if (servers >= 1 && servers <= kMaxColocatedServers) return Status::Ok();
  return Status::InvalidArgument("--servers must be 1 to " + std::to_string(kMaxColocatedServers) +
                                 ", got " + std::to_string(servers));
}

std::vector<std::string> ClusterMemberArgs(const ColocatedServerOptions& server,
                                           const ClusterFlags& flags, const ClusterPlan& plan,
                                           int k, bool quiet) {
  std::vector<std::string> args = ChildServerArgs(server, quiet);
  for (const std::string& a :
       {std::string("--cluster"), flags.servers, std::string("--cluster-index"), std::to_string(k),
        std::string("--cluster-regions"), std::to_string(plan.layout.regions()),
        std::string("--cluster-split"), flags.split, std::string("--cluster-start-code"),
        std::to_string(plan.start_code_base)})
    args.push_back(a);
  return args;
}

StatusOr<ClusterPlan> SpawnColocatedCluster(int servers, const ClusterFlags& cluster,
                                            const ColocatedServerOptions& server,
                                            const std::vector<std::string>& extra, bool quiet,
                                            LocalServers* local) {
  const std::vector<uint16_t> ports = rpc::FreeLoopbackPorts(servers);
  if (ports.empty())
    return Status::IoError(std::string("cannot find free loopback ports for --servers: ") +
                           std::strerror(errno));
  ClusterFlags flags = cluster;
  for (uint16_t port : ports)
    flags.servers += (flags.servers.empty() ? "127.0.0.1:" : ",127.0.0.1:") + std::to_string(port);
  auto plan = ClusterPlanFromFlags(flags);
  if (!plan.ok()) return plan.status();
  for (int k = 0; k < servers; ++k) {
    std::vector<std::string> args = ClusterMemberArgs(server, flags, *plan, k, quiet || k > 0);
    args.insert(args.end(), extra.begin(), extra.end());
    auto spawned = LocalServer::Spawn(args, server.cpus, SelfExecutable());
    if (!spawned.ok())
      return Status::Unavailable("co-located cluster server " + std::to_string(k) + " of " +
                                 std::to_string(servers) + ": " +
                                 spawned.status().ToString() +
                                 " (its port was free a moment before: run again)");
    local->push_back(std::move(spawned).value());
  }
  return plan;
}

}  // namespace wirebench
