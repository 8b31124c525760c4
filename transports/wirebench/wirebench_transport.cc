// `--rpc wirebench`: wirebench's own framing (transports/wirebench/server.h,
// transports/wirebench/client.h), every codec, and the OS-thread model's
// shared connections (transports/wirebench/shared_connection.h, behind
// rpc/shared_channel.h's interfaces).
#include <string>
#include <string_view>

#include "common/bytes.h"
#include "common/calls.h"
#include "transports/transport.h"
#include "transports/wirebench/client.h"
#include "transports/wirebench/frame.h"
#include "transports/wirebench/server.h"
#include "transports/wirebench/shared_connection.h"

namespace wirebench {

namespace {

// The protocol probe's hello (bench/loadgen/protocol_probe.h): the preamble
// (codec raw) and a Ping, call id 1. A wirebench server answers it with a
// frame; HBase's with a FatalConnectionException.
std::string_view ProbeHello() {
  static const std::string hello = [] {
    ByteBuffer b;
    wbrpc::WritePreamble(uint8_t(CodecId::kRaw), &b);
    wbrpc::EndFrame(&b, wbrpc::BeginFrame(&b, /*call_id=*/1, uint8_t(Method::kPing), /*status=*/0));
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
  }();
  return hello;
}

// A frame's header (frame.h): a little-endian length of at least the call
// header and at most the default --max-frame (16 MiB), then a call id and
// a known method.
bool IsWirebenchFrame(std::string_view b) {
  if (b.size() < wbrpc::kFrameHeaderSize) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(b.data());
  const uint32_t length = LoadLE32(p);
  return length >= wbrpc::kFixedHeaderSize && length <= rpc::kDefaultMaxCallBytes &&
         IsKnownMethod(p[wbrpc::kLengthSize + 4]);
}

class WirebenchEntry final : public Transport {
 public:
  WirebenchEntry()
      : Transport({"wirebench",
                   "wirebench's own framing (length, call id, method, status; the codec's bytes)",
                   {"wirebench::wbrpc::"}},
                  {.wire = {.family = "wirebench",
                            .speaks = "wirebench's own RPC protocol (a `wirebench server` with the "
                                      "default --rpc wirebench)",
                            .recognises = &IsWirebenchFrame,
                            .hello = ProbeHello()}}) {}

  StatusOr<std::unique_ptr<rpc::TransportServer>> StartServer(const rpc::ServerOptions& options,
                                                              const OptionSettings&, Region*,
                                                              rpc::Service* service,
                                                              const ClusterMember*) const override {
    auto server = std::make_unique<wbrpc::Server>(options, service);
    WB_RETURN_IF_ERROR(server->Start());
    return std::unique_ptr<rpc::TransportServer>(std::move(server));
  }

  boost::asio::awaitable<StatusOr<ClientEndpoint>> Connect(
      boost::asio::io_context& ctx, EndpointOptions options) const override {
    wbrpc::ClientOptions co;
    co.host = options.host;
    co.port = options.port;
    const CodecInfo& codec = options.codec_entry();
    co.codec_id = uint8_t(codec.id);  // The preamble's byte.
    auto conn = co_await wbrpc::ClientConnection::Connect(ctx, co);
    if (!conn.ok()) co_return conn.status();
    co_return ClientEndpoint{*conn, codec.factory()};
  }

  bool SharesConnectionsAcrossThreads() const override { return true; }
  StatusOr<std::unique_ptr<rpc::SharedConnection>> ConnectShared(
      const rpc::SharedConnectionOptions& options) const override {
    auto conn = wbrpc::WirebenchSharedConnection::Connect(options);
    if (!conn.ok()) return conn.status();
    return std::unique_ptr<rpc::SharedConnection>(std::move(conn).value());
  }
};

}  // namespace

const Transport& WirebenchTransport() {
  static const WirebenchEntry entry;
  return entry;
}

}  // namespace wirebench
