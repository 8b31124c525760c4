#include "bench/loadgen/protocol_probe.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "common/str_cat.h"

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

// "--rpc NAME" and the codecs it carries when not all: " with --codec pb",
// " (codecs cellblock and pb; cellblock is the default)".
std::string RpcFlag(const Transport& t) {
  const auto& codecs = t.traits().codecs;
  std::string out = "--rpc " + std::string(t.name());
  if (codecs.size() == 1) out += " with --codec " + std::string(codecs.front());
  if (codecs.size() > 1)
    out += " (codecs " + ListedWithAnd(codecs) + "; " + std::string(codecs.front()) +
           " is the default)";
  return out;
}

// What to pass to reach a server of `family`: every registered transport
// of it, the first as the advice and the others as alternatives:
// "--rpc grpc (or --rpc grpc-native with --codec pb)".
std::string FamilyAdvice(std::string_view family) {
  std::string first, others;
  for (const Transport* t : Transports()) {
    if (t->traits().wire.family != family) continue;
    if (first.empty())
      first = RpcFlag(*t);
    else
      others += (others.empty() ? "" : ", or ") + RpcFlag(*t);
  }
  return others.empty() ? first : first + " (or " + others + ")";
}

}  // namespace

const Transport* ClassifyServerBytes(std::string_view bytes) {
  if (bytes.empty()) return nullptr;
  for (const Transport* t : Transports()) {
    const WireProtocol& wire = t->traits().wire;
    if (!wire.family.empty() && wire.recognises != nullptr && wire.recognises(bytes)) return t;
  }
  return nullptr;
}

std::vector<std::string_view> ProbeHellos() {
  std::vector<std::string_view> hellos;
  for (const Transport* t : Transports()) {
    const std::string_view hello = t->traits().wire.hello;
    if (!hello.empty() && std::find(hellos.begin(), hellos.end(), hello) == hellos.end())
      hellos.push_back(hello);
  }
  return hellos;
}

std::string ReadServerBytes(const std::string& host, uint16_t port, std::string_view hello,
                            std::chrono::milliseconds wait, bool* reachable) {
  const int fd = Connect(host, port, wait);
  if (fd < 0) return "";
  if (reachable != nullptr) *reachable = true;
  std::string got;
  if (hello.empty() || send(fd, hello.data(), hello.size(), MSG_NOSIGNAL) == ssize_t(hello.size()))
    got = ReadSome(fd);
  close(fd);
  return got;
}

ServerProbe ProbeServer(const std::string& host, uint16_t port, std::chrono::milliseconds wait) {
  ServerProbe out;
  const auto ask = [&](std::string_view hello) {
    return ReadServerBytes(host, port, hello, wait, &out.reachable);
  };
  const auto look = [&](std::string bytes) {
    if (out.answer.empty()) out.answer = bytes;
    out.seen = ClassifyServerBytes(bytes);
    return out.seen != nullptr;
  };
  // 1. Listen only: a server that speaks first (gRPC's HTTP/2).
  if (look(ask({}))) return out;
  // 2. Each hello on a connection of its own.
  for (std::string_view hello : ProbeHellos())
    if (look(ask(hello))) return out;
  // 3. None of ours: the commonest other server on a port is HTTP/1, which
  // waits for a request line before it says anything.
  if (out.answer.empty() && out.reachable) {
    out.answer = ask("GET / HTTP/1.0\r\n\r\n");
    if (!out.answer.empty()) out.answer_to = "an HTTP GET";
  } else if (!out.answer.empty()) {
    out.answer_to = "wirebench's hello";
  }
  return out;
}

const Transport* ProbeServerProtocol(const std::string& host, uint16_t port,
                                     std::chrono::milliseconds wait) {
  return ProbeServer(host, port, wait).seen;
}

std::optional<std::string> UnknownPeerMessage(const Transport& client, const std::string& server,
                                              const ServerProbe& probe) {
  if (probe.seen != nullptr || !probe.reachable) return std::nullopt;
  const std::string rpc(client.name());
  const std::string advice = "point --server at a `wirebench server --rpc " + rpc +
                             "` (or an HBase region server with --rpc hbase)";
  if (probe.answer.empty())
    return server + " accepted connections but answered nothing wirebench knows (not the " +
           rpc + " hello, nor an HTTP GET) within the probe's wait: it is not a wirebench " +
           "server; " + advice;
  std::string shown;
  for (char ch : std::string_view(probe.answer).substr(0, 60)) {
    if (ch == '\r') continue;
    shown += ch == '\n' ? std::string("\\n")
             : std::isprint(static_cast<unsigned char>(ch)) ? std::string(1, ch)
                                                            : std::string(".");
  }
  return server + " is not a server wirebench knows: to " + probe.answer_to + " it answered \"" +
         shown + "\"" + (probe.answer.size() > 60 ? "..." : "") + " (" +
         std::to_string(probe.answer.size()) + " bytes), which no --rpc's server sends; " + advice;
}

std::optional<std::string> WrongProtocolMessage(const Transport& client, const Transport* seen,
                                                const std::string& server,
                                                std::string_view client_error) {
  if (seen == nullptr) return std::nullopt;
  const WireProtocol& wire = seen->traits().wire;
  if (wire.family == client.traits().wire.family) {
    if (client_error.empty()) return std::nullopt;
    for (const ServerMismatchHint& hint : client.traits().mismatch_hints)
      if (client_error.find(hint.error_contains) != std::string_view::npos)
        return server + " " + std::string(hint.message);
    return std::nullopt;
  }
  const std::string rpc(client.name());
  return server + " speaks " + std::string(wire.speaks) + ", not " + rpc + "'s: pass " +
         FamilyAdvice(wire.family) + ", or point --server at a `wirebench server --rpc " + rpc +
         "`";
}

}  // namespace wirebench
