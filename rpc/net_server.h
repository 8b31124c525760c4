// The network core every socket-owning transport runs on (brpc's shape: one
// I/O core, a protocol per transport as callbacks). The core owns the
// listening socket, N I/O threads with one Asio event loop each
// (connections assigned round-robin), the optional handler threads, and
// each connection's life: its reader, its coalescing writer
// (rpc/write_loop.h), its idle watchdog, the connection and buffer limits
// (--max-connections, --max-queued-bytes, --max-buffered-bytes,
// --idle-timeout-ms), and the counters every transport reports alike.
//
// What the bytes mean is the protocol's: a ServerProtocol makes one
// ProtocolConnection per accepted socket, which consumes the bytes
// received (socket-free: bytes in, replies out through its ConnectionHost)
// and answers in its own words when the core refuses a connection. The core
// names no protocol.
//
// Thread-safety: NetServer's Start, Stop and Wait from one controlling
// thread; StatsJson and StatsReply from any thread. A ProtocolConnection and
// its ConnectionHost are touched only on the connection's I/O thread, except
// what a protocol posts back to it from its own threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <boost/asio/any_io_executor.hpp>
#include <nlohmann/json_fwd.hpp>

#include "common/bytes.h"
#include "common/counters.h"
#include "common/status.h"
#include "common/thread_stats.h"
#include "rpc/server_options.h"
#include "rpc/service.h"
#include "rpc/transport_server.h"

namespace wirebench::rpc {

// What the core lets a protocol connection do with its connection.
class ConnectionHost {
 public:
  // Replies go here; the writer sends whatever has accumulated in one write.
  // The same buffer for the connection's life (a protocol may keep a pointer).
  virtual ByteBuffer& out() = 0;
  // Wakes the writer after appending to out() outside Consume.
  virtual void Flush() = 0;
  // The reader re-checks ProtocolConnection::Holding() and reads on.
  virtual void ResumeReading() = 0;
  // No more is read: the connection closes once out() is written (and every
  // call the protocol still has outstanding has been answered).
  virtual void FinishAfterFlush() = 0;
  // True while the reader should not take more calls (too many reply bytes
  // queued, or the protocol holding).
  virtual bool Backlogged() const = 0;
  // The reply bytes that may still be added to out() before Backlogged()
  // turns true for the queue (0 once it has). It holds until Consume
  // returns (the writer takes from the queue only between reads), so a
  // protocol can check out()'s size against it and its own Holding() before
  // each call, instead of a virtual Backlogged() per call.
  virtual size_t QueueRoom() const = 0;
  virtual bool closed() const = 0;
  // The connection's I/O thread, where work from other threads is posted.
  virtual boost::asio::any_io_executor executor() = 0;
  // Keeps the connection alive while work posted for it is pending.
  virtual std::shared_ptr<void> KeepAlive() = 0;
  virtual const std::string& peer() const = 0;
  // Which I/O thread (0..io_threads-1) the connection runs on.
  virtual int io_index() const = 0;

 protected:
  ~ConnectionHost() = default;
};

// Why the core refuses a connection or its next call.
enum class Refusal {
  kConnectionLimit,  // --max-connections reached: refused at accept.
  kBufferBudget,     // --max-buffered-bytes has no room for the next call.
};

// One connection's protocol state: socket-free.
class ProtocolConnection {
 public:
  virtual ~ProtocolConnection() = default;
  // Consumes the whole units (preamble, header, calls) at the start of `in`
  // and returns how many bytes it used; replies go to host.out(). A fatal
  // error is answered in out() and ends with host.FinishAfterFlush(). Stops
  // early while host.Backlogged().
  virtual size_t Consume(ByteView in) = 0;
  // The bytes the unit at the start of `in` needs in all, once its length is
  // known and more than `in` holds; 0 otherwise (the core then reads in
  // chunks).
  virtual size_t UnitSize(ByteView in) const = 0;
  // Calls handed to other threads and not yet answered: the reader waits
  // while Holding(), the writer waits for them before closing, and the idle
  // reaper spares the connection.
  virtual bool Holding() const { return false; }
  virtual int Outstanding() const { return 0; }
  // Work that must run on a handler thread before this connection reads on
  // (a call too costly for the I/O thread); the core runs it there, appends
  // what it wrote to out() and consumes on. False when there is none.
  virtual bool TakeDeferred(std::function<void(ByteBuffer*)>* work) { return false; }
  // For the idle watchdog: what the connection is part-way through with
  // `pending_input` bytes of an unfinished unit ("an incomplete frame",
  // "its preamble"), or nullptr between calls.
  virtual const char* PartialState(size_t pending_input) const = 0;
  // The core's refusal, in the protocol's words (`pending` is the input not
  // yet consumed, to name the call refused).
  virtual void AppendRefusal(Refusal why, const std::string& text, ByteView pending,
                             ByteBuffer* out) = 0;
};

class NetServer;

// A transport's server half: its protocol, its counters, its Stats.
class ServerProtocol {
 public:
  virtual ~ServerProtocol() = default;
  // The name in log lines ("HBase connection from ...") and Stats' server.rpc.
  virtual std::string_view name() const = 0;
  // Called once before the I/O threads start; `server` outlives the protocol's
  // use of it. An error fails the start.
  virtual Status Start(NetServer* server) { return Status::Ok(); }
  // Called after the I/O and handler threads have stopped.
  virtual void Stop() {}
  // Handler threads the core should run (handler_executor()); 0 = none.
  virtual int HandlerThreads() const { return 0; }
  virtual std::unique_ptr<ProtocolConnection> NewConnection(ConnectionHost* host) = 0;
  // The protocol's counters and sections of a Stats reply: calls per method,
  // failed and unknown calls, frames in and out, its own section.
  virtual void AppendStats(nlohmann::json* j) = 0;
};

class NetServer final : public TransportServer {
 public:
  // `protocol` and `service` (whose figures Stats reports) must outlive the
  // server.
  NetServer(const ServerOptions& options, ServerProtocol* protocol, Service* service);
  ~NetServer() override;  // Stops and joins.

  // TransportServer's; Stop closes every connection (calls in flight are dropped).
  Status Start() override;
  uint16_t port() const override;
  std::string address() const override;
  void Stop() override;
  nlohmann::json StatsJson() override;
  // A Stats reply's JSON text; `own_at_entry` is the calling thread's
  // counters when the Stats call arrived (the reply's own allocations are
  // left out of that thread's figures).
  std::string StatsReply(const CounterTotals& own_at_entry);

  const ServerOptions& options() const;
  int io_threads() const;
  // Where handler work runs (REQUIRES: the protocol asked for handler threads).
  boost::asio::any_io_executor handler_executor();
  // The index of the handler thread running the caller, or -1.
  static int CurrentHandlerIndex();

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace wirebench::rpc
