#include "common/callgrind_marks.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define WIREBENCH_HAVE_CALLGRIND 1
#else
#define WIREBENCH_HAVE_CALLGRIND 0
#endif

namespace wirebench::callgrind {

#if WIREBENCH_HAVE_CALLGRIND
bool UnderValgrind() { return RUNNING_ON_VALGRIND != 0; }
void StartPhase() { CALLGRIND_ZERO_STATS; }
void EndPhase(const char* label) { CALLGRIND_DUMP_STATS_AT(label); }
#else
bool UnderValgrind() { return false; }
void StartPhase() {}
void EndPhase(const char*) {}
#endif

}  // namespace wirebench::callgrind
