// The `--rpc hbase` server: HBase's RPC protocol (hbase_protocol.h) on N
// I/O threads with one Asio event loop each, connections assigned
// round-robin, every call answered inline on its connection's thread. It
// honours the rpc layer's limits (--max-frame, --max-connections,
// --max-inflight as the reply backlog, --idle-timeout-ms) and reports the
// rpc layer's Stats layout (rpc/stats_json.h), plus an "hbase" section.
//
// The server's identity (ServerName and cluster id) is fixed at Start: the
// catalog, ClientMetaService and a ZooKeeper registration all name it
// (identity()).
//
// Thread-safety: Start and Stop from one controlling thread; StatsJson and
// identity() from any thread once started.
#pragma once

#include <memory>

#include "rpc/server.h"
#include "rpc/transport_server.h"
#include "transports/hbase/hbase_protocol.h"

namespace wirebench::hbaserpc {

class HBaseServer final : public rpc::TransportServer {
 public:
  // `region` and `codec_service` (the RegionService the codecs' handlers
  // come from) must outlive the server. `advertised_host` is the host name
  // clients are told to connect to; empty = the bind address, or this
  // machine's host name when bound to a wildcard address.
  HBaseServer(const rpc::ServerOptions& options, Region* region, rpc::Service* codec_service,
              std::string advertised_host = {});
  ~HBaseServer() override;

  Status Start() override;
  uint16_t port() const override;
  std::string address() const override;
  void Stop() override;
  nlohmann::json StatsJson() override;

  // Host, port, start code and cluster id (after Start).
  const ServerIdentity& identity() const;

  class Impl;  // Public so the connections (hbase_server.cc) can name it.

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace wirebench::hbaserpc
