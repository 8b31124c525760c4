// The seam between the tool and the host it measures on, in the spirit of
// LevelDB's Env: the monotonic clock, the machine's CPU figures (/proc/stat,
// load average, CPU clock), this process's CPU, and watching a child process
// end. Code that reads the host once per cell, per second or per run takes a
// HostEnv (HostEnv::Default() unless a test gives a fake), so a busy host, a
// clock that jumps or a child that dies can be fed instead of made to happen.
//
// What does NOT go through here: the clock read per operation and anything
// inside the measured RPC loop. A virtual call there would move the
// instructions per operation the tool reports (and the budget tests hold),
// so those stay direct inline calls (steady_clock::now(), LoadClock).
// Thread-safety: the Default() instance is safe to call from any thread; a
// fake's is whatever the fake says.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "common/proc_text.h"

namespace wirebench {

// The CPU and context switches of this process's waited-for children
// (RUSAGE_CHILDREN), cumulative.
struct ReapedChildrenUsage {
  double user_ns = 0, sys_ns = 0;
  uint64_t voluntary_switches = 0, involuntary_switches = 0;
};

class HostEnv {
 public:
  using Clock = std::chrono::steady_clock;

  virtual ~HostEnv() = default;
  // The real host: a process-wide instance, never destroyed.
  static HostEnv& Default();

  virtual Clock::time_point MonotonicNow() = 0;
  virtual void SleepFor(Clock::duration d) = 0;

  // The machine: /proc/stat's "cpu" line, /proc/loadavg's 1-minute figure,
  // the CPU clock (the scaling driver's current one, else /proc/cpuinfo's
  // mean), the CPUs online. nullopt where unreadable.
  virtual std::optional<CpuJiffies> CpuTimes() = 0;
  virtual std::optional<double> LoadAverage() = 0;
  virtual std::optional<double> CpuMhz() = 0;
  virtual int OnlineCpus() = 0;

  // This process's CPU ticks and its reaped children's (USER_HZ), the same
  // unit as CpuTimes().
  virtual std::optional<uint64_t> OwnCpuTicks() = 0;
  virtual ReapedChildrenUsage ReapedChildren() = 0;

  // A child of this process: its wait status once it has ended (it is then
  // reaped), nullopt while it runs; `block` waits for it to end.
  virtual std::optional<int> ReapChild(pid_t pid, bool block) = 0;
  virtual void SignalChild(pid_t pid, int signal) = 0;
};

// How a wait status reads: "exited with status 0", "killed by signal 9".
std::string DescribeExit(int wait_status);

}  // namespace wirebench
