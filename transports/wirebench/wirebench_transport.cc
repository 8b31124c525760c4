// `--rpc wirebench`: wirebench's own framing (transports/wirebench/server.h, transports/wirebench/client.h),
// every codec, and the OS-thread model's shared connections
// (transports/wirebench/shared_connection.h).
#include "transports/wirebench/client.h"
#include "transports/wirebench/server.h"
#include "transports/wirebench/shared_connection.h"
#include "transports/transport.h"

namespace wirebench {

namespace {

class WirebenchEntry final : public Transport {
 public:
  WirebenchEntry()
      : Transport({"wirebench",
                   "wirebench's own framing (length, call id, method, status; the codec's bytes)",
                   {"wirebench::rpc::"}}) {}

  StatusOr<std::unique_ptr<rpc::TransportServer>> StartServer(const rpc::ServerOptions& options,
                                                              const OptionSettings&, Region*,
                                                              rpc::Service* service) const override {
    auto server = std::make_unique<rpc::Server>(options, service);
    WB_RETURN_IF_ERROR(server->Start());
    return std::unique_ptr<rpc::TransportServer>(std::move(server));
  }

  boost::asio::awaitable<StatusOr<ClientEndpoint>> Connect(
      boost::asio::io_context& ctx, EndpointOptions options) const override {
    rpc::ClientOptions co;
    co.host = options.host;
    co.port = options.port;
    co.codec_id = options.codec_id;
    auto conn = co_await rpc::ClientConnection::Connect(ctx, co);
    if (!conn.ok()) co_return conn.status();
    auto codec = NewCodec(options.codec_id);
    if (!codec.ok()) co_return codec.status();
    co_return ClientEndpoint{*conn, std::move(codec).value()};
  }

  bool SharesConnectionsAcrossThreads() const override { return true; }
  StatusOr<std::unique_ptr<rpc::SharedConnection>> ConnectShared(
      const rpc::SharedConnectionOptions& options) const override {
    return rpc::SharedConnection::Connect(std::move(options));
  }
};

}  // namespace

const Transport& WirebenchTransport() {
  static const WirebenchEntry entry;
  return entry;
}

}  // namespace wirebench
