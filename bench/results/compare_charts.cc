#include "bench/results/compare_charts.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bench/hdr/histogram_encoding.h"
#include "bench/hdr/percentile_distribution.h"

namespace wirebench {

namespace {

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

StatusOr<std::vector<std::string>> WriteCharts(const std::vector<CompareCell>& cells,
                                               const CompareReportOptions& o,
                                               const std::string& dir) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    return Status::Unavailable("gnuplot is not installed (scripts/install-deps installs it); "
                               "charts skipped, tables and data are written");
  std::vector<std::string> files;
  const std::vector<std::string> workloads = CompareWorkloads(cells);
  if (workloads.empty()) return files;
  const std::string wl = workloads.front();
  const std::vector<int> ts = CompareThreadCounts(cells, wl);
  const MetricDef& tput = MetricOf(Metric::kThroughput);
  const MetricDef& ccpu = MetricOf(Metric::kClientCpu);
  const MetricDef& scpu = MetricOf(Metric::kServerCpu);
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
  const std::string script = dir + "/charts.gp";
  std::ofstream(script) << gp.str();
  const std::string cmd = "gnuplot '" + script + "' 2>'" + dir + "/gnuplot.log'";
  if (std::system(cmd.c_str()) != 0)
    return Status::Internal("gnuplot failed; see " + dir + "/gnuplot.log");
  return files;
}

}  // namespace wirebench
