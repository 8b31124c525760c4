// What protocol a server speaks, found by asking it, for a client that
// failed before its first operation (`run --server` at a server of another
// --rpc): instead of "frame of 4093640704 bytes", the message names the
// protocol the server answered in and the flag to pass.
//
// Nothing here knows a protocol: each transport's registry entry declares
// its server's wire protocol (TransportTraits::wire, transports/transport.h:
// a family shared by the transports that speak it, a recogniser of the
// first bytes its server sends, the words for the message, and a hello to
// send when its server waits for its client). The probe opens short
// connections: one that only listens (a gRPC server sends its HTTP/2
// SETTINGS unasked), then one per distinct hello the registered transports
// declare (today wirebench's alone: its preamble and a Ping, which a
// wirebench server answers with a frame and HBase's RPC with a
// FatalConnectionException naming org.apache.hadoop.hbase), until some
// registered transport's recogniser accepts what the server sent. A
// transport this build leaves out (gRPC with WIREBENCH_GRPC=OFF) is not
// registered, so a server of its protocol is not recognised: the client's
// own error stands. It runs only after a failure, so a healthy run never
// pays for it.
// Thread-safety: reentrant (blocking sockets of its own).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transports/transport.h"

namespace wirebench {

// A registered transport whose server speaks the protocol the server at
// host:port answered in (the first of its family, in registry order), or
// nullptr when none recognises it. Blocks up to about (1 + hellos) x `wait`
// (plus the connects).
const Transport* ProbeServerProtocol(
    const std::string& host, uint16_t port,
    std::chrono::milliseconds wait = std::chrono::milliseconds(500));
// The probe's finding: the transport recognised (nullptr: none) and the
// first bytes the server sent on any of its connections (empty: none); when
// none of the transports' hellos got an answer, an HTTP GET's.
struct ServerProbe {
  const Transport* seen = nullptr;
  std::string answer;
  std::string answer_to;   // What `answer` answered ("an HTTP GET", ...).
  bool reachable = false;  // It accepted a connection.
};
ServerProbe ProbeServer(const std::string& host, uint16_t port,
                        std::chrono::milliseconds wait = std::chrono::milliseconds(500));
// The one-line error for a server that accepted connections but speaks no
// registered transport's protocol (an HTTP server, say): what it answered,
// shown printable, or that it said nothing, and where to point --server;
// nullopt when a transport was recognised or nothing accepted a connection.
std::optional<std::string> UnknownPeerMessage(const Transport& client, const std::string& server,
                                              const ServerProbe& probe);
// The first registered transport whose recogniser accepts `bytes` (the
// first bytes a server sent), or nullptr.
const Transport* ClassifyServerBytes(std::string_view bytes);

// The hellos the registered transports declare, without repeats, in
// registry order: what the probe sends, one connection each, after the
// connection on which it only listens.
std::vector<std::string_view> ProbeHellos();
// What the server at host:port sends (up to 512 bytes) within `wait` of a
// new connection on which the probe sent `hello` (empty: nothing, only
// listening); empty when it sent nothing or could not be reached. Sets
// *reachable (when given) once the server accepted the connection.
std::string ReadServerBytes(const std::string& host, uint16_t port, std::string_view hello,
                            std::chrono::milliseconds wait, bool* reachable = nullptr);

// The one-line error for a client of `client` that failed before its first
// operation with `client_error` at `server` (HOST:PORT, for the message),
// whose bytes are `seen`'s protocol (nullptr: unknown):
//  - a server of another family: which protocol it speaks, and the --rpc of
//    that family's transports to pass (with the codecs they carry);
//  - a server of the client's own family: the client's ServerMismatchHint
//    whose words `client_error` contains, if any.
// nullopt otherwise (the client's own error is the message).
std::optional<std::string> WrongProtocolMessage(const Transport& client, const Transport* seen,
                                                const std::string& server,
                                                std::string_view client_error = {});

}  // namespace wirebench
