// This host as the ranks of an --mpi job see it: its name, its IPv4
// addresses, and which of them a server on it should be reached at.
// Thread-safety: pure functions of the host's state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace wirebench::mpi {

std::string Hostname();

// This host's IPv4 addresses, up and not loopback.
std::vector<std::string> Ipv4Addresses();

// The address of this host that the kernel would send from to reach
// `destination` (an IPv4 address): the one the hosts on that side can
// reach it at. Nothing is sent.
StatusOr<std::string> SourceAddressToward(const std::string& destination);

// This host's first IPv4 address inside `cidr` ("10.0.0.0/8"); errors say
// what was wrong with `cidr` or which addresses the host has.
StatusOr<std::string> AddressInNetwork(const std::string& cidr);

// A TCP port free on `address` now (bound, read, released): a child server
// is started on it at once.
StatusOr<uint16_t> FreePortOn(const std::string& address);

}  // namespace wirebench::mpi
