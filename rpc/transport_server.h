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

class TransportServer {
 public:
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

}  // namespace wirebench::rpc
