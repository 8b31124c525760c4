#include "transports/hbase/hbase_server.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include <boost/asio/ip/address.hpp>
#include <nlohmann/json.hpp>

#include "rpc/log.h"
#include "rpc/net_server.h"
#include "rpc/stats_json.h"

namespace wirebench::hbaserpc {

namespace {

uint64_t NowMs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
}

}  // namespace

// HBase's RPC protocol as a protocol of the network core
// (rpc/net_server.h): the core owns sockets, threads and limits; this owns
// the service, the counters and the server's identity.
class HBaseProtocol final : public rpc::ServerProtocol, public StatsSource {
 public:
  HBaseProtocol(const rpc::ServerOptions& options, Region* region, rpc::Service* codec_service,
                RegionLayout layout, const ClusterMember* cluster, std::string advertised_host)
      : options_(options),
        service_(region, codec_service, ServerIdentity{}),
        advertised_host_(std::move(advertised_host)) {
    service_.Configure(std::move(layout), cluster);
  }

  std::string_view name() const override { return "hbase"; }
  // Calls that evaluate a filter run on handler threads: --handlers, at least one.
  int HandlerThreads() const override { return std::max(1, options_.handlers); }
  Status Start(rpc::NetServer* server) override;
  // Who this server is, once bound on `port`.
  StatusOr<ServerIdentity> Identity(uint16_t port) const;
  std::unique_ptr<rpc::ProtocolConnection> NewConnection(rpc::ConnectionHost* host) override;
  void AppendStats(nlohmann::json* j) override;
  std::string StatsReply(const CounterTotals& own_at_entry) override {
    return server_->StatsReply(own_at_entry);
  }

  HBaseService* service() { return &service_; }
  const rpc::ServerOptions& options() const { return options_; }
  HBaseIoStats* io_stats(int index) { return &io_stats_[size_t(index)]; }
  HBaseIoStats* handler_stats(int index) { return &handler_stats_[size_t(index)]; }

 private:
  rpc::ServerOptions options_;
  HBaseService service_;
  std::string advertised_host_;
  rpc::NetServer* server_ = nullptr;
  // Written only by their thread (BumpShared), summed by Stats.
  std::vector<HBaseIoStats> io_stats_;
  std::vector<HBaseIoStats> handler_stats_;
};

// One connection: the ConnectionCore's protocol state (hbase_protocol.h).
class HBaseConnection final : public rpc::ProtocolConnection {
 public:
  HBaseConnection(HBaseProtocol* protocol, rpc::ConnectionHost* host)
      : protocol_(protocol),
        host_(host),
        out_(&host->out()),
        core_(protocol->service(), protocol, protocol->io_stats(host->io_index()),
              protocol->options().max_call_bytes) {
    core_.set_defer_filters(true);
    core_.set_host(host);
  }

  size_t Consume(ByteView in) override {
    bool close = false;
    const size_t used = core_.Consume(in, out_, &close);
    if (close) Finish();
    return used;
  }
  size_t UnitSize(ByteView in) const override { return core_.UnitSize(in); }
  bool TakeDeferred(std::function<void(ByteBuffer*)>* work) override {
    if (!core_.has_deferred()) return false;
    // Runs on a handler thread; core_ is the handler's until it returns.
    *work = [this](ByteBuffer* out) {
      core_.RunDeferred(protocol_->handler_stats(rpc::NetServer::CurrentHandlerIndex()), out);
    };
    return true;
  }
  const char* PartialState(size_t pending_input) const override {
    if (!core_.ready()) return "with an incomplete preamble or connection header";
    return pending_input > 0 ? "with an incomplete call" : nullptr;
  }
  void AppendRefusal(rpc::Refusal why, const std::string& text, ByteView pending,
                     ByteBuffer* out) override {
    // HBase's answer to a connection it will not serve: call id -1.
    if (why == rpc::Refusal::kConnectionLimit)
      AppendExceptionReply(kNoCallId, exceptions::kFatalConnection, text, true, out);
    else
      AppendExceptionReply(kNoCallId, exceptions::kCallQueueTooBig, text, false, out);
  }

 private:
  // After a refused preamble or header or an oversized call.
  [[gnu::noinline, gnu::cold]] void Finish() {
    if (!host_->closed()) rpc::LogRateLimited("closing HBase connection from " + host_->peer());
    host_->FinishAfterFlush();
  }

  HBaseProtocol* protocol_;
  rpc::ConnectionHost* host_;
  ByteBuffer* out_;  // host_->out(): the same buffer for the connection's life.
  ConnectionCore core_;
};

Status HBaseProtocol::Start(rpc::NetServer* server) {
  server_ = server;
  io_stats_ = std::vector<HBaseIoStats>(size_t(server->io_threads()));
  handler_stats_ = std::vector<HBaseIoStats>(size_t(HandlerThreads()));
  // Who this server is: what the catalog and the registry hand out.
  auto id = Identity(server->port());
  if (!id.ok()) return id.status();
  service_.set_identity(std::move(id).value());
  return Status::Ok();
}

StatusOr<ServerIdentity> HBaseProtocol::Identity(uint16_t port) const {
  ServerIdentity id;
  if (const ClusterMember* c = service_.cluster()) {
    // As server 0's catalog names it; clients connect where it says.
    const rpc::Endpoint& planned = c->plan.servers[c->self];
    if (planned.port != port)
      return Status::InvalidArgument(
          "cluster server " + std::to_string(c->self) + " is planned at " + planned.host + ":" +
          std::to_string(planned.port) + " but bound port " + std::to_string(port) +
          ": start it with --port " + std::to_string(planned.port));
    return ServerIdentity{planned.host, planned.port, c->plan.StartCode(c->self),
                          ClusterIdOf(c->plan)};
  }
  id.host = advertised_host_;
  if (id.host.empty()) {
    id.host = options_.host;
    boost::system::error_code ec;
    auto addr = boost::asio::ip::make_address(options_.host, ec);
    if (!ec && addr.is_unspecified()) {
      char name[256] = {};
      if (gethostname(name, sizeof name - 1) == 0 && name[0] != '\0') id.host = name;
    }
  }
  id.port = port;
  id.start_code = NowMs();
  id.cluster_id = NewClusterId();
  return id;
}

std::unique_ptr<rpc::ProtocolConnection> HBaseProtocol::NewConnection(rpc::ConnectionHost* host) {
  return std::make_unique<HBaseConnection>(this, host);
}

void HBaseProtocol::AppendStats(nlohmann::json* j) {
  using nlohmann::json;
  HBaseIoStats sum;
  for (auto& s : io_stats_) HBaseIoStats::Fields::AddShared(sum, s);
  for (auto& s : handler_stats_) HBaseIoStats::Fields::AddShared(sum, s);
  rpc::AppendCallCounts(sum.calls, sum.failed_calls, sum.other_calls, sum.frames_in,
                        sum.frames_out, j);
  const ServerIdentity& id = service_.identity();
  (*j)["hbase"] = {{"server_name", id.ServerNameString()},
                   {"cluster_id", id.cluster_id},
                   {"meta_calls", sum.meta_calls},
                   {"registry_calls", sum.registry_calls},
                   {"codec_path_calls", sum.fast_calls},
                   {"refused_method_calls", sum.other_calls},
                   {"handler_calls", sum.handler_calls},
                   {"open_scanners", service_.open_scanners()},
                   {"refused_scanners", service_.refused_scanners()}};
}

class HBaseServer::Impl {
 public:
  Impl(const rpc::ServerOptions& options, Region* region, rpc::Service* codec_service,
       RegionLayout layout, const ClusterMember* cluster, std::string advertised_host)
      : protocol(options, region, codec_service, std::move(layout), cluster,
                 std::move(advertised_host)),
        net(options, &protocol, codec_service) {}
  HBaseProtocol protocol;
  rpc::NetServer net;
};

HBaseServer::HBaseServer(const rpc::ServerOptions& options, Region* region,
                         rpc::Service* codec_service, RegionLayout layout,
                         const ClusterMember* cluster, std::string advertised_host)
    : impl_(std::make_unique<Impl>(options, region, codec_service, std::move(layout), cluster,
                                   std::move(advertised_host))) {}
HBaseServer::~HBaseServer() { impl_->net.Stop(); }
Status HBaseServer::Start() { return impl_->net.Start(); }
uint16_t HBaseServer::port() const { return impl_->net.port(); }
std::string HBaseServer::address() const { return impl_->net.address(); }
void HBaseServer::Stop() { impl_->net.Stop(); }
nlohmann::json HBaseServer::StatsJson() { return impl_->net.StatsJson(); }
const ServerIdentity& HBaseServer::identity() const { return impl_->protocol.service()->identity(); }
const ClusterMember* HBaseServer::cluster() const { return impl_->protocol.service()->cluster(); }
void HBaseServer::set_scan_time_limit(std::chrono::milliseconds limit) {
  impl_->protocol.service()->set_scan_time_limit(limit);
}

}  // namespace wirebench::hbaserpc
