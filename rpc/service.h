// What the RPC server calls to serve codec calls. rpc/ deals in bytes only:
// it frames and routes calls; a Service (built by nullregion/ from a codec
// and a region) turns a call's payload into a reply payload.
//
// Thread-safety: Service::NewCallHandler may be called from any I/O or
// handler thread concurrently. Each CallHandler is used by one thread at a
// time (it belongs to one connection in inline mode, or to one handler
// thread and one codec in handler-pool mode), so it may keep scratch state.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "common/bytes.h"
#include "common/calls.h"
#include "common/status.h"
#include "rpc/call_header.h"

namespace wirebench {
// A codec's registry entry (codecs/codec.h): rpc/ only passes it on, from
// the transport that read the codec off the wire to the service.
struct CodecInfo;
}  // namespace wirebench

namespace wirebench::rpc {

// Per-call outputs besides the reply payload.
struct CallOutcome {
  CallStatus status = CallStatus::kOk;
  std::string error;           // The reason, when status != kOk.
  uint32_t reply_delay_us = 0;  // Hold the reply this long (calibration); 0 = send now.
};

class CallHandler {
 public:
  virtual ~CallHandler() = default;
  // Handles one call. Appends the reply payload to `reply` (the server has
  // already written the reply's frame header there). On failure, sets
  // outcome->status and ->error; the server then discards what was appended
  // and sends the error as the reply.
  virtual void Handle(const CallHeader& header, ByteView payload, ByteBuffer* reply,
                      CallOutcome* outcome) = 0;
};

class Service {
 public:
  virtual ~Service() = default;
  // A handler for calls in `codec` (the registry's entry, which the
  // transport resolved from what its wire carries), or an error saying why
  // the codec
  // cannot be served (the server sends it to the client and closes).
  virtual StatusOr<std::unique_ptr<CallHandler>> NewCallHandler(const CodecInfo& codec) = 0;
  // Adds the service's own figures (region counters, ...) to a Stats reply.
  virtual void AppendStats(nlohmann::json* out) = 0;
};

}  // namespace wirebench::rpc
