// Opening a client endpoint (a CallChannel and the Codec that encodes onto
// it) for the RPC layer chosen by --rpc (bench/loadgen/rpc_kind.h), and the
// client-side CPU and allocations of the threads that layer starts itself
// (gRPC's timer, executor and event-engine threads, which never register:
// rpc/grpc/process_threads.h).
// Thread-safety: ConnectEndpoint runs on the io_context the endpoint will
// belong to (for gRPC it blocks that thread until connected, at most the
// connect timeout); the usage functions may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include "bench/loadgen/rpc_kind.h"
#include "codecs/codec.h"
#include "common/status.h"
#include "common/thread_stats.h"
#include "rpc/call_channel.h"

namespace wirebench {

struct ClientEndpoint {
  std::shared_ptr<rpc::CallChannel> channel;
  std::unique_ptr<Codec> codec;  // For grpc-native, bound to `channel`.
};

struct EndpointOptions {
  RpcKind rpc = RpcKind::kWirebench;
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  uint8_t codec_id = 1;
  // gRPC: completion-queue threads per connection.
  int grpc_cq_threads = 1;
};

boost::asio::awaitable<StatusOr<ClientEndpoint>> ConnectEndpoint(boost::asio::io_context& ctx,
                                                                 EndpointOptions options);

// CPU and allocations of the threads `rpc` starts on its own (zero for
// wirebench's layer, whose threads are all registered client threads).
ThreadUsage RpcOwnThreadsUsage(RpcKind rpc);
CounterTotals RpcOwnThreadsCounters(RpcKind rpc);

// The gRPC half (rpc_connect_grpc.cc), built with WIREBENCH_GRPC only.
StatusOr<ClientEndpoint> ConnectGrpcEndpoint(boost::asio::io_context& ctx,
                                             const EndpointOptions& options);

}  // namespace wirebench
