// The connections a server's Stats report open, and a wait for a count of
// them, for tests that open and close connections against it.
#pragma once

#include <chrono>
#include <cstdint>
#include <thread>

#include <nlohmann/json.hpp>

#include "rpc/transport_server.h"

namespace wirebench::testing {

inline int64_t ActiveConnections(rpc::TransportServer& server) {
  return server.StatsJson()["connections"]["active"].get<int64_t>();
}

// Polls the server's counters until `n` connections are open (true), or
// gives up after 20 s (false).
inline bool WaitForActiveConnections(rpc::TransportServer& server, int64_t n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (ActiveConnections(server) != n && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return ActiveConnections(server) == n;
}

}  // namespace wirebench::testing
