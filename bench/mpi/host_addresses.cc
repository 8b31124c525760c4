#include "bench/mpi/host_addresses.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/str_cat.h"

namespace wirebench::mpi {

std::string Hostname() {
  char b[256] = {};
  gethostname(b, sizeof(b) - 1);
  return b;
}

std::vector<std::string> Ipv4Addresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
        (i->ifa_flags & IFF_LOOPBACK))
      continue;
    char b[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, b, sizeof(b));
    out.push_back(b);
  }
  freeifaddrs(list);
  return out;
}

StatusOr<std::string> SourceAddressToward(const std::string& destination) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);  // Any port: a UDP connect only asks the routing table.
  if (inet_pton(AF_INET, destination.c_str(), &to.sin_addr) != 1)
    return Status::InvalidArgument(StrCat("'", destination, "' is not an IPv4 address"));
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::IoError(StrCat("socket: ", std::strerror(errno)));
  sockaddr_in from{};
  socklen_t len = sizeof(from);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&from), &len) == 0;
  const int err = errno;
  close(fd);
  if (!ok)
    return Status::Unavailable(StrCat("no route to ", destination, ": ", std::strerror(err)));
  char b[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &from.sin_addr, b, sizeof(b));
  return std::string(b);
}

StatusOr<std::string> AddressInNetwork(const std::string& cidr) {
  const size_t slash = cidr.find('/');
  in_addr net{};
  char* end = nullptr;
  const long bits =
      slash == std::string::npos ? -1 : std::strtol(cidr.c_str() + slash + 1, &end, 10);
  if (slash == std::string::npos || bits < 0 || bits > 32 || *end != '\0' ||
      end == cidr.c_str() + slash + 1 ||
      inet_pton(AF_INET, cidr.substr(0, slash).c_str(), &net) != 1)
    return Status::InvalidArgument(StrCat("--mpi-server-network '", cidr,
                                          "' is not an IPv4 network: give ADDRESS/BITS, e.g. "
                                          "10.0.0.0/24"));
  const uint32_t mask = bits == 0 ? 0 : ~uint32_t(0) << (32 - bits);
  std::string all;
  for (const std::string& a : Ipv4Addresses()) {
    in_addr mine{};
    if (inet_pton(AF_INET, a.c_str(), &mine) != 1) continue;
    if ((ntohl(mine.s_addr) & mask) == (ntohl(net.s_addr) & mask)) return a;
    all += StrCat(all.empty() ? "" : ", ", a);
  }
  return Status::InvalidArgument(StrCat(
      "no address of host ", Hostname(), " is in --mpi-server-network ", cidr, " (it has ",
      all.empty() ? std::string("none but loopback") : all, "): give the network its hosts share"));
}

StatusOr<uint16_t> FreePortOn(const std::string& address) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  if (inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1)
    return Status::InvalidArgument(StrCat("'", address, "' is not an IPv4 address"));
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::IoError(StrCat("socket: ", std::strerror(errno)));
  socklen_t len = sizeof(a);
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0;
  const int err = errno;
  close(fd);
  if (!ok)
    return Status::IoError(StrCat("cannot bind a port on ", address, ": ", std::strerror(err)));
  return uint16_t(ntohs(a.sin_port));
}

}  // namespace wirebench::mpi
