// WirebenchSharedConnection and WirebenchSharedChannel: wirebench's framing
// under the OS-thread model's connection (rpc::SharedConnection and
// rpc::SharedChannel, rpc/shared_channel.h), as HBase's own client does it
// (and YCSB's Java threads over it): many OS threads, one logical client
// each, share one TCP connection; a reader thread receives the replies and
// wakes the thread waiting for each. The driver opens them through the
// transport's registry entry (Transport::ConnectShared).
//
//  - Sending (flat combining): a caller encodes its request into its own
//    buffer, then appends the frame to the connection's output buffer under
//    the connection's mutex. If no thread is writing, it becomes the writer
//    and send()s everything queued, again while more arrived meanwhile;
//    otherwise it leaves its frame to the current writer. Requests of many
//    threads so leave in one write (FramesPerWrite > 1) and no thread waits
//    for the socket on another's behalf.
//    One more rule batches what a batch of replies causes: while callers
//    woken by a reply have not yet handled it (most send their next request
//    from the reply), a caller queues its frame without writing, and the
//    last of them writes them all (or the one that makes kMaxDeferredFrames).
//    The reader writes what is queued if nothing else has within
//    kPollInterval, so a caller that never gets to its reply delays the
//    others' requests by that much at most.
//  - Receiving: the reader thread blocks in recv() for a batch of reply
//    frames, copies each reply into its caller's slot and, once the whole
//    batch is delivered, wakes the callers through a futex on each slot's
//    state word (only those that sleep).
//    The caller runs its PendingCall on its own thread: a waiting thread
//    costs one voluntary context switch per call, the wait for its reply.
//
// Waits are bounded (kPollInterval) so every thread sees stop requests:
// WaitReply() returns to its caller at least that often, the reader's
// recv() times out as often, and Close() shuts the socket down, which ends
// the reader and fails every waiting call at once. A server that closes the
// connection, or answers with garbage, fails every call in flight with an
// error that names it.
//
// Zero heap allocations per call in steady state: the buffers keep their
// high-water capacity.
//
// Thread-safety: rpc/shared_channel.h's.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/bytes.h"
#include "common/status.h"
#include "common/thread_stats.h"
#include "rpc/call_channel.h"
#include "rpc/shared_channel.h"
#include "transports/wirebench/client.h"
#include "transports/wirebench/frame.h"

namespace wirebench::wbrpc {

class WirebenchSharedChannel;

// rpc::SharedConnectionOptions with the whole of wirebench's client options
// (frame limits, the handshake timeout) where those have host, port and
// codec.
struct WirebenchSharedConnectionOptions {
  ClientOptions client;
  // Callers (WirebenchSharedChannels) the connection can carry; each has one
  // call slot. At most kMaxCallsInFlight.
  int max_channels = 1;
  // The reader thread's role and name in the thread registry
  // (common/thread_stats.h), so its CPU counts with its side's threads.
  ThreadRole reader_role = ThreadRole::kOther;
  std::string reader_name = "shared-reader";
  // Polled while connecting: true gives up (a stop request).
  std::function<bool()> cancelled;
};

class WirebenchSharedConnection final : public rpc::SharedConnection {
 public:
  // Longest single wait of the reader in recv() and of a caller in WaitReply().
  static constexpr std::chrono::milliseconds kPollInterval = rpc::SharedChannel::kPollInterval;
  // Frames left for a caller still to handle its reply at most, before the
  // caller that queues one more writes them (a batch in flight to the
  // server while the rest is prepared, instead of a whole round in lockstep).
  static constexpr int kMaxDeferredFrames = 16;

  // Connects (bounded by 10 s and by options.cancelled), sends the preamble
  // and starts the reader thread.
  static StatusOr<std::unique_ptr<WirebenchSharedConnection>> Connect(
      WirebenchSharedConnectionOptions options);
  // The same from the driver's options (rpc/shared_channel.h): wirebench's
  // client defaults for the rest.
  static StatusOr<std::unique_ptr<WirebenchSharedConnection>> Connect(
      const rpc::SharedConnectionOptions& options);
  // Closes the connection and joins the reader. REQUIRES: every
  // WirebenchSharedChannel of the connection is gone.
  ~WirebenchSharedConnection() override;
  WirebenchSharedConnection(const WirebenchSharedConnection&) = delete;
  WirebenchSharedConnection& operator=(const WirebenchSharedConnection&) = delete;

  // A channel for one more caller; nullptr once max_channels were made.
  std::unique_ptr<rpc::SharedChannel> NewChannel() override;

  bool ok() const { return !failed_.load(std::memory_order_acquire); }
  // Why the connection failed (Ok while it has not).
  Status error() const;
  // Calls sent and not yet answered or failed.
  size_t inflight() const;
  // A consistent-enough snapshot of the connection's counters.
  rpc::ClientConnectionStats stats() const override;
  std::string peer() const;
  // Shuts the socket down: the reader ends and every call in flight fails
  // with Aborted (or with the error the connection already had). Any
  // thread; idempotent.
  void Close() override;

 private:
  friend class WirebenchSharedChannel;
  // The state word of a call slot: the call's 16-bit generation (its call
  // id's high half) over these flags.
  static constexpr uint32_t kInFlight = 1;  // Sent; the reader may answer it.
  static constexpr uint32_t kSleeping = 2;  // Its caller sleeps on the word (futex).
  static constexpr uint32_t kReady = 4;     // The reply is in the slot.
  static constexpr uint32_t kFailed = 8;    // The connection failed first.
  static constexpr uint32_t kBuffer1 = 16;  // The reply goes to reply[1] (else reply[0]).
  struct Slot {
    std::atomic<uint32_t> state{0};
    FrameHeader header;  // Of the reply; written by the reader before kReady.
    // Alternating per call, so a reply being read by its caller is never
    // overwritten by the reader delivering that caller's next reply.
    ByteBuffer reply[2];
  };

  WirebenchSharedConnection(int fd, WirebenchSharedConnectionOptions options);
  void ReadLoop();
  // Parses and delivers the complete frames in in_; false once failed.
  bool DispatchReplies();
  void Deliver(const Frame& f);
  // Records the first error, shuts the socket down and fails every call in
  // flight.
  void Fail(const Status& status);
  // Queues a caller's frame and, unless another thread is writing or will
  // write (see unhandled_replies_), writes everything queued. False if the
  // connection had failed (not queued). `handles_reply`: the caller sends
  // it while handling a delivered reply (see ReplyHandled).
  bool Queue(ByteView frame, bool handles_reply);
  // A caller has handled a delivered reply (without sending, or before).
  void ReplyHandled();
  // Writes what is queued unless a writer is active. REQUIRES: *lock holds mu_.
  void WriteQueued(std::unique_lock<std::mutex>* lock);

  int fd_;
  const WirebenchSharedConnectionOptions options_;
  const std::string peer_;
  std::unique_ptr<Slot[]> slots_;
  std::atomic<int> channels_{0};
  std::thread reader_;

  // Output side, under mu_.
  mutable std::mutex mu_;
  ByteBuffer queued_;   // Frames waiting for the writer.
  ByteBuffer writing_;  // Frames being written (by the writer, outside mu_).
  bool writer_active_ = false;
  bool closed_ = false;
  Status error_;  // Set once, under mu_, before failed_.
  std::atomic<bool> failed_{false};
  uint64_t frames_out_ = 0, bytes_out_ = 0, writes_ = 0;
  int deferred_frames_ = 0;  // Queued since the last write began.
  // Replies delivered whose callers have not yet handled them: their next
  // requests are still to come, so a caller's frame waits for them. Raised
  // by the reader, lowered under mu_.
  std::atomic<int> unhandled_replies_{0};
  std::atomic<int64_t> first_sent_ns_{0};  // Steady clock, of the first request.

  // Input side: the reader thread's own, counters readable from any thread.
  ByteBuffer in_;
  bool answered_ = false;  // Some byte came back from the server.
  // Slots whose callers sleep on a reply delivered from the current batch.
  // A slot's call is answered once per send, so max_channels entries suffice.
  std::unique_ptr<uint32_t[]> to_wake_;
  size_t to_wake_count_ = 0;
  std::atomic<uint64_t> frames_in_{0}, bytes_in_{0}, reads_{0}, stray_replies_{0};
};

// One caller's SharedChannel over a WirebenchSharedConnection: one call at a
// time, in the caller's slot. The caller sends with Send() and then waits in
// WaitReply(), which runs the call's PendingCall when the outcome is in.
class WirebenchSharedChannel final : public rpc::SharedChannel {
 public:
  ~WirebenchSharedChannel() override;
  WirebenchSharedChannel(const WirebenchSharedChannel&) = delete;
  WirebenchSharedChannel& operator=(const WirebenchSharedChannel&) = delete;

  // One call at a time: nullptr while a call is in flight, after Close(),
  // or once the connection failed.
  ByteBuffer* BeginCall(uint8_t method, rpc::PendingCall* pending,
                        uint32_t* call_id = nullptr) override;
  // Queues the request (see WirebenchSharedConnection). A request over the frame
  // limit, or one on a failed connection, fails before Send() returns.
  void Send() override;
  void Abandon() override;
  void Cancel(uint32_t call_id) override;

  // Waits at most `timeout` (and kPollInterval) for the outcome of the call
  // in flight and, when it is in, hands it to the call's PendingCall (which
  // may start the next call). Returns early after Wake().
  void WaitReply(std::chrono::nanoseconds timeout = kPollInterval) override;
  bool waiting() const override { return pending_ != nullptr && sent_; }
  // Makes a WaitReply() in progress return (any thread); TakeWake() tells
  // the caller that it was woken so.
  void Wake() override;

  bool ok() const override { return error_.ok() && conn_->ok(); }
  const Status& error() const override;
  size_t inflight() const override { return waiting() ? 1 : 0; }
  // The whole connection's counters (shared with its other channels).
  const rpc::ClientConnectionStats& stats() const override;
  std::string peer() const override { return conn_->peer(); }
  // Fails the call in flight with Aborted and refuses further calls; the
  // connection stays open for its other channels.
  void Close() override;

 private:
  friend class WirebenchSharedConnection;
  WirebenchSharedChannel(WirebenchSharedConnection* conn, uint32_t slot);
  // Hands a delivered outcome (state has kReady or kFailed) to the caller.
  void Finish(uint32_t state);

  WirebenchSharedConnection* conn_;
  WirebenchSharedConnection::Slot* slot_;
  uint32_t slot_index_;
  ByteBuffer out_;
  size_t open_frame_ = SIZE_MAX;
  rpc::PendingCall* pending_ = nullptr;
  uint32_t call_id_ = 0;
  bool sent_ = false;
  bool buffer1_ = false;  // The call in flight's reply goes to reply[1].
  bool in_reply_ = false;  // Handling a delivered reply, not yet accounted.
  rpc::CallIdGenerator call_ids_;
  mutable Status error_;
  mutable rpc::ClientConnectionStats stats_;
};

}  // namespace wirebench::wbrpc
