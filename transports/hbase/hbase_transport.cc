// `--rpc hbase`: HBase's own RPC protocol (hbase_protocol.h) on both sides.
// The server answers any HBase client (announcing KeyValueCodec or no cell
// codec) over the region behind it; the client speaks the protocol with the
// pb codec (no cell codec) or cellblock (KeyValueCodec), the two whose
// payload is HBase's call layout.
#include "transports/hbase/hbase_client.h"
#include "transports/hbase/hbase_server.h"
#include "transports/hbase/registered_server.h"
#include "transports/transport.h"

namespace wirebench {

namespace {

// The server options of the hbase transport's own.
constexpr OptionSpec kOwnOptions[] = {
    {"--zookeeper",
     "register in ZooKeeper at HOST:PORT[,HOST:PORT...][/ROOT] (root /hbase by default) as "
     "HBase does, so HBase clients given the quorum find this server; the nodes are removed on "
     "a clean stop",
     ""},
    {"--zookeeper-timeout-ms", "how long to wait for ZooKeeper at start before failing",
     "10000"},
    {"--regions-per-table",
     "regions hbase:meta lists per table, split at HBase's HexStringSplit points (8 hex "
     "digits: 00000000..ffffffff in N equal parts); a key outside the region a call names gets "
     "WrongRegionException (a cluster's servers split as its plan says)",
     "1"},
};

// The client options of the hbase transport's own.
constexpr OptionSpec kClientOptions[] = {
    {"--zookeeper",
     "QUORUM[/ROOT]: find the server as an HBase client does, from the meta-region-server "
     "node `wirebench server --rpc hbase --zookeeper` writes (instead of --server)",
     ""},
};

// What an HBase server answers to a connection that does not open with
// HBase's preamble (the protocol probe's hello, wirebench's): a
// FatalConnectionException, which names its Java package.
bool IsHBaseAnswer(std::string_view first) {
  return first.find("org.apache.hadoop.hbase") != std::string_view::npos;
}

struct OwnOptions {
  hbaserpc::ZooKeeperOptions zookeeper;
  uint32_t regions_per_table = 1;
};

// The entry's own options from their values (unset ones at their defaults).
StatusOr<OwnOptions> Own(const OptionSettings& given) {
  OptionSettings s = given;
  for (const OptionSpec& o : kOwnOptions) s.SetDefault(o.flag, o.default_value);
  OwnOptions out;
  out.zookeeper.zookeeper = s.Get("--zookeeper");
  auto timeout = s.GetUint32("--zookeeper-timeout-ms", 1, 600000);
  if (!timeout.ok()) return timeout.status();
  out.zookeeper.timeout_ms = int(*timeout);
  auto regions = s.GetUint32("--regions-per-table", 1, 4096);
  if (!regions.ok()) return regions.status();
  out.regions_per_table = *regions;
  WB_RETURN_IF_ERROR(hbaserpc::CheckZooKeeperOption(out.zookeeper));
  return out;
}

class HBaseEntry final : public Transport {
 public:
  HBaseEntry()
      : Transport({"hbase",
                   "HBase's own RPC protocol (\"HBas\" preamble, ConnectionHeader, big-endian "
                   "lengths, RequestHeader/ResponseHeader), as a region server speaks it",
                   {"wirebench::hbaserpc::", "wirebench::hbasewire::"}},
                  {.codecs = {"cellblock", "pb"},
                   .codecs_why = "HBase's own call layout, which only codecs pb (no cell codec) "
                                 "and cellblock (KeyValueCodec cell blocks) write",
                   .codecs_otherwise = "wirebench",
                   .wire = {.family = "HBase",
                            .speaks = "HBase's RPC protocol (it answered with "
                                      "org.apache.hadoop.hbase.ipc.FatalConnectionException, as "
                                      "a region server or `wirebench server --rpc hbase` does)",
                            .recognises = &IsHBaseAnswer}}) {}

  std::span<const OptionSpec> ServerOptionSpecs() const override { return kOwnOptions; }
  Status CheckOwnOptions(const OptionSettings& own) const override { return Own(own).status(); }
  std::span<const OptionSpec> ClientOptionSpecs() const override { return kClientOptions; }
  StatusOr<std::string> ServerFromClientOptions(const OptionSettings& own,
                                                const std::string& server) const override {
    const std::string zookeeper = own.Get("--zookeeper");
    if (zookeeper.empty()) return std::string();
    if (!server.empty())
      return Status::InvalidArgument("--server " + server + " and --zookeeper " + zookeeper +
                                     " both say where the server is: give one of them");
    return hbaserpc::FindServerInZooKeeper(zookeeper, std::chrono::seconds(10));
  }
  std::string_view ServerLocatorFlag(const OptionSettings& own) const override {
    return own.Get("--zookeeper").empty() ? std::string_view() : "--zookeeper";
  }
  StatusOr<std::unique_ptr<rpc::TransportServer>> StartServer(
      const rpc::ServerOptions& options, const OptionSettings& own, Region* region,
      rpc::Service* service, const ClusterMember* cluster) const override {
    auto o = Own(own);
    if (!o.ok()) return o.status();
    if (cluster != nullptr && cluster->plan.clustered() && o->regions_per_table != 1 &&
        o->regions_per_table != cluster->plan.layout.regions())
      return Status::InvalidArgument(
          "--regions-per-table " + std::to_string(o->regions_per_table) + " but the cluster's "
          "plan splits each table in " + std::to_string(cluster->plan.layout.regions()) +
          ": every server of a cluster must split alike");
    auto server = std::make_unique<hbaserpc::HBaseServer>(
        options, region, service, RegionLayout(o->regions_per_table), cluster);
    WB_RETURN_IF_ERROR(server->Start());
    // With --zookeeper: registered under the identity its catalog hands out
    // (a cluster's servers each as a region server, server 0 as master too).
    return hbaserpc::MaybeRegisterInZooKeeper(std::move(server), o->zookeeper);
  }

  boost::asio::awaitable<StatusOr<ClientEndpoint>> Connect(
      boost::asio::io_context& ctx, EndpointOptions options) const override {
    const CodecInfo& codec = options.codec_entry();
    if (Status carried = CheckCodec(codec); !carried.ok()) co_return carried;
    hbaserpc::HBaseClientOptions o;
    o.host = options.host;
    o.port = options.port;
    o.cell_blocks = codec.id == CodecId::kCellBlock;
    if (options.cluster != nullptr && options.cluster->clustered()) {
      o.cluster = options.cluster;
      for (uint32_t k = 0; k < options.cluster->size(); ++k)
        if (options.cluster->servers[k].host == o.host &&
            options.cluster->servers[k].port == o.port)
          o.server_index = k;
    }
    auto channel = co_await hbaserpc::ConnectHBase(ctx, o);
    if (!channel.ok()) co_return channel.status();
    co_return ClientEndpoint{std::move(channel).value(), codec.factory()};
  }
};

}  // namespace

const Transport& HBaseTransport() {
  static const HBaseEntry entry;
  return entry;
}

}  // namespace wirebench
