// Internals of the wirebench server (server.h), shared by server.cc and
// server_connection.cc: the protocol the network core runs (rpc/net_server.h),
// its per-I/O-thread counters, pooled call objects and the handler pool.
// Not part of the public API.
// Thread-safety: a WirebenchProtocol's per-thread state is touched only by
// its I/O thread, except IoStats (read by Stats from any thread) and the
// HandlerPool (a locked queue).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "common/bytes.h"
#include "common/counters.h"
#include "common/calls.h"
#include "rpc/net_server.h"
#include "rpc/service.h"
#include "transports/wirebench/frame.h"
#include "transports/wirebench/server.h"

namespace wirebench::wbrpc {

// The protocol's counters of one I/O thread: written only by it
// (BumpShared), summed by Stats on another thread (common/counters.h).
struct IoStats {
  uint64_t calls[kMaxMethod + 1] = {};
  uint64_t unknown_method_calls = 0;
  uint64_t failed_calls = 0;  // Replies with a non-OK status.
  uint64_t frames_in = 0, frames_out = 0;
  using Fields = FieldList<&IoStats::calls, &IoStats::unknown_method_calls, &IoStats::failed_calls,
                           &IoStats::frames_in, &IoStats::frames_out>;
};

class WirebenchConnection;

// A call handed to the handler pool: the request copied out of the receive
// buffer, and the reply frame built by the handler. Pooled per I/O thread.
struct PooledCall {
  std::shared_ptr<void> keep_alive;  // The connection, while the call is away.
  WirebenchConnection* conn = nullptr;
  boost::asio::any_io_executor executor;  // The connection's I/O thread.
  const CodecInfo* codec = nullptr;  // The connection's, from its preamble.
  FrameHeader header;
  ByteBuffer request;
  ByteBuffer reply;  // A whole reply frame.
  uint32_t reply_delay_us = 0;
};

// What one I/O thread keeps for its connections.
struct IoState {
  IoStats stats;
  std::vector<std::unique_ptr<PooledCall>> free_calls;

  std::unique_ptr<PooledCall> AcquireCall();
  void ReleaseCall(std::unique_ptr<PooledCall> call);
};

// H handler threads sharing one locked FIFO of calls. Each thread keeps one
// CallHandler per codec id, created on first use.
class HandlerPool {
 public:
  HandlerPool(int threads, rpc::Service* service);
  ~HandlerPool();
  void Submit(std::unique_ptr<PooledCall> call);
  // Stops the threads; calls still queued are dropped.
  void Stop();

 private:
  void Run(int index);

  rpc::Service* service_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<PooledCall>> ring_;  // Circular queue, grows when full.
  size_t head_ = 0, count_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// The wirebench framing as a protocol of the network core.
class WirebenchProtocol final : public rpc::ServerProtocol {
 public:
  WirebenchProtocol(const rpc::ServerOptions& options, rpc::Service* service)
      : options_(options), service_(service) {}
  std::string_view name() const override { return "wirebench"; }
  Status Start(rpc::NetServer* server) override;
  void Stop() override;
  std::unique_ptr<rpc::ProtocolConnection> NewConnection(rpc::ConnectionHost* host) override;
  void AppendStats(nlohmann::json* j) override;

  const rpc::ServerOptions& options() const { return options_; }
  rpc::Service* service() { return service_; }
  HandlerPool* pool() { return pool_.get(); }  // Null in inline mode.
  IoState& io(int index) { return *io_[size_t(index)]; }
  std::string StatsReply(const CounterTotals& own_at_entry) {
    return server_->StatsReply(own_at_entry);
  }

 private:
  rpc::ServerOptions options_;
  rpc::Service* service_;
  rpc::NetServer* server_ = nullptr;
  std::vector<std::unique_ptr<IoState>> io_;
  std::unique_ptr<HandlerPool> pool_;
};

// One connection's protocol state: the preamble, then frames parsed in
// place and answered inline or through the handler pool.
class WirebenchConnection final : public rpc::ProtocolConnection {
 public:
  WirebenchConnection(WirebenchProtocol* protocol, rpc::ConnectionHost* host)
      : protocol_(protocol), host_(host), out_(&host->out()), io_(&protocol->io(host->io_index())) {}

  // Flattened: every call in a read goes from its frame to the handler
  // without a call per step (about 20 instructions a call less).
  [[gnu::flatten]] size_t Consume(ByteView in) override;
  size_t UnitSize(ByteView in) const override;
  bool Holding() const override {
    return inflight_ >= protocol_->options().max_inflight_per_connection;
  }
  int Outstanding() const override { return inflight_; }
  const char* PartialState(size_t pending_input) const override;
  void AppendRefusal(rpc::Refusal why, const std::string& text, ByteView pending,
                     ByteBuffer* out) override;

  // A handler-pool call came back (runs on this connection's I/O thread).
  void OnHandled(std::unique_ptr<PooledCall> call);

 private:
  size_t ConsumePreamble(ByteView in);
  void Fatal(CallStatus status, uint32_t call_id, const std::string& why);
  void Dispatch(const Frame& f);
  [[gnu::always_inline]] void HandleInline(const Frame& f);  // Dispatch's, for every call.
  [[gnu::cold, gnu::noinline]] void FinishUnusualReply(size_t off, const rpc::CallOutcome& outcome);
  void QueueReply(ByteView frame);  // Appends a finished reply frame.
  void DelayReply(ByteView frame, uint32_t delay_us);

  WirebenchProtocol* protocol_;
  rpc::ConnectionHost* host_;
  ByteBuffer* out_;  // host_->out(): the same buffer for the connection's life.
  IoState* io_;
  const CodecInfo* codec_ = nullptr;  // From the preamble.
  std::unique_ptr<rpc::CallHandler> handler_;  // Inline mode.
  bool preamble_done_ = false;
  bool frame_seen_ = false;  // A whole frame has arrived after the preamble.
  int inflight_ = 0;  // Calls handed to the pool or delayed, not yet queued for writing.
};

}  // namespace wirebench::wbrpc
