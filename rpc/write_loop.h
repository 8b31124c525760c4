// The coalescing write loop shared by client and server connections.
//
// Producers append whole frames to `OutputQueue::out` and call Wake(); the
// loop swaps `out` with `writing` and writes it in one async_write, so every
// frame appended while the previous write was in flight leaves in the next
// single write. The connection decides, through a small hooks object, when
// to stop, whether the output may be sent yet and what to count.
//
// A connection that queues frames while it handles a read (a client whose
// replies start the next requests) can instead call FlushNow() once the read
// is handled: when the loop is idle that writes `out` with one non-blocking
// send() from the caller, without waking the loop (a wake costs a timer
// cancel, a re-arm that may reach timerfd_settime, and a scheduler round
// trip per batch). Whatever the socket does not take is left in `writing`
// for the loop, which is then woken and finishes it first.
//
// Thread-safety: an OutputQueue and its loop belong to the connection's
// io_context thread; every member is touched only there.
#pragma once

#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstddef>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "common/bytes.h"

namespace wirebench::rpc {

struct OutputQueue {
  template <typename Executor>
  explicit OutputQueue(const Executor& ex, size_t reserve) : signal(ex) {
    out.Reserve(reserve);
    writing.Reserve(reserve);
  }
  // Wakes the loop if it is waiting for output (cheap when it is not).
  void Wake() {
    if (waiting) signal.cancel();
  }
  // Wakes the loop unconditionally (the connection is closing).
  void Cancel() { signal.cancel(); }

  ByteBuffer out;      // Frames waiting to be written; producers append here.
  ByteBuffer writing;  // The bytes of the write in flight (or left by FlushNow).
  boost::asio::steady_timer signal;
  bool waiting = false;
};

// Runs until `hooks.Stopped()`, until `hooks.Finished()` with nothing left to
// write, or until a write fails; returns the write error (or success).
// Hooks (all called on the connection's thread):
//   bool Stopped()       the connection is closed: return at once.
//   bool CanSend()       `out` may be written now (e.g. no frame half-built).
//   bool Finished()      nothing more will be queued: return when `out` is empty.
//   void OnSwapped()     `out` was just emptied into `writing`.
//   void OnWritten(n)    a write of n bytes completed.
template <typename Hooks>
boost::asio::awaitable<boost::system::error_code> RunWriteLoop(
    boost::asio::ip::tcp::socket& socket, OutputQueue& q, Hooks& hooks) {
  namespace asio = boost::asio;
  while (!hooks.Stopped()) {
    // A non-empty `writing` is what a FlushNow's send did not take: it goes first.
    if (q.writing.empty()) {
      if (q.out.empty() || !hooks.CanSend()) {
        if (q.out.empty() && hooks.Finished()) break;
        q.waiting = true;
        q.signal.expires_at(std::chrono::steady_clock::time_point::max());
        co_await q.signal.async_wait(asio::as_tuple(asio::use_awaitable));
        q.waiting = false;
        continue;
      }
      q.writing.Swap(q.out);
      q.out.Clear();
      hooks.OnSwapped();
    }
    auto [ec, n] = co_await asio::async_write(
        socket, asio::buffer(q.writing.data(), q.writing.size()),
        asio::as_tuple(asio::use_awaitable));
    if (ec) co_return ec;
    hooks.OnWritten(n);
    q.writing.Clear();
  }
  co_return boost::system::error_code{};
}

// Writes `q.out` now from the caller when the loop is idle (waiting, nothing
// in `writing`), with one non-blocking send(); otherwise wakes the loop as
// Wake() does. A short or refused send leaves the rest in `writing` and
// wakes the loop, which writes it before anything else (and reports a
// socket error the same way as its own writes).
template <typename Hooks>
void FlushNow(boost::asio::ip::tcp::socket& socket, OutputQueue& q, Hooks& hooks) {
  if (q.out.empty()) return;
  if (!q.waiting || !q.writing.empty() || !hooks.CanSend() || hooks.Stopped()) {
    q.Wake();
    return;
  }
  q.writing.Swap(q.out);
  q.out.Clear();
  hooks.OnSwapped();
  ssize_t n;
  do {
    n = ::send(socket.native_handle(), q.writing.data(), q.writing.size(),
               MSG_DONTWAIT | MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n > 0) hooks.OnWritten(size_t(n));
  if (n == ssize_t(q.writing.size())) {
    q.writing.Clear();
    return;
  }
  if (n > 0) q.writing.Consume(size_t(n));
  q.Cancel();
}

}  // namespace wirebench::rpc
