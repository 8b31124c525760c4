#include "bench/results/compare_charts.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "hdr/histogram_encoding.h"
#include "hdr/percentile_distribution.h"

namespace wirebench {

namespace {

// The measured operations' latency histograms of one codec/workload/threads
// (every operation type but CLEANUP), merged over repeats.
hdr::Histogram MergedLatency(const std::vector<CompareCell>& cells, const std::string& codec,
                             const std::string& wl, int threads) {
  hdr::Histogram h;
  for (const auto& c : cells) {
    if (CellColumn(c) != codec || CellWorkload(c) != wl || c.threads != threads) continue;
    if (!c.results.contains("ops")) continue;
    for (auto& [op, v] : c.results["ops"].items()) {
      // CLEANUP is the clients' closing, not a measured operation: its
      // near-zero samples would pull every curve's low percentiles down.
      // SCAN-LATENCY-PER-RECORD is SCAN's latency again, divided.
      if (op == "CLEANUP" || op == "SCAN-LATENCY-PER-RECORD" || !v.contains("latency")) continue;
      auto d = hdr::DecodeCompressedBase64(v["latency"].value("histogram_ns", std::string()));
      if (d.ok()) h.Add(*d);
    }
  }
  return h;
}

// A value as a tick label with `decimals` places, trailing zeros dropped,
// k or M by its own magnitude ("800k", "1.5M"); sets *exact when the label
// says the value exactly.
std::string TickText(double v, int decimals, bool* exact) {
  *exact = true;
  if (v == 0) return "0";
  const double a = std::fabs(v);
  const double scale = a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
  const char* suffix = a >= 1e6 ? "M" : a >= 1e3 ? "k" : "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v / scale);
  *exact = std::fabs(std::strtod(buf, nullptr) * scale - v) <= 1e-9 * a;
  std::string t = buf;
  if (t.find('.') != std::string::npos) {
    while (t.back() == '0') t.pop_back();
    if (t.back() == '.') t.pop_back();
  }
  return t + suffix;
}

// Labels for `values` with the fewest decimals that say every value
// exactly (ticks are round numbers) and keep every label distinct.
std::vector<std::string> DistinctLabels(const std::vector<double>& values) {
  std::vector<std::string> labels;
  for (int decimals = 0; decimals <= 9; ++decimals) {
    labels.clear();
    bool exact = true;
    for (double v : values) {
      bool e = true;
      labels.push_back(TickText(v, decimals, &e));
      exact = exact && e;
    }
    std::vector<std::string> sorted = labels;
    std::sort(sorted.begin(), sorted.end());
    if (exact && std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) break;
  }
  return labels;
}

}  // namespace

AxisTicks ChooseTicks(double lo, double hi, bool log) {
  AxisTicks a;
  a.log = log;
  if (!(hi > 0) || !std::isfinite(hi) || std::isnan(lo) || (log && !std::isfinite(lo))) {
    a.lo = 0;
    a.hi = 1;
    a.values = {0, 0.5, 1};
  } else if (log) {
    lo = lo > 0 ? lo : hi / 10;
    const int d0 = int(std::floor(std::log10(lo) + 1e-9));
    const int d1 = int(std::ceil(std::log10(hi) - 1e-9));
    // 1-2-5 per decade over up to two decades of data, decades only beyond.
    const std::vector<double> steps =
        hi / lo <= 100 ? std::vector<double>{1, 2, 5} : std::vector<double>{1};
    std::vector<double> all;
    for (int d = d0; d <= d1 + 1; ++d)
      for (double m : steps) all.push_back(m * std::pow(10.0, d));
    // The range: the ticks just outside the data.
    a.lo = all.front();
    a.hi = all.back();
    for (double t : all)
      if (t <= lo * (1 + 1e-9)) a.lo = t;
    for (auto it = all.rbegin(); it != all.rend(); ++it)
      if (*it >= hi * (1 - 1e-9)) a.hi = *it;
    if (a.hi <= a.lo) a.hi = a.lo * 10;
    for (double t : all)
      if (t >= a.lo * (1 - 1e-9) && t <= a.hi * (1 + 1e-9)) a.values.push_back(t);
  } else {
    // From 0 to above the data, 4-8 steps of 1, 2, 2.5 or 5 x 10^k.
    const double raw = hi * 1.08 / 5;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * p;
    for (double m : {1.0, 2.0, 2.5, 5.0})
      if (m * p >= raw) {
        step = m * p;
        break;
      }
    a.lo = 0;
    const int n = int(std::ceil(hi * 1.08 / step - 1e-9));
    a.hi = n * step;
    for (int i = 0; i <= n; ++i) a.values.push_back(i * step);
  }
  a.labels = DistinctLabels(a.values);
  return a;
}

std::string TicsCommand(const std::string& axis, const AxisTicks& a) {
  std::ostringstream os;
  os << "set " << axis << "tics (";
  for (size_t i = 0; i < a.values.size(); ++i)
    os << (i ? ", " : "") << "\"" << a.labels[i] << "\" " << a.values[i];
  os << ")\n";
  return os.str();
}

namespace {

// One point of a sweep: its x value and label, and the group of cells
// (CellWorkload, threads) behind it.
// Where a sweep chart's panels end and its key's strip starts (a fraction
// of the `width` px picture): the strip is as wide as the longest column
// label (about 9 px a character, after a sample and gap of some 60 px, and
// a margin), so "cellblock@hbase" is not cut.
double KeyStripLeft(const std::vector<std::string>& cols, int width) {
  size_t longest = 0;
  for (const std::string& c : cols) longest = std::max(longest, c.size());
  return std::min(0.86, 1.0 - (9.0 * double(longest) + 80.0) / width);
}

// A sweep chart's multiplot of `panels` side by side, ending at `right`
// with the key beside them. A lone panel is drawn narrower (960 px): its
// left margin is widened to hold the tick labels and the y label. A title
// of more than two lines pushes the panels down a line each.
std::string MultiplotHeader(const std::string& title, size_t panels, double right) {
  size_t title_lines = 1;
  for (size_t at = title.find("\\n"); at != std::string::npos; at = title.find("\\n", at + 2))
    ++title_lines;
  const double top = 0.84 - 0.035 * double(std::max<size_t>(title_lines, 2) - 2);
  std::ostringstream out;
  out << "set datafile missing '?'\nset multiplot layout 1," << panels << " title \"" << title
      << "\" margins " << (panels > 1 ? "0.07" : "0.1") << "," << right << ",0.11," << top
      << " spacing 0.07,0.1\n";
  return out.str();
}

struct SweepPoint {
  double x = 0;
  std::string label;
  std::string workload;
  int threads = 0;
};

// A panel of a sweep chart: one line per column.
struct SweepPanel {
  std::string title, ylabel;
  // The value of a column at a point; NaN when it has none.
  std::function<double(const std::string& column, const SweepPoint& p)> value;
};

// The gnuplot script of the charts of one workload, and the files it renders.
class Charts {
 public:
  Charts(const std::vector<CompareCell>& cells, const CompareReportOptions& o, std::string dir)
      : cells_(cells), o_(o), dir_(std::move(dir)) {
    static const nlohmann::json::json_pointer kCallgrind("/instructions/client/total");
    for (const CompareCell& c : cells_) valgrind_ = valgrind_ || c.results.contains(kCallgrind);
  }

  // The workload (CellWorkload: a record size is its own) the next charts
  // are of; `suffix` ends their file names ("" for the only workload).
  void ForWorkload(const std::string& wl, const std::string& suffix) {
    wl_ = wl;
    ts_ = CompareThreadCounts(cells_, wl_);
    suffix_ = suffix;
  }

  // The points of the thread sweep of workload `wl` (one per thread count).
  std::vector<SweepPoint> ThreadPoints(const std::string& wl) const {
    std::vector<SweepPoint> points;
    for (int t : CompareThreadCounts(cells_, wl))
      points.push_back(SweepPoint{double(t), std::to_string(t), wl, t});
    return points;
  }

  // A thread sweep's costs and latency against the thread count, one line
  // per column: CPU per op (client, server), p50/p99 latency of all
  // operations, instructions per op when measured.
  void ThreadSweep() {
    const std::vector<SweepPoint> points = ThreadPoints(wl_);
    if (points.size() < 2) return;
    const std::string x = "logical clients";
    const std::string at = " (" + wl_ + ")";
    CostPanels("cpu-per-op" + suffix_,
               "CPU per operation by logical clients" + at + kMedians + Under(), x, points,
               Metric::kClientCpu, Metric::kServerCpu, "CPU us per op");
    LatencyPanels("latency-by-clients" + suffix_,
                  "Latency of the measured operations by logical clients" + at +
                      "\\nall measured operations of all repeats merged (not CLEANUP)" + Under(),
                  x, points);
    if (MetricsWith(Metric::kClientInstructions) + MetricsWith(Metric::kServerInstructions) > 0)
      CostPanels("instructions-per-op" + suffix_,
                 "User-space instructions per operation by logical clients" + at + kMedians, x,
                 points, Metric::kClientInstructions, Metric::kServerInstructions,
                 "instructions per op");
  }

  // Record-size sweeps (--fieldlengths, --fieldcounts) of the cells'
  // workloads: per workload, thread count and (when both are swept)
  // fieldcount, CPU, instructions (when measured) and bytes copied per op
  // against the swept size, log x, one line per column.
  void SizeSweeps() {
    // (workload, threads, fixed dimension) -> points.
    struct Series {
      std::string workload;  // With its swept pipeline depth or batch size (CallVariant).
      int threads;
      int fixed;  // The fieldcount of a fieldlength sweep (0: the workload's).
      bool by_length;
      std::vector<SweepPoint> points;
    };
    std::vector<Series> series;
    for (const auto& c : cells_) {
      if (c.fieldcount <= 0 && c.fieldlength <= 0) continue;
      const bool by_length = c.fieldlength > 0;
      const int fixed = by_length ? c.fieldcount : 0;
      const std::string workload = CallVariant(c.workload, c);
      auto it = std::find_if(series.begin(), series.end(), [&](const Series& s) {
        return s.workload == workload && s.threads == c.threads && s.fixed == fixed &&
               s.by_length == by_length;
      });
      if (it == series.end()) {
        series.push_back(Series{workload, c.threads, fixed, by_length, {}});
        it = series.end() - 1;
      }
      const double x = by_length ? c.fieldlength : c.fieldcount;
      if (std::none_of(it->points.begin(), it->points.end(),
                       [&](const SweepPoint& p) { return p.x == x; }))
        it->points.push_back(SweepPoint{x, std::to_string(int64_t(x)), CellWorkload(c), c.threads});
    }
    std::erase_if(series, [](const Series& s) { return s.points.size() < 2; });
    for (Series& s : series) {
      std::sort(s.points.begin(), s.points.end(),
                [](const SweepPoint& a, const SweepPoint& b) { return a.x < b.x; });
      const std::string suffix =
          series.size() == 1 ? ""
                             : "-" + s.workload + "-t" + std::to_string(s.threads) +
                                   (s.fixed > 0 ? "-" + std::to_string(s.fixed) + "f" : "");
      const std::string x =
          s.by_length ? "bytes per field (fieldlength)" +
                            (s.fixed > 0 ? ", " + std::to_string(s.fixed) + " fields per record"
                                         : std::string())
                      : "fields per record (fieldcount)";
      const std::string at = " (" + s.workload + ", " + std::to_string(s.threads) + " logical clients)";
      CostPanels("cpu-by-size" + suffix, "CPU per operation by record size" + at + kMedians + Under(), x,
                 s.points,
                 Metric::kClientCpu, Metric::kServerCpu, "CPU us per op");
      if (MetricsWith(Metric::kClientInstructions) + MetricsWith(Metric::kServerInstructions) > 0)
        CostPanels("instructions-by-size" + suffix,
                   "User-space instructions per operation by record size" + at + kMedians, x,
                   s.points,
                   Metric::kClientInstructions, Metric::kServerInstructions,
                   "instructions per op");
      CostPanels("copied-by-size" + suffix,
                 "Payload bytes copied per operation by record size" + at + kMedians, x, s.points,
                 Metric::kClientCopied, Metric::kServerCopied, "bytes copied per op");
    }
  }

  // Pipeline-depth and batch-size sweeps (--pipelines, --batches): per
  // workload (with its record size) and thread count, against the depth on
  // a log x, one line per column: CPU, instructions (when measured),
  // allocations, bytes copied and wire bytes per operation, latency (p50,
  // p99) and throughput.
  void DepthSweeps() {
    for (const CallSweep& sweep : CallSweeps()) DepthSweeps(sweep);
  }

  void DepthSweeps(const CallSweep& sweep) {
    struct Series {
      std::string workload;  // RecordVariant: the record size is fixed along a series.
      int threads;
      std::vector<SweepPoint> points;
    };
    std::vector<Series> series;
    for (const auto& c : cells_) {
      const int depth = c.*sweep.field;
      if (depth <= 0) continue;
      const std::string workload = RecordVariant(c.workload, c.fieldcount, c.fieldlength);
      auto it = std::find_if(series.begin(), series.end(), [&](const Series& s) {
        return s.workload == workload && s.threads == c.threads;
      });
      if (it == series.end()) {
        series.push_back(Series{workload, c.threads, {}});
        it = series.end() - 1;
      }
      if (std::none_of(it->points.begin(), it->points.end(),
                       [&](const SweepPoint& p) { return p.x == depth; }))
        it->points.push_back(
            SweepPoint{double(depth), std::to_string(depth), CellWorkload(c), c.threads});
    }
    std::erase_if(series, [](const Series& s) { return s.points.size() < 2; });
    for (Series& s : series) {
      std::sort(s.points.begin(), s.points.end(),
                [](const SweepPoint& a, const SweepPoint& b) { return a.x < b.x; });
      const std::string suffix =
          series.size() == 1 ? "" : "-" + s.workload + "-t" + std::to_string(s.threads);
      const std::string at =
          " (" + s.workload + ", " + std::to_string(s.threads) + " logical clients)";
      DepthCharts(sweep, suffix, at, s.points);
    }
  }

  // The charts of one pipeline-depth or batch-size series.
  void DepthCharts(const CallSweep& sweep, const std::string& suffix, const std::string& at,
                   const std::vector<SweepPoint>& points) {
    const std::string x = sweep.x_label;
    const std::string by = std::string("-by-") + sweep.key + suffix;
    const std::string title = std::string(" by ") + sweep.dimension + at;
    CostPanels("cpu" + by, "CPU per operation" + title + kMedians + Under(), x, points,
               Metric::kClientCpu, Metric::kServerCpu, "CPU us per op");
    if (MetricsWith(Metric::kClientInstructions) + MetricsWith(Metric::kServerInstructions) > 0)
      CostPanels("instructions" + by, "User-space instructions per operation" + title + kMedians,
                 x, points, Metric::kClientInstructions, Metric::kServerInstructions,
                 "instructions per op");
    CostPanels("allocs" + by, "Allocations per operation" + title + kMedians, x, points,
               Metric::kClientAllocs, Metric::kServerAllocs, "allocations per op");
    CostPanels("copied" + by, "Payload bytes copied per operation" + title + kMedians, x, points,
               Metric::kClientCopied, Metric::kServerCopied, "bytes copied per op");
    SweepChart("wire" + by, "Wire bytes per operation" + title + kMedians, x, points,
               {SweepPanel{"client to server", "wire bytes per op", Median(Metric::kWireOut)},
                SweepPanel{"server to client", "wire bytes per op", Median(Metric::kWireIn)}});
    LatencyPanels("latency" + by,
                  "Latency of the measured operations" + title + "\\n" + sweep.latency_note +
                      "\\nall measured operations of all repeats merged (not CLEANUP)" + Under(),
                  x, points);
    SweepChart("throughput" + by, "Throughput" + title + kMedians + Under(), x, points,
               {SweepPanel{"throughput", "ops/s", Median(Metric::kThroughput)}});
  }

  // Throughput: a bar per codec at one thread count, lines over a sweep.
  void Throughput() {
    if (ThroughputChartKind(cells_, wl_) == ChartKind::kBars) {
      ThroughputBars();
    } else {
      ThroughputLines();
    }
  }

  // Latency percentile distribution per codec (HdrHistogram style), of the
  // measured operations, one chart per thread count.
  void Latency() {
    for (int t : ts_) {
      const std::string tsuffix = ts_.size() > 1 ? "-t" + std::to_string(t) : "";
      std::ostringstream plot;
      plot << "set title \"Latency by percentile, measured operations, CLEANUP excluded (" << wl_
           << ", " << t << " logical clients)\\nevery repeat's operations in one histogram (the "
              "table gives the median of the repeats' percentiles)" << Under()
           << "\"\nset xlabel 'percentile'\nset ylabel 'latency (us)'\nset logscale x\n"
           << "set xtics ('0%%' 1, '90%%' 10, '99%%' 100, '99.9%%' 1000, '99.99%%' 10000, "
              "'99.999%%' 100000)\nset logscale y\nset key left top\nset grid\nplot ";
      bool first = true;
      for (const auto& c : o_.codecs) {
        hdr::Histogram h = MergedLatency(cells_, c, wl_, t);
        if (h.total_count() == 0) continue;
        std::string f = dir_ + "/latency-" + c + suffix_ + tsuffix + ".dat";
        std::ofstream d(f);
        d << "# percentile 1/(1-p) latency_us\n";
        for (const auto& p : hdr::PercentileDistribution(h)) {
          if (p.percentile >= 100.0) continue;
          d << p.percentile << " " << 1.0 / (1.0 - p.percentile / 100.0) << " "
            << double(p.value) / 1000.0 << "\n";
        }
        Check(d, f);
        plot << (first ? "" : ", ") << "'" << f << "' using 2:3 with lines lw 2 title '" << c
             << "'";
        first = false;
      }
      plot << "\n";
      if (!first) Render("latency-percentiles" + suffix_ + tsuffix, plot.str());
    }
  }

  // CPU per op, client and server stacked, per codec, at one thread count
  // (a sweep draws lines: ThreadSweep).
  void Cpu() {
    if (ts_.size() > 1) return;
    StackedBars("cpu-per-op" + suffix_, "CPU per operation", "CPU us per op", Metric::kClientCpu,
                Metric::kServerCpu, Metric::kTotalCpu, "%.2f", Under());
  }

  // Instructions per op, stacked likewise, when a cell measured them.
  void Instructions() {
    if (ts_.size() > 1) return;
    if (MetricsWith(Metric::kClientInstructions) + MetricsWith(Metric::kServerInstructions) == 0)
      return;
    StackedBars("instructions-per-op" + suffix_,
                "User-space instructions per operation (counted by callgrind)",
                "instructions per op", Metric::kClientInstructions, Metric::kServerInstructions,
                Metric::kTotalInstructions, "%.0f", "");
  }

  // Runs gnuplot on the script; the files rendered, or why not.
  // A chart missing or empty afterwards (a full disk: gnuplot may leave a
  // 0-byte file and exit 0) is an error naming it.
  StatusOr<std::vector<std::string>> Draw() {
    const std::string script = dir_ + "/charts.gp";
    {
      // Paths relative to the script's own folder, so that `gnuplot
      // charts.gp` there draws the charts again (after editing it, say).
      std::string text = gp_.str();
      const std::string prefix = dir_ + "/";
      for (size_t at = 0; (at = text.find(prefix, at)) != std::string::npos;)
        text.erase(at, prefix.size());
      std::ofstream gp(script);
      gp << text;
      Check(gp, script);
    }
    if (!unwritten_.empty()) return NotWritten("chart data");
    const std::string cmd = "cd '" + dir_ + "' && gnuplot charts.gp 2>gnuplot.log";
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
  void Render(const std::string& base, const std::string& plot, int width = 960) {
    const std::string size = " size " + std::to_string(width) + ",600";
    // An opaque white background: a transparent SVG's black text is lost on
    // a dark viewer.
    const std::string bg = " background rgb 'white'";
    for (auto [term, ext] :
         {std::pair{"pngcairo" + size + bg, "png"}, {"svg" + size + bg, "svg"}}) {
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

  static constexpr const char* kMedians = "\\nmedian over repeats";

  // A column's median of `m` at a sweep's point.
  std::function<double(const std::string&, const SweepPoint&)> Median(Metric m) const {
    return [this, m](const std::string& column, const SweepPoint& p) {
      return AggregateMetric(cells_, MetricOf(m), column, p.workload, p.threads).median;
    };
  }

  // Client and server panels of a cost against a sweep.
  void CostPanels(const std::string& base, const std::string& title, const std::string& xlabel,
                  const std::vector<SweepPoint>& points, Metric client, Metric server,
                  const std::string& ylabel) {
    SweepChart(base, title, xlabel, points,
               {SweepPanel{"client", ylabel, Median(client)},
                SweepPanel{"server", ylabel, Median(server)}});
  }

  // p50 and p99 of all operations (merged over repeats) against a sweep.
  void LatencyPanels(const std::string& base, const std::string& title, const std::string& xlabel,
                     const std::vector<SweepPoint>& points) {
    const auto at = [this](double pct) {
      return [this, pct](const std::string& column, const SweepPoint& p) {
        hdr::Histogram h = MergedLatency(cells_, column, p.workload, p.threads);
        return h.total_count() == 0 ? std::nan("") : double(h.ValueAtPercentile(pct)) / 1000.0;
      };
    };
    SweepChart(base, title, xlabel, points,
               {SweepPanel{"p50", "latency (us)", at(50)}, SweepPanel{"p99", "latency (us)", at(99)}});
  }

  // Panels side by side, each a line per column against the sweep's x
  // (log x: thread counts and sizes grow geometrically), explicit ticks with
  // distinct labels on both axes, one y axis for all panels; log y when the
  // values span more than 20x. Data: <base>.dat, one row per point: x, then per panel one
  // median per column ('?' = none).
  void SweepChart(const std::string& base, const std::string& title, const std::string& xlabel,
                  const std::vector<SweepPoint>& points, const std::vector<SweepPanel>& panels) {
    const std::vector<std::string>& cols = o_.codecs;
    std::vector<std::vector<std::vector<double>>> v(panels.size());  // [panel][point][column]
    bool any = false;
    for (size_t k = 0; k < panels.size(); ++k)
      for (const SweepPoint& p : points) {
        v[k].emplace_back();
        for (const auto& c : cols) {
          v[k].back().push_back(panels[k].value(c, p));
          any = any || !std::isnan(v[k].back().back());
        }
      }
    if (!any) return;
    const std::string f = dir_ + "/" + base + ".dat";
    std::ofstream d(f);
    d << "# x";
    for (const auto& panel : panels)
      for (const auto& c : cols) d << " " << panel.title << ":" << c;
    d << "\n";
    for (size_t i = 0; i < points.size(); ++i) {
      d << points[i].x;
      for (size_t k = 0; k < panels.size(); ++k)
        for (double x : v[k][i]) {
          if (std::isnan(x)) {
            d << " ?";
          } else {
            d << " " << x;
          }
        }
      d << "\n";
    }
    Check(d, f);
    AxisTicks xt;
    xt.log = true;
    for (const SweepPoint& p : points) {
      xt.values.push_back(p.x);
      xt.labels.push_back(p.label);
    }
    std::ostringstream plot;
    const int width = panels.size() > 1 ? 1200 : 960;
    const double right = KeyStripLeft(cols, width);
    plot << MultiplotHeader(title, panels.size(), right);
    // One y axis for every panel, so client and server read against each other.
    double lo = INFINITY, hi = 0;
    for (const auto& panel : v)
      for (const auto& row : panel)
        for (double x : row)
          if (!std::isnan(x)) {
            lo = std::min(lo, x);
            hi = std::max(hi, x);
          }
    const bool logy = lo > 0 && hi / lo > 20;
    const AxisTicks yt = ChooseTicks(lo, hi, logy);
    for (size_t k = 0; k < panels.size(); ++k) {
      plot << "set title '" << panels[k].title << "'\nset xlabel '" << xlabel << "'\nset ylabel '"
           << panels[k].ylabel << "'\nset logscale x\n"
           << "set xrange [" << points.front().x / 1.3 << ":" << points.back().x * 1.3 << "]\n"
           << TicsCommand("x", xt) << (logy ? "set logscale y\n" : "unset logscale y\n")
           // A log axis leaves room past its end ticks, so a point on one is not on the border.
           << "set yrange [" << (logy ? yt.lo / 1.25 : yt.lo) << ":" << (logy ? yt.hi * 1.25 : yt.hi)
           << "]\n" << TicsCommand("y", yt)
           << (k == 0 ? "set key at screen " + std::to_string(right + 0.01) +
                            ",0.84 left top vertical Left reverse samplen 2\n"
                      : std::string("unset key\n"))
           << "plot ";
      for (size_t c = 0; c < cols.size(); ++c)
        plot << (c ? ", " : "") << "'" << f << "' using 1:" << 2 + k * cols.size() + c
             << " with linespoints lt " << c + 1 << " title '" << cols[c] << "'";
      plot << "\n";
    }
    plot << "unset multiplot\n";
    Render(base, plot.str(), width);
  }

  // One bar per codec: median, with min-max error bars and the median
  // printed above each.
  void ThroughputBars() {
    const MetricDef& tput = MetricOf(Metric::kThroughput);
    const int t = ts_.front();
    const std::string dat = dir_ + "/throughput" + suffix_ + ".dat";
    std::ofstream d(dat);
    d << "# codec median min max repeats\n";
    double top = 0;
    for (const auto& c : o_.codecs) {
      const Aggregate a = AggregateMetric(cells_, tput, c, wl_, t);
      d << "\"" << c << "\" " << a.median << " " << a.min << " " << a.max << " " << a.n << "\n";
      if (!std::isnan(a.max)) top = std::max(top, a.max);
    }
    const AxisTicks yt = ChooseTicks(0, top, false);
    Check(d, dat);
    std::ostringstream plot;
    plot << "set title \"Throughput (" << wl_ << ", " << t
         << " logical clients)\\nbars: median over repeats, error bars: min-max" << Under()
         << "\"\n"
         << "set ylabel 'ops/s'\nset yrange [0:" << yt.hi << "]\n" << TicsCommand("y", yt)
         << "unset key\n"
         << "set style fill solid 0.85 border -1\nset boxwidth 0.6\n"
         << "set xrange [-0.6:" << o_.codecs.size() - 0.4 << "]\nset offsets 0,0,graph 0.08,0\n"
         << ColumnTics()
         << "plot '" << dat << "' using 0:2:($0+1):xtic(1) with boxes lc variable, "
         << "'' using 0:2:3:4 with yerrorbars lc rgb 'black' lw 1.5 pt 0, "
         << "'' using 0:($4>$2?$4:$2):(sprintf('%.0f', $2)) with labels offset 0,1 font ',11'\n";
    Render("throughput" + suffix_, plot.str());
  }

  // Median throughput against thread count per codec, min-max error bars.
  void ThroughputLines() {
    const MetricDef& tput = MetricOf(Metric::kThroughput);
    const std::string dat = dir_ + "/throughput" + suffix_ + ".dat";
    std::ofstream d(dat);
    d << "# threads, then per codec: median min max";
    for (const auto& c : o_.codecs) d << " " << c;
    d << "\n";
    double top = 0;
    AxisTicks xt;
    for (int t : ts_) {
      d << t;
      xt.values.push_back(t);
      xt.labels.push_back(std::to_string(t));
      for (const auto& c : o_.codecs) {
        const Aggregate a = AggregateMetric(cells_, tput, c, wl_, t);
        d << " " << a.median << " " << a.min << " " << a.max;
        if (!std::isnan(a.max)) top = std::max(top, a.max);
      }
      d << "\n";
    }
    const AxisTicks yt = ChooseTicks(0, top, false);
    Check(d, dat);
    std::ostringstream plot;
    plot << "set title \"Throughput by logical clients (" << wl_
         << ")\\nmedian over repeats, error bars: min-max" << Under()
         << "\"\nset xlabel 'logical clients'\n"
         << "set ylabel 'ops/s'\nset key left top\n"
         << "set yrange [0:" << yt.hi << "]\n" << TicsCommand("y", yt) << "set logscale x 2\n"
         << TicsCommand("x", xt) << "set offsets graph 0.05, graph 0.05, 0, 0\nplot ";
    for (size_t i = 0; i < o_.codecs.size(); ++i)
      plot << (i ? ", " : "") << "'" << dat << "' using 1:" << 3 * i + 2 << ":"
           << 3 * i + 3 << ":" << 3 * i + 4 << " with yerrorlines lw 2 title '" << o_.codecs[i]
           << "'";
    Render("throughput" + suffix_, plot.str());
  }

  // Client and server stacked per codec at the highest thread count, each
  // part's value inside it and the total above the bar. The parts are the
  // medians of each side; the label is the median of the totals, the
  // table's figure (the two medians need not add up to it).
  void StackedBars(const std::string& base, const std::string& title, const std::string& ylabel,
                   Metric client, Metric server, Metric total_metric, const std::string& fmt,
                   const std::string& under) {
    const int t = ts_.back();
    std::vector<std::pair<double, double>> parts;
    std::vector<double> totals;
    bool any = false;
    for (const auto& c : o_.codecs) {
      parts.emplace_back(AggregateMetric(cells_, MetricOf(client), c, wl_, t).median,
                         AggregateMetric(cells_, MetricOf(server), c, wl_, t).median);
      totals.push_back(AggregateMetric(cells_, MetricOf(total_metric), c, wl_, t).median);
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
        std::snprintf(total, sizeof total, fmt.c_str(), std::isnan(totals[i]) ? cl + sv : totals[i]);
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
         << " logical clients)\\nparts: each side's median over repeats; above: the median "
            "total, as the table gives it"
         << under << "\"\nset ylabel '" << ylabel
         << "'\n"
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
  const std::string dir_;
  std::string wl_, suffix_;
  std::vector<int> ts_;
  // Every figure was taken under Valgrind (--instructions): wall-clock
  // figures are of the slowed run, and the titles say so.
  bool valgrind_ = false;
  std::string Under() const {
    return valgrind_ ? "\\nUNDER VALGRIND (--instructions): wall-clock figures of a slowed run"
                     : "";
  }
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
    return Status::Unavailable("gnuplot is not installed (on Debian: apt-get install gnuplot-nox); "
                               "charts skipped, tables and data are written");
  const std::vector<std::string> workloads = CompareWorkloads(cells);
  if (workloads.empty()) return std::vector<std::string>{};
  Charts charts(cells, o, dir);
  // Every workload (each record size its own) gets its charts; with more
  // than one, each file name ends in its workload.
  for (const std::string& wl : workloads) {
    charts.ForWorkload(wl, workloads.size() > 1 ? "-" + wl : "");
    charts.Throughput();
    charts.Latency();
    charts.Cpu();
    charts.Instructions();
    charts.ThreadSweep();
  }
  charts.SizeSweeps();
  charts.DepthSweeps();
  return charts.Draw();
}

}  // namespace wirebench
