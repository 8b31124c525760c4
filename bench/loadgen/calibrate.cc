#include "bench/loadgen/calibrate.h"

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hdr/histogram.h"
#include "bench/loadgen/local_server.h"
#include "bench/results/report.h"

namespace wirebench {

namespace {

// One 1 KB put of a fixed row, every operation.
class PutStream final : public OpStream {
 public:
  PutStream() : row_("user6284781860667377211"), family_("family"), value_(100, 'x') {
    for (int i = 0; i < 10; ++i) qualifiers_.push_back("field" + std::to_string(i));
    for (int i = 0; i < 10; ++i)
      cells_.push_back(Cell{ByteView(row_), ByteView(family_), ByteView(qualifiers_[size_t(i)]), 0,
                            CellType::kPut, ByteView(value_)});
  }
  bool Next(PlannedOp* op) override {
    op->type = OpType::kUpdate;
    op->ncalls = 1;
    op->calls[0].method = Method::kMutate;
    op->calls[0].mutate.mutation = Mutation{ByteView(row_), MutationType::kPut, 0, cells_};
    return true;
  }

 private:
  std::string row_, family_, value_;
  std::vector<std::string> qualifiers_;
  std::vector<Cell> cells_;
};

class PutWorkload final : public Workload {
 public:
  std::unique_ptr<OpStream> NewStream(int, int) override { return std::make_unique<PutStream>(); }
};

struct OsCpu {
  double clock_ms = 0, stat_ms = 0;
};

StatusOr<OsCpu> TotalOsCpu(const std::vector<pid_t>& pids) {
  OsCpu sum;
  for (pid_t p : pids) {
    auto ns = ProcessCpuClockNs(p);
    if (!ns.ok()) return ns.status();
    auto ms = ProcessCpuMs(p);
    if (!ms.ok()) return ms.status();
    sum.clock_ms += *ns / 1e6;
    sum.stat_ms += *ms;
  }
  return sum;
}

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

// Pads `s` on the left to `width` columns.
std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

}  // namespace

StatusOr<double> ProcessCpuMs(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line))
    return Status::Unavailable("cannot read " + path + " (has the process exited?)");
  // Fields after the command name, which is in parentheses and may hold spaces.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return Status::Corruption("unexpected format of " + path);
  std::istringstream fields(line.substr(close + 2));
  std::vector<std::string> f;
  for (std::string s; fields >> s;) f.push_back(s);
  // f[0] is field 3 (state); utime and stime are fields 14 and 15.
  if (f.size() < 13) return Status::Corruption("unexpected format of " + path);
  const double ticks = double(std::stoull(f[11]) + std::stoull(f[12]));
  return ticks * 1000.0 / double(sysconf(_SC_CLK_TCK));
}

StatusOr<double> ProcessCpuClockNs(pid_t pid) {
  clockid_t clock;
  if (clock_getcpuclockid(pid, &clock) != 0)
    return Status::Unavailable("no CPU clock for process " + std::to_string(pid) +
                               " (has it exited?)");
  timespec ts;
  if (clock_gettime(clock, &ts) != 0)
    return Status::Unavailable("cannot read the CPU clock of process " + std::to_string(pid));
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

StatusOr<CalibrationRun> MeasureCalibrationRun(const DriverOptions& driver, Workload* workload,
                                               const std::vector<pid_t>& os_pids) {
  if (driver.warmup_seconds > 0)
    return Status::InvalidArgument("calibration runs measure the whole run: warm up in a "
                                   "separate run, not with warmup_seconds");
  auto os_before = TotalOsCpu(os_pids);
  if (!os_before.ok()) return os_before.status();
  auto run = RunLoad(driver, workload);
  if (!run.ok()) return run.status();
  auto os_after = TotalOsCpu(os_pids);
  if (!os_after.ok()) return os_after.status();
  const RunResult& r = *run;
  if (r.partial) return Status::Unavailable("calibration run stopped early: " + r.error.ToString());

  CalibrationRun out;
  out.operations = r.operations;
  out.runtime_s = r.runtime_s;
  hdr::Histogram all;
  for (const OpStats& s : r.ops) all.Add(s.latency);
  out.p50_us = double(all.ValueAtPercentile(50)) / 1000.0;
  const RunCosts costs = ComputeCosts(r);
  out.client_cpu_us_per_op = costs.client.cpu_us;
  out.server_cpu_us_per_op = costs.server.available ? costs.server.cpu_us : -1;
  const double ops = r.operations > 0 ? double(r.operations) : 1.0;
  out.accounted_cpu_ms =
      r.client_usage.cpu_ns / 1e6 + (costs.server.available ? costs.server.cpu_us * ops / 1e3 : 0);
  out.os_cpu_ms = os_after->clock_ms - os_before->clock_ms;
  out.os_stat_cpu_ms = os_after->stat_ms - os_before->stat_ms;
  return out;
}

double MeasureTimingOverheadNs(int64_t iterations) {
  using Clock = std::chrono::steady_clock;
  hdr::Histogram h;
  const auto start = Clock::now();
  for (int64_t i = 0; i < iterations; ++i) {
    const auto t0 = Clock::now();
    const auto t1 = Clock::now();
    h.Record(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  }
  const auto end = Clock::now();
  // The recorded count keeps the loop from being optimized away.
  if (h.total_count() != iterations) return -1;
  return double(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count()) /
         double(iterations > 0 ? iterations : 1);
}

std::unique_ptr<Workload> NewCalibrationPutWorkload() { return std::make_unique<PutWorkload>(); }

StatusOr<CalibrationReport> RunCalibration(const CalibrationOptions& o) {
  if (o.spin_us.empty() || o.delay_us.empty())
    return Status::InvalidArgument("calibration needs at least one --spin-us and one --delay-us "
                                   "point (the first of each is the baseline)");
  if (o.threads < 1 || o.operations < 1)
    return Status::InvalidArgument("calibration needs --threads >= 1 and --ops >= 1");
  CalibrationReport report;
  report.options = o;
  auto workload = NewCalibrationPutWorkload();
  auto point = [&](uint32_t spin, uint32_t delay) -> StatusOr<CalibrationRun> {
    auto server = LocalServer::Spawn({"--spin-us", std::to_string(spin), "--delay-us",
                                      std::to_string(delay), "--quiet"},
                                     o.server_cpus, o.binary);
    if (!server.ok()) return server.status();
    DriverOptions d;
    d.host = (*server)->host();
    d.port = (*server)->port();
    d.codec = o.codec;
    d.threads = o.threads;
    if (o.warmup_operations > 0) {
      d.operations = o.warmup_operations;
      d.fetch_server_stats = false;
      auto warm = RunLoad(d, workload.get());
      if (!warm.ok()) return warm.status();
    }
    d.operations = o.operations;
    d.fetch_server_stats = true;
    auto run = MeasureCalibrationRun(d, workload.get(), {getpid(), (*server)->pid()});
    (*server)->Stop();
    if (!run.ok()) return run.status();
    run->spin_us = spin;
    run->delay_us = delay;
    return run;
  };
  for (uint32_t s : o.spin_us) {
    auto r = point(s, 0);
    if (!r.ok()) return r.status();
    report.spin_runs.push_back(*r);
  }
  for (uint32_t d : o.delay_us) {
    auto r = point(0, d);
    if (!r.ok()) return r.status();
    report.delay_runs.push_back(*r);
  }
  report.timing_overhead_ns = MeasureTimingOverheadNs(o.timing_iterations);
  return report;
}

std::string FormatCalibrationReport(const CalibrationReport& rep, int* off_checks) {
  std::ostringstream os;
  std::vector<std::string> off;  // The knobs whose check is OFF.
  const auto& o = rep.options;
  os << "wirebench calibrate: codec=" << o.codec->name() << " threads=" << o.threads
     << " ops/point=" << o.operations << " (after " << o.warmup_operations
     << " unmeasured), a fresh co-located null-region server per point\n\n";
  const std::vector<std::pair<std::string, size_t>> cols = {
      {"knob", 14},          {"ops", 8},           {"p50(us)", 10},     {"srvCPU/op(us)", 14},
      {"+srvCPU(us)", 12},   {"+p50(us)", 10},     {"cliCPU/op(us)", 14}, {"wb CPU(ms)", 11},
      {"OS CPU(ms)", 11},    {"stat(ms)", 9},      {"wb/OS", 7},          {"check", 7}};
  for (auto& [name, w] : cols) os << Pad(name, w);
  os << "\n";
  auto row = [&](const std::string& knob, const CalibrationRun& r, const CalibrationRun& base,
                 const std::string& verdict) {
    const double d_cpu = r.server_cpu_us_per_op - base.server_cpu_us_per_op;
    const double d_p50 = r.p50_us - base.p50_us;
    const double ratio = r.os_cpu_ms > 0 ? r.accounted_cpu_ms / r.os_cpu_ms : 0;
    os << Pad(knob, 14) << Pad(std::to_string(r.operations), 8) << Pad(Fmt("%.1f", r.p50_us), 10)
       << Pad(r.server_cpu_us_per_op < 0 ? "n/a" : Fmt("%.2f", r.server_cpu_us_per_op), 14)
       << Pad(Fmt("%+.2f", d_cpu), 12) << Pad(Fmt("%+.1f", d_p50), 10)
       << Pad(Fmt("%.2f", r.client_cpu_us_per_op), 14) << Pad(Fmt("%.1f", r.accounted_cpu_ms), 11)
       << Pad(Fmt("%.1f", r.os_cpu_ms), 11) << Pad(Fmt("%.0f", r.os_stat_cpu_ms), 9)
       << Pad(Fmt("%.3f", ratio), 7) << Pad(verdict, 7)
       << "\n";
  };
  // Verdicts are loose on purpose: a shared machine is noisy. The CPU
  // agreement (c) is part of every row's verdict.
  auto agrees = [](const CalibrationRun& r) {
    return r.os_cpu_ms > 0 && std::fabs(r.accounted_cpu_ms / r.os_cpu_ms - 1.0) <= 0.05;
  };
  for (const CalibrationRun& r : rep.spin_runs) {
    const CalibrationRun& base = rep.spin_runs.front();
    const double d = r.server_cpu_us_per_op - base.server_cpu_us_per_op;
    const double want = double(r.spin_us) - double(base.spin_us);
    const bool ok = std::fabs(d - want) <= std::max(3.0, 0.25 * std::fabs(want)) && agrees(r);
    row("spin-us=" + std::to_string(r.spin_us), r, base, ok ? "ok" : "OFF");
    if (!ok) off.push_back("spin-us=" + std::to_string(r.spin_us));
  }
  for (const CalibrationRun& r : rep.delay_runs) {
    const CalibrationRun& base = rep.delay_runs.front();
    const double want = double(r.delay_us) - double(base.delay_us);
    const double d_p50 = r.p50_us - base.p50_us;
    const double d_cpu = r.server_cpu_us_per_op - base.server_cpu_us_per_op;
    // Holding a reply is not free: one timer and one write per held reply
    // (no coalescing) cost the server some us per op, but nothing like D.
    const bool ok = d_p50 >= 0.75 * want - 5 && d_p50 <= 1.5 * want + 50 &&
                    d_cpu <= 0.05 * want + 25 && agrees(r);
    row("delay-us=" + std::to_string(r.delay_us), r, base, ok ? "ok" : "OFF");
    if (!ok) off.push_back("delay-us=" + std::to_string(r.delay_us));
  }
  os << "\n(a) spin-us S should add about S to srvCPU/op;\n"
        "(b) delay-us D should add about D to p50 and next to nothing to srvCPU/op (a held reply "
        "costs a timer\n    and a write of its own: a few us, never D);\n"
        "(c) wb CPU (client loop + server threads, as wirebench accounts them) against OS CPU "
        "(the client and\n    server processes' CPU clocks over the same run; stat = "
        "/proc/<pid>/stat utime+stime, in 10 ms ticks):\n    wb/OS should be within 5% of 1 "
        "(the OS also charges connection setup, thread start and join, the Stats calls);\n";
  os << "(d) timing + recording one operation (2 x steady_clock::now() + Histogram::Record): "
     << Fmt("%.1f", rep.timing_overhead_ns) << " ns per op (" << o.timing_iterations
     << " iterations)\n";
  const size_t checks = rep.spin_runs.size() + rep.delay_runs.size();
  if (off.empty()) {
    os << "\nverdict: all " << checks << " checks ok: the instrument reads what it is given\n";
  } else {
    std::string names;
    for (const std::string& n : off) names += (names.empty() ? "" : ", ") + n;
    os << "\nverdict: " << off.size() << " of " << checks << " checks OFF (" << names
       << "): figures from this machine now are not to be trusted. Advice: run again with "
          "nothing else running (load average, other processes' CPU), pin the server "
          "(--server-cpus) away from the client, and give each point more operations (--ops); "
          "a check that stays OFF on a quiet machine is a fault to report\n";
  }
  if (off_checks != nullptr) *off_checks = int(off.size());
  return os.str();
}

}  // namespace wirebench
