#include "bench/loadgen/protocol_probe.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstring>

#include "codecs/codec.h"
#include "common/protocol.h"

namespace wirebench {

namespace {

// A connected socket to host:port with receive and send timeouts, or -1.
int Connect(const std::string& host, uint16_t port, std::chrono::milliseconds wait) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return -1;
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    timeval tv{};
    tv.tv_sec = wait.count() / 1000;
    tv.tv_usec = (wait.count() % 1000) * 1000;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

// What the server sends within the receive timeout (up to 512 bytes).
std::string ReadSome(int fd) {
  std::string got;
  char buf[512];
  while (got.size() < sizeof(buf)) {
    const ssize_t n = recv(fd, buf, sizeof(buf) - got.size(), 0);
    if (n <= 0) break;
    got.append(buf, size_t(n));
  }
  return got;
}

}  // namespace

ServerProtocol ClassifyServerBytes(const std::string& b) {
  if (b.size() >= 9) {
    const auto u = [&](size_t i) { return uint32_t(uint8_t(b[i])); };
    // HTTP/2: a 9-byte frame header, type 4 (SETTINGS) on stream 0 — the
    // server's connection preface, which gRPC sends unasked.
    const uint32_t stream = (u(5) & 0x7f) << 24 | u(6) << 16 | u(7) << 8 | u(8);
    if (u(3) == 0x04 && stream == 0 && (u(0) << 16 | u(1) << 8 | u(2)) % 6 == 0)
      return ServerProtocol::kGrpc;
  }
  if (b.find("org.apache.hadoop.hbase") != std::string::npos) return ServerProtocol::kHbase;
  if (b.size() >= 12) {
    // A wirebench frame: u32 length (little-endian, at least the 8-byte
    // header, at most 16 MiB) then call id, a method 1-6.
    const uint32_t length = uint32_t(uint8_t(b[0])) | uint32_t(uint8_t(b[1])) << 8 |
                            uint32_t(uint8_t(b[2])) << 16 | uint32_t(uint8_t(b[3])) << 24;
    const uint8_t method = uint8_t(b[8]);
    if (length >= 8 && length <= (16u << 20) && method >= 1 && method <= kMaxMethod)
      return ServerProtocol::kWirebench;
  }
  return ServerProtocol::kUnknown;
}

ServerProtocol ProbeServerProtocol(const std::string& host, uint16_t port,
                                   std::chrono::milliseconds wait) {
  // 1. Listen only: a gRPC (HTTP/2) server speaks first.
  int fd = Connect(host, port, wait);
  if (fd < 0) return ServerProtocol::kUnknown;
  ServerProtocol seen = ClassifyServerBytes(ReadSome(fd));
  close(fd);
  if (seen != ServerProtocol::kUnknown) return seen;
  // 2. The wirebench preamble (codec raw) and a Ping.
  fd = Connect(host, port, wait);
  if (fd < 0) return ServerProtocol::kUnknown;
  const uint8_t hello[] = {'W', 'B', 'N', 'C', 1, uint8_t(CodecId::kRaw), 0, 0,
                           // Frame: length 8, call id 1, Ping, status 0, flags 0.
                           8, 0, 0, 0, 1, 0, 0, 0, uint8_t(Method::kPing), 0, 0, 0};
  if (send(fd, hello, sizeof(hello), MSG_NOSIGNAL) == ssize_t(sizeof(hello)))
    seen = ClassifyServerBytes(ReadSome(fd));
  close(fd);
  return seen;
}

std::optional<std::string> WrongProtocolMessage(const std::string& rpc, ServerProtocol seen,
                                                const std::string& server) {
  const bool grpc_client = rpc == "grpc" || rpc == "grpc-native";
  switch (seen) {
    case ServerProtocol::kUnknown:
      return std::nullopt;
    case ServerProtocol::kWirebench:
      if (rpc == "wirebench") return std::nullopt;
      return server + " speaks wirebench's own RPC protocol (a `wirebench server` with the "
                      "default --rpc wirebench), not " + rpc + "'s: pass --rpc wirebench, or point "
                      "--server at a `wirebench server --rpc " + rpc + "`";
    case ServerProtocol::kHbase:
      if (rpc == "hbase") return std::nullopt;
      return server + " speaks HBase's RPC protocol (it answered with "
                      "org.apache.hadoop.hbase.ipc.FatalConnectionException, as a region server "
                      "or `wirebench server --rpc hbase` does), not " + rpc + "'s: pass --rpc "
                      "hbase (codecs pb and cellblock; cellblock is the default)";
    case ServerProtocol::kGrpc:
      if (grpc_client) return std::nullopt;
      return server + " speaks gRPC (HTTP/2: it sent a SETTINGS frame, as a `wirebench server "
                      "--rpc grpc` does), not " + rpc + "'s: pass --rpc grpc (or --rpc grpc-native "
                      "with --codec pb)";
  }
  return std::nullopt;
}

}  // namespace wirebench
