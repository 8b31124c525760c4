// `wirebench server --rpc grpc|grpc-native`: a GrpcServer (rpc/grpc) in
// front of the same RegionService as the wirebench server, plus, for
// grpc-native, gRPC's generated service on the region, on the same
// completion queues. It prints the same "listening on HOST:PORT" line, so a
// co-located child is found the same way (bench/loadgen/local_server.h).
// Thread-safety: used by the server command's main thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "bench/loadgen/rpc_kind.h"
#include "common/status.h"
#include "nullregion/region.h"
#include "rpc/service.h"

namespace wirebench {

struct GrpcServeOptions {
  RpcKind rpc = RpcKind::kGrpc;
  std::string bind = "127.0.0.1";
  uint16_t port = 0;
  int cq_threads = 1;             // From --io-threads.
  uint32_t max_message = 16u << 20;  // From --max-frame.
  int max_streams_per_connection = 4096;  // From --max-inflight.
  int max_waiting_calls = 10000;          // From --max-connections.
  int idle_timeout_ms = 30000;            // From --idle-timeout-ms.
};

class GrpcServing {
 public:
  virtual ~GrpcServing() = default;
  virtual std::string address() const = 0;
  virtual void Stop() = 0;
};

// Starts serving `service` (and `region` natively for grpc-native); both
// must outlive the returned object. Errors name the flag or the cause.
StatusOr<std::unique_ptr<GrpcServing>> StartGrpcServing(const GrpcServeOptions& options,
                                                        Region* region, rpc::Service* service);

}  // namespace wirebench
