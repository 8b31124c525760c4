#include "bench/results/report.h"

#include "bench/results/cluster_stats.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <boost/version.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <unordered_map>
#include <jemalloc/jemalloc.h>

#include "hdr/ycsb_summary.h"
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
    std::string over = ">";  // Not ">" + string&&: GCC 12's -Wrestrict false positive at -O3.
    over += std::to_string(m.buckets.size());
    Integer(section, over, m.overflow);
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
  // Its samples in time order (RunResult::samples; empty without them).
  std::vector<YcsbPoint> points;
};

// OneMeasurementRaw's lines: the count, then (unless
// measurement.raw.no_summary) the average and the sorted samples at YCSB's
// fixed ranks, then the Return= lines.
void RawLines(Lines& l, const std::string& name, const std::vector<YcsbPoint>& points,
              const std::function<void(const std::string&)>& returns, const ReportOptions& o) {
  const int64_t n = int64_t(points.size());
  l.Integer(name, "Total Operations", n);
  if (n > 0 && !o.raw_no_summary) {
    l.Integer(name, "Below is a summary of latency in microseconds:", -1);
    std::vector<int64_t> us;
    us.reserve(points.size());
    int64_t sum = 0;
    for (const YcsbPoint& p : points) {
      us.push_back(p.us);
      sum += p.us;
    }
    l.JavaDouble(name, "Average", double(sum) / double(n));
    std::sort(us.begin(), us.end());
    l.Integer(name, "Min", us.front());
    l.Integer(name, "Max", us.back());
    const std::pair<const char*, double> ranks[] = {{"p1", 0.01},   {"p5", 0.05},    {"p50", 0.5},
                                                    {"p90", 0.9},   {"p95", 0.95},   {"p99", 0.99},
                                                    {"p99.9", 0.999}, {"p99.99", 0.9999}};
    for (const auto& [label, q] : ranks) l.Integer(name, label, us[size_t(double(n) * q)]);
  }
  returns(name);
}

// OneMeasurementTimeSeries's lines: the summary, the Return= lines, then
// one line per unit of timeseries.granularity ms (named by its offset from
// the first sample, as YCSB names it; units with no sample are skipped)
// with the average of the whole microseconds in it.
void TimeSeriesLines(Lines& l, const std::string& name, const std::vector<YcsbPoint>& points,
                     const std::function<void(const std::string&)>& returns,
                     const ReportOptions& o) {
  int64_t sum = 0, min = -1, max = -1;
  for (const YcsbPoint& p : points) {
    sum += p.us;
    if (p.us > max) max = p.us;
    if (min < 0 || p.us < min) min = p.us;
  }
  const double n = double(points.size());
  l.Integer(name, "Operations", int64_t(points.size()));
  l.JavaDouble(name, "AverageLatency(us)", double(sum) / n);
  l.Integer(name, "MinLatency(us)", min);
  l.Integer(name, "MaxLatency(us)", max);
  returns(name);
  const int64_t g = std::max<int64_t>(1, o.timeseries_granularity_ms);
  const int64_t start = points.empty() ? 0 : points.front().ms;
  int64_t unit = 0, unit_sum = 0, unit_count = 0;
  for (const YcsbPoint& p : points) {
    const int64_t u = (p.ms - start) / g * g;
    if (u > unit) {
      l.JavaDouble(name, std::to_string(unit), double(unit_sum) / double(unit_count));
      unit = u;
      unit_sum = unit_count = 0;
    }
    unit_sum += p.us;
    ++unit_count;
  }
  l.JavaDouble(name, std::to_string(unit), double(unit_sum) / double(unit_count));
}

// OneMeasurementHdrHistogram's lines with measurement.histogram.verbose: per
// recorded value of its microsecond histogram (3 significant digits), the
// bucket's highest equivalent value (capped at Integer.MAX_VALUE) and its
// count as a double.
void HdrValueLines(Lines& l, const std::string& name, const hdr::Histogram& ns) {
  hdr::Histogram us;
  for (int32_t i = 0; i < ns.counts_array_length(); ++i)
    if (const int64_t n = ns.CountAtIndex(i); n > 0)
      us.RecordValues(ns.MedianEquivalentValue(ns.ValueFromIndex(i)) / 1000, n);
  for (int32_t i = 0; i < us.counts_array_length(); ++i) {
    const int64_t n = us.CountAtIndex(i);
    if (n == 0) continue;
    const int64_t value = std::min<int64_t>(INT32_MAX, us.HighestEquivalentValue(us.ValueFromIndex(i)));
    l.JavaDouble(name, std::to_string(value), double(n));
  }
}

// One measurement's lines, as the configured measurementtype exports them.
// The two-in-one types are YCSB's TwoInOneMeasurement: an HdrHistogram one
// named "Hdr<NAME>" with the Return= counts, then a histogram one named
// "Bucket<NAME>" (hdrhistogram+histogram) or a raw one named "Raw<NAME>"
// (hdrhistogram+raw) without them.
void ExportMeasurement(Lines& l, const YcsbMeasurement& m, const ReportOptions& o) {
  const std::function<void(const std::string&)> returns = [&](const std::string& name) {
    if (m.returns == nullptr) return;
    for (int k = 0; k < int(OpResult::kCount); ++k)
      if (m.returns->results[size_t(k)] > 0)
        l.Integer(name, "Return=" + std::string(OpResultName(OpResult(k))),
                  int64_t(m.returns->results[size_t(k)]));
  };
  const std::function<void(const std::string&)> no_returns = [](const std::string&) {};
  const std::string& type = o.measurement_type;
  const bool two = type.find('+') != std::string::npos;
  if (type.rfind("hdrhistogram", 0) == 0) {
    const std::string name = two ? "Hdr" + m.name : m.name;
    l.Latency(name, m.latency, o);
    returns(name);
    if (o.histogram_verbose) HdrValueLines(l, name, m.latency);
  }
  if (type == "histogram" || type == "hdrhistogram+histogram") {
    const std::string name = two ? "Bucket" + m.name : m.name;
    const hdr::YcsbMsHistogram h = hdr::ToYcsbMsHistogram(m.latency, o.histogram_buckets);
    l.MsHistogram(name, h);
    if (!two) returns(name);
    if (o.histogram_verbose) l.MsBuckets(name, h);
  }
  if (type == "raw" || type == "hdrhistogram+raw")
    RawLines(l, two ? "Raw" + m.name : m.name, m.points, two ? no_returns : returns, o);
  if (type == "timeseries") TimeSeriesLines(l, m.name, m.points, returns, o);
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
  if (t == OpType::kScanPerRecord) {
    // CoreWorkload's Measurements.measure: latency only, never intended.
    if (!intended) out->push_back({prefix + op, s.latency, nullptr, {}});
    return;
  }
  if (t == OpType::kCleanup) {
    // DBWrapper's and HBaseClient2's samples; only DBWrapper's are intended.
    out->push_back({prefix + op, intended ? s.intended_latency : s.latency, nullptr, {}});
    return;
  }
  const bool open_loop_intended = intended && s.intended_latency.total_count() > 0;
  if (t == OpType::kReadModifyWrite || t == OpType::kVerify) {
    // Measured by CoreWorkload whatever the status: one measurement. VERIFY
    // reports its status (OK, UNEXPECTED_STATE, ERROR); READ-MODIFY-WRITE none.
    hdr::Histogram all = open_loop_intended ? s.intended_latency : s.latency;
    if (!open_loop_intended) all.Add(s.failed_latency);
    out->push_back({prefix + op, std::move(all), t == OpType::kVerify ? &s : nullptr, {}});
    return;
  }
  if (open_loop_intended) {
    out->push_back({prefix + op, s.intended_latency, &s, {}});
    return;
  }
  out->push_back({prefix + op, Without(s.latency, s.not_found_latency), &s, {}});
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
      out->push_back({name, *h, nullptr, {}});
    }
  }
}

// Hands each kept sample to the measurement YCSB would have measured it in
// (in time order): in the op pass under <OP> or its <OP>-FAILED /
// <OP>-<STATUS> name, in the intended pass from the intended start.
void AttachSamples(std::vector<YcsbMeasurement>* ms, const RunResult& r, const ReportOptions& o) {
  if (r.samples.empty()) return;
  std::vector<const LatencySample*> order;
  order.reserve(r.samples.size());
  for (const LatencySample& s : r.samples) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(),
                   [](const LatencySample* a, const LatencySample* b) { return a->end_ns < b->end_ns; });
  std::unordered_map<std::string, size_t> by_name;
  for (size_t i = 0; i < ms->size(); ++i) by_name.emplace((*ms)[i].name, i);
  const bool op = o.measurement_interval != "intended";
  const bool intended = o.measurement_interval != "op";
  for (const LatencySample* s : order) {
    const std::string name(OpTypeName(s->type));
    const bool one = s->type == OpType::kReadModifyWrite || s->type == OpType::kVerify ||
                     s->type == OpType::kCleanup || s->type == OpType::kScanPerRecord;
    const std::string own = one || s->result == OpResult::kOk ? name : FailedName(name, s->result, o);
    // YCSB's timestamp: currentTimeMillis() as the sample is measured.
    const int64_t ms_at = (s->end_ns + r.samples_epoch_ns) / 1'000'000;
    auto add = [&](const std::string& prefix, int64_t ns) {
      auto it = by_name.find(prefix + own);
      if (it == by_name.end()) it = by_name.find(prefix + name);  // Open-loop intended: one per type.
      if (it != by_name.end()) (*ms)[it->second].points.push_back({ms_at, ns / 1000});
    };
    if (op) add("", s->latency_ns);
    if (intended && !s->binding_only)
      add(op ? "Intended-" : "", s->intended_ns >= 0 ? s->intended_ns : s->latency_ns);
  }
}

std::vector<YcsbMeasurement> YcsbMeasurements(const RunResult& r, const ReportOptions& o) {
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
      if (!s.present()) continue;
      // With both, YCSB counts the Return= lines under the op measurement only.
      const size_t first = ms.size();
      TypeMeasurements(&ms, OpType(t), s, prefix, intended_pass, o);
      if (intended_pass && op)
        for (size_t i = first; i < ms.size(); ++i) ms[i].returns = nullptr;
    }
  }
  AttachSamples(&ms, r, o);
  return ms;
}

void OpMeasurements(Lines& l, const RunResult& r, const ReportOptions& o) {
  for (const YcsbMeasurement& m : YcsbMeasurements(r, o)) ExportMeasurement(l, m, o);
}

// `skip_hw_instructions`: an --instructions run prints its own InstructionsPerOp.
void SideMeasurements(Lines& l, std::string_view section, const SideCosts& c, bool server,
                      bool skip_hw_instructions, uint64_t operations) {
  if (!c.available) {
    l.Text(section, "CpuPerOp(us)", "unavailable (" + c.unavailable_reason + ")");
    return;
  }
  l.Fixed(section, "CpuPerOp(us)", c.cpu_us);
  l.Fixed(section, "UserCpuPerOp(us)", c.user_us);
  l.Fixed(section, "SysCpuPerOp(us)", c.sys_us);
  // The user/sys split comes from the kernel's scheduler ticks (CpuPerOp is
  // from the threads' CPU clocks, exact): say so when a tick is a visible
  // share of the figure, as in a short run.
  const long hz = sysconf(_SC_CLK_TCK);
  const double tick_us = operations > 0 && hz > 0 ? 1e6 / double(hz) / double(operations) : 0;
  if (tick_us > 0.05 * c.cpu_us && c.cpu_us > 0)
    l.Text(section, "UserSysSplit",
           "counted in " + std::to_string(1000 / (hz > 0 ? hz : 100)) +
               " ms scheduler ticks: each part is within a few ticks, " +
               std::to_string(int64_t(tick_us * 1000)) + " ns/op per tick in this run "
               "(CpuPerOp is exact)");
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
// `no_server`: the basic binding's run, whose [SERVER] line says there is none.
void InstructionMeasurements(Lines& l, const RunResult& r, bool no_server) {
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
    one("InstructionsPerOp.rpc.core", s.rpc_core);
    one("InstructionsPerOp.rpc.transport", s.rpc_transport);
    if (server) {
      one("InstructionsPerOp.region", s.region);
    } else {
      one("InstructionsPerOp.harness", s.harness);
    }
    one("InstructionsPerOp.other", s.other);
  };
  side("CLIENT", f.client, false);
  if (!no_server) side("SERVER", f.server, true);
  const double ops = f.operations > 0 ? double(f.operations) : 1.0;
  l.Fixed("CLIENT", "SocketCallsPerOp", double(r.connections.reads + r.connections.writes) / ops);
  l.Integer("INSTRUCTIONS", "MeasuredOperations", int64_t(f.operations));
  l.Text("INSTRUCTIONS", "Scope", kInstructionScope);
}

// run --floor's lines: the floor's loop and its cost, and the run's total
// CPU against it.
void FloorMeasurements(Lines& l, const RunResult& r, const RunCosts& c) {
  if (!r.floor_error.empty()) {
    l.Text("FLOOR", "CpuPerOp(us)", "unavailable (" + r.floor_error + ")");
    return;
  }
  if (!r.floor) return;
  const FloorFigure& f = *r.floor;
  l.Integer("FLOOR", "Depth", f.depth);
  l.Integer("FLOOR", "RequestBytes", int64_t(f.request_bytes));
  l.Integer("FLOOR", "ReplyBytes", int64_t(f.reply_bytes));
  if (f.ops_per_request > 1) l.Integer("FLOOR", "OperationsPerRequest", f.ops_per_request);
  l.Fixed("FLOOR", "ClientCpuPerOp(us)", f.client_us);
  l.Fixed("FLOOR", "ServerCpuPerOp(us)", f.server_us);
  l.Fixed("FLOOR", "CpuPerOp(us)", f.total_us);
  if (c.client.available && c.server.available && f.total_us > 0)
    l.Fixed("TOTAL", "CpuVsFloor", (c.client.cpu_us + c.server.cpu_us) / f.total_us);
}

// A null cluster's lines: the cluster's shape and balance, then each
// server's share ([SERVER k]); the [SERVER] lines above are the cluster's.
void ClusterMeasurements(Lines& l, const RunResult& r) {
  const ClusterFigures c = ComputeClusterFigures(r);
  l.Integer("CLUSTER", "Servers", int64_t(c.servers.size()));
  l.Fixed("CLUSTER", "Imbalance(busiest/mean)", c.imbalance);
  l.Fixed("CLUSTER", "OpsPerServerCoreSecond", c.ops_per_server_core_s);
  if (c.meta_lookups_before >= 0) {
    l.Fixed("CLUSTER", "MetaLookupsPerOp", c.meta_lookups_per_op);
    l.Integer("CLUSTER", "MetaLookupsBeforeMeasuring", c.meta_lookups_before);
  }
  for (size_t k = 0; k < c.servers.size(); ++k) {
    const ClusterServerFigures& f = c.servers[k];
    const std::string section = "SERVER " + std::to_string(k);
    l.Text(section, "Address", f.address);
    if (const RunResult::ClusterServer& s = r.cluster_servers[k]; s.client_failures > 0) {
      l.Integer(section, "ClientFailures", int64_t(s.client_failures));
      l.Fixed(section, "FirstFailureAt(s)", s.first_failure_s);
    }
    if (!f.available) {
      l.Text(section, "Calls",
             r.cluster_servers[k].client_failures > 0
                 ? "unavailable (the server was lost: its closing Stats call got no answer)"
                 : "unavailable (its Stats were not read)");
      continue;
    }
    l.Integer(section, "Calls", int64_t(f.calls));
    l.Fixed(section, "ShareOfCalls", f.share);
    l.Fixed(section, "CpuPerCall(us)", f.cpu_us_per_call);
    l.Fixed(section, "WireBytesInPerCall", f.bytes_in_per_call);
    l.Fixed(section, "WireBytesOutPerCall", f.bytes_out_per_call);
  }
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
  // YCSB's figures: its client threads' whole run (connect, warm-up,
  // cleanup) and every operation they did, throughput over the whole
  // milliseconds as Client.java divides. Results from before client_run_s
  // have only the measured phase.
  const bool whole = r.client_run_s > 0;
  const int64_t run_ms = int64_t((whole ? r.client_run_s : r.runtime_s) * 1000.0 + 0.5);
  const uint64_t run_ops = whole ? r.client_operations : r.operations;
  l.Integer("OVERALL", "RunTime(ms)", run_ms);
  l.JavaDouble("OVERALL", "Throughput(ops/sec)", 1000.0 * double(run_ops) / double(run_ms));
  OpMeasurements(l, r, o);
  // wirebench's measured phase (after --warmup, up to the last measured
  // operation's end): what the per-op costs below divide by.
  l.Integer("MEASURED", "RunTime(ms)", int64_t(r.runtime_s * 1000.0 + 0.5));
  l.Integer("MEASURED", "Operations", int64_t(r.operations));
  l.JavaDouble("MEASURED", "Throughput(ops/sec)",
               r.runtime_s > 0 ? double(r.operations) / r.runtime_s : 0.0);
  const bool instructions = r.instructions.has_value();
  SideMeasurements(l, "CLIENT", c.client, false, instructions, r.operations);
  if (r.connections.writes > 0) {
    l.Fixed("CLIENT", "FramesPerWrite", c.frames_per_write);
  } else {  // `measure`'s client is not wirebench's: its writes are not seen.
    l.Text("CLIENT", "FramesPerWrite", "unavailable (no write of wirebench's own client was seen)");
  }
  if (o.no_server) {
    l.Text("SERVER", "CpuPerOp(us)", std::string(kNoServer));
  } else {
    SideMeasurements(l, "SERVER", c.server, true, instructions, r.operations);
  }
  if (instructions) InstructionMeasurements(l, r, o.no_server);
  if (o.no_server && c.client.available) {  // The client's cost is the whole cost.
    l.Fixed("TOTAL", "CpuPerOp(us)", c.client.cpu_us);
  } else if (c.server.available) {
    l.Fixed("TOTAL", "CpuPerOp(us)", c.client.cpu_us + c.server.cpu_us);
  } else {
    l.Text("TOTAL", "CpuPerOp(us)", "unavailable");
  }
  FloorMeasurements(l, r, c);
  if (!r.cluster_servers.empty()) ClusterMeasurements(l, r);
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
// REQUIRES: m.number (the exporters write numbers only).
std::string JacksonObject(const Measurement& m) {
  std::string value;
  if (m.integral) {
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
                           bool array, std::vector<Measurement>* left_out) {
  const std::vector<Measurement> ms = ReportMeasurements(r, c, o);
  std::string out = array ? "[ " : "";
  bool first = true;
  for (const Measurement& m : ms) {
    if (!m.number) {  // Text ("unavailable (...)"): YCSB's exporters write numbers only.
      if (left_out) left_out->push_back(m);
      continue;
    }
    if (!first) out += array ? ", " : " ";
    first = false;
    out += JacksonObject(m);
  }
  if (array) out += first ? "]" : " ]";
  return out + "\n";
}

std::string YcsbRawData(const RunResult& r, const ReportOptions& o) {
  const bool two = o.measurement_type == "hdrhistogram+raw";
  if (!two && o.measurement_type != "raw") return "";
  std::string out;
  for (const YcsbMeasurement& m : YcsbMeasurements(r, o)) {
    const std::string name = two ? "Raw" + m.name : m.name;
    out += name + " latency raw data: op, timestamp(ms), latency(us)\n";
    for (const YcsbPoint& p : m.points)
      out += name + "," + std::to_string(p.ms) + "," + std::to_string(p.us) + "\n";
  }
  return out;
}

std::vector<std::string> YcsbRawMeasurementNames(const RunResult& r, const ReportOptions& o) {
  const bool two = o.measurement_type == "hdrhistogram+raw";
  std::vector<std::string> names;
  if (!two && o.measurement_type != "raw") return names;
  for (const YcsbMeasurement& m : YcsbMeasurements(r, o)) names.push_back(two ? "Raw" + m.name : m.name);
  return names;
}

std::vector<YcsbSeries> YcsbHdrSeries(const RunResult& r, const ReportOptions& o) {
  std::vector<YcsbSeries> out;
  if (o.measurement_type.rfind("hdrhistogram", 0) != 0) return out;
  const bool two = o.measurement_type.find('+') != std::string::npos;
  for (YcsbMeasurement& m : YcsbMeasurements(r, o))
    out.push_back({two ? "Hdr" + m.name : m.name, std::move(m.points)});
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
