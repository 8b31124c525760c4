#include "transports/grpc/grpc_protocol.h"

#include <array>

namespace wirebench::grpcrpc {

namespace {

std::array<std::string, kMaxMethod + 1> BuildPaths() {
  std::array<std::string, kMaxMethod + 1> paths;
  for (int m = 1; m <= kMaxMethod; ++m)
    paths[m] = "/wirebench.Region/" + std::string(MethodName(Method(m)));
  return paths;
}

const std::array<std::string, kMaxMethod + 1>& Paths() {
  static const std::array<std::string, kMaxMethod + 1> paths = BuildPaths();
  return paths;
}

}  // namespace

const std::string& GrpcMethodPath(Method m) { return Paths()[uint8_t(m)]; }

std::string GrpcUnknownMethodPath(uint8_t method) {
  return "/wirebench.Region/Method" + std::to_string(method);
}

bool GrpcMethodFromPath(std::string_view path, Method* out) {
  const auto& paths = Paths();
  for (int m = 1; m <= kMaxMethod; ++m) {
    if (paths[m] == path) {
      *out = Method(m);
      return true;
    }
  }
  return false;
}

grpc::StatusCode GrpcCodeOf(CallStatus s) {
  switch (s) {
    case CallStatus::kOk: return grpc::StatusCode::OK;
    case CallStatus::kBadRequest: return grpc::StatusCode::INVALID_ARGUMENT;
    case CallStatus::kUnknownMethod: return grpc::StatusCode::UNIMPLEMENTED;
    case CallStatus::kCallTooLarge: return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case CallStatus::kBadPreamble: return grpc::StatusCode::FAILED_PRECONDITION;
    case CallStatus::kServerError: return grpc::StatusCode::INTERNAL;
    case CallStatus::kOverloaded: return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case CallStatus::kShuttingDown: return grpc::StatusCode::UNAVAILABLE;
  }
  return grpc::StatusCode::UNKNOWN;
}

bool CallStatusOfGrpcFailure(grpc::StatusCode code, CallStatus* out) {
  switch (code) {
    case grpc::StatusCode::RESOURCE_EXHAUSTED: *out = CallStatus::kCallTooLarge; return true;
    case grpc::StatusCode::UNIMPLEMENTED: *out = CallStatus::kUnknownMethod; return true;
    default: return false;
  }
}

std::string_view GrpcCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "?";
  }
}

bool ParseSmallDecimal(std::string_view s, uint8_t* out) {
  if (s.empty() || s.size() > 3) return false;
  unsigned v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + unsigned(c - '0');
  }
  if (v > 255) return false;
  *out = uint8_t(v);
  return true;
}

}  // namespace wirebench::grpcrpc
