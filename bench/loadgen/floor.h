// The machine's floor for a cell's bytes: the least CPU a framed RPC over
// loopback costs here. One TCP connection, `depth` requests outstanding
// (closed loop), requests of `request_bytes` and replies of `reply_bytes`
// behind a 4-byte length, no codec, no allocation in the loop, and on each
// side a blocking read and one write per batch of whole frames. What is left
// is the kernel's cost plus the least user-space work framing needs; a
// comparison's "Total CPU vs floor" row divides by it, so figures from
// different machines can be read side by side.
//
// The two sides are threads of this process pinned as a co-located cell's
// client and server are (client_cpus, server_cpus), each timed by its own
// thread CPU clock (user and kernel time of its system calls).
// Thread-safety: RunFloor may be called from any thread; it starts its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "bench/results/floor_figure.h"
#include "common/status.h"

namespace wirebench {

struct FloorOptions {
  int depth = 32;                // Requests outstanding.
  double seconds = 2;            // How long the client sends, measured.
  double warmup_seconds = 0.5;   // Before that, unmeasured.
  size_t request_bytes = 121;    // Payload after the 4-byte length.
  size_t reply_bytes = 814;
  std::string client_cpus = "0";  // Lists as --client-cpus takes them; "" = not pinned.
  std::string server_cpus = "1";
};

struct FloorResult {
  uint64_t operations = 0;       // Replies the client read.
  double seconds = 0;            // Wall time of the client's loop.
  double client_us_per_op = 0;   // Thread CPU per operation.
  double server_us_per_op = 0;
  double total_us_per_op() const { return client_us_per_op + server_us_per_op; }
  double ops_per_sec() const { return seconds > 0 ? double(operations) / seconds : 0; }
};

// Checks the options (depth 1-65536, sizes up to 16 MiB, seconds above 0,
// CPU lists this machine has) and runs the loop.
StatusOr<FloorResult> RunFloor(const FloorOptions& o);

// The floor as `compare` and `run --floor` take it: the median (by total
// CPU) of `runs` runs of `o`, whose requests each carry `ops_per_request`
// operations (a batch), so its figures are per operation. An error names
// why a run failed; a stop request ends it early (Aborted).
StatusOr<FloorFigure> MeasureFloor(const FloorOptions& o, int runs, int ops_per_request);

// "depth 32, 121 B requests, 814 B replies: 412345 ops/s, client 1.234 us/op,
// server 0.987 us/op, total 2.221 us/op".
std::string DescribeFloor(const FloorOptions& o, const FloorResult& r);

}  // namespace wirebench
