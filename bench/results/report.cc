#include "bench/results/report.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <boost/version.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <jemalloc/jemalloc.h>
#include <map>
#include <sstream>

#include "bench/hdr/histogram_encoding.h"
#include "bench/hdr/ycsb_summary.h"
#include "bench/results/instruction_report.h"
#include "common/build_info.h"
#include "common/perf_counters.h"


namespace wirebench {

namespace {

struct RoleSums {
  double cpu_ns = 0, user_ns = 0, sys_ns = 0;
  double vcsw = 0, ivcsw = 0, allocs = 0, alloc_bytes = 0, enc = 0, dec = 0;
  double cycles = 0, instructions = 0, cache_misses = 0;
  bool hw = true;
  int threads = 0;
  RoleSums& operator+=(const RoleSums& o) {
    cpu_ns += o.cpu_ns;
    user_ns += o.user_ns;
    sys_ns += o.sys_ns;
    vcsw += o.vcsw;
    ivcsw += o.ivcsw;
    allocs += o.allocs;
    alloc_bytes += o.alloc_bytes;
    enc += o.enc;
    dec += o.dec;
    cycles += o.cycles;
    instructions += o.instructions;
    cache_misses += o.cache_misses;
    hw = hw && o.hw;
    threads += o.threads;
    return *this;
  }
};

// Sums the per-thread server figures of `after` minus `before`, matching
// threads by tid (a thread missing from `before` started in the phase).
std::map<std::string, RoleSums> ServerDeltas(const nlohmann::json& before,
                                             const nlohmann::json& after) {
  std::map<int, const nlohmann::json*> prev;
  if (before.contains("threads"))
    for (const auto& t : before["threads"]) prev[t.value("tid", 0)] = &t;
  std::map<std::string, RoleSums> out;
  for (const auto& t : after["threads"]) {
    RoleSums& s = out[t.value("role", std::string("?"))];
    auto it = prev.find(t.value("tid", 0));
    auto d = [&](const char* k) {
      double a = t.value(k, 0.0);
      double b = it == prev.end() ? 0.0 : it->second->value(k, 0.0);
      return a - b;
    };
    s.cpu_ns += d("cpu_ns");
    s.user_ns += d("user_ns");
    s.sys_ns += d("sys_ns");
    s.vcsw += d("voluntary_switches");
    s.ivcsw += d("involuntary_switches");
    s.allocs += d("allocs");
    s.alloc_bytes += d("alloc_bytes");
    s.enc += d("encode_copied");
    s.dec += d("decode_copied");
    s.cycles += d("cycles");
    s.instructions += d("instructions");
    s.cache_misses += d("cache_misses");
    s.hw = s.hw && t.value("hw_available", false);
    ++s.threads;
  }
  return out;
}

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3f", v);
  return buf;
}

void Line(std::ostringstream& os, std::string_view section, std::string_view name,
          const std::string& value) {
  os << "[" << section << "], " << name << ", " << value << "\n";
}

void OpLines(std::ostringstream& os, std::string_view name, const hdr::Histogram& h,
             const ReportOptions& o) {
  hdr::YcsbLatencySummary s = hdr::SummarizeForYcsb(h, o.percentiles);
  for (const std::string& l : hdr::FormatYcsbLatencyLines(name, s)) os << l << "\n";
}

void SideLines(std::ostringstream& os, std::string_view section, const SideCosts& c,
               bool server, bool callgrind_instructions = false) {
  if (!c.available) {
    Line(os, section, "CpuPerOp(us)", "unavailable (" + c.unavailable_reason + ")");
    return;
  }
  Line(os, section, "CpuPerOp(us)", Num(c.cpu_us));
  Line(os, section, "UserCpuPerOp(us)", Num(c.user_us));
  Line(os, section, "SysCpuPerOp(us)", Num(c.sys_us));
  if (server) {
    Line(os, section, "IoThreadCpuPerOp(us)", Num(c.io_cpu_us));
    Line(os, section, "HandlerThreadCpuPerOp(us)", Num(c.handler_cpu_us));
  }
  if (c.allocs_available) {
    Line(os, section, "AllocationsPerOp", Num(c.allocs));
    Line(os, section, "AllocatedBytesPerOp", Num(c.alloc_bytes));
  } else {
    Line(os, section, "AllocationsPerOp", "unavailable (allocation hook not linked)");
  }
  Line(os, section, "EncodeCopiedBytesPerOp", Num(c.encode_copied));
  Line(os, section, "DecodeCopiedBytesPerOp", Num(c.decode_copied));
  Line(os, section, "VoluntaryCtxSwitchesPerOp", Num(c.voluntary_switches));
  Line(os, section, "InvoluntaryCtxSwitchesPerOp", Num(c.involuntary_switches));
  Line(os, section, "WireBytesOutPerOp", Num(c.wire_bytes_out));
  Line(os, section, "WireBytesInPerOp", Num(c.wire_bytes_in));
  if (c.hw_available) {
    Line(os, section, "CyclesPerOp", Num(c.cycles));
    Line(os, section, "InstructionsPerOp", Num(c.instructions));
    Line(os, section, "CacheMissesPerOp", Num(c.cache_misses));
  } else {
    const std::string why = "unavailable (" + c.hw_reason + ")";
    Line(os, section, "CyclesPerOp", why);
    if (!callgrind_instructions) Line(os, section, "InstructionsPerOp", why);
    Line(os, section, "CacheMissesPerOp", why);
  }
  Line(os, section, "Threads", std::to_string(c.threads));
}

nlohmann::json SideJson(const SideCosts& c) {
  return {{"available", c.available},
          {"unavailable_reason", c.unavailable_reason},
          {"cpu_us_per_op", c.cpu_us},
          {"user_cpu_us_per_op", c.user_us},
          {"sys_cpu_us_per_op", c.sys_us},
          {"io_thread_cpu_us_per_op", c.io_cpu_us},
          {"handler_thread_cpu_us_per_op", c.handler_cpu_us},
          {"allocs_available", c.allocs_available},
          {"allocs_per_op", c.allocs},
          {"alloc_bytes_per_op", c.alloc_bytes},
          {"encode_copied_bytes_per_op", c.encode_copied},
          {"decode_copied_bytes_per_op", c.decode_copied},
          {"voluntary_switches_per_op", c.voluntary_switches},
          {"involuntary_switches_per_op", c.involuntary_switches},
          {"wire_bytes_out_per_op", c.wire_bytes_out},
          {"wire_bytes_in_per_op", c.wire_bytes_in},
          {"hw_counters_available", c.hw_available},
          {"hw_counters_reason", c.hw_reason},
          {"cycles_per_op", c.hw_available ? nlohmann::json(c.cycles) : nlohmann::json()},
          {"instructions_per_op", c.hw_available ? nlohmann::json(c.instructions) : nlohmann::json()},
          {"cache_misses_per_op", c.hw_available ? nlohmann::json(c.cache_misses) : nlohmann::json()},
          {"threads", c.threads}};
}

nlohmann::json HistogramJson(const hdr::Histogram& h, const ReportOptions& o) {
  hdr::YcsbLatencySummary s = hdr::SummarizeForYcsb(h, o.percentiles);
  nlohmann::json p = nlohmann::json::object();
  for (auto& [pct, v] : s.percentiles_us) p[hdr::YcsbPercentileName(pct)] = v;
  return {{"operations", s.operations},
          {"average_us", s.average_us},
          {"min_us", s.min_us},
          {"max_us", s.max_us},
          {"p50_us", double(h.ValueAtPercentile(50)) / 1000.0},
          {"p90_us", double(h.ValueAtPercentile(90)) / 1000.0},
          {"p95_us", double(h.ValueAtPercentile(95)) / 1000.0},
          {"p99_us", double(h.ValueAtPercentile(99)) / 1000.0},
          {"p999_us", double(h.ValueAtPercentile(99.9)) / 1000.0},
          {"p9999_us", double(h.ValueAtPercentile(99.99)) / 1000.0},
          {"percentiles_us", p},
          {"histogram_ns", hdr::EncodeCompressedBase64(h)}};
}

}  // namespace

RunCosts ComputeCosts(const RunResult& r) {
  RunCosts c;
  const double ops = r.operations > 0 ? double(r.operations) : 1.0;
  SideCosts& cl = c.client;
  cl.available = true;
  cl.cpu_us = r.client_usage.cpu_ns / 1000.0 / ops;
  cl.user_us = r.client_usage.user_ns / 1000.0 / ops;
  cl.sys_us = r.client_usage.sys_ns / 1000.0 / ops;
  cl.allocs_available = AllocationCountingActive();
  cl.allocs = double(r.client_counters.allocs) / ops;
  cl.alloc_bytes = double(r.client_counters.alloc_bytes) / ops;
  cl.encode_copied = double(r.client_counters.encode_copied) / ops;
  cl.decode_copied = double(r.client_counters.decode_copied) / ops;
  cl.voluntary_switches = double(r.client_usage.voluntary_switches) / ops;
  cl.involuntary_switches = double(r.client_usage.involuntary_switches) / ops;
  cl.threads = r.client_usage.threads;
  cl.hw_available = r.client_usage.hw_available && r.client_usage.threads > 0;
  cl.hw_reason = cl.hw_available ? "" : HardwareCountersUnavailableReason();
  if (!cl.hw_available && cl.hw_reason.empty()) cl.hw_reason = "counters could not be read";
  cl.cycles = r.client_usage.cycles / ops;
  cl.instructions = r.client_usage.instructions / ops;
  cl.cache_misses = r.client_usage.cache_misses / ops;
  c.frames_per_write =
      r.connections.writes ? double(r.connections.frames_out) / double(r.connections.writes) : 0;

  SideCosts& sv = c.server;
  if (!r.server_before.is_object() || !r.server_after.is_object()) {
    sv.unavailable_reason =
        r.server_stats_error.empty() ? "server Stats not fetched" : r.server_stats_error;
  } else {
    sv.available = true;
    auto roles = ServerDeltas(r.server_before, r.server_after);
    RoleSums all;
    for (auto& [role, s] : roles) all += s;
    sv.hw_available = all.hw && all.threads > 0;
    sv.hw_reason = sv.hw_available ? ""
                                   : r.server_after.value("/hw_counters/reason"_json_pointer,
                                                          std::string("not reported by the server"));
    if (!sv.hw_available && sv.hw_reason.empty()) sv.hw_reason = "counters could not be read";
    sv.cycles = all.cycles / ops;
    sv.instructions = all.instructions / ops;
    sv.cache_misses = all.cache_misses / ops;
    sv.cpu_us = all.cpu_ns / 1000.0 / ops;
    sv.user_us = all.user_ns / 1000.0 / ops;
    sv.sys_us = all.sys_ns / 1000.0 / ops;
    sv.io_cpu_us = roles["server-io"].cpu_ns / 1000.0 / ops;
    sv.handler_cpu_us = roles["server-handler"].cpu_ns / 1000.0 / ops;
    sv.allocs_available = r.server_after.value("allocation_counting", false);
    sv.allocs = all.allocs / ops;
    sv.alloc_bytes = all.alloc_bytes / ops;
    sv.encode_copied = all.enc / ops;
    sv.decode_copied = all.dec / ops;
    sv.voluntary_switches = all.vcsw / ops;
    sv.involuntary_switches = all.ivcsw / ops;
    sv.threads = all.threads;
    auto delta = [&](const char* k) {
      return double(r.server_after.value(k, uint64_t(0)) - r.server_before.value(k, uint64_t(0)));
    };
    // The server's bytes include the two Stats replies; they are a few KB
    // against megabytes, and are left in rather than guessed out.
    sv.wire_bytes_in = delta("bytes_in") / ops;
    sv.wire_bytes_out = delta("bytes_out") / ops;
  }
  cl.wire_bytes_out = double(r.connections.bytes_out) / ops;
  cl.wire_bytes_in = double(r.connections.bytes_in) / ops;
  return c;
}

std::string FormatTextReport(const RunResult& r, const RunCosts& c, const ReportOptions& o) {
  std::ostringstream os;
  const double runtime_ms = r.runtime_s * 1000.0;
  Line(os, "OVERALL", "RunTime(ms)", std::to_string(int64_t(runtime_ms + 0.5)));
  Line(os, "OVERALL", "Throughput(ops/sec)",
       hdr::JavaDoubleToString(r.runtime_s > 0 ? double(r.operations) / r.runtime_s : 0.0));
  const bool op = o.measurement_interval != "intended";
  const bool intended = o.measurement_interval != "op";
  for (int t = 0; t < kOpTypes; ++t) {
    const OpStats& s = r.ops[size_t(t)];
    if (s.count() == 0) continue;
    const std::string name(OpTypeName(OpType(t)));
    if (s.latency.total_count() > 0) {
      if (op) OpLines(os, name, s.latency, o);
      if (intended && s.intended_latency.total_count() > 0)
        OpLines(os, "Intended-" + name, s.intended_latency, o);
    }
    for (int k = 0; k < int(OpResult::kCount); ++k)
      if (s.results[size_t(k)] > 0)
        Line(os, name, "Return=" + std::string(OpResultName(OpResult(k))),
             std::to_string(s.results[size_t(k)]));
    if (s.failed_latency.total_count() > 0) OpLines(os, name + "-FAILED", s.failed_latency, o);
  }
  SideLines(os, "CLIENT", c.client, false, r.instructions.has_value());
  Line(os, "CLIENT", "FramesPerWrite", Num(c.frames_per_write));
  SideLines(os, "SERVER", c.server, true, r.instructions.has_value());
  if (r.instructions) os << FormatInstructionLines(r, *r.instructions);  // Hook (--instructions).
  Line(os, "TOTAL", "CpuPerOp(us)",
       c.server.available ? Num(c.client.cpu_us + c.server.cpu_us) : "unavailable");
  if (r.schedule_lateness.total_count() > 0) {
    Line(os, "SCHEDULE", "LatenessP50(us)",
         Num(double(r.schedule_lateness.ValueAtPercentile(50)) / 1000.0));
    Line(os, "SCHEDULE", "LatenessP99(us)",
         Num(double(r.schedule_lateness.ValueAtPercentile(99)) / 1000.0));
    // Pacing precision: operations whose client was idle and woke on time for them.
    Line(os, "SCHEDULE", "TimerLatenessP50(us)",
         Num(double(r.timer_lateness.ValueAtPercentile(50)) / 1000.0));
    Line(os, "SCHEDULE", "TimerLatenessP99(us)",
         Num(double(r.timer_lateness.ValueAtPercentile(99)) / 1000.0));
    // Operations whose client was still busy with its previous one.
    Line(os, "SCHEDULE", "BehindSchedule(%)",
         Num(100.0 * double(r.behind_schedule) / double(r.schedule_lateness.total_count())));
  }
  if (r.partial)
    Line(os, "OVERALL", "Partial", "true (" + r.error.ToString() + ")");
  return os.str();
}

nlohmann::json ResultToJson(const RunResult& r, const RunCosts& c, const ReportOptions& o) {
  nlohmann::json j;
  j["partial"] = r.partial;
  if (r.partial) j["error"] = r.error.ToString();
  j["runtime_ms"] = r.runtime_s * 1000.0;
  j["operations"] = r.operations;
  j["throughput_ops_per_sec"] = r.runtime_s > 0 ? double(r.operations) / r.runtime_s : 0.0;
  nlohmann::json ops = nlohmann::json::object();
  for (int t = 0; t < kOpTypes; ++t) {
    const OpStats& s = r.ops[size_t(t)];
    if (s.count() == 0) continue;
    nlohmann::json e;
    for (int k = 0; k < int(OpResult::kCount); ++k)
      e["return"][std::string(OpResultName(OpResult(k)))] = s.results[size_t(k)];
    e["latency"] = HistogramJson(s.latency, o);
    if (s.intended_latency.total_count() > 0)
      e["intended_latency"] = HistogramJson(s.intended_latency, o);
    if (s.failed_latency.total_count() > 0) e["failed_latency"] = HistogramJson(s.failed_latency, o);
    ops[std::string(OpTypeName(OpType(t)))] = e;
  }
  j["ops"] = ops;
  j["costs"] = {{"client", SideJson(c.client)},
                {"server", SideJson(c.server)},
                {"frames_per_write", c.frames_per_write},
                {"total_cpu_us_per_op", c.client.cpu_us + c.server.cpu_us}};
  j["client_raw"] = {{"cpu_ns", r.client_usage.cpu_ns},
                     {"user_ns", r.client_usage.user_ns},
                     {"sys_ns", r.client_usage.sys_ns},
                     {"voluntary_switches", r.client_usage.voluntary_switches},
                     {"involuntary_switches", r.client_usage.involuntary_switches},
                     {"allocs", r.client_counters.allocs},
                     {"alloc_bytes", r.client_counters.alloc_bytes},
                     {"encode_copied", r.client_counters.encode_copied},
                     {"decode_copied", r.client_counters.decode_copied},
                     {"frames_out", r.connections.frames_out},
                     {"writes", r.connections.writes},
                     {"bytes_out", r.connections.bytes_out},
                     {"bytes_in", r.connections.bytes_in},
                     {"threads", r.client_usage.threads}};
  if (r.schedule_lateness.total_count() > 0) {
    j["schedule_lateness"] = HistogramJson(r.schedule_lateness, o);
    j["timer_lateness"] = HistogramJson(r.timer_lateness, o);
    j["behind_schedule"] = r.behind_schedule;
  }
  j["server"] = {{"before", r.server_before}, {"after", r.server_after}};
  if (r.instructions) j["instructions"] = InstructionsToJson(*r.instructions);  // Hook.
  return j;
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
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return Status::IoError("cannot write " + tmp + ": " + std::strerror(errno));
  bool ok = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size();
  ok = std::fflush(f) == 0 && ok;
  ok = fsync(fileno(f)) == 0 && ok;
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status::IoError("cannot write " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace wirebench
