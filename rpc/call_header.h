// A call as the network core and every transport hand it to a codec: its id,
// method, status and flags. How a transport puts it on the wire is the
// transport's business (wirebench's frame: transports/wirebench/frame.h;
// HBase's RequestHeader; a gRPC method name); a codec's server half
// (rpc/service.h) and a caller's PendingCall (rpc/call_channel.h) see only
// this.
// Thread-safety: a plain value.
#pragma once

#include <cstdint>

#include "common/calls.h"

namespace wirebench::rpc {

// The largest call or reply any transport accepts by default (--max-frame):
// 16 MiB of header and payload.
inline constexpr uint32_t kDefaultMaxCallBytes = 16u << 20;

struct CallHeader {
  uint32_t call_id = 0;
  uint8_t method = 0;  // A Method (common/calls.h): what the call asks.
  uint8_t status = 0;  // A CallStatus (common/calls.h): how a reply ended.
  uint16_t flags = 0;
};

}  // namespace wirebench::rpc
