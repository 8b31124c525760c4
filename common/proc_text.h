// Pure parsers of the kernel's /proc text: the machine's CPU jiffies, the
// load average, the CPU clock and a process's CPU ticks. No I/O here, so a
// fed text (a test's, a fake host's) reads exactly as the real file does;
// HostEnv (common/host_env.h) reads the files and hands them to these.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wirebench {

// The "cpu" line of /proc/stat: jiffies in each state.
struct CpuJiffies {
  uint64_t total = 0;  // user+nice+system+idle+iowait+irq+softirq+steal.
  uint64_t steal = 0;
  uint64_t idle = 0;   // idle+iowait: the time no process ran.
};
// Parses /proc/stat's text; nullopt when it has no "cpu " line.
std::optional<CpuJiffies> ParseProcStat(const std::string& text);
// The 1-minute load average of /proc/loadavg's text; nullopt if unreadable.
std::optional<double> ParseLoadAverage(const std::string& text);
// The mean "cpu MHz" of /proc/cpuinfo's text; nullopt when none is listed
// (some VMs and ARM kernels list none).
std::optional<double> ParseCpuInfoMhz(const std::string& text);
// The CPU ticks (utime+stime+cutime+cstime) of /proc/<pid>/stat's text; nullopt
// if it does not parse.
std::optional<uint64_t> ParseOwnTicks(const std::string& stat_text);

}  // namespace wirebench
