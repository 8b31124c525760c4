#include "bench/results/compare_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "bench/hdr/histogram_encoding.h"
#include "bench/hdr/percentile_distribution.h"
#include "bench/results/instruction_report.h"

namespace wirebench {

namespace {

const char* kOpOrder[] = {"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "DELETE",
                          "FLUSH"};

struct Row {
  MetricDef m;
  bool higher_is_better = false;
};

std::vector<Row> Rows(const std::vector<CompareCell>& cells) {
  std::vector<Row> rows;
  for (const MetricDef& m : InstructionMetrics(cells)) rows.push_back({m, false});  // Hook.
  rows.push_back({{"Throughput (ops/s)", "", "/throughput_ops_per_sec"}, true});
  std::set<std::string> ops;
  for (const auto& c : cells)
    if (c.results.contains("ops"))
      for (auto& [k, v] : c.results["ops"].items()) ops.insert(k);
  for (const char* op : kOpOrder) {
    if (!ops.count(op)) continue;
    const std::string base = std::string("/ops/") + op + "/latency/";
    for (auto [label, field] : {std::pair{"avg", "average_us"}, {"p50", "p50_us"},
                                {"p95", "p95_us"}, {"p99", "p99_us"}, {"max", "max_us"}})
      rows.push_back({{std::string(op) + " " + label + " latency (us)", op, base + field}, false});
  }
  auto cost = [&](const char* name, const char* path) { rows.push_back({{name, "", path}, false}); };
  cost("Client CPU (us/op)", "/costs/client/cpu_us_per_op");
  cost("Server CPU (us/op)", "/costs/server/cpu_us_per_op");
  cost("Total CPU (us/op)", "/costs/total_cpu_us_per_op");
  cost("Client allocations/op", "/costs/client/allocs_per_op");
  cost("Client allocated bytes/op", "/costs/client/alloc_bytes_per_op");
  cost("Server allocations/op", "/costs/server/allocs_per_op");
  cost("Server allocated bytes/op", "/costs/server/alloc_bytes_per_op");
  cost("Client payload bytes copied/op",
       "/costs/client/encode_copied_bytes_per_op+/costs/client/decode_copied_bytes_per_op");
  cost("Server payload bytes copied/op",
       "/costs/server/encode_copied_bytes_per_op+/costs/server/decode_copied_bytes_per_op");
  cost("Wire bytes/op client->server", "/costs/client/wire_bytes_out_per_op");
  cost("Wire bytes/op server->client", "/costs/client/wire_bytes_in_per_op");
  cost("Client context switches/op",
       "/costs/client/voluntary_switches_per_op+/costs/client/involuntary_switches_per_op");
  cost("Server context switches/op",
       "/costs/server/voluntary_switches_per_op+/costs/server/involuntary_switches_per_op");
  return rows;
}

std::string Fmt(double v) {
  if (std::isnan(v)) return "n/a";
  char buf[64];
  double a = std::fabs(v);
  if (a >= 10000) {
    std::snprintf(buf, sizeof(buf), "%.0f", v);
  } else if (a >= 100) {
    std::snprintf(buf, sizeof(buf), "%.1f", v);
  } else if (a >= 1) {
    std::snprintf(buf, sizeof(buf), "%.2f", v);
  } else {
    std::snprintf(buf, sizeof(buf), "%.3f", v);
  }
  return buf;
}

std::string Spread(const Aggregate& a) {
  if (a.n < 2) return "";
  if (std::fabs(a.median) < 0.0005) {
    // A median that prints as 0: say how far the other repeats were from it.
    return a.max > 0.0005 ? " (max " + Fmt(a.max) + ")" : "";
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), " ±%.0f%%", 50.0 * (a.max - a.min) / std::fabs(a.median));
  return buf;
}

std::vector<std::pair<std::string, int>> Groups(const std::vector<CompareCell>& cells) {
  std::vector<std::pair<std::string, int>> g;
  for (const auto& c : cells) {
    std::pair<std::string, int> k{c.workload, c.threads};
    if (std::find(g.begin(), g.end(), k) == g.end()) g.push_back(k);
  }
  return g;
}

std::vector<std::string> Workloads(const std::vector<CompareCell>& cells) {
  std::vector<std::string> w;
  for (const auto& c : cells)
    if (std::find(w.begin(), w.end(), c.workload) == w.end()) w.push_back(c.workload);
  return w;
}

std::vector<int> ThreadCounts(const std::vector<CompareCell>& cells, const std::string& wl) {
  std::vector<int> t;
  for (const auto& c : cells)
    if (c.workload == wl && std::find(t.begin(), t.end(), c.threads) == t.end())
      t.push_back(c.threads);
  std::sort(t.begin(), t.end());
  return t;
}

// All operations' latency histograms of one codec/workload/threads, merged
// over repeats.
hdr::Histogram MergedLatency(const std::vector<CompareCell>& cells, const std::string& codec,
                             const std::string& wl, int threads) {
  hdr::Histogram h;
  for (const auto& c : cells) {
    if (c.codec != codec || c.workload != wl || c.threads != threads) continue;
    if (!c.results.contains("ops")) continue;
    for (auto& [op, v] : c.results["ops"].items()) {
      if (!v.contains("latency")) continue;
      auto d = hdr::DecodeCompressedBase64(v["latency"].value("histogram_ns", std::string()));
      if (d.ok()) h.Add(*d);
    }
  }
  return h;
}

}  // namespace

std::vector<MetricDef> MetricsFor(const std::vector<CompareCell>& cells) {
  std::vector<MetricDef> out;
  for (const Row& r : Rows(cells)) out.push_back(r.m);
  return out;
}

double MetricValue(const MetricDef& m, const nlohmann::json& results) {
  double sum = 0;
  std::stringstream ss(m.field);
  std::string part;
  bool any = false;
  while (std::getline(ss, part, '+')) {
    nlohmann::json::json_pointer p(part);
    if (!results.contains(p) || !results[p].is_number()) return std::nan("");
    sum += results[p].get<double>();
    any = true;
  }
  return any ? sum : std::nan("");
}

Aggregate AggregateMetric(const std::vector<CompareCell>& cells, const MetricDef& m,
                          const std::string& codec, const std::string& workload, int threads) {
  std::vector<double> v;
  for (const auto& c : cells) {
    if (c.codec != codec || c.workload != workload || c.threads != threads) continue;
    double x = MetricValue(m, c.results);
    if (!std::isnan(x)) v.push_back(x);
  }
  Aggregate a;
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

std::string CompareMarkdown(const std::vector<CompareCell>& cells, const CompareReportOptions& o) {
  std::ostringstream os;
  os << "# " << (o.title.empty() ? "wirebench codec comparison" : o.title) << "\n\n";
  if (!o.setup.empty()) os << o.setup << "\n\n";
  os << "Each figure is the median over repeats; ±x% is half the min-max spread. "
        "Ratios are against `" << o.baseline << "` (below 1 is cheaper for cost rows).\n\n";
  const std::vector<Row> rows = Rows(cells);
  const bool have_baseline =
      std::find(o.codecs.begin(), o.codecs.end(), o.baseline) != o.codecs.end();
  for (auto& [wl, threads] : Groups(cells)) {
    os << "## " << wl << ", " << threads << " logical clients\n\n| metric |";
    for (const auto& c : o.codecs) os << " " << c << " |";
    os << "\n|---|";
    for (size_t i = 0; i < o.codecs.size(); ++i) os << "---:|";
    os << "\n";
    for (const Row& r : rows) {
      std::vector<Aggregate> aggs;
      bool any = false;
      for (const auto& c : o.codecs) {
        aggs.push_back(AggregateMetric(cells, r.m, c, wl, threads));
        any = any || aggs.back().n > 0;
      }
      if (!any) continue;
      os << "| " << r.m.name << " |";
      for (const auto& a : aggs) os << " " << Fmt(a.median) << Spread(a) << " |";
      os << "\n";
      const bool ratio_row = r.m.name.rfind("Throughput", 0) == 0 ||
                             r.m.name.rfind("Total instructions", 0) == 0 ||
                             r.m.name.rfind("Total CPU", 0) == 0 ||
                             r.m.name.find("p99 latency") != std::string::npos;
      if (ratio_row && have_baseline) {
        const Aggregate base = AggregateMetric(cells, r.m, o.baseline, wl, threads);
        os << "| " << r.m.name << " vs " << o.baseline << " |";
        for (const auto& a : aggs) {
          if (base.n == 0 || base.median == 0 || a.n == 0) {
            os << " n/a |";
          } else {
            char buf[32];
            std::snprintf(buf, sizeof(buf), " %.2fx |", a.median / base.median);
            os << buf;
          }
        }
        os << "\n";
      }
    }
    os << "\n";
  }
  // Thread sweeps: one row per thread count, one column per codec, % vs baseline.
  for (const std::string& wl : Workloads(cells)) {
    std::vector<int> ts = ThreadCounts(cells, wl);
    if (ts.size() < 2) continue;
    const MetricDef tput{"Throughput (ops/s)", "", "/throughput_ops_per_sec"};
    const MetricDef cpu{"Total CPU (us/op)", "", "/costs/total_cpu_us_per_op"};
    for (const MetricDef* m : {&tput, &cpu}) {
      os << "## " << wl << ": " << m->name << " by thread count\n\n| threads |";
      for (const auto& c : o.codecs) os << " " << c << " |";
      if (have_baseline)
        for (const auto& c : o.codecs)
          if (c != o.baseline) os << " " << c << " vs " << o.baseline << " |";
      os << "\n|---:|";
      size_t ncols = o.codecs.size() + (have_baseline ? o.codecs.size() - 1 : 0);
      for (size_t i = 0; i < ncols; ++i) os << "---:|";
      os << "\n";
      for (int t : ts) {
        os << "| " << t << " |";
        for (const auto& c : o.codecs) os << " " << Fmt(AggregateMetric(cells, *m, c, wl, t).median) << " |";
        if (have_baseline) {
          double base = AggregateMetric(cells, *m, o.baseline, wl, t).median;
          for (const auto& c : o.codecs) {
            if (c == o.baseline) continue;
            double v = AggregateMetric(cells, *m, c, wl, t).median;
            char buf[32];
            std::snprintf(buf, sizeof(buf), " %+.1f%% |", 100.0 * (v - base) / base);
            os << (base > 0 ? buf : " n/a |");
          }
        }
        os << "\n";
      }
      os << "\n";
    }
  }
  return os.str();
}

std::string CompareCsv(const std::vector<CompareCell>& cells, const CompareReportOptions& o) {
  std::ostringstream os;
  os << "workload,threads,metric";
  for (const auto& c : o.codecs) os << "," << c << "," << c << "_min," << c << "_max";
  os << "\n";
  const std::vector<Row> rows = Rows(cells);
  for (auto& [wl, threads] : Groups(cells)) {
    for (const Row& r : rows) {
      os << wl << "," << threads << ",\"" << r.m.name << "\"";
      for (const auto& c : o.codecs) {
        Aggregate a = AggregateMetric(cells, r.m, c, wl, threads);
        os << "," << (a.n ? Fmt(a.median) : "") << "," << (a.n ? Fmt(a.min) : "") << ","
           << (a.n ? Fmt(a.max) : "");
      }
      os << "\n";
    }
  }
  return os.str();
}

nlohmann::json CompareJson(const std::vector<CompareCell>& cells, const CompareReportOptions& o) {
  nlohmann::json j;
  j["codecs"] = o.codecs;
  j["baseline"] = o.baseline;
  j["setup"] = o.setup;
  nlohmann::json tables = nlohmann::json::array();
  const std::vector<Row> rows = Rows(cells);
  for (auto& [wl, threads] : Groups(cells)) {
    nlohmann::json t;
    t["workload"] = wl;
    t["threads"] = threads;
    for (const Row& r : rows) {
      for (const auto& c : o.codecs) {
        Aggregate a = AggregateMetric(cells, r.m, c, wl, threads);
        if (a.n == 0) continue;
        t["metrics"][r.m.name][c] = {{"median", a.median}, {"min", a.min}, {"max", a.max}, {"n", a.n}};
      }
    }
    tables.push_back(t);
  }
  j["tables"] = tables;
  nlohmann::json raw = nlohmann::json::array();
  for (const auto& c : cells)
    raw.push_back({{"codec", c.codec}, {"workload", c.workload}, {"threads", c.threads},
                   {"repeat", c.repeat}, {"results", c.results}});
  j["cells"] = raw;
  return j;
}

StatusOr<std::vector<std::string>> WriteCharts(const std::vector<CompareCell>& cells,
                                               const CompareReportOptions& o,
                                               const std::string& dir) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    return Status::Unavailable("gnuplot is not installed (scripts/install-deps installs it); "
                               "charts skipped, tables and data are written");
  std::vector<std::string> files;
  const std::vector<std::string> workloads = Workloads(cells);
  if (workloads.empty()) return files;
  const std::string wl = workloads.front();
  const std::vector<int> ts = ThreadCounts(cells, wl);
  const MetricDef tput{"Throughput (ops/s)", "", "/throughput_ops_per_sec"};
  const MetricDef ccpu{"Client CPU", "", "/costs/client/cpu_us_per_op"};
  const MetricDef scpu{"Server CPU", "", "/costs/server/cpu_us_per_op"};
  std::ostringstream gp;
  auto terminals = [&](const std::string& base, const std::string& plot) {
    for (auto [term, ext] : {std::pair{"pngcairo size 960,600", "png"}, {"svg size 960,600", "svg"}}) {
      gp << "set terminal " << term << "\nset output '" << dir << "/" << base << "." << ext
         << "'\n" << plot << "\n";
      files.push_back(dir + "/" + base + "." + ext);
    }
  };
  // 1. Throughput against threads per codec.
  {
    std::ofstream d(dir + "/throughput.dat");
    d << "# threads";
    for (const auto& c : o.codecs) d << " " << c;
    d << "\n";
    for (int t : ts) {
      d << t;
      for (const auto& c : o.codecs) d << " " << AggregateMetric(cells, tput, c, wl, t).median;
      d << "\n";
    }
    std::ostringstream plot;
    plot << "set title 'Throughput by logical clients (" << wl << ")'\nset xlabel 'logical clients'\n"
         << "set ylabel 'ops/s'\nset key left top\nset grid\nset yrange [0:*]\n";
    if (ts.size() > 1) plot << "set logscale x 2\n";
    plot << "plot ";
    for (size_t i = 0; i < o.codecs.size(); ++i)
      plot << (i ? ", " : "") << "'" << dir << "/throughput.dat' using 1:" << i + 2
           << " with linespoints lw 2 title '" << o.codecs[i] << "'";
    plot << "\nunset logscale x\n";
    terminals("throughput", plot.str());
  }
  // 2. Latency percentile distribution per codec (HdrHistogram style).
  {
    const int t = ts.back();
    std::ostringstream plot;
    plot << "set title 'Latency by percentile, all operations (" << wl << ", " << t
         << " clients)'\nset xlabel 'percentile'\nset ylabel 'latency (us)'\nset logscale x\n"
         << "set xtics ('0%%' 1, '90%%' 10, '99%%' 100, '99.9%%' 1000, '99.99%%' 10000, "
            "'99.999%%' 100000)\nset logscale y\nset key left top\nset grid\nplot ";
    bool first = true;
    for (const auto& c : o.codecs) {
      hdr::Histogram h = MergedLatency(cells, c, wl, t);
      if (h.total_count() == 0) continue;
      std::string f = dir + "/latency-" + c + ".dat";
      std::ofstream d(f);
      d << "# percentile 1/(1-p) latency_us\n";
      for (const auto& p : hdr::PercentileDistribution(h)) {
        if (p.percentile >= 100.0) continue;
        d << p.percentile << " " << 1.0 / (1.0 - p.percentile / 100.0) << " "
          << double(p.value) / 1000.0 << "\n";
      }
      plot << (first ? "" : ", ") << "'" << f << "' using 2:3 with lines lw 2 title '" << c << "'";
      first = false;
    }
    plot << "\nunset logscale x\nunset logscale y\nset xtics autofreq\n";
    if (!first) terminals("latency-percentiles", plot.str());
  }
  // 3. CPU per op, client and server stacked, per codec.
  {
    const int t = ts.back();
    std::ofstream d(dir + "/cpu.dat");
    d << "# codec client_us server_us\n";
    for (const auto& c : o.codecs)
      d << c << " " << AggregateMetric(cells, ccpu, c, wl, t).median << " "
        << AggregateMetric(cells, scpu, c, wl, t).median << "\n";
    std::ostringstream plot;
    plot << "set title 'CPU per operation (" << wl << ", " << t << " clients)'\n"
         << "set xlabel 'codec'\nset ylabel 'CPU us per op'\nset style data histograms\nset style histogram rowstacked\n"
         << "set style fill solid 0.8 border -1\nset boxwidth 0.6\nset key left top\nset grid y\n"
         << "set yrange [0:*]\nplot '" << dir << "/cpu.dat' using 2:xtic(1) title 'client', '' using 3 "
         << "title 'server'\nunset style\n";
    terminals("cpu-per-op", plot.str());
  }
  // 4. Instructions per op by side and layer (--instructions; hook).
  if (std::string p = InstructionChartPlot(cells, o, dir, wl, ts.back()); !p.empty())
    terminals("instructions-per-op", p);
  const std::string script = dir + "/charts.gp";
  std::ofstream(script) << gp.str();
  const std::string cmd = "gnuplot '" + script + "' 2>'" + dir + "/gnuplot.log'";
  if (std::system(cmd.c_str()) != 0)
    return Status::Internal("gnuplot failed; see " + dir + "/gnuplot.log");
  return files;
}

}  // namespace wirebench
