#include "bench/cli/grpc_serve.h"

#ifdef WIREBENCH_HAVE_GRPC
#include "rpc/grpc/grpc_server.h"
#include "rpc/grpc/native_service.h"
#endif

namespace wirebench {

#ifdef WIREBENCH_HAVE_GRPC
namespace {

class Serving final : public GrpcServing {
 public:
  Serving(const GrpcServeOptions& o, Region* region, rpc::Service* service) {
    if (o.rpc == RpcKind::kGrpcNative) native_ = std::make_unique<rpc::NativeRegionService>(region);
    rpc::GrpcServerOptions so;
    so.bind = o.bind;
    so.port = o.port;
    so.cq_threads = o.cq_threads;
    so.max_message = o.max_message;
    so.max_streams_per_connection = o.max_streams_per_connection;
    so.max_waiting_calls = o.max_waiting_calls;
    so.idle_timeout_ms = o.idle_timeout_ms;
    server_ = std::make_unique<rpc::GrpcServer>(so, service, native_.get());
  }
  Status Start() { return server_->Start(); }
  std::string address() const override { return server_->address(); }
  void Stop() override { server_->Stop(); }

 private:
  std::unique_ptr<rpc::NativeRegionService> native_;  // Outlives server_.
  std::unique_ptr<rpc::GrpcServer> server_;
};

}  // namespace

StatusOr<std::unique_ptr<GrpcServing>> StartGrpcServing(const GrpcServeOptions& o, Region* region,
                                                        rpc::Service* service) {
  auto serving = std::make_unique<Serving>(o, region, service);
  WB_RETURN_IF_ERROR(serving->Start());
  return std::unique_ptr<GrpcServing>(std::move(serving));
}
#else
StatusOr<std::unique_ptr<GrpcServing>> StartGrpcServing(const GrpcServeOptions& o, Region*,
                                                        rpc::Service*) {
  return ParseRpcKind(RpcKindName(o.rpc)).status();  // Says the build has no gRPC.
}
#endif

}  // namespace wirebench
