#include "bench/results/compare_tables.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace wirebench {

namespace {

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

constexpr const char* kPartialMark = " (partial)";

bool HaveBaseline(const CompareReportOptions& o) {
  return std::find(o.codecs.begin(), o.codecs.end(), o.baseline) != o.codecs.end();
}

// "Repeats present: pb 2, raw 1 (of 2 requested)."
std::string RepeatsLine(const std::vector<CompareCell>& cells, const CompareReportOptions& o,
                        const std::string& wl, int threads) {
  std::string line = "Repeats present:";
  for (size_t i = 0; i < o.codecs.size(); ++i)
    line += (i ? ", " : " ") + o.codecs[i] + " " +
            std::to_string(CountCells(cells, o.codecs[i], wl, threads).present);
  if (o.requested_repeats > 0)
    line += " (of " + std::to_string(o.requested_repeats) + " requested)";
  return line + ".";
}

// Footnotes for the codecs of a group with cells cut short.
std::string PartialNotes(const std::vector<CompareCell>& cells, const CompareReportOptions& o,
                         const std::string& wl, int threads) {
  std::string notes;
  for (const std::string& codec : o.codecs) {
    const CellCount n = CountCells(cells, codec, wl, threads);
    if (n.partial == 0) continue;
    std::string measured;
    for (const CompareCell& c : cells)
      if (c.codec == codec && c.workload == wl && c.threads == threads && CellIsPartial(c))
        measured += (measured.empty() ? "" : ", ") +
                    Fmt(c.results.value("runtime_ms", std::nan(""))) + " ms";
    notes += "(partial) " + codec + ": " + std::to_string(n.partial) + " of " +
             std::to_string(n.present) + " repeats stopped early (measured " + measured +
             "); its figures cover what ran.\n";
  }
  return notes;
}

void RatioRow(std::ostringstream& os, const std::vector<CompareCell>& cells,
              const CompareReportOptions& o, const MetricDef& m, const std::vector<Aggregate>& aggs,
              const std::string& wl, int threads) {
  const Aggregate base = AggregateMetric(cells, m, o.baseline, wl, threads);
  os << "| " << m.name << " vs " << o.baseline << " |";
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

// One (workload, threads) table: a column per codec, a row per metric.
void GroupTable(std::ostringstream& os, const std::vector<CompareCell>& cells,
                const CompareReportOptions& o, const std::vector<MetricDef>& metrics,
                const std::string& wl, int threads) {
  os << "## " << wl << ", " << threads << " logical clients\n\n"
     << RepeatsLine(cells, o, wl, threads) << "\n\n| metric |";
  for (const auto& c : o.codecs)
    os << " " << c << (CountCells(cells, c, wl, threads).partial ? kPartialMark : "") << " |";
  os << "\n|---|";
  for (size_t i = 0; i < o.codecs.size(); ++i) os << "---:|";
  os << "\n";
  for (const MetricDef& m : metrics) {
    std::vector<Aggregate> aggs;
    bool any = false;
    for (const auto& c : o.codecs) {
      aggs.push_back(AggregateMetric(cells, m, c, wl, threads));
      any = any || aggs.back().n > 0;
    }
    if (!any) continue;
    os << "| " << m.name << " |";
    for (const auto& a : aggs) os << " " << Fmt(a.median) << Spread(a) << " |";
    os << "\n";
    if (m.baseline_ratio && HaveBaseline(o)) RatioRow(os, cells, o, m, aggs, wl, threads);
  }
  const std::string notes = PartialNotes(cells, o, wl, threads);
  if (!notes.empty()) os << "\n" << notes;
  os << "\n";
}

// One row per thread count, one column per codec, % vs baseline.
void SweepTable(std::ostringstream& os, const std::vector<CompareCell>& cells,
                const CompareReportOptions& o, const MetricDef& m, const std::string& wl,
                const std::vector<int>& ts) {
  const bool have_baseline = HaveBaseline(o);
  os << "## " << wl << ": " << m.name << " by thread count\n\n| threads |";
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
    for (const auto& c : o.codecs)
      os << " " << Fmt(AggregateMetric(cells, m, c, wl, t).median)
         << (CountCells(cells, c, wl, t).partial ? kPartialMark : "") << " |";
    if (have_baseline) {
      double base = AggregateMetric(cells, m, o.baseline, wl, t).median;
      for (const auto& c : o.codecs) {
        if (c == o.baseline) continue;
        double v = AggregateMetric(cells, m, c, wl, t).median;
        char buf[32];
        std::snprintf(buf, sizeof(buf), " %+.1f%% |", 100.0 * (v - base) / base);
        os << (base > 0 ? buf : " n/a |");
      }
    }
    os << "\n";
  }
  os << "\n";
}

}  // namespace

std::string CompareMarkdown(const std::vector<CompareCell>& cells, const CompareReportOptions& o) {
  std::ostringstream os;
  os << "# " << (o.title.empty() ? "wirebench codec comparison" : o.title) << "\n\n";
  if (!o.setup.empty()) os << o.setup << "\n\n";
  os << "Each figure is the median over repeats; ±x% is half the min-max spread. "
        "Ratios are against `" << o.baseline << "` (below 1 is cheaper for cost rows). "
        "A column marked (partial) holds cells cut short.\n\n";
  const std::vector<MetricDef> metrics = MetricsFor(cells);
  for (auto& [wl, threads] : CompareGroups(cells)) GroupTable(os, cells, o, metrics, wl, threads);
  for (const std::string& wl : CompareWorkloads(cells)) {
    const std::vector<int> ts = CompareThreadCounts(cells, wl);
    if (ts.size() < 2) continue;
    for (const MetricDef& m : metrics)
      if (m.thread_sweep) SweepTable(os, cells, o, m, wl, ts);
  }
  return os.str();
}

std::string CompareCsv(const std::vector<CompareCell>& cells, const CompareReportOptions& o) {
  std::ostringstream os;
  os << "workload,threads,metric,unit";
  for (const auto& c : o.codecs)
    os << "," << c << "," << c << "_min," << c << "_max," << c << "_n," << c << "_partial";
  os << "\n";
  const std::vector<MetricDef> metrics = MetricsFor(cells);
  for (auto& [wl, threads] : CompareGroups(cells)) {
    for (const MetricDef& m : metrics) {
      os << wl << "," << threads << ",\"" << m.name << "\"," << m.unit;
      for (const auto& c : o.codecs) {
        Aggregate a = AggregateMetric(cells, m, c, wl, threads);
        os << "," << (a.n ? Fmt(a.median) : "") << "," << (a.n ? Fmt(a.min) : "") << ","
           << (a.n ? Fmt(a.max) : "") << "," << a.n << "," << a.partial;
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
  if (o.requested_repeats > 0) j["requested_repeats"] = o.requested_repeats;
  nlohmann::json tables = nlohmann::json::array();
  const std::vector<MetricDef> metrics = MetricsFor(cells);
  for (auto& [wl, threads] : CompareGroups(cells)) {
    nlohmann::json t;
    t["workload"] = wl;
    t["threads"] = threads;
    for (const auto& c : o.codecs) {
      const CellCount n = CountCells(cells, c, wl, threads);
      t["repeats"][c] = n.present;
      t["partial_cells"][c] = n.partial;
    }
    for (const MetricDef& m : metrics) {
      for (const auto& c : o.codecs) {
        Aggregate a = AggregateMetric(cells, m, c, wl, threads);
        if (a.n == 0) continue;
        t["metrics"][m.name][c] = {{"median", a.median}, {"min", a.min},   {"max", a.max},
                                   {"n", a.n},           {"partial", a.partial}, {"unit", m.unit}};
      }
    }
    tables.push_back(t);
  }
  j["tables"] = tables;
  nlohmann::json raw = nlohmann::json::array();
  for (const auto& c : cells)
    raw.push_back({{"codec", c.codec}, {"workload", c.workload}, {"threads", c.threads},
                   {"repeat", c.repeat}, {"partial", CellIsPartial(c)}, {"results", c.results}});
  j["cells"] = raw;
  return j;
}

}  // namespace wirebench
