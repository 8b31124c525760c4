// Marks around the measured phase for `--instructions` runs (see
// bench/loadgen/instructions.h): Valgrind/callgrind client requests that zero
// callgrind's counters when a phase starts and write them to a labelled dump
// file when it ends. Outside Valgrind (or without valgrind/callgrind.h at
// build time) each call is a no-op of a few instructions, so every build
// keeps them.
// Thread-safety: callgrind's counters are process-wide (all threads); the
// calls may come from any thread.
#pragma once

namespace wirebench::callgrind {

// Dump labels: the client's measured phase, and the server's Stats calls
// (the dump at the second Stats call of a run is its measured phase).
inline constexpr char kClientPhaseLabel[] = "wirebench-client-measured-phase";
inline constexpr char kServerStatsLabel[] = "wirebench-server-stats-call";

// True when this process runs under Valgrind (any tool).
bool UnderValgrind();
// Starts a phase: zeroes every thread's counts (CALLGRIND_ZERO_STATS).
void StartPhase();
// Ends a phase: writes every thread's counts since the last StartPhase or
// EndPhase to a new dump file whose trigger names `label`, then zeroes them
// (CALLGRIND_DUMP_STATS_AT).
void EndPhase(const char* label);

}  // namespace wirebench::callgrind
