// BlockingChannel: a CallChannel on a blocking socket, for the OS-thread
// model (one OS thread, connection and logical client each). The thread
// writes a request with send() and waits for its reply in recv() on its own
// socket: no reactor, no wake-up hand-off between coroutines, one context
// switch per operation. A call's PendingCall is told the outcome from
// WaitReply() (or from Send()/Close() when the call fails there).
//
// The receive wait is bounded (kPollInterval), so the owning thread can look
// at its event loop (driver requests, stop) while a server is slow or silent.
//
// Thread-safety: a BlockingChannel belongs to one thread; every method must
// be called there.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "common/bytes.h"
#include "common/status.h"
#include "rpc/call_channel.h"
#include "rpc/client.h"

namespace wirebench {

class BlockingChannel final : public rpc::CallChannel {
 public:
  // Longest single wait in recv() before WaitReply returns to its caller.
  static constexpr std::chrono::milliseconds kPollInterval{20};

  // Connects (blocking, bounded by options.handshake_timeout_ms or 10 s) and
  // sends the preamble.
  static StatusOr<std::unique_ptr<BlockingChannel>> Connect(const rpc::ClientOptions& options);
  ~BlockingChannel() override;
  BlockingChannel(const BlockingChannel&) = delete;
  BlockingChannel& operator=(const BlockingChannel&) = delete;

  // One call at a time: nullptr while a call is in flight or after a failure.
  ByteBuffer* BeginCall(uint8_t method, rpc::PendingCall* pending,
                        uint32_t* call_id = nullptr) override;
  // Writes the request; a failure fails the call before Send() returns.
  void Send() override;
  void Abandon() override;
  void Cancel(uint32_t call_id) override;

  // Waits up to kPollInterval for the reply of the call in flight and, when
  // it is in, hands it to the call's PendingCall.
  void WaitReply();
  bool waiting() const { return pending_ != nullptr; }

  bool ok() const override { return error_.ok(); }
  const Status& error() const override { return error_; }
  size_t inflight() const override { return pending_ != nullptr ? 1 : 0; }
  const rpc::ClientConnectionStats& stats() const override { return stats_; }
  std::string peer() const override;
  void Close() override;

 private:
  BlockingChannel(int fd, rpc::ClientOptions options);
  // Records the first error, closes the socket and fails the call in flight.
  void Fail(const Status& status);
  // Parses and dispatches the complete frames in in_.
  void DispatchReplies();

  int fd_;
  rpc::ClientOptions options_;
  ByteBuffer out_;
  ByteBuffer in_;
  rpc::PendingCall* pending_ = nullptr;
  uint32_t call_id_ = 0;
  rpc::CallIdGenerator call_ids_;
  size_t open_frame_ = SIZE_MAX;
  bool answered_ = false;  // Some byte came back from the server.
  std::chrono::steady_clock::time_point first_sent_{};
  Status error_;
  rpc::ClientConnectionStats stats_;
};

}  // namespace wirebench
