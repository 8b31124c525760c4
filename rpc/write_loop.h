// The coalescing write loop shared by client and server connections.
//
// Producers append whole frames to `OutputQueue::out` and call Wake(); the
// loop swaps `out` with `writing` and writes it in one async_write, so every
// frame appended while the previous write was in flight leaves in the next
// single write. The connection decides, through a small hooks object, when
// to stop, whether the output may be sent yet and what to count.
//
// Thread-safety: an OutputQueue and its loop belong to the connection's
// io_context thread; every member is touched only there.
#pragma once

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
  ByteBuffer writing;  // The bytes of the write in flight.
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
    auto [ec, n] = co_await asio::async_write(
        socket, asio::buffer(q.writing.data(), q.writing.size()),
        asio::as_tuple(asio::use_awaitable));
    if (ec) co_return ec;
    hooks.OnWritten(n);
    q.writing.Clear();
  }
  co_return boost::system::error_code{};
}

}  // namespace wirebench::rpc
