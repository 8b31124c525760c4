// Replaces the global operator new/delete so every C++ heap allocation in the
// process is counted, exactly and per thread, in ThisThreadCounters(). The
// memory itself comes from malloc, which in wirebench's binaries is jemalloc.
// Link this file (the wirebench_alloc_hook object library) into executables
// only; a library must not replace operator new for its users.
#include <execinfo.h>
#include <unistd.h>

#include <cstdlib>
#include <new>

#include "common/thread_stats.h"

namespace {

struct HookActivator {
  HookActivator() { wirebench::MarkAllocationHookActive(); }
} g_activator;

thread_local bool t_in_trap = false;

// WIREBENCH_ALLOC_TRAP=1: print the stack of every allocation made while
// the trap is armed (the driver arms it over the measured phase), to find
// what allocates on a hot path. backtrace_symbols_fd does not allocate.
void MaybeTrap(size_t n) {
  if (!wirebench::AllocationTrapArmed() || t_in_trap) return;
  t_in_trap = true;
  void* frames[32];
  int depth = backtrace(frames, 32);
  char line[64];
  int len = 0;
  const char* msg = "wirebench: allocation of ";
  while (msg[len]) ++len;
  (void)!write(2, msg, size_t(len));
  len = 0;
  char digits[24];
  size_t v = n;
  do {
    digits[len++] = char('0' + v % 10);
    v /= 10;
  } while (v);
  for (int i = 0; i < len; ++i) line[i] = digits[len - 1 - i];
  line[len++] = '\n';
  (void)!write(2, line, size_t(len));
  backtrace_symbols_fd(frames, depth, 2);
  t_in_trap = false;
}

inline void CountAlloc(size_t n) {
  wirebench::ThreadCounters* c = wirebench::ThisThreadCounters();
  wirebench::Bump(c->allocs, 1);
  wirebench::Bump(c->alloc_bytes, n);
  MaybeTrap(n);
}
inline void CountFree() { wirebench::Bump(wirebench::ThisThreadCounters()->frees, 1); }

void* Allocate(size_t n) {
  CountAlloc(n);
  for (;;) {
    if (void* p = std::malloc(n ? n : 1)) return p;
    std::new_handler h = std::get_new_handler();
    if (!h) throw std::bad_alloc();
    h();
  }
}

void* AllocateAligned(size_t n, std::align_val_t al) {
  CountAlloc(n);
  size_t a = static_cast<size_t>(al);
  if (a < sizeof(void*)) a = sizeof(void*);
  void* p = nullptr;
  if (posix_memalign(&p, a, n ? n : 1) != 0) throw std::bad_alloc();
  return p;
}

inline void Release(void* p) {
  if (p == nullptr) return;
  CountFree();
  std::free(p);
}

}  // namespace

void* operator new(size_t n) { return Allocate(n); }
void* operator new[](size_t n) { return Allocate(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return Allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  try {
    return Allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(size_t n, std::align_val_t al) { return AllocateAligned(n, al); }
void* operator new[](size_t n, std::align_val_t al) { return AllocateAligned(n, al); }
void operator delete(void* p) noexcept { Release(p); }
void operator delete[](void* p) noexcept { Release(p); }
void operator delete(void* p, size_t) noexcept { Release(p); }
void operator delete[](void* p, size_t) noexcept { Release(p); }
void operator delete(void* p, std::align_val_t) noexcept { Release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Release(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { Release(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { Release(p); }
