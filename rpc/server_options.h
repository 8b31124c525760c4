// What every server of the network core takes: where to listen, its
// threads, and the limits that protect it from its clients. A transport's
// own settings travel as data beside it (transports/transport.h).
// Thread-safety: a plain value.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rpc/call_header.h"
#include "rpc/endpoint.h"

namespace wirebench::rpc {

// host is the address to bind (`--bind`), port the TCP port (0: a free one).
struct ServerOptions : Endpoint {
  // Event-loop threads serving connections.
  int io_threads = 1;
  // Handler threads; 0 runs the region inline on the I/O thread.
  int handlers = 0;
  // Largest call a transport accepts, header and payload, however it frames
  // it (wirebench's length word, HBase's total length, a gRPC message).
  uint32_t max_call_bytes = kDefaultMaxCallBytes;
  // TCP_NODELAY on accepted sockets (HBase's default too).
  bool tcp_nodelay = true;
  // Most open connections; further ones are refused the
  // transport's way and closed.
  int max_connections = 10000;
  // Most calls of one connection being handled or waiting for their reply to
  // be written; the reader stops reading beyond it (back-pressure).
  int max_inflight_per_connection = 4096;
  // Most reply bytes queued for one connection before the reader stops
  // reading (back-pressure against clients that never read).
  size_t max_queued_bytes = 64u << 20;
  // Most bytes all connections together hold for calls still arriving,
  // beyond each one's 64 KiB read buffer (rpc/buffer_budget.h); a
  // connection that needs more is refused and closed. 0 = no limit.
  uint64_t max_buffered_bytes = uint64_t{256} << 20;
  // A connection that sends nothing for this long while a frame is
  // incomplete, before its preamble, or after it but before its first
  // call, is closed (one idle between calls is not). 0 = never.
  int idle_timeout_ms = 30000;
};

}  // namespace wirebench::rpc
