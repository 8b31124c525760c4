// The host around one measured cell: load average, the share of CPU time
// stolen by the hypervisor (/proc/stat's steal column) and the CPU clock,
// read before and after the cell (HostProbe), so a wall-clock figure can be
// read against what else the machine was doing. And the repeats of a
// column whose throughput or CPU per op is far from the others' median
// (RepeatOutliers), flagged with these figures beside them.
// Thread-safety: pure functions, apart from HostProbe (reads /proc, /sys).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wirebench {

// The "cpu" line of /proc/stat: jiffies in each state.
struct CpuJiffies {
  uint64_t total = 0;  // user+nice+system+idle+iowait+irq+softirq+steal.
  uint64_t steal = 0;
};
// Parses /proc/stat's text; nullopt when it has no "cpu " line.
std::optional<CpuJiffies> ParseProcStat(const std::string& text);
// The 1-minute load average of /proc/loadavg's text; nullopt if unreadable.
std::optional<double> ParseLoadAverage(const std::string& text);
// The mean "cpu MHz" of /proc/cpuinfo's text; nullopt when none is listed
// (some VMs and ARM kernels list none).
std::optional<double> ParseCpuInfoMhz(const std::string& text);

// Reads the host before a cell (Start) and after it (Finish):
// {"load1": before/after max, "steal_percent": over the cell, "cpu_mhz": after};
// a figure that could not be read is absent, and "unreadable" names it.
class HostProbe {
 public:
  void Start();
  nlohmann::json Finish() const;

 private:
  std::optional<CpuJiffies> start_;
  std::optional<double> load_start_;
};

// Over-1.5x-from-the-median threshold of RepeatOutliers.
inline constexpr double kOutlierFactor = 1.5;

// One repeat's figures of one column in one group.
struct RepeatFigures {
  int repeat = 0;
  double throughput = 0;  // ops/s; NaN when absent.
  double cpu_per_op = 0;  // us/op; NaN when absent.
};
// For each repeat (in the order given): "" or why it is an outlier, e.g.
// "throughput 0.40x the median (42774 against 108012 ops/s)": a figure more
// than kOutlierFactor times from the median of the column's repeats (needs
// 3 or more repeats with that figure).
std::vector<std::string> RepeatOutliers(const std::vector<RepeatFigures>& repeats);

// "load 2.10, steal 0.0%, 2994 MHz" (the figures present), "host not recorded".
std::string HostText(const nlohmann::json& host);

}  // namespace wirebench
