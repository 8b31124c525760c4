// The threads of this process that never called RegisterThisThread: gRPC's
// own threads (timer manager, executor, event-engine and resolver threads),
// whose CPU would otherwise be missing from per-op costs. They are found by
// listing /proc/self/task and leaving out every registered tid; each one's
// CPU time comes from its thread CPU clock (clock_gettime on the clock id
// Linux derives from the tid: precise, like a registered thread's), its
// user/system split and context switches from /proc/self/task/<tid>/stat
// and .../status. Their allocations cannot be told apart per thread (the
// counting hook knows slots, not tids); UnregisteredAllocations() gives the
// process total minus every registered thread's.
//
// Thread-safety: all functions may be called from any thread.
#pragma once

#include <string>
#include <vector>

#include "common/thread_stats.h"

namespace wirebench::grpcrpc {

struct ProcessThread {
  int tid = 0;
  std::string name;  // The kernel's comm (e.g. "grpc_global_tim").
  ThreadUsage usage;
};

// Every live, unregistered thread of the process.
std::vector<ProcessThread> ReadUnregisteredThreads();
// ReadUnregisteredThreads() summed (usage.threads = how many).
ThreadUsage UnregisteredThreadsUsage();
// Allocations made by threads that are not (or no longer) registered.
CounterTotals UnregisteredAllocations();

}  // namespace wirebench::grpcrpc
