#include "bench/results/report.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <boost/version.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <jemalloc/jemalloc.h>

#include "bench/hdr/ycsb_summary.h"
#include "bench/results/instruction_report.h"
#include "bench/results/output_file.h"
#include "common/build_info.h"

namespace wirebench {

namespace {

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3f", v);
  return buf;
}

// Appends measurements to a list.
class Lines {
 public:
  explicit Lines(std::vector<Measurement>* out) : out_(out) {}
  void Text(std::string_view section, std::string_view name, std::string value) {
    out_->push_back({std::string(section), std::string(name), std::move(value), std::nullopt});
  }
  // A numeric value; `number` is the value as printed, so an export matches
  // the text to the digit.
  void Number(std::string_view section, std::string_view name, std::string value) {
    const double number = std::strtod(value.c_str(), nullptr);
    out_->push_back({std::string(section), std::string(name), std::move(value), number});
  }
  void Fixed(std::string_view section, std::string_view name, double v) {
    Number(section, name, Num(v));
  }
  // YCSB's latency lines of one histogram.
  void Latency(const std::string& section, const hdr::Histogram& h, const ReportOptions& o) {
    const hdr::YcsbLatencySummary s = hdr::SummarizeForYcsb(h, o.percentiles);
    Number(section, "Operations", std::to_string(s.operations));
    Number(section, "AverageLatency(us)", hdr::JavaDoubleToString(s.average_us));
    Number(section, "MinLatency(us)", std::to_string(s.min_us));
    Number(section, "MaxLatency(us)", std::to_string(s.max_us));
    for (const auto& [p, v] : s.percentiles_us)
      Number(section, hdr::YcsbPercentileMetric(p), std::to_string(v));
  }

 private:
  std::vector<Measurement>* out_;
};

void OpMeasurements(Lines& l, const RunResult& r, const ReportOptions& o) {
  const bool op = o.measurement_interval != "intended";
  const bool intended = o.measurement_interval != "op";
  for (int t = 0; t < kOpTypes; ++t) {
    const OpStats& s = r.ops[size_t(t)];
    if (s.count() == 0) continue;
    const std::string name(OpTypeName(OpType(t)));
    if (s.latency.total_count() > 0) {
      if (op) l.Latency(name, s.latency, o);
      if (intended && s.intended_latency.total_count() > 0)
        l.Latency("Intended-" + name, s.intended_latency, o);
    }
    for (int k = 0; k < int(OpResult::kCount); ++k)
      if (s.results[size_t(k)] > 0)
        l.Number(name, "Return=" + std::string(OpResultName(OpResult(k))),
                 std::to_string(s.results[size_t(k)]));
    if (s.failed_latency.total_count() > 0) l.Latency(name + "-FAILED", s.failed_latency, o);
  }
}

// `skip_hw_instructions`: an --instructions run prints its own InstructionsPerOp.
void SideMeasurements(Lines& l, std::string_view section, const SideCosts& c, bool server,
                      bool skip_hw_instructions) {
  if (!c.available) {
    l.Text(section, "CpuPerOp(us)", "unavailable (" + c.unavailable_reason + ")");
    return;
  }
  l.Fixed(section, "CpuPerOp(us)", c.cpu_us);
  l.Fixed(section, "UserCpuPerOp(us)", c.user_us);
  l.Fixed(section, "SysCpuPerOp(us)", c.sys_us);
  if (server) {
    l.Fixed(section, "IoThreadCpuPerOp(us)", c.io_cpu_us);
    l.Fixed(section, "HandlerThreadCpuPerOp(us)", c.handler_cpu_us);
  }
  if (c.allocs_available) {
    l.Fixed(section, "AllocationsPerOp", c.allocs);
    l.Fixed(section, "AllocatedBytesPerOp", c.alloc_bytes);
  } else {
    l.Text(section, "AllocationsPerOp", "unavailable (allocation hook not linked)");
  }
  l.Fixed(section, "EncodeCopiedBytesPerOp", c.encode_copied);
  l.Fixed(section, "DecodeCopiedBytesPerOp", c.decode_copied);
  l.Fixed(section, "VoluntaryCtxSwitchesPerOp", c.voluntary_switches);
  l.Fixed(section, "InvoluntaryCtxSwitchesPerOp", c.involuntary_switches);
  l.Fixed(section, "WireBytesOutPerOp", c.wire_bytes_out);
  l.Fixed(section, "WireBytesInPerOp", c.wire_bytes_in);
  const std::pair<const char*, double> hw[] = {
      {"CyclesPerOp", c.cycles}, {"InstructionsPerOp", c.instructions},
      {"CacheMissesPerOp", c.cache_misses}};
  for (const auto& [name, v] : hw) {
    if (skip_hw_instructions && std::string_view(name) == "InstructionsPerOp") continue;
    if (c.hw_available) {
      l.Fixed(section, name, v);
    } else {
      l.Text(section, name, "unavailable (" + c.hw_reason + ")");
    }
  }
  l.Number(section, "Threads", std::to_string(c.threads));
}

// --instructions: each side's instructions per op and its layers, then what
// they leave out (socket calls; context switches are in the side's lines).
void InstructionMeasurements(Lines& l, const RunResult& r) {
  const InstructionFigures& f = *r.instructions;
  auto side = [&](std::string_view section, const LayerInstructions& s, bool server) {
    if (!s.available) {
      l.Text(section, "InstructionsPerOp", "unavailable (" + s.unavailable_reason + ")");
      return;
    }
    auto one = [&](std::string_view name, double v) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.1f", v);
      l.Number(section, name, buf);
    };
    one("InstructionsPerOp", s.total);
    one("InstructionsPerOp.codec", s.codec);
    one("InstructionsPerOp.rpc", s.rpc);
    if (server) {
      one("InstructionsPerOp.region", s.region);
    } else {
      one("InstructionsPerOp.harness", s.harness);
    }
    one("InstructionsPerOp.other", s.other);
  };
  side("CLIENT", f.client, false);
  side("SERVER", f.server, true);
  const double ops = f.operations > 0 ? double(f.operations) : 1.0;
  l.Fixed("CLIENT", "SocketCallsPerOp", double(r.connections.reads + r.connections.writes) / ops);
  l.Number("INSTRUCTIONS", "MeasuredOperations", std::to_string(f.operations));
  l.Text("INSTRUCTIONS", "Scope", kInstructionScope);
}

void ScheduleMeasurements(Lines& l, const RunResult& r) {
  if (r.schedule_lateness.total_count() == 0) return;
  auto us = [](const hdr::Histogram& h, double p) { return double(h.ValueAtPercentile(p)) / 1000.0; };
  l.Fixed("SCHEDULE", "LatenessP50(us)", us(r.schedule_lateness, 50));
  l.Fixed("SCHEDULE", "LatenessP99(us)", us(r.schedule_lateness, 99));
  // Pacing precision: operations whose client was idle and woke on time for them.
  l.Fixed("SCHEDULE", "TimerLatenessP50(us)", us(r.timer_lateness, 50));
  l.Fixed("SCHEDULE", "TimerLatenessP99(us)", us(r.timer_lateness, 99));
  // Operations whose client was still busy with its previous one.
  l.Fixed("SCHEDULE", "BehindSchedule(%)",
          100.0 * double(r.behind_schedule) / double(r.schedule_lateness.total_count()));
}

}  // namespace

std::vector<Measurement> ReportMeasurements(const RunResult& r, const RunCosts& c,
                                            const ReportOptions& o) {
  std::vector<Measurement> out;
  Lines l(&out);
  l.Number("OVERALL", "RunTime(ms)", std::to_string(int64_t(r.runtime_s * 1000.0 + 0.5)));
  l.Number("OVERALL", "Throughput(ops/sec)",
           hdr::JavaDoubleToString(r.runtime_s > 0 ? double(r.operations) / r.runtime_s : 0.0));
  OpMeasurements(l, r, o);
  const bool instructions = r.instructions.has_value();
  SideMeasurements(l, "CLIENT", c.client, false, instructions);
  l.Fixed("CLIENT", "FramesPerWrite", c.frames_per_write);
  SideMeasurements(l, "SERVER", c.server, true, instructions);
  if (instructions) InstructionMeasurements(l, r);
  if (c.server.available) {
    l.Fixed("TOTAL", "CpuPerOp(us)", c.client.cpu_us + c.server.cpu_us);
  } else {
    l.Text("TOTAL", "CpuPerOp(us)", "unavailable");
  }
  ScheduleMeasurements(l, r);
  if (r.partial) l.Text("OVERALL", "Partial", "true (" + r.error.ToString() + ")");
  return out;
}

std::string FormatTextReport(const RunResult& r, const RunCosts& c, const ReportOptions& o) {
  std::string out;
  for (const Measurement& m : ReportMeasurements(r, c, o))
    out += "[" + m.section + "], " + m.name + ", " + m.value + "\n";
  return out;
}

std::string YcsbJsonExport(const RunResult& r, const RunCosts& c, const ReportOptions& o,
                           bool array) {
  std::vector<nlohmann::json> items;
  for (const Measurement& m : ReportMeasurements(r, c, o)) {
    nlohmann::json j;
    j["metric"] = m.section;
    j["measurement"] = m.name;
    if (m.number) {
      j["value"] = *m.number;
    } else {
      j["value"] = m.value;
    }
    items.push_back(std::move(j));
  }
  if (array) return nlohmann::json(items).dump(2) + "\n";
  std::string out;
  for (const auto& j : items) out += j.dump() + "\n";
  return out;
}

nlohmann::json EnvironmentJson() {
  nlohmann::json e;
  utsname u{};
  uname(&u);
  e["kernel"] = std::string(u.sysname) + " " + u.release;
  e["hostname"] = u.nodename;
  e["machine"] = u.machine;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      e["cpu"] = line.substr(line.find(':') + 2);
      break;
    }
  }
  e["cpus_online"] = sysconf(_SC_NPROCESSORS_ONLN);
  e["compiler"] = std::string("g++ ") + __VERSION__;
  e["build_type"] = BuildType();
  e["git_revision"] = GitRevision();
  e["boost"] = BOOST_LIB_VERSION;
  e["jemalloc"] = JEMALLOC_VERSION;
  return e;
}

Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  return WriteOutputFile(path, contents);
}

}  // namespace wirebench
