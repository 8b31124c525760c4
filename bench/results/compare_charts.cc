#include "bench/results/compare_charts.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
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
    if (CellColumn(c) != codec || c.workload != wl || c.threads != threads) continue;
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

  // Throughput: a bar per codec at one thread count, lines over a sweep.
  void Throughput() {
    if (ThroughputChartKind(cells_, wl_) == ChartKind::kBars) {
      ThroughputBars();
    } else {
      ThroughputLines();
    }
  }

  // Latency percentile distribution per codec (HdrHistogram style), at the
  // highest thread count.
  void Latency() {
    const int t = ts_.back();
    std::ostringstream plot;
    plot << "set title 'Latency by percentile, all operations (" << wl_ << ", " << t
         << " logical clients)'\nset xlabel 'percentile'\nset ylabel 'latency (us)'\nset logscale x\n"
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
      Check(d, f);
      plot << (first ? "" : ", ") << "'" << f << "' using 2:3 with lines lw 2 title '" << c << "'";
      first = false;
    }
    plot << "\n";
    if (!first) Render("latency-percentiles", plot.str());
  }

  // CPU per op, client and server stacked, per codec, at the highest thread count.
  void Cpu() {
    StackedBars("cpu-per-op", "CPU per operation", "CPU us per op", Metric::kClientCpu,
                Metric::kServerCpu, "%.2f");
  }

  // Instructions per op, stacked likewise, when a cell measured them.
  void Instructions() {
    if (MetricsWith(Metric::kClientInstructions) + MetricsWith(Metric::kServerInstructions) == 0)
      return;
    StackedBars("instructions-per-op", "User-space instructions per operation",
                "instructions per op", Metric::kClientInstructions, Metric::kServerInstructions,
                "%.0f");
  }

  // Runs gnuplot on the script; the files rendered, or why not.
  // A chart missing or empty afterwards (a full disk: gnuplot may leave a
  // 0-byte file and exit 0) is an error naming it.
  StatusOr<std::vector<std::string>> Draw() {
    const std::string script = dir_ + "/charts.gp";
    {
      std::ofstream gp(script);
      gp << gp_.str();
      Check(gp, script);
    }
    if (!unwritten_.empty()) return NotWritten("chart data");
    const std::string cmd = "gnuplot '" + script + "' 2>'" + dir_ + "/gnuplot.log'";
    if (std::system(cmd.c_str()) != 0)
      return Status::Internal("gnuplot failed; see " + dir_ + "/gnuplot.log");
    for (const auto& f : files_) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(f, ec);
      if (ec || size == 0) unwritten_.push_back(f);
    }
    if (!unwritten_.empty()) return NotWritten("charts");
    // gnuplot exits 0 on a full disk and a chart can be cut short at any
    // size: a file system left with no free block is taken as that.
    struct statvfs fs {};
    if (statvfs(dir_.c_str(), &fs) == 0 && fs.f_bavail == 0) {
      unwritten_ = files_;
      return NotWritten("charts");
    }
    return files_;
  }

 private:
  // Closes a data file, remembering it if any write to it failed.
  void Check(std::ofstream& d, const std::string& path) {
    d.close();
    if (d.fail()) unwritten_.push_back(path);
  }
  Status NotWritten(const std::string& what) {
    std::string list;
    for (const auto& f : unwritten_) list += (list.empty() ? "" : ", ") + f;
    return Status::IoError("cannot write the " + what + " (missing, empty or cut short: is " +
                           dir_ + "'s file system full? see " + dir_ + "/gnuplot.log): " + list);
  }

  // Renders `plot` as PNG and SVG.
  void Render(const std::string& base, const std::string& plot) {
    for (auto [term, ext] : {std::pair{"pngcairo size 960,600", "png"}, {"svg size 960,600", "svg"}}) {
      // Each chart starts from gnuplot's defaults: nothing leaks from the last.
      gp_ << "set terminal " << term << "\nset output '" << dir_ << "/" << base << "." << ext
          << "'\nreset\n" << kStyle << plot << "\n";
      files_.push_back(dir_ + "/" + base + "." + ext);
    }
  }

  // The shared look of the charts: a white background, grid lines under
  // the data, readable fonts.
  // Codec colours (Paul Tol's colour-blind-safe "bright" set, by column
  // order), light grid lines, no top or right border, literal text.
  static constexpr const char* kStyle =
      "set linetype 1 lc rgb '#4477aa' lw 2 pt 7\nset linetype 2 lc rgb '#ee6677' lw 2 pt 5\n"
      "set linetype 3 lc rgb '#228833' lw 2 pt 9\nset linetype 4 lc rgb '#ccbb44' lw 2 pt 11\n"
      "set linetype 5 lc rgb '#66ccee' lw 2 pt 13\nset linetype 6 lc rgb '#aa3377' lw 2 pt 7\n"
      "set linetype 7 lc rgb '#bbbbbb' lw 2 pt 5\nset linetype 8 lc rgb '#000000' lw 2 pt 9\n"
      "set linetype cycle 8\nset grid ytics lc rgb '#d8d8d8' lw 1 dt 1\nset border 3\n"
      "set tics nomirror\n"
      // Column names are printed as written: "pb@grpc" is no enhanced-text
      // overprint, "pb-arena_x" no subscript.
      "set termoption noenhanced\n";

  int MetricsWith(Metric m) const {
    int n = 0;
    for (const auto& c : cells_) n += std::isnan(MetricValue(MetricOf(m), c.results)) ? 0 : 1;
    return n;
  }

  // One bar per codec: median, with min-max error bars and the median
  // printed above each.
  void ThroughputBars() {
    const MetricDef& tput = MetricOf(Metric::kThroughput);
    const int t = ts_.front();
    std::ofstream d(dir_ + "/throughput.dat");
    d << "# codec median min max repeats\n";
    for (const auto& c : o_.codecs) {
      const Aggregate a = AggregateMetric(cells_, tput, c, wl_, t);
      d << "\"" << c << "\" " << a.median << " " << a.min << " " << a.max << " " << a.n << "\n";
    }
    Check(d, dir_ + "/throughput.dat");
    std::ostringstream plot;
    plot << "set title \"Throughput (" << wl_ << ", " << t
         << " logical clients)\\nbars: median over repeats, error bars: min-max\"\n"
         << "set ylabel 'ops/s'\nset yrange [0:*]\nset format y '%.0s%c'\nunset key\n"
         << "set style fill solid 0.85 border -1\nset boxwidth 0.6\n"
         << "set xrange [-0.6:" << o_.codecs.size() - 0.4 << "]\nset offsets 0,0,graph 0.08,0\n"
         << ColumnTics()
         << "plot '" << dir_ << "/throughput.dat' using 0:2:($0+1):xtic(1) with boxes lc variable, "
         << "'' using 0:2:3:4 with yerrorbars lc rgb 'black' lw 1.5 pt 0, "
         << "'' using 0:($4>$2?$4:$2):(sprintf('%.0f', $2)) with labels offset 0,1 font ',11'\n";
    Render("throughput", plot.str());
  }

  // Median throughput against thread count per codec, min-max error bars.
  void ThroughputLines() {
    const MetricDef& tput = MetricOf(Metric::kThroughput);
    std::ofstream d(dir_ + "/throughput.dat");
    d << "# threads, then per codec: median min max";
    for (const auto& c : o_.codecs) d << " " << c;
    d << "\n";
    for (int t : ts_) {
      d << t;
      for (const auto& c : o_.codecs) {
        const Aggregate a = AggregateMetric(cells_, tput, c, wl_, t);
        d << " " << a.median << " " << a.min << " " << a.max;
      }
      d << "\n";
    }
    Check(d, dir_ + "/throughput.dat");
    std::ostringstream plot;
    plot << "set title \"Throughput by logical clients (" << wl_
         << ")\\nmedian over repeats, error bars: min-max\"\nset xlabel 'logical clients'\n"
         << "set ylabel 'ops/s'\nset format y '%.0s%c'\nset key left top\n"
         << "set yrange [0:*]\nset logscale x 2\nset xtics (";
    for (size_t i = 0; i < ts_.size(); ++i) plot << (i ? ", " : "") << ts_[i];
    plot << ")\nset offsets graph 0.05, graph 0.05, 0, 0\nplot ";
    for (size_t i = 0; i < o_.codecs.size(); ++i)
      plot << (i ? ", " : "") << "'" << dir_ << "/throughput.dat' using 1:" << 3 * i + 2 << ":"
           << 3 * i + 3 << ":" << 3 * i + 4 << " with yerrorlines lw 2 title '" << o_.codecs[i]
           << "'";
    Render("throughput", plot.str());
  }

  // Client and server stacked per codec at the highest thread count, each
  // part's value inside it and the total above the bar.
  void StackedBars(const std::string& base, const std::string& title, const std::string& ylabel,
                   Metric client, Metric server, const std::string& fmt) {
    const int t = ts_.back();
    std::vector<std::pair<double, double>> parts;
    bool any = false;
    for (const auto& c : o_.codecs) {
      parts.emplace_back(AggregateMetric(cells_, MetricOf(client), c, wl_, t).median,
                         AggregateMetric(cells_, MetricOf(server), c, wl_, t).median);
      any = any || !std::isnan(parts.back().first) || !std::isnan(parts.back().second);
    }
    // No figure at all (every cell stopped before its first operation):
    // no chart, the tables say why.
    if (!any) return;
    // A part without a figure is drawn as 0 and the bar's label says so
    // (gnuplot cannot stack a series with no valid point).
    std::ofstream d(dir_ + "/" + base + ".dat");
    d << "# codec client server label (medians over repeats)\n";
    double tallest = 0;
    char total[64];
    for (size_t i = 0; i < parts.size(); ++i) {
      const auto [cl, sv] = parts[i];
      std::string label;
      if (std::isnan(cl) || std::isnan(sv)) {
        label = std::isnan(cl) && std::isnan(sv) ? "n/a" : std::isnan(cl) ? "client n/a" : "server n/a";
        if (!std::isnan(cl) || !std::isnan(sv)) {
          std::snprintf(total, sizeof total, fmt.c_str(), std::isnan(cl) ? sv : cl);
          label = std::string(total) + " (" + label + ")";
        }
      } else {
        std::snprintf(total, sizeof total, fmt.c_str(), cl + sv);
        label = total;
      }
      d << "\"" << o_.codecs[i] << "\" " << (std::isnan(cl) ? 0 : cl) << " "
        << (std::isnan(sv) ? 0 : sv) << " \"" << label << "\"\n";
      tallest = std::max(tallest, (std::isnan(cl) ? 0 : cl) + (std::isnan(sv) ? 0 : sv));
    }
    Check(d, dir_ + "/" + base + ".dat");
    const std::string f = dir_ + "/" + base + ".dat";
    // A part too thin to hold its label goes without one (the total shows).
    const auto part = [&](const std::string& value) {
      return "($" + value + " >= " + std::to_string(tallest * 0.05) + " ? sprintf('" + fmt +
             "', $" + value + ") : '')";
    };
    std::ostringstream plot;
    plot << "set title \"" << title << " (" << wl_ << ", " << t
         << " logical clients)\\nmedian over repeats\"\nset ylabel '" << ylabel << "'\n"
         << "set style data histograms\nset style histogram rowstacked\n" << ColumnTics()
         << "set style fill solid 0.85 border -1\nset boxwidth 0.6\nset key outside right top\n"
         << "set yrange [0:*]\nset offsets 0,0,graph 0.08,0\n"
         << "plot '" << f << "' using 2:xtic(1) title 'client' lc rgb '#4477aa', "
         << "'' using 3 title 'server' lc rgb '#ee6677', "
         << "'' using 0:($2/2):" << part("2") << " with labels tc rgb 'white' notitle, "
         << "'' using 0:($2+$3/2):" << part("3")
         << " with labels tc rgb 'white' notitle, "
         << "'' using 0:($2+$3):4 with labels offset 0,0.8 font ',11' notitle\n";
    Render(base, plot.str());
  }

  // Column names under bars: slanted when they would not fit side by side
  // (about 9 px a character in a plot area about 650 px wide, the key beside it).
  std::string ColumnTics() const {
    size_t longest = 0;
    for (const auto& c : o_.codecs) longest = std::max(longest, c.size());
    return longest * 9 * o_.codecs.size() > 650 ? "set xtics rotate by 25 right\n" : "";
  }

  const std::vector<CompareCell>& cells_;
  const CompareReportOptions& o_;
  const std::string dir_, wl_;
  const std::vector<int> ts_;
  std::ostringstream gp_;
  std::vector<std::string> files_;
  std::vector<std::string> unwritten_;  // Files whose writing failed.
};

}  // namespace

ChartKind ThroughputChartKind(const std::vector<CompareCell>& cells, const std::string& workload) {
  return CompareThreadCounts(cells, workload).size() > 1 ? ChartKind::kLines : ChartKind::kBars;
}

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
  charts.Instructions();
  return charts.Draw();
}

}  // namespace wirebench
