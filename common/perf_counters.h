// Hardware counters (cycles, instructions, cache misses) per thread via
// perf_event_open, where the kernel allows it. Many VMs and containers do
// not (these CI machines among them): then HardwareCountersAvailable() is
// false and HardwareCountersUnavailableReason() says why, and every report
// prints "unavailable" instead of a silent 0.
// Set WIREBENCH_DISABLE_PERF=1 to force the unavailable path.
// Thread-safety: all functions may be called from any thread.
#pragma once

#include <cstdint>
#include <string>

namespace wirebench {

struct HwCounts {
  uint64_t cycles = 0;
  uint64_t instructions = 0;
  uint64_t cache_misses = 0;
};

// Opens counters for the calling thread. Returns a handle (>= 0) or -1 when
// unavailable. Called by RegisterThisThread.
int OpenThreadHwCounters();
// Reads a handle from any thread; false if it cannot be read.
bool ReadHwCounters(int handle, HwCounts* out);
// Whether counters could be opened in this process (probed once).
bool HardwareCountersAvailable();
std::string HardwareCountersUnavailableReason();

}  // namespace wirebench
