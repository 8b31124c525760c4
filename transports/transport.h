// The transport seam: one registry entry per RPC layer (`--rpc NAME`), the
// way codecs and regions have one (common/registry.h: every entry has a name,
// a summary and its code's symbol prefixes). An entry says what its layer
// carries and offers as data (the codecs it carries, its own server options,
// how a client finds its server in ZooKeeper, how its server's first bytes
// are recognised) and makes its layer's server (an
// rpc::TransportServer serving a region on the network core, rpc/net_server.h)
// and client endpoints (an rpc::CallChannel and the Codec that encodes onto
// it); the load generator, the `server` command and the co-located child reach
// every transport through it and never name one.
//
// Adding a transport: a folder transports/NAME/ with all of its code and its
// entry (a final class implementing Transport, returned by a function), one
// line in transports/registry.cc and one add_subdirectory in
// transports/CMakeLists.txt (docs/design.md, "Adding a transport").
//
// Thread-safety: entries are immutable singletons; every method may be
// called from any thread. Connect runs on the io_context the endpoint will
// belong to.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/codec.h"
#include "common/option_settings.h"
#include "common/registry.h"
#include "common/status.h"
#include "common/thread_stats.h"
#include "nullregion/cluster.h"
#include "nullregion/region.h"
#include "rpc/call_channel.h"
#include "rpc/endpoint.h"
#include "rpc/server_options.h"
#include "rpc/service.h"
#include "rpc/shared_channel.h"
#include "rpc/transport_server.h"

namespace wirebench {

// One client connection: where calls go, and the codec that encodes them.
struct ClientEndpoint {
  std::shared_ptr<rpc::CallChannel> channel;
  std::unique_ptr<Codec> codec;  // Bound to `channel` when the transport encodes itself.
};

struct EndpointOptions : rpc::Endpoint {
  // The codec's registry entry, resolved once per process (the command
  // line's --codec); null: the registry's first. A transport turns it into
  // a byte only where its wire carries one (wirebench's preamble, gRPC's
  // metadata) and makes the endpoint's codec with the entry's factory.
  const CodecInfo* codec = nullptr;
  const CodecInfo& codec_entry() const { return codec != nullptr ? *codec : Codecs().front(); }
  // The transport's own client options (Transport::ClientOptionSpecs, by
  // flag; one not set is at its default).
  OptionSettings client_options;
  // A null cluster this endpoint's server is one of (nullregion/cluster.h),
  // null when there is one server: a transport with a catalog of its own
  // (HBase's hbase:meta) checks it against the plan.
  const ClusterPlan* cluster = nullptr;
};

// The wire protocol a transport's server speaks, as data for the probe that
// tells a client which protocol a server it failed at speaks
// (bench/loadgen/protocol_probe.h). Transports that speak one protocol
// (grpc and grpc-native: gRPC over HTTP/2) declare the same family.
struct WireProtocol {
  // The protocol's name ("gRPC"): a client at a server of its own family
  // did not fail for the protocol. Empty: the probe does not know this
  // transport's servers.
  std::string_view family = {};
  // What a server recognised as this protocol is, completing "HOST:PORT
  // speaks ...": the protocol, the evidence, and which servers speak it.
  std::string_view speaks = {};
  // Whether `first` are the first bytes a server of this protocol sends,
  // unasked (gRPC's HTTP/2 SETTINGS) or in answer to a hello (below).
  bool (*recognises)(std::string_view first) = nullptr;
  // What the probe sends to make a server that waits for its client speak,
  // on a connection of its own; empty for none (a server that speaks first,
  // or answers another transport's hello: HBase's answers wirebench's).
  std::string_view hello = {};
};

// What to tell a client of this transport that failed before its first
// operation at a server of its own wire family, when its error contains
// `error_contains`: `message` completes "HOST:PORT ..." (grpc-native at a
// `server --rpc grpc`, whose generic service refuses the generated
// methods).
struct ServerMismatchHint {
  std::string_view error_contains;
  std::string_view message;
};

// What a transport's entry declares besides its name (RegistryEntry).
struct TransportTraits {
  // The codecs it carries (registry names), the first the default for a run
  // over it that names none; empty: every codec. When only some: why
  // (completing "--rpc NAME carries ..."), and the transport that carries
  // the others.
  std::vector<std::string_view> codecs = {};
  std::string_view codecs_why = {};
  std::string_view codecs_otherwise = {};
  // The protocol its server speaks on the wire, and the hints for a client
  // of it at a server of the same protocol that serves something else.
  WireProtocol wire = {};
  std::vector<ServerMismatchHint> mismatch_hints = {};
};

class Transport : public RegistryEntry {
 public:
  Transport(RegistryEntry entry, TransportTraits traits = {})
      : RegistryEntry(std::move(entry)), traits_(std::move(traits)) {}
  virtual ~Transport() = default;

  const TransportTraits& traits() const { return traits_; }

  // OK when this transport carries `codec`; otherwise the error says what to
  // use instead.
  Status CheckCodec(const CodecInfo& codec) const;
  // Refuses server flags this transport does not honour, naming the flag.
  virtual Status CheckServerOptions(const rpc::ServerOptions& options) const {
    return Status::Ok();
  }
  // The server options of this transport's own (HBase's --zookeeper,
  // --regions-per-table), as data (common/option_settings.h): the `server`
  // command offers every transport's, and refuses one given to a transport
  // that does not list it, naming the transport that does.
  virtual std::span<const OptionSpec> ServerOptionSpecs() const { return {}; }
  // Checks the values of those options (unset ones at their defaults);
  // errors name the flag.
  virtual Status CheckOwnOptions(const OptionSettings& own) const { return Status::Ok(); }
  // The client options of this transport's own (gRPC's --grpc-cq-threads),
  // as data: `run`, `load` and `compare` offer every transport's and refuse
  // one none of the chosen transports lists; EndpointOptions::client_options
  // carries their values to Connect.
  virtual std::span<const OptionSpec> ClientOptionSpecs() const { return {}; }
  // Checks the values of those options; errors name the flag.
  virtual Status CheckClientOptions(const OptionSettings& own) const { return Status::Ok(); }
  // Where those options say the server is, as HOST:PORT (HBase's
  // --zookeeper: the server its meta-region-server node names), "" when they
  // name none; an error when they name one and `server` (--server) is given
  // too, or when it cannot be found.
  virtual StatusOr<std::string> ServerFromClientOptions(const OptionSettings& own,
                                                        const std::string& server) const {
    return std::string();
  }
  // The flag among those options that names the server, when it is set ("" if
  // none is): a command that starts its own server refuses it before looking
  // anything up.
  virtual std::string_view ServerLocatorFlag(const OptionSettings& own) const { return {}; }
  // Starts serving: `service` (RegionService over `region`) answers every
  // codec; a transport that serves the region through its own messages uses
  // `region` too. Both must outlive the server. `own` holds the values of
  // ServerOptionSpecs() (one not set is at its default). `cluster`, when
  // not null, is this server's place in a null cluster (nullregion/cluster.h):
  // `service` already refuses rows of regions it does not hold; a transport
  // with a catalog of its own (HBase's hbase:meta) lists each region on its
  // server from it. Errors name the cause.
  virtual StatusOr<std::unique_ptr<rpc::TransportServer>> StartServer(
      const rpc::ServerOptions& options, const OptionSettings& own, Region* region,
      rpc::Service* service, const ClusterMember* cluster) const = 0;
  // The same as one server, not a cluster's.
  StatusOr<std::unique_ptr<rpc::TransportServer>> StartServer(const rpc::ServerOptions& options,
                                                              const OptionSettings& own,
                                                              Region* region,
                                                              rpc::Service* service) const {
    return StartServer(options, own, region, service, nullptr);
  }
  // The same with every option of the transport's own at its default.
  StatusOr<std::unique_ptr<rpc::TransportServer>> StartServer(const rpc::ServerOptions& options,
                                                              Region* region,
                                                              rpc::Service* service) const {
    return StartServer(options, OptionSettings(), region, service, nullptr);
  }

  // Opens one client endpoint.
  virtual boost::asio::awaitable<StatusOr<ClientEndpoint>> Connect(
      boost::asio::io_context& ctx, EndpointOptions options) const = 0;

  // The OS-thread model: whether client threads share connections
  // (rpc::SharedConnection, rpc/shared_channel.h: many threads per
  // connection, as HBase's own client does) or each thread opens its own
  // endpoint.
  virtual bool SharesConnectionsAcrossThreads() const { return false; }
  // REQUIRES: SharesConnectionsAcrossThreads().
  virtual StatusOr<std::unique_ptr<rpc::SharedConnection>> ConnectShared(
      const rpc::SharedConnectionOptions& options) const;

  // CPU and allocations of the client-side threads this transport starts on
  // its own and never registers (gRPC's timer and executor threads); zero
  // for a transport whose threads are all the driver's.
  virtual ThreadUsage OwnThreadsUsage() const { return {}; }
  virtual CounterTotals OwnThreadsCounters() const { return {}; }

 private:
  TransportTraits traits_;
};

// Every transport built into this binary, in help-text order; the first
// (wirebench's own framing) is the default. Resolve's error lists the valid
// names, or says this build left the transport out and how to build it in.
const Registry<Transport>& Transports();
const Transport& DefaultTransport();
// The names, comma separated, for help texts and errors.
std::string TransportNames();
// Each transport with its summary and the codecs it carries, for --help:
// "wirebench: ...; grpc: ...; hbase: ..., codecs cellblock and pb only".
std::string TransportHelp();

}  // namespace wirebench
