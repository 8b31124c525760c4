#include "bench/results/report.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <boost/version.hpp>
#include <algorithm>
#include <cmath>
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
    out_->push_back(
        {std::string(section), std::string(name), std::move(value), std::nullopt, false});
  }
  // A numeric value; `number` is the value as printed, so an export matches
  // the text to the digit.
  void Number(std::string_view section, std::string_view name, std::string value) {
    const double number = std::strtod(value.c_str(), nullptr);
    out_->push_back({std::string(section), std::string(name), std::move(value), number, false});
  }
  // A value YCSB writes as a long.
  void Integer(std::string_view section, std::string_view name, int64_t v) {
    out_->push_back(
        {std::string(section), std::string(name), std::to_string(v), double(v), true});
  }
  // A value YCSB writes as a double (Java's Double.toString).
  void JavaDouble(std::string_view section, std::string_view name, double v) {
    out_->push_back(
        {std::string(section), std::string(name), hdr::JavaDoubleToString(v), v, false});
  }
  void Fixed(std::string_view section, std::string_view name, double v) {
    Number(section, name, Num(v));
  }
  // OneMeasurementHdrHistogram's latency lines.
  void Latency(const std::string& section, const hdr::Histogram& h, const ReportOptions& o) {
    const hdr::YcsbLatencySummary s = hdr::SummarizeForYcsb(h, o.percentiles);
    Integer(section, "Operations", s.operations);
    JavaDouble(section, "AverageLatency(us)", s.average_us);
    Integer(section, "MinLatency(us)", s.min_us);
    Integer(section, "MaxLatency(us)", s.max_us);
    for (const auto& [p, v] : s.percentiles_us) Integer(section, hdr::YcsbPercentileMetric(p), v);
  }
  // OneMeasurementHistogram's lines before the Return= lines.
  void MsHistogram(const std::string& section, const hdr::YcsbMsHistogram& m) {
    Integer(section, "Operations", m.operations);
    JavaDouble(section, "AverageLatency(us)", m.average_us);
    JavaDouble(section, "LatencyVariance(us)", m.variance_us);
    Integer(section, "MinLatency(us)", m.min_us);
    Integer(section, "MaxLatency(us)", m.max_us);
    if (m.p95_us >= 0) Integer(section, "95thPercentileLatency(us)", m.p95_us);
    if (m.p99_us >= 0) Integer(section, "99thPercentileLatency(us)", m.p99_us);
  }
  // OneMeasurementHistogram's bucket lines (measurement.histogram.verbose).
  void MsBuckets(const std::string& section, const hdr::YcsbMsHistogram& m) {
    for (size_t i = 0; i < m.buckets.size(); ++i) Integer(section, std::to_string(i), m.buckets[i]);
    Integer(section, ">" + std::to_string(m.buckets.size()), m.overflow);
  }

 private:
  std::vector<Measurement>* out_;
};

// `all` minus `part`, bucket by bucket (part's samples were recorded into
// `all` too: exact counts; min and max at bucket resolution).
hdr::Histogram Without(const hdr::Histogram& all, const hdr::Histogram& part) {
  if (part.total_count() == 0 || !all.SameLayout(part)) return all;
  hdr::Histogram out;
  if (!out.SameLayout(all)) return all;
  for (int32_t i = 0; i < all.counts_array_length(); ++i) {
    const int64_t n = all.CountAtIndex(i) - part.CountAtIndex(i);
    if (n > 0) out.RecordValues(all.ValueFromIndex(i), n);
  }
  return out;
}

// One YCSB measurement (a OneMeasurement): its latencies and, for the
// operation's own one, its Return= counts.
struct YcsbMeasurement {
  std::string name;
  hdr::Histogram latency;
  const OpStats* returns = nullptr;
};

// One measurement's lines, as the configured measurementtype exports them.
// hdrhistogram+histogram is YCSB's TwoInOneMeasurement: an HdrHistogram one
// named "Hdr<NAME>" with the Return= counts, then a histogram one named
// "Bucket<NAME>" without them.
void ExportMeasurement(Lines& l, const YcsbMeasurement& m, const ReportOptions& o) {
  auto returns = [&](const std::string& name) {
    if (m.returns == nullptr) return;
    for (int k = 0; k < int(OpResult::kCount); ++k)
      if (m.returns->results[size_t(k)] > 0)
        l.Integer(name, "Return=" + std::string(OpResultName(OpResult(k))),
                  int64_t(m.returns->results[size_t(k)]));
  };
  const bool two = o.measurement_type == "hdrhistogram+histogram";
  if (two || o.measurement_type == "hdrhistogram") {
    const std::string name = two ? "Hdr" + m.name : m.name;
    l.Latency(name, m.latency, o);
    returns(name);
  }
  if (two || o.measurement_type == "histogram") {
    const std::string name = two ? "Bucket" + m.name : m.name;
    const hdr::YcsbMsHistogram h = hdr::ToYcsbMsHistogram(m.latency, o.histogram_buckets);
    l.MsHistogram(name, h);
    if (!two) returns(name);
    if (o.histogram_verbose) l.MsBuckets(name, h);
  }
}

// The name YCSB's DBWrapper measures a non-OK status under.
std::string FailedName(const std::string& op, OpResult r, const ReportOptions& o) {
  const std::string status(OpResultName(r));
  const bool own = o.report_latency_for_each_error ||
                   std::find(o.latency_tracked_errors.begin(), o.latency_tracked_errors.end(),
                             status) != o.latency_tracked_errors.end();
  return op + "-" + (own ? status : "FAILED");
}

// YCSB's measurements of one operation type, in the order it creates them:
// <OP> (OK latencies and the Return= counts), then its non-OK latencies
// (<OP>-FAILED or <OP>-<STATUS>). READ-MODIFY-WRITE and VERIFY are measured
// by the workload, not DBWrapper: every operation's latency in one
// measurement (VERIFY with its Return= lines, READ-MODIFY-WRITE without).
// `intended`: latency from the intended start (open loop: the recorded
// intended latency of OK and NOT_FOUND operations; closed loop: YCSB's
// intended start is the actual start, so the latency itself).
void TypeMeasurements(std::vector<YcsbMeasurement>* out, OpType t, const OpStats& s,
                      const std::string& prefix, bool intended, const ReportOptions& o) {
  const std::string op(OpTypeName(t));
  const bool open_loop_intended = intended && s.intended_latency.total_count() > 0;
  if (t == OpType::kReadModifyWrite || t == OpType::kVerify) {
    // Measured by CoreWorkload whatever the status: one measurement. VERIFY
    // reports its status (OK, UNEXPECTED_STATE, ERROR); READ-MODIFY-WRITE none.
    hdr::Histogram all = open_loop_intended ? s.intended_latency : s.latency;
    if (!open_loop_intended) all.Add(s.failed_latency);
    out->push_back({prefix + op, std::move(all), t == OpType::kVerify ? &s : nullptr});
    return;
  }
  if (open_loop_intended) {
    out->push_back({prefix + op, s.intended_latency, &s});
    return;
  }
  out->push_back({prefix + op, Without(s.latency, s.not_found_latency), &s});
  const std::pair<OpResult, const hdr::Histogram*> failed[] = {
      {OpResult::kNotFound, &s.not_found_latency}, {OpResult::kError, &s.failed_latency}};
  for (const auto& [result, h] : failed) {
    if (h->total_count() == 0) continue;
    const std::string name = prefix + FailedName(op, result, o);
    auto same = std::find_if(out->begin(), out->end(),
                             [&](const YcsbMeasurement& m) { return m.name == name; });
    if (same != out->end()) {
      same->latency.Add(*h);
    } else {
      out->push_back({name, *h, nullptr});
    }
  }
}

void OpMeasurements(Lines& l, const RunResult& r, const ReportOptions& o) {
  // YCSB's measurement.interval: op (0) measures from the actual start,
  // intended (1) from the intended start under the operation's own name,
  // both (2) each, the intended ones as "Intended-<OP>" after the others.
  const bool op = o.measurement_interval != "intended";
  const bool intended = o.measurement_interval != "op";
  std::vector<YcsbMeasurement> ms;
  for (int pass = 0; pass < 2; ++pass) {
    const bool intended_pass = pass == 1;
    if (intended_pass ? !intended : !op) continue;
    const std::string prefix = intended_pass && op ? "Intended-" : "";
    for (int t = 0; t < kOpTypes; ++t) {
      const OpStats& s = r.ops[size_t(t)];
      if (s.count() == 0) continue;
      // With both, YCSB counts the Return= lines under the op measurement only.
      const size_t first = ms.size();
      TypeMeasurements(&ms, OpType(t), s, prefix, intended_pass, o);
      if (intended_pass && op)
        for (size_t i = first; i < ms.size(); ++i) ms[i].returns = nullptr;
    }
  }
  for (const YcsbMeasurement& m : ms) ExportMeasurement(l, m, o);
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
  if (!c.counters_unavailable_reason.empty()) {
    const std::string why = "unavailable (" + c.counters_unavailable_reason + ")";
    for (const char* name : {"AllocationsPerOp", "EncodeCopiedBytesPerOp", "DecodeCopiedBytesPerOp"})
      l.Text(section, name, why);
  } else {
    if (c.allocs_available) {
      l.Fixed(section, "AllocationsPerOp", c.allocs);
      l.Fixed(section, "AllocatedBytesPerOp", c.alloc_bytes);
    } else {
      l.Text(section, "AllocationsPerOp", "unavailable (allocation hook not linked)");
    }
    l.Fixed(section, "EncodeCopiedBytesPerOp", c.encode_copied);
    l.Fixed(section, "DecodeCopiedBytesPerOp", c.decode_copied);
  }
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
  l.Integer(section, "Threads", int64_t(c.threads));
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
  l.Integer("INSTRUCTIONS", "MeasuredOperations", int64_t(f.operations));
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
  l.Integer("OVERALL", "RunTime(ms)", int64_t(r.runtime_s * 1000.0 + 0.5));
  l.JavaDouble("OVERALL", "Throughput(ops/sec)",
               r.runtime_s > 0 ? double(r.operations) / r.runtime_s : 0.0);
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

namespace {

// A JSON string literal as Jackson writes it.
std::string JsonString(const std::string& s) { return nlohmann::json(s).dump(); }

// One measurement as Jackson's DefaultPrettyPrinter writes an object at the
// root or inside an array (arrays do not indent: their objects' fields are
// indented by two spaces and the closing brace is at the start of a line).
std::string JacksonObject(const Measurement& m) {
  std::string value;
  if (!m.number) {
    value = JsonString(m.value);
  } else if (m.integral) {
    value = m.value;
  } else if (!std::isfinite(*m.number)) {  // Jackson quotes NaN and Infinity.
    value = JsonString(hdr::JavaDoubleToString(*m.number));
  } else {
    value = hdr::JavaDoubleToString(*m.number);
  }
  return "{\n  \"metric\" : " + JsonString(m.section) + ",\n  \"measurement\" : " +
         JsonString(m.name) + ",\n  \"value\" : " + value + "\n}";
}

}  // namespace

std::string YcsbJsonExport(const RunResult& r, const RunCosts& c, const ReportOptions& o,
                           bool array) {
  const std::vector<Measurement> ms = ReportMeasurements(r, c, o);
  std::string out = array ? "[ " : "";
  for (size_t i = 0; i < ms.size(); ++i) {
    if (i > 0) out += array ? ", " : " ";
    out += JacksonObject(ms[i]);
  }
  if (array) out += ms.empty() ? "]" : " ]";
  return out + "\n";
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
