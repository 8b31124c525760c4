// Internals of rpc::Server shared by server.cc and server_connection.cc:
// the per-I/O-thread state, pooled call objects for the handler pool, the
// handler pool itself, and the server-side connection. Not part of the
// public API.
// Thread-safety: an IoThread and its connections are touched only by that
// I/O thread, except IoStats (read by Stats from any thread) and the
// HandlerPool (a locked queue).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include <boost/asio.hpp>

#include "common/bytes.h"
#include "common/counters.h"
#include "common/protocol.h"
#include "common/thread_stats.h"
#include "rpc/buffer_budget.h"
#include "rpc/frame.h"
#include "rpc/server.h"
#include "rpc/service.h"
#include "rpc/write_loop.h"

namespace wirebench::rpc {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Counters of one I/O thread: written only by it (BumpShared), summed by
// Stats on another thread (AddShared; common/counters.h).
struct IoStats {
  uint64_t calls[kMaxMethod + 1] = {};
  uint64_t unknown_method_calls = 0;
  uint64_t failed_calls = 0;  // Replies with a non-OK status.
  uint64_t frames_in = 0, frames_out = 0;
  uint64_t bytes_in = 0, bytes_out = 0;
  uint64_t accepted = 0, closed = 0, refused = 0;
  uint64_t idle_closed = 0;  // Closed for sitting idle while the server was crowded.
  uint64_t budget_refused = 0;  // Closed for want of room in --max-buffered-bytes.
  int64_t active = 0;
  using Fields = FieldList<&IoStats::calls, &IoStats::unknown_method_calls, &IoStats::failed_calls,
                           &IoStats::frames_in, &IoStats::frames_out, &IoStats::bytes_in,
                           &IoStats::bytes_out, &IoStats::accepted, &IoStats::closed,
                           &IoStats::refused, &IoStats::idle_closed, &IoStats::budget_refused,
                           &IoStats::active>;
};

class ServerConnection;

// A call handed to the handler pool: the request copied out of the receive
// buffer, and the reply frame built by the handler. Pooled per I/O thread.
struct PooledCall {
  std::shared_ptr<ServerConnection> conn;
  uint8_t codec_id = 0;
  FrameHeader header;
  ByteBuffer request;
  ByteBuffer reply;  // A whole reply frame.
  uint32_t reply_delay_us = 0;
};

struct IoThread {
  explicit IoThread(int index) : index(index), ctx(1) {}
  int index;
  asio::io_context ctx;
  std::thread thread;
  IoStats stats;
  std::unordered_set<ServerConnection*> connections;
  std::vector<std::unique_ptr<PooledCall>> free_calls;

  std::unique_ptr<PooledCall> AcquireCall();
  void ReleaseCall(std::unique_ptr<PooledCall> call);
};

class ServerImplBase;

// H handler threads sharing one locked FIFO of calls. Each thread keeps one
// CallHandler per codec id, created on first use.
class HandlerPool {
 public:
  HandlerPool(int threads, Service* service);
  ~HandlerPool();
  void Submit(std::unique_ptr<PooledCall> call);
  // Stops the threads; calls still queued are dropped.
  void Stop();

 private:
  void Run(int index);

  Service* service_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<PooledCall>> ring_;  // Circular queue, grows when full.
  size_t head_ = 0, count_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// What connections need from the server.
class ServerImplBase {
 public:
  virtual ~ServerImplBase() = default;
  virtual const ServerOptions& options() const = 0;
  virtual Service* service() = 0;
  virtual HandlerPool* pool() = 0;  // Null in inline mode.
  // The Stats reply; `own_at_entry` is the calling thread's counters when
  // the call arrived.
  virtual std::string StatsReply(const CounterTotals& own_at_entry) = 0;
  std::atomic<int64_t> active_connections{0};
  BufferBudget buffer_budget;  // Its limit set from the options at start.
};

// One accepted connection: a reader and a writer coroutine (plus an idle
// watchdog) on the connection's I/O thread.
class ServerConnection : public std::enable_shared_from_this<ServerConnection> {
 public:
  ServerConnection(ServerImplBase* server, IoThread* io, tcp::socket socket, std::string peer);
  ~ServerConnection();
  // Starts the coroutines. `refuse_reason` non-empty: send it as an error
  // frame and close (used when the server is at max_connections).
  void Start(std::string refuse_reason = {});
  // Closes the socket now; coroutines finish with operation_aborted.
  void Close();
  // A handler-pool call came back (runs on this connection's I/O thread).
  void OnHandled(std::unique_ptr<PooledCall> call);
  // The executor of the connection's I/O thread, where replies are posted.
  asio::io_context::executor_type executor() const { return io_->ctx.get_executor(); }

 private:
  asio::awaitable<void> ReadLoop();
  asio::awaitable<void> WriteLoop();
  asio::awaitable<void> Watchdog();
  asio::awaitable<bool> ReadMore();
  // Consumes complete frames from the receive buffer; false on a fatal error.
  bool ProcessFrames();
  void Dispatch(const Frame& f);
  void HandleInline(const Frame& f);
  void Fatal(CallStatus status, uint32_t call_id, const std::string& why);
  void QueueReply(ByteView frame);  // Appends a finished reply frame.
  void DelayReply(ByteView frame, uint32_t delay_us);
  void WakeWriter();
  void WakeReader();
  bool Backlogged() const;

  friend struct ServerWriteHooks;

  ServerImplBase* server_;
  IoThread* io_;
  tcp::socket socket_;
  std::string peer_;
  uint8_t codec_id_ = 0;
  std::unique_ptr<CallHandler> handler_;  // Inline mode.
  BudgetedInput input_;
  ByteBuffer& in_;  // input_'s buffer.
  OutputQueue q_;  // Replies, written by WriteLoop (rpc/write_loop.h).
  asio::steady_timer read_signal_;
  asio::steady_timer watchdog_;
  std::chrono::steady_clock::time_point last_read_;
  bool reader_waiting_ = false;
  bool preamble_done_ = false;
  bool frame_seen_ = false;  // A whole frame has arrived after the preamble.
  bool close_after_flush_ = false;
  bool closed_ = false;
  int inflight_ = 0;  // Calls handed to the pool or delayed, not yet queued for writing.
};

}  // namespace wirebench::rpc
