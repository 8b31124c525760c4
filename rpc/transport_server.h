// TransportServer: the server side of any RPC layer (wirebench's framing,
// gRPC, ...), as the `wirebench server` command and the co-located child
// drive it: start on an endpoint, report where it listens, answer Stats,
// stop. Each transport's registry entry (transports/transport.h) makes one.
// Thread-safety: Start and Stop from one controlling thread; StatsJson from
// any thread once started.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "common/status.h"

namespace wirebench::rpc {

// A server owns its sockets and threads: not copied, not moved.
class TransportServer {
 public:
  TransportServer() = default;
  TransportServer(const TransportServer&) = delete;
  TransportServer& operator=(const TransportServer&) = delete;
  virtual ~TransportServer() = default;

  // Binds, listens and starts the server's threads.
  [[nodiscard]] virtual Status Start() = 0;
  // The bound port and "HOST:PORT" (after Start).
  virtual uint16_t port() const = 0;
  virtual std::string address() const = 0;
  // Stops serving and joins every thread; calls in flight are dropped.
  // Idempotent.
  virtual void Stop() = 0;
  // The server's counters, in the layout every transport shares: calls per
  // method, bytes, connections, per-thread CPU and allocations, process
  // figures, and the Service's own figures.
  virtual nlohmann::json StatsJson() = 0;
};

// A server that is another one with something around it (the protocol it
// speaks, a registration to remove on Stop): every call goes to the inner
// server, which the derived class names with Wrap() before any call.
class ServerWrapper : public TransportServer {
 public:
  Status Start() override { return inner_->Start(); }
  uint16_t port() const override { return inner_->port(); }
  std::string address() const override { return inner_->address(); }
  void Stop() override { inner_->Stop(); }
  nlohmann::json StatsJson() override;  // transport_server.cc: json_fwd only here.

 protected:
  void Wrap(TransportServer* inner) { inner_ = inner; }

 private:
  TransportServer* inner_ = nullptr;
};

}  // namespace wirebench::rpc
