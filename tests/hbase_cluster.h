// A null cluster of `--rpc hbase` servers inside a test binary: N servers
// on loopback ports the test picked (each bound to 0, read, closed), one
// ClusterPlan over them (nullregion/cluster.h), and each server started
// through the transport registry as `wirebench server --rpc hbase` starts
// one, with its place in the plan and a region of its own behind it
// (its RegionService knowing the place too). Real TCP, real servers; only
// where they run (one process) differs from a deployed cluster.
// Thread-safety: one test thread drives it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/option_settings.h"
#include "nullregion/cluster.h"
#include "nullregion/region.h"
#include "nullregion/region_service.h"
#include "rpc/server_options.h"
#include "rpc/transport_server.h"
#include "transports/transport.h"

namespace wirebench::testing {

// A loopback port nothing listens on right now: bound to 0, read, closed.
inline uint16_t PickLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  uint16_t port = 0;
  if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) close(fd);
  return port;
}

class HBaseCluster {
 public:
  struct Options {
    uint32_t servers = 3;
    uint32_t regions = 0;  // Per table; 0 = the plan's default (4 per server).
    SplitAlgorithm split = SplitAlgorithm::kYcsb;
    // The hbase transport's own --zookeeper, or none.
    std::string zookeeper;
    // The region behind each server.
    std::function<std::unique_ptr<Region>()> region;
  };

  explicit HBaseCluster(Options o) : options_(std::move(o)) {
    // A picked port can be taken between its pick and the server's bind:
    // then the whole cluster is planned again on fresh ports.
    for (int attempt = 0; attempt < 5 && !started_; ++attempt) started_ = TryStart();
    EXPECT_TRUE(started_) << why_;
  }
  ~HBaseCluster() { StopAll(); }
  HBaseCluster(const HBaseCluster&) = delete;
  HBaseCluster& operator=(const HBaseCluster&) = delete;

  bool ok() const { return started_; }
  const std::string& why() const { return why_; }
  const ClusterPlan& plan() const { return plan_; }
  uint32_t size() const { return uint32_t(servers_.size()); }
  uint16_t port(uint32_t k) const { return plan_.servers[k].port; }
  const ClusterMember& member(uint32_t k) const { return *servers_[k]->member; }
  rpc::TransportServer& server(uint32_t k) { return *servers_[k]->server; }
  // The server's "hbase" Stats section.
  nlohmann::json HBaseStats(uint32_t k) { return server(k).StatsJson()["hbase"]; }
  nlohmann::json Stats(uint32_t k) { return server(k).StatsJson(); }
  // The server listening on `port`, or size() when none does.
  uint32_t ServerOnPort(uint16_t p) const {
    for (uint32_t k = 0; k < plan_.servers.size(); ++k)
      if (plan_.servers[k].port == p) return k;
    return size();
  }
  // Stops every server, the last first (server 0, the master, goes last).
  void StopAll() {
    for (size_t k = servers_.size(); k-- > 0;)
      if (servers_[k]->server) servers_[k]->server->Stop();
    servers_.clear();
  }

 private:
  struct Server {
    std::unique_ptr<ClusterMember> member;  // The service and the server point at it.
    std::unique_ptr<Region> region;
    std::unique_ptr<RegionService> service;
    std::unique_ptr<rpc::TransportServer> server;
  };

  bool TryStart() {
    StopAll();
    std::vector<rpc::Endpoint> endpoints;
    for (uint32_t k = 0; k < options_.servers; ++k)
      endpoints.push_back(rpc::Endpoint{"127.0.0.1", PickLoopbackPort()});
    auto plan = MakeClusterPlan(endpoints, options_.regions, options_.split);
    if (!plan.ok()) {
      why_ = plan.status().ToString();
      return false;
    }
    plan_ = *plan;
    auto transport = Transports().Resolve("hbase");
    if (!transport.ok()) {
      why_ = transport.status().ToString();
      return false;
    }
    for (uint32_t k = 0; k < options_.servers; ++k) {
      auto s = std::make_unique<Server>();
      s->member = std::make_unique<ClusterMember>(ClusterMember{plan_, k});
      s->region = options_.region();
      s->service = std::make_unique<RegionService>(s->region.get(), s->member.get());
      rpc::ServerOptions o;
      o.host = "127.0.0.1";
      o.port = plan_.servers[k].port;
      OptionSettings own;
      if (!options_.zookeeper.empty()) own.Set("--zookeeper", options_.zookeeper);
      auto server = (*transport)->StartServer(o, own, s->region.get(), s->service.get(),
                                              s->member.get());
      if (!server.ok()) {
        why_ = "server " + std::to_string(k) + ": " + server.status().ToString();
        return false;
      }
      s->server = std::move(server).value();
      servers_.push_back(std::move(s));
    }
    return true;
  }

  Options options_;
  ClusterPlan plan_;
  std::vector<std::unique_ptr<Server>> servers_;
  bool started_ = false;
  std::string why_;
};

}  // namespace wirebench::testing
