#include "bench/results/compare_tables.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <tuple>

#include "bench/results/host_figures.h"

namespace wirebench {

// Declared in compare_tables.h.
std::string FormatFigure(double v) {
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

namespace {

using nlohmann::json;


std::string Spread(const Aggregate& a) {
  if (a.n < 2) return "";
  if (std::fabs(a.median) < 0.0005) {
    // A median that prints as 0: say how far the other repeats were from it.
    return a.max > 0.0005 ? " (max " + FormatFigure(a.max) + ")" : "";
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
      if (CellColumn(c) == codec && CellWorkload(c) == wl && c.threads == threads && CellIsPartial(c))
        measured += (measured.empty() ? "" : ", ") +
                    FormatFigure(c.results.value("runtime_ms", std::nan(""))) + " ms";
    notes += "(partial) " + codec + ": " + std::to_string(n.partial) + " of " +
             std::to_string(n.present) + " repeats stopped early (measured " + measured +
             "); its figures cover what ran.\n";
  }
  return notes;
}

std::string FmtRatio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), r >= 0.1 || r == 0 ? "%.2f" : "%.3f", r);
  return buf;
}

// "0.33x [0.30, 0.37]", "~1.02x [0.97, 1.08]" (the interval contains 1.0:
// not distinguishable), "1.18x (1 repeat: no interval)", "n/a (baseline 0:
// no ratio)" or "n/a".
std::string RatioText(const RatioInterval& r) {
  if (std::isnan(r.ratio)) return r.no_interval.empty() ? "n/a" : "n/a (" + r.no_interval + ")";
  if (!r.has_interval()) return FmtRatio(r.ratio) + "x (" + r.no_interval + ")";
  // Appended piece by piece: GCC 12's -O3 warns (-Wrestrict, a false
  // positive) on `const char* + std::string&&` here.
  std::string text = r.distinguishable() ? "" : "~";
  text += FmtRatio(r.ratio);
  text += "x [";
  text += FmtRatio(r.lo);
  text += ", ";
  text += FmtRatio(r.hi);
  text += "]";
  return text;
}

// Which columns of a table got which kind of interval, for its footnote.
struct IntervalNotes {
  std::vector<std::string> paired, welch;
  void Add(const std::string& column, const RatioInterval& r) {
    std::vector<std::string>* v = r.method == IntervalMethod::kPaired ? &paired
                                  : r.method == IntervalMethod::kWelch ? &welch
                                                                       : nullptr;
    if (v && std::find(v->begin(), v->end(), column) == v->end()) v->push_back(column);
  }
  std::string Text(const std::string& baseline) const {
    if (paired.empty() && welch.empty()) return "";
    std::string s = "Intervals against `" + baseline + "`:";
    const auto list = [](const std::vector<std::string>& v) {
      std::string out;
      for (const auto& c : v) out += (out.empty() ? "" : ", ") + c;
      return out;
    };
    if (!paired.empty()) s += " paired by repeat index for " + list(paired) + ";";
    if (!welch.empty()) s += " Welch (unequal repeats) for " + list(welch) + ";";
    s.back() = '.';
    return s + "\n";
  }
};

void RatioRow(std::ostringstream& os, const std::vector<CompareCell>& cells,
              const CompareReportOptions& o, const MetricDef& m, const std::string& wl,
              int threads, IntervalNotes& notes) {
  os << "| " << m.name << " vs " << o.baseline << " |";
  for (const std::string& c : o.codecs) {
    if (c == o.baseline) {
      os << " 1.00x |";
      continue;
    }
    const RatioInterval r = CompareRatio(cells, m, c, o.baseline, wl, threads);
    notes.Add(c, r);
    os << " " << RatioText(r) << " |";
  }
  os << "\n";
}

// "Total CPU vs floor": each column's median total CPU over the machine's
// floor for its bytes, when the floor was measured.
void FloorRow(std::ostringstream& os, const CompareReportOptions& o,
              const std::vector<Aggregate>& totals, const std::string& wl, int threads) {
  bool any = false;
  for (const auto& c : o.codecs) any = any || o.floors.count({wl, threads, c}) > 0;
  if (!any) return;
  os << "| Total CPU vs floor |";
  for (size_t i = 0; i < o.codecs.size(); ++i) {
    auto it = o.floors.find({wl, threads, o.codecs[i]});
    if (it == o.floors.end() || !(it->second.total_us > 0) || std::isnan(totals[i].median)) {
      os << " n/a |";
      continue;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.2fx", totals[i].median / it->second.total_us);
    os << " " << text << " |";
  }
  os << "\n";
}

// Under a table with a floor row: what the floor is and each column's.
std::string FloorNote(const CompareReportOptions& o, const std::string& wl, int threads) {
  std::string list;
  int depth = 0;
  int batch = 1;
  for (const auto& c : o.codecs) {
    auto it = o.floors.find({wl, threads, c});
    if (it == o.floors.end()) continue;
    const FloorFigure& f = it->second;
    depth = f.depth;
    batch = f.ops_per_request;
    char part[160];
    std::snprintf(part, sizeof part, "%s %.3f us/op (%zu B requests, %zu B replies)", c.c_str(),
                  f.total_us, f.request_bytes, f.reply_bytes);
    list += (list.empty() ? "" : "; ") + std::string(part);
  }
  if (list.empty()) return "";
  const std::string batched =
      batch > 1 ? " Each request and reply carries the bytes of a batch of " +
                      std::to_string(batch) + " operations, and its cost is shared by them."
                : "";
  return "The floor (`wirebench floor`, measured after the matrix in the same sitting, pinned as "
         "the cells): a framing-only loop over one loopback connection with " +
         std::to_string(depth) +
         " requests outstanding, each column's own request and reply sizes behind a 4-byte "
         "length, a blocking read and one write per batch on each side; the least CPU a framed "
         "RPC of those bytes costs on this machine." + batched + " " + list + ".\n";
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
  IntervalNotes interval_notes;
  for (const MetricDef& m : metrics) {
    std::vector<Aggregate> aggs;
    bool any = false, all_zero = true;
    for (const auto& c : o.codecs) {
      aggs.push_back(AggregateMetric(cells, m, c, wl, threads));
      any = any || aggs.back().n > 0;
      if (aggs.back().n > 0 && (aggs.back().min != 0 || aggs.back().max != 0)) all_zero = false;
    }
    if (!any) continue;
    os << "| " << m.name << " |";
    for (const auto& a : aggs) os << " " << FormatFigure(a.median) << Spread(a) << " |";
    os << "\n";
    // A metric zero in every column (no allocations on any side, say) has
    // no ratio to show: its row above says all there is.
    if (m.baseline_ratio && HaveBaseline(o) && !all_zero)
      RatioRow(os, cells, o, m, wl, threads, interval_notes);
    if (m.name == MetricOf(Metric::kTotalCpu).name) FloorRow(os, o, aggs, wl, threads);
  }
  const std::string notes = interval_notes.Text(o.baseline) + PartialNotes(cells, o, wl, threads) +
                            FloorNote(o, wl, threads);
  if (!notes.empty()) os << "\n" << notes;
  os << "\n";
}

// The ratio as a difference in percent: "+12.3% [+8.1, +16.0]", "~+1.2% [-3.0, +5.1]",
// "+18.0% (1 repeat)".
std::string PercentText(const RatioInterval& r) {
  if (std::isnan(r.ratio)) return "n/a";
  const auto pct = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%+.1f", 100.0 * (x - 1.0));
    return std::string(buf);
  };
  std::string text = r.has_interval() && !r.distinguishable() ? "~" : "";
  text += pct(r.ratio);
  if (!r.has_interval()) return text + "% (" + r.no_interval + ")";
  text += "% [";  // Piece by piece, as in RatioText.
  text += pct(r.lo);
  text += ", ";
  text += pct(r.hi);
  text += "]";
  return text;
}

// A sweep table's headers after the first: one column per codec, then one
// per codec against the baseline (when there is one); then the alignment
// row, the first column's `first_align`.
void SweepHeader(std::ostringstream& os, const CompareReportOptions& o, const char* first_align) {
  const bool have_baseline = HaveBaseline(o);
  for (const auto& c : o.codecs) os << " " << c << " |";
  if (have_baseline)
    for (const auto& c : o.codecs)
      if (c != o.baseline) os << " " << c << " vs " << o.baseline << " |";
  os << "\n|" << first_align << "|";
  size_t ncols = o.codecs.size() + (have_baseline ? o.codecs.size() - 1 : 0);
  for (size_t i = 0; i < ncols; ++i) os << "---:|";
  os << "\n";
}

// A sweep row's cells after the first, to the end of the line: each codec's
// median of `m` in the group, then each one's change against the baseline.
void SweepCells(std::ostringstream& os, const std::vector<CompareCell>& cells,
                const CompareReportOptions& o, const MetricDef& m, const std::string& wl,
                int threads) {
  for (const auto& c : o.codecs)
    os << " " << FormatFigure(AggregateMetric(cells, m, c, wl, threads).median)
       << (CountCells(cells, c, wl, threads).partial ? kPartialMark : "") << " |";
  if (HaveBaseline(o))
    for (const auto& c : o.codecs)
      if (c != o.baseline)
        os << " " << PercentText(CompareRatio(cells, m, c, o.baseline, wl, threads)) << " |";
  os << "\n";
}

// One row per thread count, one column per codec, % vs baseline.
void SweepTable(std::ostringstream& os, const std::vector<CompareCell>& cells,
                const CompareReportOptions& o, const MetricDef& m, const std::string& wl,
                const std::vector<int>& ts) {
  os << "## " << wl << ": " << m.name << " by thread count\n\n| threads |";
  SweepHeader(os, o, "---:");
  for (int t : ts) {
    os << "| " << t << " |";
    SweepCells(os, cells, o, m, wl, t);
  }
  os << "\n";
}

// Whether column `c` gets a ratio for `m`: a ratio metric, a baseline
// present, and `c` not the baseline itself.
bool HasRatio(const CompareReportOptions& o, const MetricDef& m, const std::string& c) {
  return m.baseline_ratio && HaveBaseline(o) && c != o.baseline;
}

// The ratio, lo, hi, distinguishable columns of one codec; empty where the
// metric has no ratio (or no interval: lo, hi, distinguishable).
std::string CsvRatio(const std::vector<CompareCell>& cells, const CompareReportOptions& o,
                     const MetricDef& m, const std::string& c, const std::string& wl, int threads) {
  if (!HasRatio(o, m, c)) return ",,,";
  const RatioInterval r = CompareRatio(cells, m, c, o.baseline, wl, threads);
  const auto num = [](double x) {
    if (std::isnan(x)) return std::string();
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.4f", x);
    return std::string(buf);
  };
  return num(r.ratio) + "," + num(r.lo) + "," + num(r.hi) + "," +
         (r.has_interval() ? (r.distinguishable() ? "true" : "false") : "");
}

// {"ratio", "lo", "hi", "distinguishable", "method"}; null lo, hi and
// distinguishable, and "no_interval" saying why, without an interval.
json RatioJson(const RatioInterval& r) {
  const auto num = [](double x) { return std::isnan(x) ? json(nullptr) : json(x); };
  json j = {{"ratio", num(r.ratio)}, {"lo", num(r.lo)}, {"hi", num(r.hi)},
            {"method", IntervalMethodName(r.method)}};
  j["distinguishable"] = r.has_interval() ? json(r.distinguishable()) : json(nullptr);
  if (!r.has_interval()) j["no_interval"] = r.no_interval;
  return j;
}

// The swept record shape of a group's cells: (fieldcount, fieldlength),
// 0 where not swept.
std::pair<int, int> GroupShape(const std::vector<CompareCell>& cells, const std::string& wl) {
  for (const CompareCell& c : cells)
    if (CellWorkload(c) == wl) return {c.fieldcount, c.fieldlength};
  return {0, 0};
}

// The swept pipeline depth or batch size of a group's cells, 0 when not swept.
int GroupDepth(const std::vector<CompareCell>& cells, const std::string& wl, const CallSweep& s) {
  for (const CompareCell& c : cells)
    if (CellWorkload(c) == wl) return c.*s.field;
  return 0;
}

// One row per swept value of `base` at `threads` (each a group of its own,
// `variants`, named by `row`), one column per codec, % vs baseline: the
// record-size, pipeline-depth or batch-size sweep of one metric.
void SweepByVariantTable(std::ostringstream& os, const std::vector<CompareCell>& cells,
                         const CompareReportOptions& o, const MetricDef& m,
                         const std::vector<std::string>& variants, const std::string& base,
                         int threads, const std::string& dimension,
                         const std::function<std::string(const std::string& wl)>& row) {
  os << "## " << base << ", " << threads << " logical clients: " << m.name << " by "
     << dimension << "\n\n| " << dimension.substr(0, dimension.find(' ')) << " |";
  SweepHeader(os, o, "---");
  for (const std::string& wl : variants) {
    os << "| " << row(wl) << " |";
    SweepCells(os, cells, o, m, wl, threads);
  }
  os << "\n";
}

// A record size's row label: "10 fields x 100 B".
std::string ShapeRow(const std::vector<CompareCell>& cells, const std::string& wl) {
  const auto [fc, fl] = GroupShape(cells, wl);
  return (fc > 0 ? std::to_string(fc) + " fields" : "") + (fc > 0 && fl > 0 ? " x " : "") +
         (fl > 0 ? std::to_string(fl) + " B" : "");
}

// The sweeps of a matrix along one dimension: per (base, threads), the
// groups that differ only in the swept value, in its order, when there are
// two or more.
struct SizeSweep {
  std::string base;
  int threads = 0;
  std::vector<std::string> variants;
};

// Record sizes: per workload (at one pipeline depth or batch size), threads.
std::vector<SizeSweep> SizeSweeps(const std::vector<CompareCell>& cells) {
  std::vector<SizeSweep> out;
  // base (CallVariant of the workload), threads, workload, fc, fl
  std::vector<std::tuple<std::string, int, const CompareCell*, int, int>> seen;
  for (const CompareCell& c : cells) {
    if (c.fieldcount <= 0 && c.fieldlength <= 0) continue;
    const std::string base = CallVariant(c.workload, c);
    if (std::none_of(seen.begin(), seen.end(), [&](const auto& k) {
          return std::get<0>(k) == base && std::get<1>(k) == c.threads &&
                 std::get<3>(k) == c.fieldcount && std::get<4>(k) == c.fieldlength;
        }))
      seen.emplace_back(base, c.threads, &c, c.fieldcount, c.fieldlength);
  }
  const auto size = [](const auto& k) {
    return int64_t(std::max(std::get<3>(k), 1)) * std::max(std::get<4>(k), 1);
  };
  std::stable_sort(seen.begin(), seen.end(), [&](const auto& a, const auto& b) {
    const auto ga = std::make_tuple(std::get<0>(a), std::get<1>(a));
    const auto gb = std::make_tuple(std::get<0>(b), std::get<1>(b));
    return ga < gb || (ga == gb && size(a) < size(b));
  });
  for (const auto& [base, t, c, fc, fl] : seen) {
    if (out.empty() || out.back().base != base || out.back().threads != t)
      out.push_back(SizeSweep{base, t, {}});
    out.back().variants.push_back(CellWorkload(*c));
  }
  std::erase_if(out, [](const SizeSweep& s) { return s.variants.size() < 2; });
  return out;
}

// Pipeline depths or batch sizes: per workload with its record size, threads.
std::vector<SizeSweep> DepthSweeps(const std::vector<CompareCell>& cells, const CallSweep& s) {
  std::vector<SizeSweep> out;
  // record variant, threads, depth, the cell's group
  std::vector<std::tuple<std::string, int, int, std::string>> seen;
  for (const CompareCell& c : cells) {
    if (c.*s.field <= 0) continue;
    const auto key = std::make_tuple(RecordVariant(c.workload, c.fieldcount, c.fieldlength),
                                     c.threads, c.*s.field, CellWorkload(c));
    if (std::find(seen.begin(), seen.end(), key) == seen.end()) seen.push_back(key);
  }
  std::sort(seen.begin(), seen.end());
  for (const auto& [base, t, depth, variant] : seen) {
    if (out.empty() || out.back().base != base || out.back().threads != t)
      out.push_back(SizeSweep{base, t, {}});
    out.back().variants.push_back(variant);
  }
  std::erase_if(out, [](const SizeSweep& s) { return s.variants.size() < 2; });
  return out;
}

// Metrics with a record-size sweep table: the costs that grow with the
// record, and throughput.
bool SizeSweepMetric(const MetricDef& m) {
  for (Metric k : {Metric::kTotalCpu, Metric::kTotalInstructions, Metric::kClientCopied,
                   Metric::kServerCopied, Metric::kWireOut, Metric::kWireIn, Metric::kThroughput})
    if (m.name == MetricOf(k).name) return true;
  return false;
}

// Metrics with a pipeline-depth, batch-size or cluster-size sweep table:
// the costs more operations per call or per read (or more servers) move,
// throughput, and a cluster's balance and server efficiency.
bool DepthSweepMetric(const MetricDef& m) {
  for (Metric k : {Metric::kClientCpu, Metric::kServerCpu, Metric::kTotalCpu,
                   Metric::kTotalInstructions, Metric::kClientAllocs, Metric::kServerAllocs,
                   Metric::kClientCopied, Metric::kServerCopied, Metric::kWireOut,
                   Metric::kWireIn, Metric::kThroughput, Metric::kClusterImbalance,
                   Metric::kOpsPerServerCore})
    if (m.name == MetricOf(k).name) return true;
  return false;
}

}  // namespace

CompareReportOptions EffectiveBaseline(const CompareReportOptions& in, std::string* note) {
  CompareReportOptions o = in;
  note->clear();
  if (!HaveBaseline(o) && !o.codecs.empty()) {
    *note = "The default baseline `" + o.baseline + "` is not among the columns: the first "
            "column, `" + o.codecs.front() + "`, is the baseline (--baseline NAME picks another). ";
    o.baseline = o.codecs.front();
  }
  return o;
}

namespace {

// An expected count of chance flags: "0.05", "0.5", "2.3", "12".
std::string Expected(double n) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), n < 10 ? "%.2g" : "%.0f", n);
  return buf;
}

// Every column against every other for the headline cost row: callgrind's
// total instructions when measured, else total CPU.
void PairwiseTable(std::ostringstream& os, const std::vector<CompareCell>& cells,
                   const CompareReportOptions& o, const std::vector<MetricDef>& metrics,
                   const std::string& wl, int threads) {
  const MetricDef* m = nullptr;
  for (Metric k : {Metric::kTotalInstructions, Metric::kTotalCpu})
    for (const MetricDef& d : metrics)
      if (!m && d.name == MetricOf(k).name) m = &d;
  if (!m || o.codecs.size() < 2) return;
  os << "## " << wl << ", " << threads << " logical clients: " << m->name
     << ", pairwise (row against column)\n\n| row vs column |";
  for (const auto& c : o.codecs) os << " " << c << " |";
  os << "\n|---|";
  for (size_t i = 0; i < o.codecs.size(); ++i) os << "---:|";
  os << "\n";
  int intervals = 0;
  for (const auto& r : o.codecs) {
    os << "| " << r << " |";
    for (const auto& c : o.codecs) {
      if (r == c) {
        os << " 1.00x |";
        continue;
      }
      const RatioInterval ri = CompareRatio(cells, *m, r, c, wl, threads);
      intervals += ri.has_interval() ? 1 : 0;
      os << " " << RatioText(ri) << " |";
    }
    os << "\n";
  }
  os << "\nEach cell is the row's " << m->name << " over the column's, 95% interval";
  if (intervals > 0)
    os << "; " << intervals / 2 << " distinct pairs, so about " << Expected(0.05 * intervals / 2)
       << " would exclude 1.0 by chance alone if no two columns differed";
  os << ".\n\n";
}

// The flag column of the host table: an outlier, a busy host, or both.
std::string HostFlag(const std::string& outlier, const std::string& busy) {
  std::string flag = outlier.empty() ? "" : "**outlier:** " + outlier;
  if (!busy.empty()) flag += (flag.empty() ? "" : "; ") + std::string("**busy host:** ") + busy;
  return flag;
}

// One column's repeats in a group, in the order of `cells`: each cell, its
// throughput and CPU per op, and its outlier flag (RepeatOutliers).
struct ColumnRepeats {
  std::vector<const CompareCell*> cells;
  std::vector<RepeatFigures> figs;
  std::vector<std::string> flags;
};
ColumnRepeats RepeatsOf(const std::vector<CompareCell>& cells, const std::string& col,
                        const std::string& wl, int threads) {
  ColumnRepeats r;
  for (const CompareCell& c : cells) {
    if (CellColumn(c) != col || CellWorkload(c) != wl || c.threads != threads) continue;
    r.cells.push_back(&c);
    r.figs.push_back({c.repeat, MetricValue(MetricOf(Metric::kThroughput), c.results),
                      MetricValue(MetricOf(Metric::kTotalCpu), c.results)});
  }
  r.flags = RepeatOutliers(r.figs);
  return r;
}

// The host around each repeat of each column, with the repeats more than
// kOutlierFactor from their column's median flagged.
void HostTable(std::ostringstream& os, const std::vector<CompareCell>& cells,
               const CompareReportOptions& o, const std::string& wl, int threads) {
  bool any = false;
  for (const CompareCell& c : cells)
    any = any || (CellWorkload(c) == wl && c.threads == threads && c.host.is_object() &&
                  !c.host.empty());
  if (!any) return;
  os << "Host per repeat (load average, steal, other processes' CPU, CPU clock), repeats past "
     << kOutlierFactor
     << "x their column's median, and repeats on a busy host (other processes above "
     << kBusyOtherCpus << " CPU or steal above " << kBusyStealPercent
     << "%):\n\n| column | repeat | throughput (ops/s) | CPU (us/op) | host | flag |\n"
        "|---|---:|---:|---:|---|---|\n";
  for (const std::string& col : o.codecs) {
    const ColumnRepeats r = RepeatsOf(cells, col, wl, threads);
    for (size_t k = 0; k < r.cells.size(); ++k)
      os << "| " << col << " | " << r.figs[k].repeat << " | " << FormatFigure(r.figs[k].throughput)
         << " | " << FormatFigure(r.figs[k].cpu_per_op) << " | " << HostText(r.cells[k]->host)
         << " | " << HostFlag(r.flags[k], BusyHost(r.cells[k]->host)) << " |\n";
  }
  os << "\n";
}

// The ratio rows of one group that have an interval: how many chance flags
// to expect when no codec differed.
int IntervalCount(const std::vector<CompareCell>& cells, const CompareReportOptions& o,
                  const std::vector<MetricDef>& metrics) {
  int n = 0;
  for (auto& [wl, threads] : CompareGroups(cells))
    for (const MetricDef& m : metrics)
      if (m.baseline_ratio)
        for (const auto& c : o.codecs)
          if (c != o.baseline && CompareRatio(cells, m, c, o.baseline, wl, threads).has_interval())
            ++n;
  return n;
}

}  // namespace

std::string CompareMarkdown(const std::vector<CompareCell>& cells,
                            const CompareReportOptions& given) {
  std::string baseline_note;
  const CompareReportOptions o = EffectiveBaseline(given, &baseline_note);
  std::ostringstream os;
  os << "# " << (o.title.empty() ? "wirebench codec comparison" : o.title) << "\n\n";
  if (!o.setup.empty()) os << o.setup << "\n\n";
  os << "Costs per operation first, then throughput and latency. Each figure is the median "
        "over repeats; ±x% is half the min-max spread. Ratio rows are against `"
     << o.baseline
     << "` (below 1 is cheaper for cost rows): the ratio of the geometric means over repeats "
        "with a 95% confidence interval, a t-interval on the log ratio, paired by repeat index "
        "(n-1 degrees of freedom) when both columns have the same repeats, Welch's otherwise. "
        "`~` marks an interval that contains 1.0: not distinguishable from `"
     << o.baseline
     << "`. With 1 repeat there is no interval. A column marked (partial) holds cells cut "
        "short. "
     << baseline_note;
  const std::vector<MetricDef> metrics = MetricsFor(cells);
  if (const int n = IntervalCount(cells, o, metrics); n > 0)
    os << "These tables hold " << n << " ratio intervals at 95% each: if no column differed "
          "from `" << o.baseline << "`, about " << Expected(0.05 * n)
       << " of them would exclude 1.0 by chance alone (an A/A of one codec twice shows it).";
  os << "\n\n";
  for (auto& [wl, threads] : CompareGroups(cells)) {
    GroupTable(os, cells, o, metrics, wl, threads);
    HostTable(os, cells, o, wl, threads);
    if (o.pairwise) PairwiseTable(os, cells, o, metrics, wl, threads);
  }
  for (const std::string& wl : CompareWorkloads(cells)) {
    const std::vector<int> ts = CompareThreadCounts(cells, wl);
    if (ts.size() < 2) continue;
    for (const MetricDef& m : metrics)
      if (m.thread_sweep) SweepTable(os, cells, o, m, wl, ts);
  }
  for (const SizeSweep& s : SizeSweeps(cells))
    for (const MetricDef& m : metrics)
      if (SizeSweepMetric(m))
        SweepByVariantTable(os, cells, o, m, s.variants, s.base, s.threads, "record size",
                            [&](const std::string& wl) { return ShapeRow(cells, wl); });
  for (const CallSweep& sweep : CallSweeps())
    for (const SizeSweep& s : DepthSweeps(cells, sweep))
      for (const MetricDef& m : metrics)
        if (DepthSweepMetric(m))
          SweepByVariantTable(os, cells, o, m, s.variants, s.base, s.threads, sweep.dimension,
                              [&](const std::string& wl) {
                                return std::to_string(GroupDepth(cells, wl, sweep)) + " " +
                                       sweep.row_unit;
                              });
  return os.str();
}

std::string CompareCsv(const std::vector<CompareCell>& cells, const CompareReportOptions& given) {
  std::string note;
  const CompareReportOptions o = EffectiveBaseline(given, &note);
  std::ostringstream os;
  os << "workload,threads,fieldcount,fieldlength,metric,unit";
  for (const auto& c : o.codecs)
    os << "," << c << "," << c << "_min," << c << "_max," << c << "_n," << c << "_partial," << c
       << "_ratio," << c << "_lo," << c << "_hi," << c << "_distinguishable";
  os << "\n";
  const std::vector<MetricDef> metrics = MetricsFor(cells);
  for (auto& [wl, threads] : CompareGroups(cells)) {
    for (const MetricDef& m : metrics) {
      const auto [fc, fl] = GroupShape(cells, wl);
      os << wl << "," << threads << "," << (fc > 0 ? std::to_string(fc) : "") << ","
         << (fl > 0 ? std::to_string(fl) : "") << ",\"" << m.name << "\"," << m.unit;
      for (const auto& c : o.codecs) {
        Aggregate a = AggregateMetric(cells, m, c, wl, threads);
        os << "," << (a.n ? FormatFigure(a.median) : "") << "," << (a.n ? FormatFigure(a.min) : "") << ","
           << (a.n ? FormatFigure(a.max) : "") << "," << a.n << "," << a.partial << ","
           << CsvRatio(cells, o, m, c, wl, threads);
      }
      os << "\n";
    }
  }
  return os.str();
}

nlohmann::json CompareJson(const std::vector<CompareCell>& cells,
                           const CompareReportOptions& given) {
  std::string note;
  const CompareReportOptions o = EffectiveBaseline(given, &note);
  nlohmann::json j;
  j["codecs"] = o.codecs;
  j["baseline"] = o.baseline;
  if (!note.empty()) j["baseline_note"] = note;
  j["setup"] = o.setup;
  if (o.requested_repeats > 0) j["requested_repeats"] = o.requested_repeats;
  nlohmann::json tables = nlohmann::json::array();
  const std::vector<MetricDef> metrics = MetricsFor(cells);
  for (auto& [wl, threads] : CompareGroups(cells)) {
    nlohmann::json t;
    t["workload"] = wl;
    t["threads"] = threads;
    if (const auto [fc, fl] = GroupShape(cells, wl); fc > 0 || fl > 0) {
      if (fc > 0) t["fieldcount"] = fc;
      if (fl > 0) t["fieldlength"] = fl;
    }
    for (const CallSweep& s : CallSweeps())
      if (const int depth = GroupDepth(cells, wl, s); depth > 0) t[s.key] = depth;
    for (const auto& c : o.codecs) {
      const CellCount n = CountCells(cells, c, wl, threads);
      t["repeats"][c] = n.present;
      t["partial_cells"][c] = n.partial;
      const ColumnRepeats r = RepeatsOf(cells, c, wl, threads);
      for (size_t k = 0; k < r.cells.size(); ++k) {
        const auto num = [](double x) { return std::isnan(x) ? json(nullptr) : json(x); };
        json rep = {{"repeat", r.figs[k].repeat},
                    {"throughput", num(r.figs[k].throughput)},
                    {"cpu_us_per_op", num(r.figs[k].cpu_per_op)},
                    {"host", r.cells[k]->host}};
        rep["outlier"] = r.flags[k].empty() ? json(nullptr) : json(r.flags[k]);
        t["repeat_host"][c].push_back(std::move(rep));
      }
    }
    for (const MetricDef& m : metrics) {
      for (const auto& c : o.codecs) {
        Aggregate a = AggregateMetric(cells, m, c, wl, threads);
        if (a.n == 0) continue;
        json& v = t["metrics"][m.name][c];
        v = {{"median", a.median}, {"min", a.min},         {"max", a.max},
             {"n", a.n},           {"partial", a.partial}, {"unit", m.unit}};
        if (HasRatio(o, m, c)) v["vs_baseline"] = RatioJson(CompareRatio(cells, m, c, o.baseline, wl, threads));
      }
    }
    tables.push_back(t);
  }
  j["tables"] = tables;
  nlohmann::json raw = nlohmann::json::array();
  for (const auto& c : cells) {
    raw.push_back({{"codec", c.codec}, {"column", CellColumn(c)}, {"workload", c.workload}, {"threads", c.threads},
                   {"repeat", c.repeat}, {"partial", CellIsPartial(c)}, {"results", c.results}});
    if (c.fieldcount > 0) raw.back()["fieldcount"] = c.fieldcount;
    if (c.fieldlength > 0) raw.back()["fieldlength"] = c.fieldlength;
    for (const CallSweep& s : CallSweeps())
      if (c.*s.field > 0) raw.back()[s.key] = c.*s.field;
    if (c.host.is_object() && !c.host.empty()) raw.back()["host"] = c.host;
  }
  j["cells"] = raw;
  return j;
}

}  // namespace wirebench
