// The `--rpc hbase` server: HBase's RPC protocol (hbase_protocol.h) as a
// protocol of the network core (rpc/net_server.h), which owns the sockets,
// the I/O and handler threads and the limits (--max-frame,
// --max-connections, --max-queued-bytes, --max-buffered-bytes,
// --idle-timeout-ms). Calls are answered inline on their connection's I/O
// thread, except those that evaluate a filter, which run on a handler
// thread. Stats: the core's layout (rpc/stats_json.h) plus an "hbase"
// section.
//
// The server's identity (ServerName and cluster id) is fixed at Start: the
// catalog, ClientMetaService and a ZooKeeper registration all name it
// (identity()). A member of a null cluster (nullregion/cluster.h) takes its
// identity from the plan (its address, ClusterPlan::StartCode, the
// cluster's id), serves the regions the plan gives it, and hbase:meta as
// server 0, whose catalog names each region's server.
//
// Thread-safety: Start and Stop from one controlling thread; StatsJson and
// identity() from any thread once started.
#pragma once

#include <chrono>
#include <memory>

#include "rpc/server_options.h"
#include "rpc/transport_server.h"
#include "transports/hbase/hbase_protocol.h"

namespace wirebench::hbaserpc {

class HBaseServer final : public rpc::TransportServer {
 public:
  // `region` and `codec_service` (the RegionService the codecs' handlers
  // come from) must outlive the server. `advertised_host` is the host name
  // clients are told to connect to; empty = the bind address, or this
  // machine's host name when bound to a wildcard address.
  // `layout`: where hbase:meta splits each table (--regions-per-table).
  // `cluster`, when it plans several servers: this server's place in it,
  // whose layout is used instead; it is copied. Its planned port must be
  // the one the server binds (Start fails naming both otherwise).
  HBaseServer(const rpc::ServerOptions& options, Region* region, rpc::Service* codec_service,
              RegionLayout layout = RegionLayout(), const ClusterMember* cluster = nullptr,
              std::string advertised_host = {});
  ~HBaseServer() override;

  Status Start() override;
  uint16_t port() const override;
  std::string address() const override;
  void Stop() override;
  nlohmann::json StatsJson() override;

  // Host, port, start code and cluster id (after Start).
  const ServerIdentity& identity() const;
  // The server's place in its cluster; null when it is not one's.
  const ClusterMember* cluster() const;
  // How long one Scan call of a client that handles heartbeats runs before
  // it answers what it has (kScanTimeLimit unless set); call before Start.
  void set_scan_time_limit(std::chrono::milliseconds limit);


 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wirebench::hbaserpc
