// The client side of `--rpc hbase`: one connection speaking HBase's RPC
// protocol as HBase's Java client does, as an rpc::CallChannel the load
// generator's logical clients drive with the pb or cellblock codec.
//
// Connect sends the preamble ("HBas", 0, SIMPLE) and a ConnectionHeader
// for ClientService (with KeyValueCodec for cellblock, none for pb), then,
// once per process and server, locates the table's region the way the Java
// client does: a reversed Scan of hbase:meta from "usertable,<row>,9999..."
// for the row's region, whose info:regioninfo and info:server must name a
// region covering every key on this server. The answer is cached; the
// codecs name that region ("usertable,,1") in every call. A null cluster's
// client reads the table's every region from server 0's catalog instead
// (HBase's client prefetches region locations the same way) and names each
// row's region itself (UserTableRegionName, codecs/message.h).
//
// A call's payload is what the codec writes (varint-delimited
// RequestHeader, param, cell block); the channel prefixes HBase's 4-byte
// big-endian length. Replies are matched by the ResponseHeader's call id and
// handed to the codec whole; a reply carrying an exception reaches the
// caller as a failed call (CallStatus::kServerError, "Class: message").
// Stats and Ping travel as wirebench's own methods, "WirebenchStats" and
// "WirebenchPing", which the hbase server answers on any connection.
//
// Thread-safety: as rpc::CallChannel (one io_context thread).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include "common/status.h"
#include "nullregion/cluster.h"
#include "rpc/call_channel.h"
#include "rpc/endpoint.h"

namespace wirebench::hbaserpc {

struct HBaseClientOptions : rpc::Endpoint {
  bool cell_blocks = false;  // Announce KeyValueCodec (codec cellblock).
  // The table whose region the client locates (the codecs' region's table).
  std::string table = "usertable";
  // How long connecting and the hbase:meta lookup may take.
  int connect_timeout_ms = 10000;
  // A null cluster's server (nullregion/cluster.h), server `server_index`
  // of `cluster`'s plan: the connection to server 0, which holds hbase:meta,
  // reads every region of the table from the catalog and checks each is
  // where the plan says (once per process); the others look nothing up.
  const ClusterPlan* cluster = nullptr;
  uint32_t server_index = 0;
};

boost::asio::awaitable<StatusOr<std::shared_ptr<rpc::CallChannel>>> ConnectHBase(
    boost::asio::io_context& ctx, HBaseClientOptions options);

// Forgets the cached region locations (tests).
void ClearRegionCache();

}  // namespace wirebench::hbaserpc
