#include "bench/loadgen/rpc_connect.h"

#include "rpc/client.h"

namespace wirebench {

boost::asio::awaitable<StatusOr<ClientEndpoint>> ConnectEndpoint(boost::asio::io_context& ctx,
                                                                 EndpointOptions options) {
  if (options.rpc != RpcKind::kWirebench) co_return ConnectGrpcEndpoint(ctx, options);
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

#ifndef WIREBENCH_HAVE_GRPC
StatusOr<ClientEndpoint> ConnectGrpcEndpoint(boost::asio::io_context&, const EndpointOptions& o) {
  return ParseRpcKind(RpcKindName(o.rpc)).status();  // Says the build has no gRPC.
}
ThreadUsage RpcOwnThreadsUsage(RpcKind) { return {}; }
CounterTotals RpcOwnThreadsCounters(RpcKind) { return {}; }
#endif

}  // namespace wirebench
