#include "common/calls.h"

namespace wirebench {

std::string_view MethodName(Method m) {
  switch (m) {
    case Method::kMutate: return "Mutate";
    case Method::kGet: return "Get";
    case Method::kScan: return "Scan";
    case Method::kMulti: return "Multi";
    case Method::kStats: return "Stats";
    case Method::kPing: return "Ping";
  }
  return "Unknown";
}

std::string_view CallStatusName(CallStatus s) {
  switch (s) {
    case CallStatus::kOk: return "OK";
    case CallStatus::kBadRequest: return "BAD_REQUEST";
    case CallStatus::kUnknownMethod: return "UNKNOWN_METHOD";
    case CallStatus::kCallTooLarge: return "CALL_TOO_LARGE";
    case CallStatus::kBadPreamble: return "BAD_PREAMBLE";
    case CallStatus::kServerError: return "SERVER_ERROR";
    case CallStatus::kOverloaded: return "OVERLOADED";
    case CallStatus::kShuttingDown: return "SHUTTING_DOWN";
  }
  return "UNKNOWN";
}

}  // namespace wirebench
