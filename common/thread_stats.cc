#include "common/thread_stats.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/perf_counters.h"

namespace wirebench {

namespace {

constexpr int kMaxSlots = 4096;

struct Slot {
  ThreadCounters counters;
  std::atomic<int> role{0};
  std::atomic<bool> named{false};
  int tid = 0;
  int hw_handle = -1;
  clockid_t cpu_clock{};
  char name[32] = {};
};

Slot g_slots[kMaxSlots];
// Shared by every thread beyond kMaxSlots (counts stay right, attribution is lost).
Slot g_overflow;
std::atomic<int> g_next_slot{0};
std::atomic<bool> g_alloc_hook_active{false};
thread_local Slot* t_slot = nullptr;

Slot* ClaimSlot() {
  int i = g_next_slot.fetch_add(1, std::memory_order_relaxed);
  t_slot = i < kMaxSlots ? &g_slots[i] : &g_overflow;
  return t_slot;
}

inline Slot* ThisSlot() { return t_slot ? t_slot : ClaimSlot(); }

CounterTotals Read(const ThreadCounters& c) {
  CounterTotals t;
  t.allocs = c.allocs.load(std::memory_order_relaxed) -
             c.excluded_allocs.load(std::memory_order_relaxed);
  t.alloc_bytes = c.alloc_bytes.load(std::memory_order_relaxed) -
                  c.excluded_alloc_bytes.load(std::memory_order_relaxed);
  t.frees = c.frees.load(std::memory_order_relaxed) -
            c.excluded_frees.load(std::memory_order_relaxed);
  t.encode_copied = c.encode_copied.load(std::memory_order_relaxed);
  t.decode_copied = c.decode_copied.load(std::memory_order_relaxed);
  return t;
}

int SlotCount() {
  int n = g_next_slot.load(std::memory_order_acquire);
  return n < kMaxSlots ? n : kMaxSlots;
}

// Reads utime/stime (fields 14 and 15) of /proc/self/task/<tid>/stat, and the
// context-switch lines of .../status. Returns false if the thread is gone.
bool ReadProcTask(int tid, ThreadUsage* u) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
  FILE* f = std::fopen(path, "r");
  if (!f) return false;
  char buf[1024];
  size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  buf[n] = 0;
  const char* p = std::strrchr(buf, ')');  // The name may hold spaces; fields follow ')'.
  if (!p) return false;
  unsigned long long utime = 0, stime = 0;
  // Fields after ')': state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
  if (std::sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                  &stime) != 2)
    return false;
  const double tick_ns = 1e9 / double(sysconf(_SC_CLK_TCK));
  u->user_ns = double(utime) * tick_ns;
  u->sys_ns = double(stime) * tick_ns;
  std::snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
  f = std::fopen(path, "r");
  if (!f) return false;
  char line[256];
  while (std::fgets(line, sizeof(line), f)) {
    unsigned long long v;
    if (std::sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1) u->voluntary_switches = v;
    if (std::sscanf(line, "nonvoluntary_ctxt_switches: %llu", &v) == 1) u->involuntary_switches = v;
  }
  std::fclose(f);
  return true;
}

}  // namespace

const char* ThreadRoleName(ThreadRole role) {
  switch (role) {
    case ThreadRole::kUnregistered: return "unregistered";
    case ThreadRole::kMain: return "main";
    case ThreadRole::kClientLoop: return "client-loop";
    case ThreadRole::kClientOs: return "client-os";
    case ThreadRole::kServerIo: return "server-io";
    case ThreadRole::kServerHandler: return "server-handler";
    case ThreadRole::kServerOther: return "server-other";
    case ThreadRole::kOther: return "other";
  }
  return "unknown";
}

ThreadUsage& ThreadUsage::operator+=(const ThreadUsage& o) {
  hw_available = (threads == 0 ? o.hw_available : hw_available && o.hw_available);
  threads += o.threads;
  return AddFields(*this, o);
}

ThreadUsage ThreadUsage::operator-(const ThreadUsage& o) const {
  ThreadUsage t = SubtractFields(*this, o);
  t.hw_available = hw_available && o.hw_available;
  return t;
}

ThreadCounters* ThisThreadCounters() { return &ThisSlot()->counters; }

CounterTotals ThisThreadTotals() { return Read(ThisSlot()->counters); }

void ExcludeFromThisThread(const CounterTotals& d) {
  ThreadCounters& c = ThisSlot()->counters;
  Bump(c.excluded_allocs, d.allocs);
  Bump(c.excluded_alloc_bytes, d.alloc_bytes);
  Bump(c.excluded_frees, d.frees);
}

CounterTotals ProcessTotals() {
  CounterTotals t;
  int n = SlotCount();
  for (int i = 0; i < n; ++i) t += Read(g_slots[i].counters);
  t += Read(g_overflow.counters);
  return t;
}

namespace {
bool InRoles(int role, std::initializer_list<ThreadRole> roles) {
  for (ThreadRole r : roles)
    if (role == int(r)) return true;
  return false;
}
}  // namespace

CounterTotals RoleTotals(std::initializer_list<ThreadRole> roles) {
  CounterTotals t;
  int n = SlotCount();
  for (int i = 0; i < n; ++i) {
    if (g_slots[i].named.load(std::memory_order_acquire) &&
        InRoles(g_slots[i].role.load(std::memory_order_relaxed), roles))
      t += Read(g_slots[i].counters);
  }
  return t;
}

std::atomic<bool> g_trap_armed{false};
thread_local bool t_trap_thread = false;

void ArmAllocationTrap(bool armed) {
  static const bool enabled = [] {
    const char* e = std::getenv("WIREBENCH_ALLOC_TRAP");
    return e && e[0] == '1';
  }();
  g_trap_armed.store(armed && enabled, std::memory_order_relaxed);
}

bool AllocationTrapArmed() { return t_trap_thread && g_trap_armed.load(std::memory_order_relaxed); }

bool AllocationCountingActive() { return g_alloc_hook_active.load(std::memory_order_relaxed); }
void MarkAllocationHookActive() { g_alloc_hook_active.store(true, std::memory_order_relaxed); }

void RegisterThisThread(ThreadRole role, const char* name) {
  Slot* s = ThisSlot();
  if (s == &g_overflow) return;
  s->tid = int(syscall(SYS_gettid));
  s->hw_handle = OpenThreadHwCounters();
  pthread_getcpuclockid(pthread_self(), &s->cpu_clock);
  std::snprintf(s->name, sizeof(s->name), "%s", name);
  pthread_setname_np(pthread_self(), s->name[0] ? std::string(s->name).substr(0, 15).c_str() : "wb");
  s->role.store(int(role), std::memory_order_relaxed);
  s->named.store(true, std::memory_order_release);
  t_trap_thread = role == ThreadRole::kClientLoop || role == ThreadRole::kClientOs ||
                  role == ThreadRole::kServerIo || role == ThreadRole::kServerHandler;
}

std::vector<RegisteredThread> ReadRegisteredThreads() {
  std::vector<RegisteredThread> out;
  int n = SlotCount();
  for (int i = 0; i < n; ++i) {
    Slot& s = g_slots[i];
    if (!s.named.load(std::memory_order_acquire)) continue;
    RegisteredThread t;
    t.role = ThreadRole(s.role.load(std::memory_order_relaxed));
    t.name = s.name;
    t.tid = s.tid;
    if (!ReadProcTask(s.tid, &t.usage)) continue;  // Thread has exited.
    timespec ts{};
    if (clock_gettime(s.cpu_clock, &ts) == 0) {
      t.usage.cpu_ns = double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
    } else {
      t.usage.cpu_ns = t.usage.user_ns + t.usage.sys_ns;
    }
    HwCounts hw;
    if (ReadHwCounters(s.hw_handle, &hw)) {
      t.usage.hw_available = true;
      t.usage.cycles = double(hw.cycles);
      t.usage.instructions = double(hw.instructions);
      t.usage.cache_misses = double(hw.cache_misses);
    }
    t.usage.threads = 1;
    t.counters = Read(s.counters);
    out.push_back(std::move(t));
  }
  return out;
}

ThreadUsage RoleUsage(std::initializer_list<ThreadRole> roles) {
  ThreadUsage u;
  for (const auto& t : ReadRegisteredThreads())
    if (InRoles(int(t.role), roles)) u += t.usage;
  return u;
}

}  // namespace wirebench
