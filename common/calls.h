// The project's own words for a call, which every layer shares: what it asks
// (Method) and how it ended (CallStatus). No transport owns them; each maps
// them to its wire: wirebench's frame carries them as bytes of these values
// (transports/wirebench/frame.h), HBase's as method names and exception
// classes, gRPC's as method paths and status codes. What a payload means
// lives in codecs/.
// Thread-safety: constants only.
#pragma once

#include <cstdint>
#include <string_view>

namespace wirebench {

// What a call asks of the server.
enum class Method : uint8_t {
  kMutate = 1,
  kGet = 2,
  kScan = 3,
  kMulti = 4,
  kStats = 5,  // Codec-independent: reply payload is a JSON object of server counters.
  kPing = 6,   // Codec-independent: reply echoes the request payload.
};
constexpr int kMaxMethod = 6;
inline bool IsKnownMethod(uint8_t m) { return m >= 1 && m <= kMaxMethod; }
// Each method's name ("Mutate", "Get", ...): HBase's RequestHeader.method_name,
// gRPC's method path and the servers' Stats keys use it.
std::string_view MethodName(Method m);

// How a call ended. Anything but kOk carries a UTF-8 reason instead of a
// codec payload.
enum class CallStatus : uint8_t {
  kOk = 0,
  kBadRequest = 1,      // The payload did not decode; the connection stays up.
  kUnknownMethod = 2,   // The method byte is not one the server knows.
  kCallTooLarge = 3,   // The call exceeds the server's maximum; connection closed.
  kBadPreamble = 4,     // Wrong magic, version or codec; connection closed.
  kServerError = 5,     // The region failed the call.
  kOverloaded = 6,      // Per-connection limits hit; connection closed.
  kShuttingDown = 7,
};
std::string_view CallStatusName(CallStatus s);

}  // namespace wirebench
