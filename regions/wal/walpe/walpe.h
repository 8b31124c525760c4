// walpe: the WAL performance evaluation tool, wirebench's equivalent of
// HBase's WALPerformanceEvaluation. N threads append records of a given key
// and value size through a Wal (the same group-commit path the wal region
// uses) and wait for syncs; it reports the append and sync meters, a latency
// summary of one append+sync, appends covered per sync (countPerSync), CPU
// and context switches per append, and can read the log back to verify it.
// `--threads 1,3,5` runs a sweep and prints one row per thread count.
// Options may be spelled HBase's way (-threads) or CLI11's (--threads).
// A thread count the machine cannot run (memory, ulimit -u, threads-max,
// max_map_count) is refused up front; a thread that still cannot be started
// fails the run with a message. The temporary log directory is removed on
// every way out: success, error, exception, SIGINT or SIGTERM (which stop
// the run while RunWalpe runs).
// Thread-safety: RunWalpe is a command entry point; call from one thread.
#pragma once

namespace wirebench {

// Runs walpe with a command line (argv[0] is the program name). Prints to
// stdout, errors to stderr. Returns 0 on success, 1 on failure (including a
// failed -verify), 2 on a usage error.
int RunWalpe(int argc, char** argv);

}  // namespace wirebench
