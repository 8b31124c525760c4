// SharedConnection and SharedChannel: the OS-thread model's client
// connection, whatever the protocol under it. Many OS threads, one logical
// client each, share one connection (as HBase's own client does, and YCSB's
// Java threads over it); each thread has its own SharedChannel on it, sends
// one call and blocks for its reply. A transport whose client threads share
// connections implements both (transports/wirebench/shared_connection.h) and
// hands them out through its registry entry (Transport::ConnectShared); the
// driver (bench/loadgen) knows only these interfaces.
//
// Thread-safety: a SharedConnection may be used from any thread. A
// SharedChannel belongs to one thread (its caller): every method except
// Wake() must be called there, and its PendingCall callbacks run there, from
// Send(), WaitReply() or Close().
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/thread_stats.h"
#include "rpc/call_channel.h"
#include "rpc/endpoint.h"

namespace wirebench::rpc {

// What the driver says of the connections it opens for the OS-thread model:
// the server's endpoint, and
struct SharedConnectionOptions : Endpoint {
  // The codec the calls carry (announced to the server if the protocol does).
  uint8_t codec_id = 1;
  // Callers (SharedChannels) the connection can carry; each has one call
  // slot. At most kMaxCallsInFlight.
  int max_channels = 1;
  // The role and name in the thread registry (common/thread_stats.h) of a
  // thread the connection starts to receive replies, so its CPU counts with
  // its side's threads.
  ThreadRole reader_role = ThreadRole::kOther;
  std::string reader_name = "shared-reader";
  // Polled while connecting: true gives up (a stop request; the connect then
  // fails with Aborted).
  std::function<bool()> cancelled;
};

// One caller's CallChannel on a shared connection: one call at a time. The
// caller sends with Send() and then waits in WaitReply(), which runs the
// call's PendingCall when the outcome is in.
class SharedChannel : public CallChannel {
 public:
  // The longest one WaitReply() lasts: a waiting caller looks at its event
  // loop (driver requests, stop) at least this often.
  static constexpr std::chrono::milliseconds kPollInterval{20};

  // Waits at most `timeout` (and kPollInterval) for the outcome of the call
  // in flight and, when it is in, hands it to the call's PendingCall (which
  // may start the next call). Returns early after Wake().
  virtual void WaitReply(std::chrono::nanoseconds timeout = kPollInterval) = 0;
  // A call was sent and its outcome has not been handed over yet.
  virtual bool waiting() const = 0;
  // Makes a WaitReply() in progress (or the next one) return (any thread);
  // TakeWake() tells the caller that it was woken so.
  virtual void Wake() = 0;
  bool TakeWake() {
    return woken_.load(std::memory_order_relaxed) &&
           woken_.exchange(false, std::memory_order_acquire);
  }

 protected:
  // Set by Wake() before it interrupts the wait (release); WaitReply()
  // returns without waiting while it is set. Here rather than behind a
  // virtual call: TakeWake() runs once per wait, on every call's path.
  std::atomic<bool> woken_{false};
};

// A connection the OS-thread model's caller threads share.
class SharedConnection {
 public:
  // Closes the connection. REQUIRES: every SharedChannel of it is gone.
  virtual ~SharedConnection() = default;

  // A channel for one more caller; nullptr once max_channels were made.
  virtual std::unique_ptr<SharedChannel> NewChannel() = 0;
  // A consistent-enough snapshot of the connection's counters.
  virtual ClientConnectionStats stats() const = 0;
  // Shuts the connection down: every call in flight fails with Aborted (or
  // with the error the connection already had). Any thread; idempotent.
  virtual void Close() = 0;
};

}  // namespace wirebench::rpc
