// HeapBytesInUse(): the bytes this process's heap has handed out and not yet
// taken back, for tests that bound what a server holds on to. Unlike RSS it
// does not count what the allocator keeps cached, thread stacks, or a
// sanitizer's shadow memory and per-thread state (under ThreadSanitizer a
// few thousand connections' worth of shadow took RSS 465 MB up while the
// server held a few MB), so one bound holds in every build the suite runs in.
//   - sanitizer builds: the sanitizer's allocator, which serves every malloc
//     and operator new there;
//   - otherwise: jemalloc's stats.allocated (the test binaries link jemalloc
//     as the product does), refreshed through its epoch.
// Thread-safe; reads process-wide totals.
#pragma once

#include <jemalloc/jemalloc.h>

#include <cstddef>
#include <cstdint>

#include "tests/sanitized_build.h"

extern "C" size_t __sanitizer_get_current_allocated_bytes() __attribute__((weak));

namespace wirebench::testing {

inline size_t HeapBytesInUse() {
  if constexpr (kSanitizedBuild) {
    return __sanitizer_get_current_allocated_bytes != nullptr
               ? __sanitizer_get_current_allocated_bytes()
               : 0;
  } else {
    uint64_t epoch = 1;
    size_t len = sizeof(epoch);
    mallctl("epoch", &epoch, &len, &epoch, len);
    size_t allocated = 0;
    len = sizeof(allocated);
    if (mallctl("stats.allocated", &allocated, &len, nullptr, 0) != 0) return 0;
    return allocated;
  }
}

}  // namespace wirebench::testing
