// Runs a command as a child process and measures its whole process tree's
// CPU and context switches, for `wirebench measure` (a client wirebench did
// not write: a JVM, node, a script that starts other programs).
//
// Two sources, so that no process of the tree is missed or counted twice:
// - Processes that exited and were waited for: the kernel folds a waited-for
//   child's CPU into its parent's, up to this process, which waits for the
//   command and, being a child subreaper (PR_SET_CHILD_SUBREAPER), for every
//   orphan of the tree too; getrusage(RUSAGE_CHILDREN) then holds them all,
//   to the microsecond, however short they lived.
// - Processes still there when the command has ended (daemons it left, or
//   zombies nobody waited for): their /proc figures at that moment.
// A sampler walks /proc every `sample_interval` while the command runs, to
// know the tree's members (by parent links, keyed by pid and start time)
// and how many processes it had; its own cost is not the command's.
// The run's wall time and the reaped members' CPU are read through
// CommandOptions::host (common/host_env.h); the /proc walks and the waiting
// for the command are direct (they follow real processes).
// Thread-safety: Run is called from one thread at a time (it changes this
// process's subreaper flag and SIGINT/SIGTERM dispositions while the
// command runs).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/host_env.h"
#include "common/status.h"

namespace wirebench {

struct ProcessTreeUsage {
  double user_ns = 0, sys_ns = 0;
  uint64_t voluntary_switches = 0, involuntary_switches = 0;
  double wall_s = 0;
  int processes_seen = 0;       // Distinct processes of the tree the sampler saw.
  int samples = 0;              // /proc walks made.
  std::vector<int> left_running;  // Tree processes still alive after the command ended.
  int exit_code = 0;            // The command's; 128 + N when killed by signal N.
  std::string how;              // "exited with status 0", "killed by signal 9".
  // SIGINT or SIGTERM received by this process while the command ran (0:
  // none): it was passed on to the command (after a grace period, in which
  // a Ctrl-C that reached the whole process group ends it by itself), and
  // SIGKILL followed if the command still ran 5 s later.
  int stop_signal = 0;
  // The left_running processes were stopped (SIGTERM, then SIGKILL after
  // 2 s) once counted: nothing of the command outlives the measurement.
  int stopped_leftovers = 0;
};

struct CommandOptions {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH.
  std::map<std::string, std::string> env;  // Added to (or replacing in) this environment.
  std::chrono::milliseconds sample_interval{20};
  // Children of this process that are not the command's (the co-located
  // servers): neither counted nor reaped.
  std::vector<pid_t> exclude;
  // Called once the command runs and a stop signal sent to this process is
  // passed on to it (not before, so a banner printed here promises that
  // SIGINT/SIGTERM ends the command with a report).
  std::function<void()> started;
  HostEnv* host = &HostEnv::Default();  // The clock and RUSAGE_CHILDREN.
};

// Runs the command to its end. An error only when it could not be started
// (the error names it and why: not found, not executable).
StatusOr<ProcessTreeUsage> RunCommandTree(const CommandOptions& o);

}  // namespace wirebench
