#include "bench/results/compare_metrics.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <set>

namespace wirebench {

// Declared in compare_metrics.h.
bool SameRepeats(const std::vector<std::pair<int, double>>& a,
                 const std::vector<std::pair<int, double>>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].first != b[i].first || (i > 0 && a[i].first == a[i - 1].first)) return false;
  return true;
}

// Declared in compare_metrics.h.
std::vector<std::pair<int, double>> RepeatValues(
    const std::vector<CompareCell>& cells, const MetricDef& m,
    const std::function<bool(const CompareCell&)>& in) {
  std::vector<std::pair<int, double>> v;
  for (const CompareCell& c : cells) {
    if (!in(c)) continue;
    const double x = MetricValue(m, c.results);
    if (!std::isnan(x)) v.emplace_back(c.repeat, x);
  }
  std::sort(v.begin(), v.end());
  return v;
}

// Declared in compare_metrics.h.
std::vector<double> ValuesOf(const std::vector<std::pair<int, double>>& v) {
  std::vector<double> out;
  for (const auto& [repeat, x] : v) out.push_back(x);
  return out;
}

namespace {

using nlohmann::json;

const char* const kOpOrder[] = {"READ",  "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE",
                                "DELETE", "FLUSH"};

// Reads the sum of the numbers at `pointers`; NaN when any is absent or
// when a flag at `required` is not true (a figure that was not measured
// reads as n/a, never 0).
std::function<double(const json&)> SumOf(const std::vector<std::string>& pointers,
                                         const std::vector<std::string>& required) {
  std::vector<json::json_pointer> ps, rs;
  for (const std::string& p : pointers) ps.emplace_back(p);
  for (const std::string& r : required) rs.emplace_back(r);
  return [ps, rs](const json& results) {
    for (const json::json_pointer& r : rs)
      if (!results.contains(r) || results[r] != true) return std::nan("");
    double sum = 0;
    for (const json::json_pointer& p : ps) {
      if (!results.contains(p) || !results[p].is_number()) return std::nan("");
      sum += results[p].get<double>();
    }
    return sum;
  };
}

// The first of `alternatives` that reads as a number (e.g. callgrind's
// instructions, else the hardware counters').
std::function<double(const json&)> FirstOf(
    std::vector<std::function<double(const json&)>> alternatives) {
  return [alternatives](const json& results) {
    for (const auto& a : alternatives)
      if (double v = a(results); !std::isnan(v)) return v;
    return std::nan("");
  };
}

MetricDef Cost(std::string name, std::string unit, const std::vector<std::string>& pointers,
               const std::vector<std::string>& required = {}) {
  MetricDef m;
  m.name = std::move(name);
  m.unit = std::move(unit);
  m.extract = SumOf(pointers, required);
  return m;
}

constexpr const char* kClient = "/costs/client/available";
constexpr const char* kServer = "/costs/server/available";
constexpr const char* kClientAllocs = "/costs/client/allocs_available";
constexpr const char* kServerAllocs = "/costs/server/allocs_available";

// The catalog's last rows: context switches, throughput and a cluster's
// balance and server efficiency. `set` is Catalog's.
template <typename Set>
void SetRateMetrics(const Set& set) {
  set(Metric::kClientSwitches, "Client context switches/op", "switches/op",
      {"/costs/client/voluntary_switches_per_op", "/costs/client/involuntary_switches_per_op"},
      {kClient})
      ->baseline_ratio = false;
  set(Metric::kServerSwitches, "Server context switches/op", "switches/op",
      {"/costs/server/voluntary_switches_per_op", "/costs/server/involuntary_switches_per_op"},
      {kServer})
      ->baseline_ratio = false;
  MetricDef* tput = set(Metric::kThroughput, "Throughput (ops/s)", "ops/s", {"/throughput_ops_per_sec"});
  tput->higher_is_better = tput->thread_sweep = true;
  // Balance follows where the keys fall, not the codec: no ratio.
  set(Metric::kClusterImbalance, "Cluster imbalance (busiest server / mean)", "x",
      {"/cluster/imbalance"})
      ->baseline_ratio = false;
  set(Metric::kOpsPerServerCore, "Ops per server core-second", "ops/s",
      {"/costs/ops_per_server_core_s"})
      ->higher_is_better = true;
}

// The fixed metrics, indexed by Metric. Ratio rows: the costs per
// operation a codec changes (CPU, instructions, allocations, copies, wire
// bytes), throughput, and each operation's p99 (see LatencyMetric).
std::array<MetricDef, size_t(Metric::kCount)> Catalog() {
  std::array<MetricDef, size_t(Metric::kCount)> c;
  auto set = [&](Metric m, std::string name, std::string unit, std::vector<std::string> ptrs,
                 std::vector<std::string> required = {}) {
    c[size_t(m)] = Cost(std::move(name), std::move(unit), ptrs, required);
    c[size_t(m)].baseline_ratio = true;
    return &c[size_t(m)];
  };
  set(Metric::kClientCpu, "Client CPU (us/op)", "us/op", {"/costs/client/cpu_us_per_op"},
      {kClient});
  set(Metric::kServerCpu, "Server CPU (us/op)", "us/op", {"/costs/server/cpu_us_per_op"},
      {kServer});
  set(Metric::kTotalCpu, "Total CPU (us/op)", "us/op", {"/costs/total_cpu_us_per_op"},
      {kClient, kServer})
      ->thread_sweep = true;
  // Instructions: callgrind's (--instructions) where present, else the
  // hardware counters' (absent on VMs without them: no row).
  set(Metric::kTotalInstructions, "Total instructions/op", "instructions/op",
      {"/instructions/client/total", "/instructions/server/total"});
  set(Metric::kClientInstructions, "Client instructions/op", "instructions/op", {})->extract =
      FirstOf({SumOf({"/instructions/client/total"}, {}),
               SumOf({"/costs/client/instructions_per_op"}, {kClient})});
  set(Metric::kServerInstructions, "Server instructions/op", "instructions/op", {})->extract =
      FirstOf({SumOf({"/instructions/server/total"}, {}),
               SumOf({"/costs/server/instructions_per_op"}, {kServer})});
  const std::pair<Metric, const char*> kLayers[] = {
      {Metric::kClientInstructionsCodec, "client/codec"},
      {Metric::kClientInstructionsRpc, "client/rpc"},
      {Metric::kClientInstructionsRpcCore, "client/rpc_core"},
      {Metric::kClientInstructionsRpcTransport, "client/rpc_transport"},
      {Metric::kClientInstructionsHarness, "client/harness"},
      {Metric::kClientInstructionsOther, "client/other"},
      {Metric::kServerInstructionsCodec, "server/codec"},
      {Metric::kServerInstructionsRpc, "server/rpc"},
      {Metric::kServerInstructionsRpcCore, "server/rpc_core"},
      {Metric::kServerInstructionsRpcTransport, "server/rpc_transport"},
      {Metric::kServerInstructionsRegion, "server/region"},
      {Metric::kServerInstructionsOther, "server/other"}};
  for (const auto& [metric, path] : kLayers) {
    std::string label = path;
    label[0] = char(std::toupper(label[0]));
    label.replace(label.find('/'), 1, " instructions/op: ");
    std::replace(label.begin(), label.end(), '_', ' ');
    // Layers explain the totals; the totals carry the ratio.
    set(metric, label, "instructions/op", {std::string("/instructions/") + path})
        ->baseline_ratio = false;
  }
  set(Metric::kClientAllocs, "Client allocations/op", "allocs/op", {"/costs/client/allocs_per_op"},
      {kClient, kClientAllocs});
  set(Metric::kClientAllocBytes, "Client allocated bytes/op", "bytes/op",
      {"/costs/client/alloc_bytes_per_op"}, {kClient, kClientAllocs});
  set(Metric::kServerAllocs, "Server allocations/op", "allocs/op", {"/costs/server/allocs_per_op"},
      {kServer, kServerAllocs});
  set(Metric::kServerAllocBytes, "Server allocated bytes/op", "bytes/op",
      {"/costs/server/alloc_bytes_per_op"}, {kServer, kServerAllocs});
  set(Metric::kClientCopied, "Client payload bytes copied/op", "bytes/op",
      {"/costs/client/encode_copied_bytes_per_op", "/costs/client/decode_copied_bytes_per_op"},
      {kClient});
  set(Metric::kServerCopied, "Server payload bytes copied/op", "bytes/op",
      {"/costs/server/encode_copied_bytes_per_op", "/costs/server/decode_copied_bytes_per_op"},
      {kServer});
  set(Metric::kWireOut, "Wire bytes/op client->server", "bytes/op",
      {"/costs/client/wire_bytes_out_per_op"}, {kClient});
  set(Metric::kWireIn, "Wire bytes/op server->client", "bytes/op",
      {"/costs/client/wire_bytes_in_per_op"}, {kClient});
  // Context switches follow the scheduler more than the codec: no ratio.
  SetRateMetrics(set);
  return c;
}

}  // namespace

const std::string& CellColumn(const CompareCell& c) {
  return c.column.empty() ? c.codec : c.column;
}

std::vector<std::string> ColumnLabels(const std::vector<std::string>& codecs) {
  std::vector<std::string> labels;
  for (size_t i = 0; i < codecs.size(); ++i) {
    const auto seen = std::count(codecs.begin(), codecs.begin() + long(i), codecs[i]);
    labels.push_back(seen ? codecs[i] + "#" + std::to_string(seen + 1) : codecs[i]);
  }
  return labels;
}

std::string RecordVariant(const std::string& workload, int fieldcount, int fieldlength) {
  if (fieldcount <= 0 && fieldlength <= 0) return workload;
  if (fieldcount <= 0) return workload + "-" + std::to_string(fieldlength) + "B";
  if (fieldlength <= 0) return workload + "-" + std::to_string(fieldcount) + "f";
  return workload + "-" + std::to_string(fieldcount) + "x" + std::to_string(fieldlength) + "B";
}

const std::vector<CallSweep>& CallSweeps() {
  static const std::vector<CallSweep> sweeps = {
      {"pipeline", "--pipelines", "-p", "pipeline depth", "in flight",
       "operations in flight per logical client (--pipeline)", "each timed from its own send",
       &CompareCell::pipeline},
      {"batch", "--batches", "-b", "batch size", "per call",
       "operations per Multi call (--batch)",
       "a read timed from its start to its call's reply, a put as YCSB times a buffered one",
       &CompareCell::batch},
      {"servers", "--servers", "-s", "cluster size", "server(s)",
       "null cluster servers (--servers)", "each timed from its own send to its row's server",
       &CompareCell::servers},
  };
  return sweeps;
}

std::string CallVariant(const std::string& variant, const CompareCell& c) {
  std::string out = variant;
  for (const CallSweep& s : CallSweeps())
    if (c.*s.field > 0) out += s.suffix + std::to_string(c.*s.field);
  return out;
}

std::string CellWorkload(const CompareCell& c) {
  return CallVariant(RecordVariant(c.workload, c.fieldcount, c.fieldlength), c);
}

bool CellIsPartial(const CompareCell& c) {
  return c.partial || (c.results.is_object() && c.results.value("partial", false));
}

const MetricDef& MetricOf(Metric m) {
  static const std::array<MetricDef, size_t(Metric::kCount)> catalog = Catalog();
  return catalog[size_t(m)];
}

MetricDef LatencyMetric(const std::string& op, LatencyStat stat) {
  static constexpr std::pair<const char*, const char*> kStats[] = {
      {"avg", "average_us"}, {"p50", "p50_us"}, {"p95", "p95_us"}, {"p99", "p99_us"},
      {"max", "max_us"}};
  const auto [label, field] = kStats[size_t(stat)];
  MetricDef m =
      Cost(op + " " + label + " latency (us)", "us", {"/ops/" + op + "/latency/" + field});
  m.op = op;
  m.baseline_ratio = stat == LatencyStat::kP99;
  return m;
}

std::vector<MetricDef> MetricsFor(const std::vector<CompareCell>& cells) {
  std::vector<MetricDef> rows;
  for (int m = 0; m < int(Metric::kCount); ++m) rows.push_back(MetricOf(Metric(m)));
  std::set<std::string> ops;
  for (const auto& c : cells)
    if (c.results.contains("ops"))
      for (auto& [k, v] : c.results["ops"].items()) ops.insert(k);
  for (const char* op : kOpOrder) {
    if (!ops.count(op)) continue;
    for (int s = 0; s < int(LatencyStat::kCount); ++s)
      rows.push_back(LatencyMetric(op, LatencyStat(s)));
  }
  // A figure no cell measured (instructions outside --instructions) gets no row.
  std::erase_if(rows, [&](const MetricDef& m) {
    return std::none_of(cells.begin(), cells.end(), [&](const CompareCell& c) {
      return !std::isnan(MetricValue(m, c.results));
    });
  });
  return rows;
}

double MetricValue(const MetricDef& m, const json& results) {
  return m.extract ? m.extract(results) : std::nan("");
}

Aggregate AggregateMetric(const std::vector<CompareCell>& cells, const MetricDef& m,
                          const std::string& column, const std::string& workload, int threads) {
  std::vector<double> v;
  Aggregate a;
  for (const auto& c : cells) {
    if (CellColumn(c) != column || CellWorkload(c) != workload || c.threads != threads) continue;
    double x = MetricValue(m, c.results);
    if (std::isnan(x)) continue;
    v.push_back(x);
    a.partial += CellIsPartial(c) ? 1 : 0;
  }
  a.n = int(v.size());
  if (v.empty()) {
    a.median = a.min = a.max = std::nan("");
    return a;
  }
  std::sort(v.begin(), v.end());
  a.min = v.front();
  a.max = v.back();
  a.median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  return a;
}

RatioInterval CompareRatio(const std::vector<CompareCell>& cells, const MetricDef& m,
                           const std::string& column, const std::string& baseline,
                           const std::string& workload, int threads) {
  const auto in = [&](const std::string& col) {
    return [&, col](const CompareCell& c) {
      return CellColumn(c) == col && CellWorkload(c) == workload && c.threads == threads;
    };
  };
  const auto x = RepeatValues(cells, m, in(column));
  const auto base = RepeatValues(cells, m, in(baseline));
  return SameRepeats(x, base) ? PairedRatioInterval(ValuesOf(x), ValuesOf(base))
                              : WelchRatioInterval(ValuesOf(x), ValuesOf(base));
}

std::vector<std::pair<std::string, int>> CompareGroups(const std::vector<CompareCell>& cells) {
  std::vector<std::pair<std::string, int>> g;
  for (const auto& c : cells) {
    std::pair<std::string, int> k{CellWorkload(c), c.threads};
    if (std::find(g.begin(), g.end(), k) == g.end()) g.push_back(k);
  }
  return g;
}

std::vector<std::string> CompareWorkloads(const std::vector<CompareCell>& cells) {
  std::vector<std::string> w;
  for (const auto& c : cells)
    if (std::find(w.begin(), w.end(), CellWorkload(c)) == w.end()) w.push_back(CellWorkload(c));
  return w;
}

std::vector<int> CompareThreadCounts(const std::vector<CompareCell>& cells, const std::string& wl) {
  std::vector<int> t;
  for (const auto& c : cells)
    if (CellWorkload(c) == wl && std::find(t.begin(), t.end(), c.threads) == t.end())
      t.push_back(c.threads);
  std::sort(t.begin(), t.end());
  return t;
}

CellCount CountCells(const std::vector<CompareCell>& cells, const std::string& column,
                     const std::string& workload, int threads) {
  CellCount n;
  for (const auto& c : cells) {
    if (CellColumn(c) != column || CellWorkload(c) != workload || c.threads != threads) continue;
    ++n.present;
    n.partial += CellIsPartial(c) ? 1 : 0;
  }
  return n;
}

}  // namespace wirebench
