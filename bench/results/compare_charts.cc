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

// The gnuplot script of the charts of one workload, and the files it renders.
class Charts {
 public:
  Charts(const std::vector<CompareCell>& cells, const CompareReportOptions& o, std::string dir,
         std::string wl)
      : cells_(cells), o_(o), dir_(std::move(dir)), wl_(std::move(wl)),
        ts_(CompareThreadCounts(cells, wl_)) {}

  // Throughput against threads per codec.
  void Throughput() {
    const MetricDef& tput = MetricOf(Metric::kThroughput);
    std::ofstream d(dir_ + "/throughput.dat");
    d << "# threads";
    for (const auto& c : o_.codecs) d << " " << c;
    d << "\n";
    for (int t : ts_) {
      d << t;
      for (const auto& c : o_.codecs) d << " " << AggregateMetric(cells_, tput, c, wl_, t).median;
      d << "\n";
    }
    std::ostringstream plot;
    plot << "set title 'Throughput by logical clients (" << wl_ << ")'\nset xlabel 'logical clients'\n"
         << "set ylabel 'ops/s'\nset key left top\nset grid\nset yrange [0:*]\n";
    if (ts_.size() > 1) plot << "set logscale x 2\n";
    plot << "plot ";
    for (size_t i = 0; i < o_.codecs.size(); ++i)
      plot << (i ? ", " : "") << "'" << dir_ << "/throughput.dat' using 1:" << i + 2
           << " with linespoints lw 2 title '" << o_.codecs[i] << "'";
    plot << "\nunset logscale x\n";
    Render("throughput", plot.str());
  }

  // Latency percentile distribution per codec (HdrHistogram style), at the
  // highest thread count.
  void Latency() {
    const int t = ts_.back();
    std::ostringstream plot;
    plot << "set title 'Latency by percentile, all operations (" << wl_ << ", " << t
         << " clients)'\nset xlabel 'percentile'\nset ylabel 'latency (us)'\nset logscale x\n"
         << "set xtics ('0%%' 1, '90%%' 10, '99%%' 100, '99.9%%' 1000, '99.99%%' 10000, "
            "'99.999%%' 100000)\nset logscale y\nset key left top\nset grid\nplot ";
    bool first = true;
    for (const auto& c : o_.codecs) {
      hdr::Histogram h = MergedLatency(cells_, c, wl_, t);
      if (h.total_count() == 0) continue;
      std::string f = dir_ + "/latency-" + c + ".dat";
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
    if (!first) Render("latency-percentiles", plot.str());
  }

  // CPU per op, client and server stacked, per codec, at the highest thread count.
  void Cpu() {
    const int t = ts_.back();
    std::ofstream d(dir_ + "/cpu.dat");
    d << "# codec client_us server_us\n";
    for (const auto& c : o_.codecs)
      d << c << " " << AggregateMetric(cells_, MetricOf(Metric::kClientCpu), c, wl_, t).median
        << " " << AggregateMetric(cells_, MetricOf(Metric::kServerCpu), c, wl_, t).median << "\n";
    std::ostringstream plot;
    plot << "set title 'CPU per operation (" << wl_ << ", " << t << " clients)'\n"
         << "set xlabel 'codec'\nset ylabel 'CPU us per op'\nset style data histograms\n"
         << "set style histogram rowstacked\nset style fill solid 0.8 border -1\n"
         << "set boxwidth 0.6\nset key left top\nset grid y\nset yrange [0:*]\nplot '" << dir_
         << "/cpu.dat' using 2:xtic(1) title 'client', '' using 3 title 'server'\nunset style\n";
    Render("cpu-per-op", plot.str());
  }

  // Runs gnuplot on the script; the files rendered, or why not.
  StatusOr<std::vector<std::string>> Draw() {
    const std::string script = dir_ + "/charts.gp";
    std::ofstream(script) << gp_.str();
    const std::string cmd = "gnuplot '" + script + "' 2>'" + dir_ + "/gnuplot.log'";
    if (std::system(cmd.c_str()) != 0)
      return Status::Internal("gnuplot failed; see " + dir_ + "/gnuplot.log");
    return files_;
  }

 private:
  // Renders `plot` as PNG and SVG.
  void Render(const std::string& base, const std::string& plot) {
    for (auto [term, ext] : {std::pair{"pngcairo size 960,600", "png"}, {"svg size 960,600", "svg"}}) {
      gp_ << "set terminal " << term << "\nset output '" << dir_ << "/" << base << "." << ext
          << "'\n" << plot << "\n";
      files_.push_back(dir_ + "/" + base + "." + ext);
    }
  }

  const std::vector<CompareCell>& cells_;
  const CompareReportOptions& o_;
  const std::string dir_, wl_;
  const std::vector<int> ts_;
  std::ostringstream gp_;
  std::vector<std::string> files_;
};

}  // namespace

StatusOr<std::vector<std::string>> WriteCharts(const std::vector<CompareCell>& cells,
                                               const CompareReportOptions& o,
                                               const std::string& dir) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    return Status::Unavailable("gnuplot is not installed (scripts/install-deps installs it); "
                               "charts skipped, tables and data are written");
  const std::vector<std::string> workloads = CompareWorkloads(cells);
  if (workloads.empty()) return std::vector<std::string>{};
  Charts charts(cells, o, dir, workloads.front());
  charts.Throughput();
  charts.Latency();
  charts.Cpu();
  return charts.Draw();
}

}  // namespace wirebench
