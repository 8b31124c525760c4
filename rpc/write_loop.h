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

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/associator.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "common/bytes.h"

namespace wirebench::rpc {

// Socket and timer operations awaited as `as_tuple(use_awaitable)` would
// be (the results as one tuple), whose Asio code is compiled for `Tag`
// alone.
//
// Asio's operations are templates over the completion handler: every file
// that awaits a read, a write or a timer with as_tuple(use_awaitable)
// instantiates the very same functions (the initiation, the operation's
// perform and complete, the coroutine's resumption), each file compiles
// them with its own inlining, and the linker keeps one file's copy for the
// whole program: whichever archive member it happens to load first. The hot
// path of a connection then runs another file's code, and moving a file
// between libraries moves instructions per call (the hbase server once
// ran the wirebench client's copy of the read, with epoll_reactor::start_op,
// awaitable_thread::pump and the handler allocator out of line, some 250
// instructions per operation). A handler type that names `Tag` makes the
// instantiations the tag's: a tag private to a file (an anonymous
// namespace) gives that file its own copy, compiled with the code around
// it, whatever the link order. Behaviour is as_tuple's: the handler packs
// the results into a tuple for the coroutine's handler, and its associated
// executor, allocator and cancellation slot are that handler's.
template <typename Tag, typename Handler>
struct TaggedHandler {
  Handler handler;  // The coroutine's (use_awaitable's awaitable_handler).
  // Flattened: the coroutine's resumption (awaitable_handler,
  // awaitable_thread::pump) is compiled into the tag's copy too.
  template <typename... Args>
  [[gnu::flatten]] void operator()(Args&&... args) {
    std::move(handler)(std::make_tuple(std::forward<Args>(args)...));
  }
};

// Starts an operation with `handler` wrapped for `Tag`. Flattened: the
// operation's allocation and the reactor's start_op are compiled into the
// tag's copy too, not called in whichever copy of them the linker keeps (an
// out-of-line start_op cost the hbase client about 100 instructions per
// operation: the call, its spills and the allocator's).
// Not cloned or inlined by GCC's interprocedural passes (noipa): a clone of
// a flattened function can land in another inline function's COMDAT group
// and call a third one's local alias there, which the linker rejects when it
// keeps that third function from another file ("defined in discarded
// section": the wirebench client's write loop did, at -O2). Clang has no
// noipa; the sanitizer builds, which use it, link without.
#if defined(__clang__)
#define WIREBENCH_RPC_NOIPA
#else
#define WIREBENCH_RPC_NOIPA gnu::noipa
#endif
template <typename Tag, typename Initiate, typename Handler>
[[gnu::flatten, WIREBENCH_RPC_NOIPA]] void StartTagged(const Initiate& initiate,
                                                       Handler&& handler) {
  initiate(TaggedHandler<Tag, std::decay_t<Handler>>{std::forward<Handler>(handler)});
}

// `co_await AsyncReadSome<Tag>(socket, buffer)`: (error_code, bytes).
template <typename Tag, typename Stream, typename Buffer>
auto AsyncReadSome(Stream& stream, const Buffer& buffer) {
  return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&,
                                     void(std::tuple<boost::system::error_code, size_t>)>(
      [&stream](auto handler, const Buffer& b) {
        StartTagged<Tag>([&](auto h) { stream.async_read_some(b, std::move(h)); },
                         std::move(handler));
      },
      boost::asio::use_awaitable, buffer);
}

// `co_await AsyncWriteAll<Tag>(socket, buffer)`: asio::async_write's
// (error_code, bytes).
template <typename Tag, typename Stream, typename Buffer>
auto AsyncWriteAll(Stream& stream, const Buffer& buffer) {
  return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&,
                                     void(std::tuple<boost::system::error_code, size_t>)>(
      [&stream](auto handler, const Buffer& b) {
        StartTagged<Tag>([&](auto h) { boost::asio::async_write(stream, b, std::move(h)); },
                         std::move(handler));
      },
      boost::asio::use_awaitable, buffer);
}

// `co_await AsyncWaitTimer<Tag>(timer)`: (error_code).
template <typename Tag, typename Timer>
auto AsyncWaitTimer(Timer& timer) {
  return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&,
                                     void(std::tuple<boost::system::error_code>)>(
      [&timer](auto handler) {
        StartTagged<Tag>([&](auto h) { timer.async_wait(std::move(h)); }, std::move(handler));
      },
      boost::asio::use_awaitable);
}

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

// Closes a connection's socket (shut down both ways first; errors ignored,
// as it may be gone already) and wakes its write loop to see it closed.
inline void CloseSocket(boost::asio::ip::tcp::socket& socket, OutputQueue& q) {
  boost::system::error_code ignored;
  socket.shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
  q.Cancel();
}

// Runs until `hooks.Stopped()`, until `hooks.Finished()` with nothing left to
// write, or until a write fails; returns the write error (or success).
// Hooks (all called on the connection's thread):
//   bool Stopped()       the connection is closed: return at once.
//   bool CanSend()       `out` may be written now (e.g. no frame half-built).
//   bool Finished()      nothing more will be queued: return when `out` is empty.
//   void OnSwapped()     `out` was just emptied into `writing`.
//   void OnWritten(n)    a write of n bytes completed (`writing` is empty again).
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
        co_await AsyncWaitTimer<Hooks>(q.signal);
        q.waiting = false;
        continue;
      }
      q.writing.Swap(q.out);
      q.out.Clear();
      hooks.OnSwapped();
    }
    auto [ec, n] =
        co_await AsyncWriteAll<Hooks>(socket, asio::buffer(q.writing.data(), q.writing.size()));
    if (ec) co_return ec;
    q.writing.Clear();
    hooks.OnWritten(n);
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

// TaggedHandler is its handler to Asio: the same executor, allocator and
// cancellation slot.
template <template <typename, typename> class Associator, typename Tag, typename Handler,
          typename DefaultCandidate>
struct boost::asio::associator<Associator, wirebench::rpc::TaggedHandler<Tag, Handler>,
                               DefaultCandidate> : Associator<Handler, DefaultCandidate> {
  static typename Associator<Handler, DefaultCandidate>::type get(
      const wirebench::rpc::TaggedHandler<Tag, Handler>& h) noexcept {
    return Associator<Handler, DefaultCandidate>::get(h.handler);
  }
  static auto get(const wirebench::rpc::TaggedHandler<Tag, Handler>& h,
                  const DefaultCandidate& c) noexcept
      -> decltype(Associator<Handler, DefaultCandidate>::get(h.handler, c)) {
    return Associator<Handler, DefaultCandidate>::get(h.handler, c);
  }
};
