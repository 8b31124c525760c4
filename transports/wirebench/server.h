// The wirebench server: wirebench's framing (frame.h) as a protocol of the
// network core (rpc/net_server.h: I/O threads, connections, limits,
// watchdogs), an optional handler pool, and the codec-independent Ping and
// Stats methods.
//
// The protocol parses frames in place in the receive buffer; in inline mode
// (handlers = 0) it calls the Service's CallHandler right there and appends
// the reply to the connection's output buffer, so all replies to one read
// leave in one write. With handlers = H, calls are copied into pooled call
// objects, queued to H handler threads, and their replies posted back to the
// I/O thread (HBase's reader -> call queue -> handler -> responder path).
//
// Thread-safety: Start, Stop and Wait may be called from any one thread;
// StatsJson from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "common/status.h"
#include "rpc/server_options.h"
#include "rpc/service.h"
#include "rpc/transport_server.h"
#include "transports/wirebench/frame.h"

namespace wirebench::rpc {

class Server final : public TransportServer {
 public:
  // `service` must outlive the server.
  Server(const ServerOptions& options, Service* service);
  ~Server() override;  // Stops and joins.
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds, listens and starts the I/O and handler threads.
  Status Start() override;
  // The bound port (after Start).
  uint16_t port() const override;
  std::string address() const override;  // "HOST:PORT".
  // Stops accepting, closes every connection (calls in flight are dropped)
  // and joins all threads. Idempotent.
  void Stop() override;
  // Blocks until Stop() has been called (from another thread or a signal).
  void Wait();

  // The server's counters: calls per method, frames and bytes in and out,
  // connections, per-thread CPU and allocations, plus the Service's figures.
  nlohmann::json StatsJson() override;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wirebench::rpc
