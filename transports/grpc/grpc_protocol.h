// How wirebench calls map onto gRPC (shared by the gRPC server and client):
//  - One gRPC method per wirebench method: "/wirebench.Region/Mutate", Get,
//    Scan, Multi, Stats, Ping. The request and reply messages are the codec's
//    payload bytes, unchanged (what follows the 12-byte frame header on the
//    wirebench RPC layer).
//  - The codec id travels in the request metadata "wb-codec" (decimal).
//  - A call the service refused (CallStatus other than kOk) ends with a
//    non-OK gRPC status whose message is the reason, and the trailing
//    metadata "wb-status" (decimal CallStatus); gRPC's own failures have no
//    "wb-status".
//  - Messages up to kGrpcMaxMessage (16 MiB, wirebench's --max-frame default)
//    both ways.
// Thread-safety: constants and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <grpcpp/support/status.h>

#include "common/calls.h"
#include "rpc/call_header.h"

namespace wirebench::grpcrpc {

inline constexpr char kGrpcCodecKey[] = "wb-codec";
inline constexpr char kGrpcStatusKey[] = "wb-status";
inline constexpr uint32_t kGrpcMaxMessage = rpc::kDefaultMaxCallBytes;

// "/wirebench.Region/<MethodName>" for a known method.
const std::string& GrpcMethodPath(Method m);
// "/wirebench.Region/Method<N>": where a call with unknown method byte N
// goes (the server refuses it with kUnknownMethod, as wbrpc::Server does).
std::string GrpcUnknownMethodPath(uint8_t method);
// The method of a path; false when it is not one of wirebench's.
bool GrpcMethodFromPath(std::string_view path, Method* out);
// How the generic service's refusal of another path begins (a grpc-native
// client at a `server --rpc grpc` is told so by these words: its registry
// entry's mismatch hint).
inline constexpr std::string_view kUnknownGrpcMethod = "unknown gRPC method";

// The gRPC status code a refused call ends with.
grpc::StatusCode GrpcCodeOf(CallStatus s);

// The CallStatus a per-call gRPC failure becomes on the client when it has
// no "wb-status": RESOURCE_EXHAUSTED (a message over the size limit) ->
// kCallTooLarge, UNIMPLEMENTED -> kUnknownMethod. false for failures of the
// connection itself (UNAVAILABLE, CANCELLED, DEADLINE_EXCEEDED, ...).
bool CallStatusOfGrpcFailure(grpc::StatusCode code, CallStatus* out);

// "UNAVAILABLE", "RESOURCE_EXHAUSTED", ...
std::string_view GrpcCodeName(grpc::StatusCode code);

// Parses a small decimal (codec id, status byte); false if not 0-255.
bool ParseSmallDecimal(std::string_view s, uint8_t* out);

}  // namespace wirebench::grpcrpc
