// The instrument checks itself (`wirebench calibrate`): short co-located
// runs against the null region with its calibration knobs, showing that
// (a) --spin-us S raises the server CPU per operation by about S us,
// (b) --delay-us D raises p50 latency by about D us and not the server CPU,
// (c) the CPU wirebench accounts for (client loop threads plus server
//     threads) agrees with what the OS charged the processes
//     (/proc/<pid>/stat utime + stime) over the same run, and
// (d) what timing and recording one operation costs the client
//     (two steady_clock::now() calls and one Histogram::Record).
// Thread-safety: the functions run from one thread and own what they start.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/loadgen/driver.h"
#include "common/status.h"

namespace wirebench {

struct CalibrationOptions {
  // Spin points (us of server CPU per operation); the first is the baseline.
  std::vector<uint32_t> spin_us = {0, 20, 50};
  // Delay points (us each reply is held); the first is the baseline.
  std::vector<uint32_t> delay_us = {0, 200};
  // Logical clients, each with one put in flight.
  int threads = 4;
  // Measured operations per point.
  int64_t operations = 20000;
  // Unmeasured operations run before each point (a separate run, so the
  // OS's figures and wirebench's cover the same measured run).
  int64_t warmup_operations = 1000;
  const CodecInfo* codec = &Codecs().front();  // --codec; never null.
  // The wirebench executable started as the co-located server.
  std::string binary = "/proc/self/exe";
  // Pin the co-located server to these CPUs (a list like "1"; empty = none).
  std::string server_cpus;
  // Iterations of the timing loop of (d).
  int64_t timing_iterations = 5'000'000;
};

// One measured run, with the OS's view of it.
struct CalibrationRun {
  uint32_t spin_us = 0, delay_us = 0;
  uint64_t operations = 0;
  double runtime_s = 0;
  double p50_us = 0;  // Over all operation types.
  double client_cpu_us_per_op = 0;
  double server_cpu_us_per_op = 0;  // Unavailable (< 0) without server Stats.
  // CPU wirebench accounts for: client loop threads + server threads.
  double accounted_cpu_ms = 0;
  // CPU the OS charged `os_pids` over the whole RunLoad call: from each
  // process's CPU clock (ns resolution), and from /proc/<pid>/stat utime +
  // stime (the same kernel figure, in clock ticks, usually 10 ms).
  double os_cpu_ms = 0;
  double os_stat_cpu_ms = 0;
};

// Runs `workload` with `driver` (warm-up must be 0) and reads the CPU
// charged to each of `os_pids` before and after. `os_pids` are the
// distinct processes holding the client and the server threads (one pid
// when the server runs in the client's process).
[[nodiscard]] StatusOr<CalibrationRun> MeasureCalibrationRun(const DriverOptions& driver,
                                                             Workload* workload,
                                                             const std::vector<pid_t>& os_pids);

// CPU (utime + stime) the OS has charged process `pid` so far, in ms, from
// /proc/<pid>/stat: clock-tick resolution (usually 10 ms).
[[nodiscard]] StatusOr<double> ProcessCpuMs(pid_t pid);
// The same from the process's CPU clock (clock_getcpuclockid), in ns: every
// thread, exited ones included, at scheduler precision.
[[nodiscard]] StatusOr<double> ProcessCpuClockNs(pid_t pid);

// Client cost of timing and recording one operation, ns per operation:
// two steady_clock::now() calls and one Histogram::Record, in a tight loop.
double MeasureTimingOverheadNs(int64_t iterations);

// A puts-only workload of YCSB-shaped 1 KB records (10 fields x 100 B).
std::unique_ptr<Workload> NewCalibrationPutWorkload();

struct CalibrationReport {
  CalibrationOptions options;
  std::vector<CalibrationRun> spin_runs, delay_runs;
  double timing_overhead_ns = 0;
};

// The whole calibration: one fresh co-located server process per point.
[[nodiscard]] StatusOr<CalibrationReport> RunCalibration(const CalibrationOptions& options);

// The table `wirebench calibrate` prints, with a verdict per check and a
// last line with the whole verdict and advice; `off_checks` (if set) gets
// the number of checks that are OFF.
std::string FormatCalibrationReport(const CalibrationReport& report, int* off_checks = nullptr);

}  // namespace wirebench
