// A host fed by the test (common/host_env.h): /proc/stat jiffies and this
// process's CPU ticks handed out one reading after another, a load average,
// a CPU clock, a monotonic clock that moves by a set step on each read (or
// not at all, or backwards), and child processes that end when the test says
// or when signalled. Nothing here sleeps or touches a real process, so a busy
// host, a clock jump or a dead server is the same on every machine.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "common/host_env.h"

namespace wirebench::testing {

class FakeHostEnv final : public HostEnv {
 public:
  // Readings handed out in order, the last one again once they run out
  // (none: unreadable).
  std::vector<std::optional<CpuJiffies>> cpu_times;
  std::vector<std::optional<uint64_t>> own_ticks;
  std::optional<double> load1 = 0.2;
  std::optional<double> mhz = 2400;
  int cpus = 2;
  ReapedChildrenUsage reaped;

  // The monotonic clock: `step` is added after each read.
  Clock::time_point now = Clock::time_point(std::chrono::hours(1));
  Clock::duration step = std::chrono::milliseconds(1);
  Clock::duration slept{};  // What SleepFor was asked for, in all.

  // Children: their wait status once ended (not yet reaped); those that
  // ignore SIGTERM; every signal sent.
  std::map<pid_t, int> ended;
  std::set<pid_t> ignores_sigterm;
  std::vector<std::pair<pid_t, int>> signals;

  // A child's end by signal `sig`, as waitpid reports it.
  void KillChild(pid_t pid, int sig) { ended.emplace(pid, sig); }

  Clock::time_point MonotonicNow() override {
    const Clock::time_point t = now;
    now += step;
    return t;
  }
  void SleepFor(Clock::duration d) override {
    slept += d;
    now += d;
  }
  std::optional<CpuJiffies> CpuTimes() override { return Next(cpu_times, &cpu_read_); }
  std::optional<double> LoadAverage() override { return load1; }
  std::optional<double> CpuMhz() override { return mhz; }
  int OnlineCpus() override { return cpus; }
  std::optional<uint64_t> OwnCpuTicks() override { return Next(own_ticks, &own_read_); }
  ReapedChildrenUsage ReapedChildren() override { return reaped; }

  std::optional<int> ReapChild(pid_t pid, bool) override {
    const auto it = ended.find(pid);
    if (it == ended.end()) return std::nullopt;
    const int status = it->second;
    ended.erase(it);
    return status;
  }
  // SIGTERM ends a child with status 0 (as `wirebench server` does) unless
  // it ignores it; SIGKILL always ends it.
  void SignalChild(pid_t pid, int sig) override {
    signals.emplace_back(pid, sig);
    if (sig == SIGKILL) KillChild(pid, SIGKILL);
    if (sig == SIGTERM && !ignores_sigterm.count(pid)) ended.emplace(pid, 0);
  }

 private:
  template <typename T>
  static std::optional<T> Next(const std::vector<std::optional<T>>& readings, size_t* read) {
    if (readings.empty()) return std::nullopt;
    const size_t i = std::min(*read, readings.size() - 1);
    ++*read;
    return readings[i];
  }

  size_t cpu_read_ = 0, own_read_ = 0;
};

}  // namespace wirebench::testing
