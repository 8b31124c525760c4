// Deterministic cost figures of an `--instructions` run: user-space
// instructions per operation counted by Valgrind's callgrind over the
// measured phase, for each side, split by layer (bench/loadgen/instructions.h
// says how each layer is defined). Kernel work is not counted.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>

namespace wirebench {

// One side's instructions per operation; the layers sum to `total` (rpc
// counted once: rpc_core + rpc_transport = rpc).
struct LayerInstructions {
  bool available = false;
  std::string unavailable_reason;
  double total = 0;
  double codec = 0;    // Under the Codec interface's encode/decode calls.
  double rpc = 0;      // Framing, connection read/write paths up to the syscall:
  double rpc_core = 0;       //   the network core's share (rpc/, Asio's socket calls),
  double rpc_transport = 0;  //   the transport's (its framing and calls).
  double region = 0;   // Under the Region calls (server).
  double harness = 0;  // YCSB key/record building, scheduling, latency recording (client).
  double other = 0;    // The rest: event loop, coroutine machinery, threads.
};

struct InstructionFigures {
  uint64_t operations = 0;  // Measured operations the figures are divided by.
  LayerInstructions client;
  LayerInstructions server;
};

}  // namespace wirebench
