// Free TCP ports on loopback, for a caller that must name its servers' ports
// before any of them listens (a co-located null cluster's servers are each
// told every port; a test's daemons likewise): `n` distinct ones, bound
// together and then released, so another process may still take one first.
// Thread-safety: reentrant.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <vector>

namespace wirebench::rpc {

// Empty, with errno set, when a socket could not be bound.
inline std::vector<uint16_t> FreeLoopbackPorts(int n) {
  std::vector<int> fds;
  std::vector<uint16_t> ports;
  for (int i = 0; i < n; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      const int saved = errno;
      if (fd >= 0) close(fd);
      for (int open : fds) close(open);
      errno = saved;
      return {};
    }
    fds.push_back(fd);
    ports.push_back(ntohs(a.sin_port));
  }
  for (int fd : fds) close(fd);
  return ports;
}

}  // namespace wirebench::rpc
