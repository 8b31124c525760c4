#include "transports/grpc/process_threads.h"

#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

namespace wirebench::grpcrpc {

namespace {

// The CPU clock of thread `tid` of this process: Linux encodes a thread
// clock as (~tid << 3) | CPUCLOCK_PERTHREAD_MASK(4) | CPUCLOCK_SCHED(2),
// which is what pthread_getcpuclockid returns for a pthread.
double ThreadCpuNs(int tid) {
  const clockid_t clock = clockid_t((~unsigned(tid)) << 3) | 6;
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return -1;
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

// Reads one line-oriented /proc file into `buf`; false if it is gone.
bool ReadSmallFile(const char* path, char* buf, size_t size) {
  FILE* f = std::fopen(path, "r");
  if (!f) return false;
  size_t n = std::fread(buf, 1, size - 1, f);
  std::fclose(f);
  buf[n] = 0;
  return true;
}

bool ReadThread(int tid, ProcessThread* out) {
  out->tid = tid;
  out->usage = ThreadUsage{};
  out->usage.threads = 1;
  out->usage.cpu_ns = ThreadCpuNs(tid);
  if (out->usage.cpu_ns < 0) return false;
  char path[64], buf[2048];
  std::snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
  if (!ReadSmallFile(path, buf, sizeof(buf))) return false;
  const char* open = std::strchr(buf, '(');
  const char* close = std::strrchr(buf, ')');
  if (!open || !close || close < open) return false;
  out->name.assign(open + 1, close);
  // After ")": state, then 10 fields, then utime and stime (fields 14, 15).
  unsigned long long utime = 0, stime = 0;
  if (std::sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                  &stime) == 2) {
    const double tick_ns = 1e9 / double(sysconf(_SC_CLK_TCK));
    out->usage.user_ns = double(utime) * tick_ns;
    out->usage.sys_ns = double(stime) * tick_ns;
  }
  std::snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
  if (!ReadSmallFile(path, buf, sizeof(buf))) return true;
  if (const char* v = std::strstr(buf, "\nvoluntary_ctxt_switches:"))
    out->usage.voluntary_switches = std::strtoull(v + 25, nullptr, 10);
  if (const char* v = std::strstr(buf, "\nnonvoluntary_ctxt_switches:"))
    out->usage.involuntary_switches = std::strtoull(v + 28, nullptr, 10);
  return true;
}

}  // namespace

std::vector<ProcessThread> ReadUnregisteredThreads() {
  std::unordered_set<int> registered;
  for (const RegisteredThread& t : ReadRegisteredThreads()) registered.insert(t.tid);
  std::vector<ProcessThread> out;
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return out;
  while (dirent* e = readdir(dir)) {
    const int tid = std::atoi(e->d_name);
    if (tid <= 0 || registered.count(tid)) continue;
    ProcessThread t;
    if (ReadThread(tid, &t)) out.push_back(std::move(t));
  }
  closedir(dir);
  return out;
}

ThreadUsage UnregisteredThreadsUsage() {
  ThreadUsage sum;
  for (const ProcessThread& t : ReadUnregisteredThreads()) sum += t.usage;
  return sum;
}

CounterTotals UnregisteredAllocations() {
  CounterTotals registered;
  for (const RegisteredThread& t : ReadRegisteredThreads()) registered += t.counters;
  const CounterTotals all = ProcessTotals();
  // Registered threads that exited keep their slots in ProcessTotals but are
  // no longer listed; clamp rather than wrap if the two disagree.
  CounterTotals d;
  d.allocs = all.allocs > registered.allocs ? all.allocs - registered.allocs : 0;
  d.alloc_bytes =
      all.alloc_bytes > registered.alloc_bytes ? all.alloc_bytes - registered.alloc_bytes : 0;
  d.frees = all.frees > registered.frees ? all.frees - registered.frees : 0;
  return d;
}

}  // namespace wirebench::grpcrpc
