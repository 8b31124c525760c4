// Which RPC layer a run uses (`--rpc`): wirebench's own framing (rpc/), gRPC
// carrying each codec's payload bytes (rpc/grpc/grpc_client.h), or
// grpc-native, gRPC's generated service for HBase's protobuf messages (codec
// pb only). Also whether this build has gRPC at all (WIREBENCH_GRPC).
// Thread-safety: plain values and pure functions.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace wirebench {

enum class RpcKind { kWirebench, kGrpc, kGrpcNative };

// "wirebench", "grpc", "grpc-native".
std::string_view RpcKindName(RpcKind kind);
// The names above, comma separated, for help texts.
std::string RpcKindNames();
// Parses a --rpc value; the error names the flag and the valid values, and
// says so when this build has no gRPC.
StatusOr<RpcKind> ParseRpcKind(std::string_view name);
// grpc-native exists only for codec pb (gRPC serializes the messages
// itself); every other combination is fine.
Status CheckRpcCodec(RpcKind kind, std::string_view codec);
// True when the gRPC transport is built into this binary.
bool GrpcBuilt();

}  // namespace wirebench
