#include "bench/loadgen/rpc_kind.h"

namespace wirebench {

std::string_view RpcKindName(RpcKind kind) {
  switch (kind) {
    case RpcKind::kWirebench:
      return "wirebench";
    case RpcKind::kGrpc:
      return "grpc";
    case RpcKind::kGrpcNative:
      return "grpc-native";
  }
  return "?";
}

std::string RpcKindNames() { return "wirebench, grpc, grpc-native"; }

bool GrpcBuilt() {
#ifdef WIREBENCH_HAVE_GRPC
  return true;
#else
  return false;
#endif
}

StatusOr<RpcKind> ParseRpcKind(std::string_view name) {
  for (RpcKind k : {RpcKind::kWirebench, RpcKind::kGrpc, RpcKind::kGrpcNative}) {
    if (name != RpcKindName(k)) continue;
    if (k != RpcKind::kWirebench && !GrpcBuilt())
      return Status::InvalidArgument("--rpc " + std::string(name) +
                                     ": this wirebench was built without gRPC (WIREBENCH_GRPC=OFF); "
                                     "install libgrpc++-dev and protobuf-compiler-grpc and rebuild, "
                                     "or use --rpc wirebench");
    return k;
  }
  return Status::InvalidArgument("--rpc must be one of " + RpcKindNames() + ", got '" +
                                 std::string(name) + "'");
}

Status CheckRpcCodec(RpcKind kind, std::string_view codec) {
  if (kind == RpcKind::kGrpcNative && codec != "pb")
    return Status::InvalidArgument(
        "--rpc grpc-native is gRPC's own generated protobuf service and runs only with codec pb, "
        "got codec '" + std::string(codec) + "': use --codec pb, or --rpc grpc to carry '" +
        std::string(codec) + "' over gRPC");
  return Status::Ok();
}

}  // namespace wirebench
