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

namespace wirebench::wbrpc {

// wirebench's framing on the network core: a NetServer speaking
// WirebenchProtocol (its Stats count frames in and out too).
class Server final : public rpc::ServerWrapper {
 public:
  // `service` must outlive the server.
  Server(const rpc::ServerOptions& options, rpc::Service* service);
  ~Server() override;  // Stops and joins.

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wirebench::wbrpc
