// Up-front checks of a load's size against what one connection and this
// host can carry: calls in flight per connection, file descriptors, OS
// threads (RLIMIT_NPROC, kernel.threads-max) and an estimate of the client's
// memory against MemAvailable, so an oversized run is refused with a message
// naming the flag instead of failing (or being OOM-killed) part way.
// Thread-safety: pure functions, except ReadHostLimits (reads /proc).
#pragma once

#include <cstdint>

#include "common/status.h"
#include "rpc/call_channel.h"

namespace wirebench {

struct DriverOptions;

// A connection carries at most rpc::kMaxCallsInFlight calls; one is kept
// free for the Stats call.
inline constexpr int kMaxClientsPerConnection = int(rpc::kMaxCallsInFlight) - 1;

// Estimated client memory, measured on x86-64 Linux (RSS growth per unit):
// each client thread holds its stack and the HdrHistograms of the operation
// types it has seen (allocated on first use; 32 --thread-model os clients
// measured 53 MB of RSS in all); a coroutine logical client ~5 KiB; a
// connection its buffers.
inline constexpr uint64_t kClientThreadBytes = 2u << 20;
inline constexpr uint64_t kLogicalClientBytes = 8u << 10;
inline constexpr uint64_t kConnectionBytes = 64u << 10;

struct HostLimits {
  uint64_t max_processes = UINT64_MAX;    // RLIMIT_NPROC (soft), or threads-max if lower.
  uint64_t max_open_files = UINT64_MAX;   // RLIMIT_NOFILE (soft).
  uint64_t memory_available = UINT64_MAX; // MemAvailable, bytes.
};

// This host's limits (UINT64_MAX where unlimited or unknown).
HostLimits ReadHostLimits();

// How the driver lays out a load: client threads and connections in all.
struct LoadLayout {
  int client_threads = 1;
  int connections = 1;
  // Lanes (logical clients x DriverOptions::pipeline): calls in flight.
  int max_clients_per_connection = 1;
  // OS-thread model over wirebench's RPC: one reader thread per connection.
  int reader_threads = 0;
};
LoadLayout PlanLayout(const DriverOptions& o);

// Checks `o` (already valid on its own, see ValidateDriverOptions) against
// the call-slot limit and `host`.
Status CheckClientLimits(const DriverOptions& o, const HostLimits& host);

}  // namespace wirebench
