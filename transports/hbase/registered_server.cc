#include "transports/hbase/registered_server.h"

#include <nlohmann/json.hpp>  // StatsJson's return type.

#ifdef WIREBENCH_HAVE_ZOOKEEPER
#include "transports/hbase/zookeeper_registration.h"
#endif

namespace wirebench::hbaserpc {

#ifdef WIREBENCH_HAVE_ZOOKEEPER

namespace {

class RegisteredServer final : public rpc::ServerWrapper {
 public:
  RegisteredServer(std::unique_ptr<HBaseServer> server,
                   std::unique_ptr<hbase::ZooKeeperRegistration> registration)
      : server_(std::move(server)), registration_(std::move(registration)) {
    Wrap(server_.get());
  }
  ~RegisteredServer() override { Stop(); }

  Status Start() override { return Status::Ok(); }  // Started before it was registered.
  void Stop() override {
    registration_.reset();  // Removes the nodes: no client is sent here any more.
    server_->Stop();
  }

 private:
  std::unique_ptr<HBaseServer> server_;
  std::unique_ptr<hbase::ZooKeeperRegistration> registration_;
};

}  // namespace

Status CheckZooKeeperOption(const ZooKeeperOptions& options) {
  if (options.zookeeper.empty()) return Status::Ok();
  if (options.timeout_ms < 1)
    return Status::InvalidArgument("--zookeeper-timeout-ms must be at least 1");
  auto target = hbase::ParseZooKeeperFlag(options.zookeeper);
  return target.ok() ? Status::Ok() : target.status();
}

StatusOr<std::string> FindServerInZooKeeper(const std::string& zookeeper,
                                            std::chrono::milliseconds timeout) {
  auto target = hbase::ParseZooKeeperFlag(zookeeper);
  if (!target.ok()) return target.status();
  auto found = hbase::LookupMetaRegionServer(*target, timeout);
  if (!found.ok())
    return Status::Unavailable("--zookeeper " + zookeeper + ": " +
                               std::string(found.status().message()) +
                               "; is `wirebench server --rpc hbase --zookeeper " + zookeeper +
                               "` running?");
  const bool v6 = found->host.find(':') != std::string::npos;
  return (v6 ? "[" + found->host + "]" : found->host) + ":" + std::to_string(found->port);
}

StatusOr<std::unique_ptr<rpc::TransportServer>> MaybeRegisterInZooKeeper(
    std::unique_ptr<HBaseServer> server, const ZooKeeperOptions& options) {
  if (options.zookeeper.empty()) return std::unique_ptr<rpc::TransportServer>(std::move(server));
  auto target = hbase::ParseZooKeeperFlag(options.zookeeper);
  if (!target.ok()) return target.status();
  const ServerIdentity& id = server->identity();
  const hbase::ServerName name{id.host, id.port, int64_t(id.start_code)};
  // A cluster's servers are region servers; its server 0 is the master and
  // meta's server too (a lone server is the master alone, as it always was).
  hbase::RegistrationRole role;
  if (const ClusterMember* c = server->cluster()) {
    role.master = c->ServesMeta();
    role.region_server = true;
  }
  auto registration = hbase::ZooKeeperRegistration::Register(
      *target, name, id.cluster_id, std::chrono::milliseconds(options.timeout_ms), role);
  if (!registration.ok()) {
    server->Stop();
    return Status(registration.status().code() == Status::Code::kInvalidArgument
                      ? Status::InvalidArgument("--zookeeper: " +
                                                std::string(registration.status().message()))
                      : Status::Unavailable("--zookeeper: " +
                                            std::string(registration.status().message())));
  }
  return std::unique_ptr<rpc::TransportServer>(
      new RegisteredServer(std::move(server), std::move(registration).value()));
}

#else  // !WIREBENCH_HAVE_ZOOKEEPER

Status CheckZooKeeperOption(const ZooKeeperOptions& options) {
  if (options.zookeeper.empty()) return Status::Ok();
  return Status::InvalidArgument(
      "--zookeeper: this wirebench was built without ZooKeeper's C client; install "
      "libzookeeper-mt-dev and rebuild, or let clients find the server through its RPC "
      "registry (ClientMetaService) at its address");
}

StatusOr<std::string> FindServerInZooKeeper(const std::string&, std::chrono::milliseconds) {
  return Status::InvalidArgument(
      "--zookeeper: this wirebench was built without ZooKeeper's C client; install "
      "libzookeeper-mt-dev and rebuild, or give the server with --server HOST:PORT");
}

StatusOr<std::unique_ptr<rpc::TransportServer>> MaybeRegisterInZooKeeper(
    std::unique_ptr<HBaseServer> server, const ZooKeeperOptions& options) {
  WB_RETURN_IF_ERROR(CheckZooKeeperOption(options));
  return std::unique_ptr<rpc::TransportServer>(std::move(server));
}

#endif

}  // namespace wirebench::hbaserpc
