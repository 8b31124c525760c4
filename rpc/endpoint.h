// Where a connection goes, or where a server listens: a host (a name or an
// address) and a TCP port. The options of the core's server and of every
// transport's client connections start with one, so each says "where" the
// same way.
// Thread-safety: a plain value.
#pragma once

#include <cstdint>
#include <string>

namespace wirebench::rpc {

struct Endpoint {
  // Loopback by default, so that a benchmark server is not exposed and a
  // client finds a server started with the defaults.
  std::string host = "127.0.0.1";
  // TCP port; a server given 0 picks a free one (see its port()).
  uint16_t port = 0;
};

}  // namespace wirebench::rpc
