// `--rpc toy`: the recipe test's transport. Its server and client are
// wirebench's: the test is of the recipe (a folder, one registry line, one
// add_subdirectory), not of a protocol, so the toy forwards both.
#include <memory>
#include <utility>

#include "transports/transport.h"

namespace wirebench {

namespace toyrpc {

// wirebench's entry, found through the registry: a transport's folder
// includes no other transport's (cmake/check_layering.cmake). Looked up when
// first used, never while the entry is built: entries are built inside the
// registry's own initialisation.
const Transport& Wirebench() { return *Transports().Find("wirebench"); }

class ToyEntry final : public Transport {
 public:
  // Its code is in wirebench::toyrpc, so --instructions counts it as
  // rpc.transport. Its server speaks wirebench's protocol, so it declares
  // that family: the probe treats a toy client at a wirebench server (and
  // the reverse) as speaking one protocol, and wirebench's entry already
  // recognises the bytes.
  ToyEntry()
      : Transport({"toy", "the recipe test's transport: wirebench's framing under its own name",
                   {"wirebench::toyrpc::"}},
                  {.wire = {.family = "wirebench"}}) {}

  StatusOr<std::unique_ptr<rpc::TransportServer>> StartServer(const rpc::ServerOptions& options,
                                                              const OptionSettings& own,
                                                              Region* region,
                                                              rpc::Service* service,
                                                              const ClusterMember* cluster) const override {
    return Wirebench().StartServer(options, own, region, service, cluster);
  }

  boost::asio::awaitable<StatusOr<ClientEndpoint>> Connect(
      boost::asio::io_context& ctx, EndpointOptions options) const override {
    co_return co_await Wirebench().Connect(ctx, std::move(options));
  }
};

}  // namespace toyrpc

const Transport& ToyTransport() {
  static const toyrpc::ToyEntry entry;
  return entry;
}

}  // namespace wirebench
