// The host around one measured cell: load average, the share of CPU time
// stolen by the hypervisor (/proc/stat's steal column) and the CPU clock,
// read before and after the cell (HostProbe), so a wall-clock figure can be
// read against what else the machine was doing. And the repeats of a
// column whose throughput or CPU per op is far from the others' median
// (RepeatOutliers), flagged with these figures beside them.
// The host is read through a HostEnv (common/host_env.h), the real one
// unless a test gives a fake; the /proc parsers are common/proc_text.h's.
// Thread-safety: pure functions, apart from HostProbe and SampleHost (read
// the host through their HostEnv).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/host_env.h"

namespace wirebench {

// Reads the host before a cell (Start) and after it (Finish):
// {"load1": before/after max, "steal_percent": over the cell, "cpu_mhz": after,
//  "other_cpus": CPUs busy with other processes over the cell}; a figure that
// could not be read is absent, and "unreadable" names it. "Other" is the
// machine's busy time less this process's and its reaped children's (the
// co-located server is reaped before Finish), so the cell's own load does not
// count against it.
class HostProbe {
 public:
  explicit HostProbe(HostEnv& env = HostEnv::Default()) : env_(&env) {}
  void Start();
  nlohmann::json Finish() const;

 private:
  HostEnv* env_;
  std::optional<CpuJiffies> start_;
  std::optional<double> load_start_;
  std::optional<uint64_t> own_start_;  // This process's and its reaped children's ticks.
};

// Other processes' share of the machine above which a figure is taken on a
// busy host: a tenth of one CPU, or this much steal.
inline constexpr double kBusyOtherCpus = 0.1;
inline constexpr double kBusyStealPercent = 2.0;
// "" when `host` (HostProbe::Finish's figures) shows a quiet host, else why
// not: "other processes used 0.85 CPUs", "steal 4.1%".
std::string BusyHost(const nlohmann::json& host);

// The machine's busy CPUs outside this process over `seconds` of sleeping,
// the steal share and the load average, for a check before any measurement;
// {"other_cpus", "steal_percent", "load1", "cpus"}.
nlohmann::json SampleHost(double seconds, HostEnv& env = HostEnv::Default());

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
