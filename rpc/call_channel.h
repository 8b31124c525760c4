// CallChannel: what a caller needs from one client connection, whatever the
// RPC layer under it (wirebench's own framing in transports/wirebench/client.h, gRPC in
// transports/grpc/grpc_client.h). The contract is ClientConnection's: BeginCall
// returns the buffer to append the payload to, Send sends it, and the
// call's PendingCall is told the outcome on the thread that owns the channel.
//
// Thread-safety: a CallChannel belongs to one io_context run by one thread;
// every method must be called on that thread, and PendingCall callbacks run
// there too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/bytes.h"
#include "common/counters.h"
#include "common/status.h"
#include "rpc/call_header.h"

namespace wirebench::rpc {

// A call waiting for its reply; implemented by the caller.
class PendingCall {
 public:
  // The reply arrived. `payload` is valid only during this call.
  virtual void OnReply(const CallHeader& header, ByteView payload) = 0;
  // The connection failed before the reply arrived.
  virtual void OnFailure(const Status& status) = 0;

 protected:
  ~PendingCall() = default;
};

// Counters of one connection (single writer: its thread).
struct ClientConnectionStats {
  uint64_t frames_out = 0, frames_in = 0;
  uint64_t bytes_out = 0, bytes_in = 0;
  uint64_t writes = 0, reads = 0;  // Socket operations: frames_out / writes = coalescing.
  uint64_t stray_replies = 0;      // Replies whose call id matched no pending call.

  using Fields = FieldList<&ClientConnectionStats::frames_out, &ClientConnectionStats::frames_in,
                           &ClientConnectionStats::bytes_out, &ClientConnectionStats::bytes_in,
                           &ClientConnectionStats::writes, &ClientConnectionStats::reads,
                           &ClientConnectionStats::stray_replies>;
  ClientConnectionStats& operator+=(const ClientConnectionStats& o) { return AddFields(*this, o); }
  ClientConnectionStats operator-(const ClientConnectionStats& o) const {
    return SubtractFields(*this, o);
  }
};

// Calls one channel can have in flight: call ids carry a 16-bit slot index.
inline constexpr uint32_t kMaxCallsInFlight = 65535;

// Call ids: a 16-bit generation over the 16-bit slot index, so a late reply
// to a slot's previous call is told apart from its current one. Never 0
// (call id 0 is reserved for connection errors).
class CallIdGenerator {
 public:
  uint32_t Next(uint32_t slot) {
    generation_ = (generation_ + 1) & 0xFFFF;
    if (generation_ == 0) generation_ = 1;
    return (generation_ << 16) | slot;
  }

 private:
  uint32_t generation_ = 1;
};

class CallChannel {
 public:
  virtual ~CallChannel() = default;

  // Starts a call and returns the buffer to append its payload to; then
  // call Send() (or Abandon() if encoding failed). nullptr when the channel
  // has failed (see error()) or has no room for another call.
  virtual ByteBuffer* BeginCall(uint8_t method, PendingCall* pending,
                                uint32_t* call_id = nullptr) = 0;
  virtual void Send() = 0;
  virtual void Abandon() = 0;
  // Forgets a pending call without failing it (its owner is going away).
  virtual void Cancel(uint32_t call_id) = 0;

  virtual bool ok() const = 0;
  // Why the channel failed: names the server and the cause.
  virtual const Status& error() const = 0;
  virtual size_t inflight() const = 0;
  virtual const ClientConnectionStats& stats() const = 0;
  virtual std::string peer() const = 0;
  // Closes the channel; pending calls fail with Aborted.
  virtual void Close() = 0;
};

}  // namespace wirebench::rpc
