// `wirebench server --rpc hbase --zookeeper HOST:PORT[/ROOT]`: the HBase
// server, registered in ZooKeeper (zookeeper_registration.h) under the
// identity its catalog hands out (host, port, start code, cluster id), so
// clients given only the quorum find it; a null cluster's server registers
// as a region server, server 0 as the master too. Stop() removes the
// registration first (clients stop finding the server), then stops the
// server.
// Built with or without ZooKeeper's C client: without it, a --zookeeper
// value is an error that says how to get it.
// Thread-safety: as rpc::TransportServer.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "common/status.h"
#include "rpc/server_options.h"
#include "rpc/transport_server.h"
#include "transports/hbase/hbase_server.h"

namespace wirebench::hbaserpc {

// The server's --zookeeper and --zookeeper-timeout-ms (the hbase entry's own
// options, hbase_transport.cc).
struct ZooKeeperOptions {
  // HOST:PORT[,HOST:PORT...][/ROOT]; empty = no registration.
  std::string zookeeper;
  // How long the registration waits for ZooKeeper before it fails the start.
  int timeout_ms = 10000;
};

// OK when `options.zookeeper` is empty or well-formed and this build has the
// ZooKeeper client; otherwise the error names the flag and the fix.
Status CheckZooKeeperOption(const ZooKeeperOptions& options);

// HOST:PORT of the server ZooKeeper's meta-region-server node names, as an
// HBase client finds it (`load`/`run --zookeeper`).
StatusOr<std::string> FindServerInZooKeeper(const std::string& zookeeper,
                                            std::chrono::milliseconds timeout);

// Registers the started `server` in ZooKeeper when options.zookeeper is set
// (waiting at most options.timeout_ms for it), and returns the
// server to drive; an unreachable ZooKeeper stops the server and is the error.
StatusOr<std::unique_ptr<rpc::TransportServer>> MaybeRegisterInZooKeeper(
    std::unique_ptr<HBaseServer> server, const ZooKeeperOptions& options);

}  // namespace wirebench::hbaserpc
