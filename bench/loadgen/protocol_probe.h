// What protocol a server speaks, found by asking it, for a client that
// failed before its first operation (`run --server` at a server of another
// --rpc): instead of "frame of 4093640704 bytes", the message names the
// protocol the server answered in and the flag to pass.
//
// The probe opens up to two short connections: one that only listens (a
// gRPC server sends its HTTP/2 SETTINGS unasked), then one that sends the
// wirebench preamble and a Ping (a wirebench server answers with a frame,
// HBase's RPC with a FatalConnectionException naming org.apache.hadoop.hbase).
// It runs only after a failure, so a healthy run never pays for it.
// Thread-safety: reentrant (blocking sockets of its own).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace wirebench {

enum class ServerProtocol { kUnknown, kWirebench, kHbase, kGrpc };

// Blocks up to about 2 x `wait` (plus the connect).
ServerProtocol ProbeServerProtocol(const std::string& host, uint16_t port,
                                   std::chrono::milliseconds wait = std::chrono::milliseconds(500));
// Which protocol's bytes these are (the first bytes a server sent), or kUnknown.
ServerProtocol ClassifyServerBytes(const std::string& bytes);

// The one-line error when a client of `rpc` (transports/transport.h names)
// reached a server speaking `seen`, or nullopt when they agree or `seen` is
// unknown. `server` is HOST:PORT, for the message.
std::optional<std::string> WrongProtocolMessage(const std::string& rpc, ServerProtocol seen,
                                                const std::string& server);

}  // namespace wirebench
