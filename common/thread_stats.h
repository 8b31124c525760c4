// Per-thread counters that every layer bumps on its hot path and that readers
// sum on demand: heap allocations (filled by the operator new/delete hook in
// alloc_hook.cc), payload bytes copied by codecs, and a registry of named
// threads with their roles, so CPU time and context switches can be
// attributed to client loops, server I/O threads and handler threads.
//
// Thread-safety: each slot has one writer (its thread); counters are relaxed
// atomics written with load+store, so readers on other threads see a
// consistent-enough running total without any RMW cost on the hot path.
// Slots are never freed: a thread that exits keeps its totals, so sums stay
// exact over a process lifetime.
#pragma once

#include <time.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/counters.h"

namespace wirebench {

enum class ThreadRole : uint8_t {
  kUnregistered = 0,
  kMain = 1,
  kClientLoop = 2,  // Client event-loop thread running logical clients.
  kClientOs = 3,    // One OS thread per logical client (--thread-model os).
  kServerIo = 4,    // Server I/O thread (event loop; inline handlers run here).
  kServerHandler = 5,
  kServerOther = 6,  // Acceptor, signal handling, Stats.
  kOther = 7,
};
const char* ThreadRoleName(ThreadRole role);

struct ThreadCounters {
  std::atomic<uint64_t> allocs{0};
  std::atomic<uint64_t> alloc_bytes{0};
  std::atomic<uint64_t> frees{0};
  std::atomic<uint64_t> encode_copied{0};  // Payload bytes a codec copied while encoding.
  std::atomic<uint64_t> decode_copied{0};  // Payload bytes a codec copied while decoding.
  // Allocations the instrument made for itself (serving Stats calls), which
  // readers subtract so the figures show only the work being measured.
  std::atomic<uint64_t> excluded_allocs{0};
  std::atomic<uint64_t> excluded_alloc_bytes{0};
  std::atomic<uint64_t> excluded_frees{0};
};

// Snapshot of the counters above, summed over some set of threads.
struct CounterTotals {
  uint64_t allocs = 0;
  uint64_t alloc_bytes = 0;
  uint64_t frees = 0;
  uint64_t encode_copied = 0;
  uint64_t decode_copied = 0;
  using Fields = FieldList<&CounterTotals::allocs, &CounterTotals::alloc_bytes,
                           &CounterTotals::frees, &CounterTotals::encode_copied,
                           &CounterTotals::decode_copied>;
  CounterTotals& operator+=(const CounterTotals& o) { return AddFields(*this, o); }
  CounterTotals operator-(const CounterTotals& o) const { return SubtractFields(*this, o); }
};

// The calling thread's counters. Never null; claims a slot on first use
// without allocating (safe to call from operator new).
ThreadCounters* ThisThreadCounters();

inline void Bump(std::atomic<uint64_t>& c, uint64_t n) {
  c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}
// Called by codecs for every payload byte they copy.
inline void CountEncodeCopy(size_t n) { Bump(ThisThreadCounters()->encode_copied, n); }
inline void CountDecodeCopy(size_t n) { Bump(ThisThreadCounters()->decode_copied, n); }

// The calling thread's totals so far (net of excluded allocations).
CounterTotals ThisThreadTotals();
// Excludes `d`'s allocations, bytes and frees from the calling thread's
// totals from now on (the instrument's own work, e.g. a Stats reply).
void ExcludeFromThisThread(const CounterTotals& d);
// Totals over every thread that ever touched a counter in this process.
CounterTotals ProcessTotals();
// Totals over registered threads of any of `roles`.
CounterTotals RoleTotals(std::initializer_list<ThreadRole> roles);

// True once the operator new hook has counted an allocation in this process;
// false means allocation figures are unavailable (the hook is not linked).
bool AllocationCountingActive();
void MarkAllocationHookActive();

// Debugging aid: with WIREBENCH_ALLOC_TRAP=1 in the environment, ArmAllocationTrap(true)
// makes the hook print the stack of every allocation by a client or server thread.
void ArmAllocationTrap(bool armed);
// True when armed, enabled by the environment, and the calling thread is a
// registered client or server thread.
bool AllocationTrapArmed();

// Names the calling thread and gives it a role, for CPU and context-switch
// attribution. Call once at thread start.
void RegisterThisThread(ThreadRole role, const char* name);

// CPU and scheduling figures for one registered thread, or summed over many.
struct ThreadUsage {
  double cpu_ns = 0;    // From the thread's CPU clock (precise).
  double user_ns = 0;   // From /proc/self/task/<tid>/stat (clock-tick resolution).
  double sys_ns = 0;
  uint64_t voluntary_switches = 0;
  uint64_t involuntary_switches = 0;
  // Hardware counters (common/perf_counters.h); valid only when hw_available.
  bool hw_available = false;
  double cycles = 0, instructions = 0, cache_misses = 0;
  int threads = 0;
  // The summed fields; hw_available and threads are combined by the operators.
  using Fields = FieldList<&ThreadUsage::cpu_ns, &ThreadUsage::user_ns, &ThreadUsage::sys_ns,
                           &ThreadUsage::voluntary_switches, &ThreadUsage::involuntary_switches,
                           &ThreadUsage::cycles, &ThreadUsage::instructions,
                           &ThreadUsage::cache_misses>;
  // A sum over threads: hw_available only if every thread has it.
  ThreadUsage& operator+=(const ThreadUsage& o);
  // A difference of two readings of the same threads (keeps `threads`).
  ThreadUsage operator-(const ThreadUsage& o) const;
};

struct RegisteredThread {
  ThreadRole role;
  std::string name;
  int tid;
  ThreadUsage usage;
  CounterTotals counters;
};
// Reads every registered thread that is still alive.
std::vector<RegisteredThread> ReadRegisteredThreads();
// Sums ReadRegisteredThreads() over threads of any of `roles`, in one pass.
ThreadUsage RoleUsage(std::initializer_list<ThreadRole> roles);

}  // namespace wirebench
