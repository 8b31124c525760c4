// The client half of the network core: what every socket-owning client
// connection does alike, whatever its protocol. It connects (Dial: resolve,
// connect within an optional deadline, TCP_NODELAY), runs the reader (bytes
// into one receive buffer, handed whole to the protocol) and the coalescing
// writer (rpc/write_loop.h), keeps the call slots of the calls in flight,
// fails every outstanding call with one Status when the connection is lost
// and closes. What the bytes mean is the protocol's: how a request is
// written into out(), how replies are cut from the received bytes and which
// call each answers, what it sends first, and its errors in its own words.
//
// A protocol's connection derives from NetClient<Itself> (CRTP: the reader
// and the request path call the protocol's hooks without a virtual call, and
// each protocol gets its own copy of the socket code, compiled with its own
// parser; see TaggedHandler in rpc/write_loop.h). It implements
// rpc::CallChannel's BeginCall, Send (with BeginRequest, RequestQueued and
// WakeWriter below) and these hooks, which the core calls on its thread:
//   size_t ConsumeReplies(ByteView in, size_t* unit)
//       handles the whole replies at the start of `in` and returns the bytes
//       used; sets *unit to the size of the incomplete reply after them once
//       its length is known (the core makes room for it). May Fail() the
//       connection (the reader then stops).
//   void OnReadError(const boost::system::error_code& ec)
//       the socket read failed (never called once closed): usually
//       Fail(its words for the loss, with LossCause(ec)).
//   Status WriteError(const boost::system::error_code& ec)
//       what every outstanding call fails with when a write fails.
// and optionally (the core's defaults do nothing):
//   void OnAnswered()       the first bytes came back from the peer.
//   void OnClose()          Close() is under way (cancel the protocol's timers).
//   bool Writable() const   false while the writer must hold its output.
//
// Thread-safety: a NetClient belongs to one io_context run by one thread;
// every method must be called on that thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/bytes.h"
#include "common/status.h"
#include "rpc/asio_io.h"
#include "rpc/call_channel.h"
#include "rpc/call_slots.h"
#include "rpc/write_loop.h"

namespace wirebench::rpc {

// Closes a socket that is still connecting (or being spoken to before its
// connection is handed over) when its time is up, so a silent peer is an
// error and not a hang. Cancelled by Cancel() or when destroyed.
class SocketDeadline {
 public:
  SocketDeadline(boost::asio::io_context& ctx, std::chrono::milliseconds after)
      : timer_(ctx), after_(after), state_(std::make_shared<State>()) {}
  ~SocketDeadline() { Cancel(); }
  SocketDeadline(const SocketDeadline&) = delete;
  SocketDeadline& operator=(const SocketDeadline&) = delete;

  // Starts the clock: `socket` is closed `after` from now unless cancelled.
  void Arm(boost::asio::ip::tcp::socket& socket);
  void Cancel();
  // The time ran out (and the socket was closed).
  bool expired() const { return state_->expired; }

 private:
  // Shared with the timer's handler, which may run after the deadline is
  // gone (its expiry already queued when it was cancelled).
  struct State {
    boost::asio::ip::tcp::socket* socket = nullptr;
    bool expired = false;
  };
  boost::asio::steady_timer timer_;
  std::chrono::milliseconds after_;
  std::shared_ptr<State> state_;
};

struct DialOptions {
  std::string host;
  uint16_t port = 0;
  bool tcp_nodelay = true;
  // Said in parentheses after a failed connect: what should be listening
  // there ("is ... running there?").
  std::string connect_hint;
};

// Resolves and connects `socket`; `deadline` (if any) is armed once the
// name is resolved, and left running for what the caller sends next. The
// error names the server ("host:port") and the cause. `options` must
// outlive the co_await; pass a named object (g++ 12 destroys a braced
// temporary argument of a coroutine twice).
boost::asio::awaitable<Status> Dial(boost::asio::ip::tcp::socket& socket,
                                    const DialOptions& options,
                                    SocketDeadline* deadline = nullptr);

// "closed by the server" at EOF, else the socket error's text.
std::string LossCause(const boost::system::error_code& ec);

template <typename Conn, typename Extra = NoCallExtra>
class NetClient : public CallChannel {
 public:
  // Forgets a pending call without failing it (its owner is going away):
  // its PendingCall is never touched again, and a late reply is stray.
  void Cancel(uint32_t call_id) final { slots_.Finish(call_id); }
  // Drops the request begun last (its encoding failed).
  void Abandon() final {
    q_.out.Resize(open_);
    open_ = SIZE_MAX;
    slots_.Abandon(open_slot_);
  }
  bool ok() const final { return error_.ok(); }
  // Why the connection failed: names the server and the cause.
  const Status& error() const final { return error_; }
  size_t inflight() const final { return slots_.inflight(); }
  const ClientConnectionStats& stats() const final { return stats_; }
  std::string peer() const final { return peer_; }
  // Closes the socket; pending calls fail with Aborted (or with the error
  // the connection already had) before this returns. Idempotent.
  void Close() final {
    if (closed_) return;
    closed_ = true;
    CloseSocket(socket_, q_);
    conn().OnClose();
    FailAll(error_.ok() ? Status::Aborted("connection to " + peer_ + " closed by the client")
                        : error_);
  }

 protected:
  // `peer`: "host:port", as every message names the server.
  NetClient(boost::asio::io_context& ctx, boost::asio::ip::tcp::socket socket, std::string peer)
      : ctx_(ctx),
        socket_(std::move(socket)),
        peer_(std::move(peer)),
        q_(ctx.get_executor(), kReadChunk) {
    in_.Reserve(kReadChunk);
  }
  ~NetClient() override = default;

  // Starts the reader and the writer (once the connection is owned by a
  // shared_ptr: they keep it alive).
  void StartLoops() {
    StartReading();
    auto self = conn().shared_from_this();
    boost::asio::co_spawn(ctx_, [self]() { return self->WriteLoop(); }, boost::asio::detached);
  }
  // Starts a reader (again, on a socket opened anew).
  void StartReading() {
    auto self = conn().shared_from_this();
    boost::asio::co_spawn(ctx_, [self]() { return self->ReadLoop(); }, boost::asio::detached);
  }

  // Takes a slot for a call and opens its request at the end of out():
  // false when the connection has failed or is closed, or has
  // kMaxCallsInFlight calls. The request's bytes go to out() (the writer
  // holds them until RequestQueued or Abandon).
  bool BeginRequest(PendingCall* pending, const Extra& extra, uint32_t* call_id,
                    uint32_t id_mask = 0xFFFFFFFFu) {
    if (!error_.ok() || closed_) return false;
    if (!slots_.Take(pending, extra, &open_slot_, call_id, id_mask)) return false;
    open_ = q_.out.size();
    return true;
  }
  // Where in out() the open request starts; SIZE_MAX when none is open.
  size_t request_start() const { return open_; }
  const typename CallSlots<Extra>::Slot& open_call() const { return slots_[open_slot_]; }
  // The open request is whole in out() and in flight.
  void RequestQueued() {
    open_ = SIZE_MAX;
    slots_.Sent();
    ++stats_.frames_out;
  }
  // Requests made while replies are dispatched leave together, in one send
  // at the end of the read (FlushNow), without waking the writer.
  void WakeWriter() {
    if (!dispatching_) q_.Wake();
  }

  // Every call in flight fails with the connection's error (`status` if it
  // had none yet).
  void FailAll(const Status& status) {
    if (error_.ok()) error_ = status;
    // Collect first: OnFailure may start new calls (which fail at once).
    for (PendingCall* p : slots_.TakeAll()) p->OnFailure(error_);
  }
  void Fail(const Status& status) {
    FailAll(status);
    Close();
  }
  // Some byte came back from the peer.
  bool answered() const { return answered_; }
  bool closed() const { return closed_; }

  // The protocol's defaults.
  void OnAnswered() {}
  void OnClose() {}
  bool Writable() const { return true; }

  boost::asio::io_context& ctx_;
  boost::asio::ip::tcp::socket socket_;
  const std::string peer_;
  ByteBuffer in_;
  OutputQueue q_;
  CallSlots<Extra> slots_;
  Status error_;
  ClientConnectionStats stats_;
  bool dispatching_ = false;  // The reader is handing replies to their calls.

 private:
  // What RunWriteLoop and FlushNow need; a type per protocol, so each has its
  // own copy of the write and timer code.
  struct WriteHooks {
    NetClient* c;
    bool Stopped() const { return c->closed_; }
    bool CanSend() const { return c->open_ == SIZE_MAX && c->conn().Writable(); }
    bool Finished() const { return false; }
    void OnSwapped() {}
    void OnWritten(size_t n) {
      ++c->stats_.writes;
      c->stats_.bytes_out += n;
    }
  };
  // The tag of the protocol's own copy of the read code.
  struct ReadTag {};

  Conn& conn() { return static_cast<Conn&>(*this); }
  const Conn& conn() const { return static_cast<const Conn&>(*this); }

  boost::asio::awaitable<void> ReadLoop() {
    auto self = conn().shared_from_this();
    for (;;) {
      if (in_.capacity() - in_.size() < kReadChunk / 4) in_.Reserve(in_.size() + kReadChunk);
      auto [ec, n] = co_await AsyncReadSome<ReadTag>(
          socket_, boost::asio::buffer(in_.data() + in_.size(), in_.capacity() - in_.size()));
      if (ec) {
        if (!closed_) conn().OnReadError(ec);
        co_return;
      }
      if (!answered_) {
        answered_ = true;
        conn().OnAnswered();
      }
      ++stats_.reads;
      stats_.bytes_in += n;
      in_.Resize(in_.size() + n);
      size_t unit = 0;
      dispatching_ = true;
      const size_t used = conn().ConsumeReplies(in_.view(), &unit);
      dispatching_ = false;
      if (closed_) co_return;
      if (unit != 0) in_.Reserve(used + unit);
      in_.Consume(used);
      WriteHooks hooks{this};
      FlushNow(socket_, q_, hooks);
    }
  }

  boost::asio::awaitable<void> WriteLoop() {
    auto self = conn().shared_from_this();
    WriteHooks hooks{this};
    const boost::system::error_code ec = co_await RunWriteLoop(socket_, q_, hooks);
    if (ec && !closed_) FailAll(conn().WriteError(ec));
    Close();
  }

  size_t open_ = SIZE_MAX;  // Offset in q_.out of the request being written.
  uint32_t open_slot_ = 0;
  bool answered_ = false;
  bool closed_ = false;
};

}  // namespace wirebench::rpc
