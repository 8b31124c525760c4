// `--rpc hbase`: HBase's own RPC protocol (its RPC.proto), socket-free. The
// server's connections (hbase_server.cc) feed received bytes to a
// ConnectionCore and write what it appends; the fuzz target and the tests
// drive it the same way without a socket.
//
// A connection, as HBase's ServerRpcConnection reads it:
//   preamble   "HBas", version 0, auth byte (SIMPLE = 80); or one of 2.6's
//              special preambles, "Regist" (answered with the cluster id,
//              then closed) and "Securi" (answered SecurityNotEnabled, then
//              the real preamble follows);
//   header     4-byte big-endian length, ConnectionHeader (service name,
//              cell_block_codec_class, cell_block_compressor_class);
//   calls      4-byte big-endian total length, varint-delimited
//              RequestHeader, varint-delimited param, cell block
//              (RequestHeader.cell_block_meta.length bytes, KeyValueCodec).
// Replies: 4-byte big-endian total length, delimited ResponseHeader (call
// id, exception, cell_block_meta), delimited response, cell block. A refused
// preamble or header gets a ResponseHeader with call id -1 and HBase's
// exception class, and the connection closes.
//
// Calls are answered inline, in arrival order. Where the codec of the
// connection (pb without a cell codec, cellblock with KeyValueCodec) can
// answer a call on its own (a plain put/delete, Get or Multi on a user
// region), the codec's CallHandler does, over the very bytes of the call:
// the same decode/region/encode path as wirebench's framing. Everything else
// (conditions, increments, scanners, the hbase:meta catalog,
// ClientMetaService, cells in the message on a cell-block connection) takes
// the full path of hbase_calls.h (a file per kind of call) over generated
// messages. What every connection shares (HBaseService, the counters, the
// exception classes) is hbase_service.h.
//
// Thread-safety: a ConnectionCore belongs to one connection and one thread.
// HBaseService is shared by every connection: its scanner table is locked,
// the rest is immutable once serving.
#pragma once


#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/bytes.h"
#include "transports/hbase/hbase_service.h"

namespace wirebench::rpc {
class ConnectionHost;  // rpc/net_server.h
}  // namespace wirebench::rpc

namespace wirebench::hbaserpc {

class CallHandler;  // hbase_calls.cc

// One connection's protocol state.
class ConnectionCore {
 public:
  ConnectionCore(HBaseService* service, StatsSource* stats_source, HBaseIoStats* stats,
                 uint32_t max_frame);
  ~ConnectionCore();
  ConnectionCore(const ConnectionCore&) = delete;
  ConnectionCore& operator=(const ConnectionCore&) = delete;

  // Consumes every whole unit (preamble, connection header, call) at the
  // front of `in`, appending replies to `out`; returns the bytes consumed.
  // Sets *close when the connection must close once `out` is written (a
  // refused preamble or header, an oversized call). Never reads past `in`.
  [[gnu::flatten]] size_t Consume(ByteView in, ByteBuffer* out, bool* close);
  // The connection whose back-pressure Consume heeds: before each call it
  // stops while host->Backlogged() (its queued replies are over
  // --max-queued-bytes), so the replies to a read buffer full of pipelined
  // calls are not all built at once; `out` must then be host->out(). None
  // (the default): every whole unit is consumed.
  void set_host(const rpc::ConnectionHost* host) { host_ = host; }
  // Bytes the unit at the front of `in` needs in all, once its length is
  // known (to reserve room for it); 0 when not known yet.
  size_t UnitSize(ByteView in) const;
  // Calls that evaluate a filter are not run by Consume (see
  // CallHandler::Handle): Consume stops after such a call, consumed, and
  // has_deferred() is true until RunDeferred runs it. Off by default.
  void set_defer_filters(bool defer) { defer_filters_ = defer; }
  bool has_deferred() const { return has_deferred_; }
  // Runs the deferred call, counting into `stats` (the running thread's),
  // and appends its reply to `out`. Any thread, one at a time, while no
  // Consume runs.
  void RunDeferred(HBaseIoStats* stats, ByteBuffer* out);

  // Past the preamble and connection header.
  bool ready() const { return state_ == State::kCalls; }
  // The codec the connection header chose: "cellblock" or "pb".
  bool cell_blocks() const { return cell_blocks_; }

 private:
  enum class State { kPreamble, kHeader, kCalls, kClosed };
  // Each returns the bytes consumed (0 = need more).
  size_t OnPreamble(ByteView in, ByteBuffer* out, bool* close);
  size_t OnHeader(ByteView in, ByteBuffer* out, bool* close);
  size_t OnCall(ByteView in, ByteBuffer* out, bool* close);
  void Refuse(std::string_view exception_class, const std::string& message, ByteBuffer* out);

  HBaseService* service_;
  StatsSource* stats_source_;
  HBaseIoStats* stats_;
  uint32_t max_frame_;
  State state_ = State::kPreamble;
  bool cell_blocks_ = false;
  bool meta_service_ = false;
  std::unique_ptr<CallHandler> handler_;
  const rpc::ConnectionHost* host_ = nullptr;
  bool defer_filters_ = false;
  bool has_deferred_ = false;
  // The ConnectionHeader's version_info says 1.2 or later (see OnCall).
  bool knows_request_too_big_ = false;
  std::string deferred_;  // The deferred call's body (after its length word).
};

}  // namespace wirebench::hbaserpc
