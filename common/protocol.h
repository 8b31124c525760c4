// Constants of the wirebench wire protocol that more than one layer needs:
// method ids, call status codes and codec ids (docs/design.md, "Wire format"). The framing
// itself lives in transports/wirebench/frame.h; what a payload means lives in codecs/.
// Thread-safety: constants only.
#pragma once

#include <cstdint>
#include <string_view>

namespace wirebench {

// Method byte of the fixed call header.
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
// HBase's method names ("Mutate", "Get", ...), as carried in RequestHeader.method_name.
std::string_view MethodName(Method m);

// Status byte of the fixed call header. Anything but kOk carries a UTF-8
// reason as its payload instead of a codec payload.
enum class CallStatus : uint8_t {
  kOk = 0,
  kBadRequest = 1,      // The payload did not decode; the connection stays up.
  kUnknownMethod = 2,   // The method byte is not one the server knows.
  kFrameTooLarge = 3,   // The frame exceeds the server's maximum; connection closed.
  kBadPreamble = 4,     // Wrong magic, version or codec; connection closed.
  kServerError = 5,     // The region failed the call.
  kOverloaded = 6,      // Per-connection limits hit; connection closed.
  kShuttingDown = 7,
};
std::string_view CallStatusName(CallStatus s);

}  // namespace wirebench
