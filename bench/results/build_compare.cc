#include "bench/results/build_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/results/compare_tables.h"
#include "bench/results/host_figures.h"
#include "bench/results/ratio_interval.h"
#include "bench/results/result_json.h"

namespace wirebench {

namespace {

using nlohmann::json;


std::string Pct(double ratio, const char* format = "%+.1f") {
  char buf[32];
  std::snprintf(buf, sizeof(buf), format, 100.0 * (ratio - 1.0));
  return buf;
}

std::string GroupName(const BuildGroup& g) {
  return g.workload + ", " + std::to_string(g.threads) + " logical clients, " + g.column;
}

bool InGroup(const CompareCell& c, const BuildGroup& g) {
  return CellWorkload(c) == g.workload && c.threads == g.threads && CellColumn(c) == g.column;
}

// One build's repeats of one group: the cells, their throughput and CPU per
// op, and the outlier flag of each (RepeatOutliers), in the same order.
struct GroupRepeats {
  std::vector<const CompareCell*> cells;
  std::vector<RepeatFigures> figures;
  std::vector<std::string> flags;
};
GroupRepeats RepeatsOf(const BuildSide& s, const BuildGroup& g) {
  GroupRepeats r;
  for (const CompareCell& c : s.cells) {
    if (!InGroup(c, g)) continue;
    r.cells.push_back(&c);
    r.figures.push_back({c.repeat, MetricValue(MetricOf(Metric::kThroughput), c.results),
                         MetricValue(MetricOf(Metric::kTotalCpu), c.results)});
  }
  r.flags = RepeatOutliers(r.figures);
  return r;
}

bool HasGroup(const BuildSide& s, const BuildGroup& g) {
  return std::any_of(s.cells.begin(), s.cells.end(),
                     [&](const CompareCell& c) { return InGroup(c, g); });
}

// Groups of one side, in the order its cells name them.
std::vector<BuildGroup> GroupsOf(const BuildSide& s) {
  std::vector<BuildGroup> out;
  for (const CompareCell& c : s.cells) {
    BuildGroup g{CellWorkload(c), c.threads, CellColumn(c)};
    if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  }
  return out;
}

// (repeat, value) of one metric in one group of one side, by repeat.
std::vector<std::pair<int, double>> Values(const BuildSide& s, const MetricDef& m,
                                           const BuildGroup& g) {
  return RepeatValues(s.cells, m, [&](const CompareCell& c) { return InGroup(c, g); });
}

std::vector<MetricDef> AllMetrics(const std::vector<BuildSide>& sides) {
  std::vector<CompareCell> all;
  for (const BuildSide& s : sides) all.insert(all.end(), s.cells.begin(), s.cells.end());
  return MetricsFor(all);
}

std::string EnvText(const json& env, const char* key) {
  if (!env.is_object() || !env.contains(key) || !env[key].is_string()) return "?";
  return env[key].get<std::string>();
}

// The label a saved cell's column gets: its codec, "codec@rpc" off the
// default RPC layer (as compare labels its columns).
std::string ColumnOfConfig(const json& config, const std::string& default_rpc) {
  const std::string codec = config.value("codec", std::string("?"));
  const std::string rpc = config.value("rpc", default_rpc);
  return rpc == default_rpc ? codec : codec + "@" + rpc;
}

// The schema version and environment of one result document, read without
// refusing it (CheckComparable says what is wrong with a side).
Status ReadDocHeader(const std::string& path, json* doc) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError("cannot read " + path);
  *doc = json::parse(in, nullptr, false);
  if (doc->is_discarded() || !doc->is_object() || !doc->contains("wirebench_result_version"))
    return Status::InvalidArgument(path + " is not a wirebench result (no "
                                   "\"wirebench_result_version\"); give a `compare` output folder "
                                   "or a file written by `wirebench run --json FILE`");
  if (!(*doc)["wirebench_result_version"].is_number_integer())
    return Status::InvalidArgument(path + " has a wirebench_result_version that is not a number");
  return Status::Ok();
}

StatusOr<BuildSide> ReadFolder(const std::string& path, const std::string& label) {
  namespace fs = std::filesystem;
  BuildSide side;
  side.label = label;
  side.source = path;
  const std::string table = path + "/comparison.json";
  if (!fs::exists(table)) {
    if (fs::exists(path + "/builds.json"))
      return Status::InvalidArgument(
          path + " is a `compare --builds` folder: give one of its build folders (" + path +
          "/<label>), each holds that build's cells");
    return Status::InvalidArgument(path + " has no comparison.json: give a `compare` output "
                                   "folder (--out) or a result file");
  }
  std::ifstream in(table, std::ios::binary);
  const json j = json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("cells") || !j["cells"].is_array())
    return Status::Corruption(table + " is not a compare table with cells (truncated?); run the "
                              "comparison again");
  for (const json& c : j["cells"]) {
    if (!c.is_object() || !c.contains("results")) continue;
    CompareCell cell;
    cell.codec = c.value("codec", std::string("?"));
    cell.column = c.value("column", cell.codec);
    cell.workload = c.value("workload", std::string("?"));
    cell.threads = c.value("threads", 0);
    cell.fieldcount = c.value("fieldcount", 0);
    cell.fieldlength = c.value("fieldlength", 0);
    for (const CallSweep& s : CallSweeps()) cell.*s.field = c.value(s.key, 0);
    cell.repeat = c.value("repeat", 1);
    cell.partial = c.value("partial", false);
    cell.results = c["results"];
    cell.host = c.value("host", json());
    side.cells.push_back(std::move(cell));
  }
  side.requested_repeats = j.value("requested_repeats", 0);
  // The schema and build of its cells: every result file must agree.
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(path + "/cells", ec))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty())
    return Status::InvalidArgument(path + "/cells holds no result files: the schema and build of "
                                   "its cells cannot be checked; give a complete compare folder");
  std::vector<std::pair<std::string, json>> configs;  // File stem -> its config.
  for (const std::string& f : files) {
    json doc;
    WB_RETURN_IF_ERROR(ReadDocHeader(f, &doc));
    configs.emplace_back(fs::path(f).stem().string(), doc.value("config", json()));
    const int v = doc["wirebench_result_version"].get<int>();
    if (side.result_version == 0) {
      side.result_version = v;
      side.environment = doc.value("environment", json());
    } else if (v != side.result_version) {
      return Status::InvalidArgument(path + " mixes result versions (" +
                                     std::to_string(side.result_version) + " and " +
                                     std::to_string(v) + " in " + f +
                                     "): its cells were written by different wirebench builds");
    }
  }
  // Each cell's settings, from its result file (named as compare names it).
  for (CompareCell& c : side.cells) {
    std::string label = CellColumn(c);
    std::replace(label.begin(), label.end(), '#', '-');
    std::replace(label.begin(), label.end(), '@', '-');
    const std::string stem = CellWorkload(c) + "-t" + std::to_string(c.threads) + "-" + label +
                             "-r" + std::to_string(c.repeat);
    for (const auto& [name, config] : configs)
      if (name == stem) c.config = config;
  }
  return side;
}

StatusOr<BuildSide> ReadFile(const std::string& path, const std::string& label,
                             const std::string& default_rpc) {
  json doc;
  WB_RETURN_IF_ERROR(ReadDocHeader(path, &doc));
  BuildSide side;
  side.label = label;
  side.source = path;
  side.result_version = doc["wirebench_result_version"].get<int>();
  side.environment = doc.value("environment", json());
  if (!doc.contains("results") || !doc["results"].is_object())
    return Status::Corruption(path + " has no \"results\" section (a truncated result file?)");
  const json config = doc.value("config", json::object());
  CompareCell cell;
  cell.codec = config.value("codec", std::string("?"));
  cell.column = ColumnOfConfig(config, default_rpc);
  cell.workload = "run";
  cell.threads = config.value("threads", 0);
  cell.repeat = 1;
  cell.results = doc["results"];
  cell.config = config;
  side.cells.push_back(std::move(cell));
  return side;
}

}  // namespace

Status CheckComparable(const std::vector<BuildSide>& sides) {
  for (const BuildSide& s : sides) {
    if (s.result_version == 0 || s.result_version == kResultVersion) continue;
    return Status::InvalidArgument(
        s.label + " (" + s.source + ") writes results at wirebench_result_version " +
        std::to_string(s.result_version) + ", this wirebench reads version " +
        std::to_string(kResultVersion) +
        ": their schemas cannot be compared field by field. Run the comparison with the newer "
        "wirebench of the two, and re-run the older build's cells if it cannot read them");
  }
  for (size_t i = 1; i < sides.size(); ++i)
    if (sides[i].result_version != 0 && sides[0].result_version != 0 &&
        sides[i].result_version != sides[0].result_version)
      return Status::InvalidArgument(sides[i].label + " is at result version " +
                                     std::to_string(sides[i].result_version) + ", " +
                                     sides[0].label + " at " +
                                     std::to_string(sides[0].result_version) +
                                     ": results of different schemas cannot be compared");
  return Status::Ok();
}

std::vector<std::string> EnvironmentWarnings(const std::vector<BuildSide>& sides) {
  std::vector<std::string> out;
  if (sides.empty()) return out;
  const json& first = sides[0].environment;
  for (size_t i = 1; i < sides.size(); ++i) {
    const json& e = sides[i].environment;
    for (const char* key : {"compiler", "build_type"}) {
      const std::string a = EnvText(first, key), b = EnvText(e, key);
      if (a == b) continue;
      out.push_back(sides[i].label + " was built with " + std::string(key) + " '" + b + "', " +
                    sides[0].label + " with '" + a +
                    "': instruction counts follow the compiler and optimisation level as much as "
                    "the code, so a difference in them is not the change alone");
    }
  }
  return out;
}

std::vector<BuildGroup> CommonGroups(const std::vector<BuildSide>& sides) {
  std::vector<BuildGroup> out;
  if (sides.empty()) return out;
  for (const BuildGroup& g : GroupsOf(sides[0]))
    if (std::all_of(sides.begin(), sides.end(), [&](const BuildSide& s) { return HasGroup(s, g); }))
      out.push_back(g);
  return out;
}

std::vector<std::string> OneSideOnly(const std::vector<BuildSide>& sides) {
  std::vector<BuildGroup> seen;
  for (const BuildSide& s : sides)
    for (const BuildGroup& g : GroupsOf(s))
      if (std::find(seen.begin(), seen.end(), g) == seen.end()) seen.push_back(g);
  std::vector<std::string> out;
  for (const BuildGroup& g : seen) {
    std::string present, missing;
    for (const BuildSide& s : sides) {
      std::string& list = HasGroup(s, g) ? present : missing;
      if (!list.empty()) list += ", ";
      list += s.label;
    }
    if (!missing.empty())
      out.push_back(GroupName(g) + ": only in " + present + " (not in " + missing + ")");
  }
  return out;
}

const char* RowKindName(RowKind k) {
  switch (k) {
    case RowKind::kInstructionTotal: return "instruction total";
    case RowKind::kInstructionLayer: return "instruction layer";
    case RowKind::kTested: return "tested";
    case RowKind::kExtreme: return "extreme";
    case RowKind::kShown: return "shown";
  }
  return "shown";
}

namespace {

// Callgrind's counts are in the results of a group's cells (--instructions).
bool UnderCallgrind(const std::vector<BuildSide>& sides, const BuildGroup& g) {
  static const json::json_pointer kTotal("/instructions/client/total");
  for (const BuildSide& s : sides)
    for (const CompareCell& c : s.cells)
      if (InGroup(c, g) && c.results.contains(kTotal)) return true;
  return false;
}

RowKind KindOf(const MetricDef& m, bool callgrind) {
  if (m.unit == "instructions/op" && callgrind)
    return m.name.find(": ") != std::string::npos ? RowKind::kInstructionLayer
                                                  : RowKind::kInstructionTotal;
  if (!m.op.empty() && m.name.find(" max latency") != std::string::npos) return RowKind::kExtreme;
  return m.baseline_ratio ? RowKind::kTested : RowKind::kShown;
}

bool AllZero(const std::vector<std::pair<int, double>>& v) {
  return std::all_of(v.begin(), v.end(), [](const auto& p) { return p.second == 0; });
}

// "1 repeat: no interval" -> "1 repeat".
std::string Reason(const std::string& no_interval) {
  const size_t colon = no_interval.find(": no ");
  return colon == std::string::npos ? no_interval : no_interval.substr(0, colon);
}

}  // namespace

std::vector<BuildRow> BuildRows(const std::vector<BuildSide>& sides, bool paired) {
  std::vector<BuildRow> rows;
  if (sides.size() < 2) return rows;
  const std::vector<MetricDef> metrics = AllMetrics(sides);
  for (const BuildGroup& g : CommonGroups(sides)) {
    const bool callgrind = UnderCallgrind(sides, g);
    for (const MetricDef& m : metrics) {
      const auto base = Values(sides[0], m, g);
      for (size_t i = 1; i < sides.size(); ++i) {
        const auto x = Values(sides[i], m, g);
        if (base.empty() && x.empty()) continue;
        BuildRow r;
        r.group = g;
        r.metric = m.name;
        r.unit = m.unit;
        r.side = sides[i].label;
        r.base = Median(ValuesOf(base));
        r.value = Median(ValuesOf(x));
        r.median_ratio = r.base > 0 && !std::isnan(r.value) ? r.value / r.base : std::nan("");
        r.kind = KindOf(m, callgrind);
        r.instructions = r.kind == RowKind::kInstructionTotal || r.kind == RowKind::kInstructionLayer;
        r.higher_is_better = m.higher_is_better;
        r.gated = r.kind == RowKind::kInstructionTotal || r.kind == RowKind::kTested;
        if (base.empty() || x.empty()) {
          r.ratio.ratio = r.ratio.lo = r.ratio.hi = r.ratio.p = std::nan("");
          r.ratio.no_interval = "no value on one side";
        } else if (r.kind == RowKind::kTested) {
          r.ratio = paired && SameRepeats(x, base)
                        ? PairedRatioInterval(ValuesOf(x), ValuesOf(base))
                        : WelchRatioInterval(ValuesOf(x), ValuesOf(base));
        } else {  // Shown only: the ratio of the medians, no test.
          r.ratio.ratio = r.median_ratio;
          r.ratio.lo = r.ratio.hi = r.ratio.p = std::nan("");
          r.ratio.no_interval = "not tested";
        }
        if (r.kind == RowKind::kTested && !r.ratio.has_interval())
          r.not_tested = !base.empty() && !x.empty() && AllZero(base) && AllZero(x)
                             ? "zero on both sides"
                             : Reason(r.ratio.no_interval);
        rows.push_back(std::move(r));
      }
    }
  }
  // Holm over each later side's tested rows.
  for (size_t i = 1; i < sides.size(); ++i) {
    std::vector<size_t> family;
    std::vector<double> p;
    for (size_t k = 0; k < rows.size(); ++k)
      if (rows[k].side == sides[i].label && rows[k].kind == RowKind::kTested &&
          rows[k].ratio.has_interval()) {
        family.push_back(k);
        p.push_back(rows[k].ratio.p);
      }
    const std::vector<bool> reject = HolmReject(p, kFamilyAlpha);
    for (size_t k = 0; k < family.size(); ++k) rows[family[k]].different = reject[k];
  }
  return rows;
}

std::vector<BuildRow> Regressions(const std::vector<BuildRow>& rows, double pct) {
  std::vector<BuildRow> out;
  const double up = 1.0 + pct / 100.0, down = 1.0 - pct / 100.0;
  for (const BuildRow& r : rows) {
    bool regressed = false;
    if (r.kind == RowKind::kInstructionTotal) {
      regressed = !std::isnan(r.median_ratio) && r.median_ratio > up &&
                  r.value - r.base > kInstructionGateFloor;
    } else if (r.kind == RowKind::kTested) {
      regressed = r.different && r.ratio.has_interval() &&
                  (r.higher_is_better ? r.ratio.hi < down : r.ratio.lo > up);
    }
    if (regressed) out.push_back(r);
  }
  return out;
}

std::vector<std::string> ExplainRegression(const std::vector<BuildRow>& rows, const BuildRow& r) {
  std::vector<const BuildRow*> layers;
  if (r.kind != RowKind::kInstructionTotal) return {};
  // "Server instructions/op" -> its "Server instructions/op: ..." layers;
  // the Total's are every layer.
  const std::string prefix = r.metric.rfind("Total", 0) == 0 ? "" : r.metric + ": ";
  for (const BuildRow& l : rows)
    if (l.kind == RowKind::kInstructionLayer && l.group == r.group && l.side == r.side &&
        l.metric.rfind(prefix, 0) == 0 && std::fabs(l.value - l.base) > kInstructionGateFloor)
      layers.push_back(&l);
  std::sort(layers.begin(), layers.end(), [](const BuildRow* a, const BuildRow* b) {
    return std::fabs(a->value - a->base) > std::fabs(b->value - b->base);
  });
  std::vector<std::string> out;
  for (const BuildRow* l : layers) out.push_back(l->metric + " " + PercentDiffText(*l));
  return out;
}

GateCoverage CoverageOf(const std::vector<BuildRow>& rows) {
  GateCoverage c;
  for (const BuildRow& r : rows) {
    if (r.kind == RowKind::kInstructionTotal && !std::isnan(r.median_ratio)) ++c.instruction_totals;
    if (r.kind == RowKind::kTested) ++(r.ratio.has_interval() ? c.tested : c.untestable);
  }
  return c;
}

std::string PercentDiffText(const BuildRow& r) {
  if (std::isnan(r.median_ratio)) return r.base == 0 && r.value == 0 ? "0 = 0" : "n/a";
  if (r.instructions) {  // The count moved, too: a known cost reads as +N.
    char abs[48];
    std::snprintf(abs, sizeof(abs), "%+.1f", r.value - r.base);
    return Pct(r.median_ratio, "%+.2f") + "% (" + abs + ")";
  }
  return Pct(r.median_ratio) + "%";
}

std::string TestText(const BuildRow& r) {
  switch (r.kind) {
    case RowKind::kInstructionTotal: return "gated (count)";
    case RowKind::kInstructionLayer: return "layer: shown, not gated";
    case RowKind::kExtreme: return "extreme: shown, never tested";
    case RowKind::kShown: return "shown, not tested";
    case RowKind::kTested: break;
  }
  if (!r.ratio.has_interval()) return "not tested: " + r.not_tested;
  std::string text = r.different ? "" : "~";
  text += Pct(r.ratio.ratio);
  text += "% [";
  text += Pct(r.ratio.lo);
  text += ", ";
  text += Pct(r.ratio.hi);
  text += "]";
  if (r.different) text += " **different**";
  return text;
}

std::vector<std::pair<std::string, std::string>> MeasurementOf(const CompareCell& c) {
  static const json::json_pointer kTotal("/instructions/client/total");
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("measured", c.results.contains(kTotal)
                                   ? "under Valgrind (--instructions)"
                                   : "by wall clock");
  if (!c.config.is_object()) return out;
  const auto text = [](const json& v) {
    return v.is_string() ? v.get<std::string>() : v.is_null() ? std::string("(none)") : v.dump();
  };
  for (const char* key : {"region", "null_reads", "fieldcount", "fieldlength", "batch",
                          "pipeline", "connections", "client_io_threads", "server_io_threads",
                          "handlers", "rpc"})
    if (c.config.contains(key)) out.emplace_back(key, text(c.config[key]));
  // The workload's own mix and key space, from its explicit properties.
  if (c.config.contains("properties") && c.config["properties"].is_object())
    for (const char* key :
         {"recordcount", "readproportion", "updateproportion", "insertproportion",
          "scanproportion", "readmodifywriteproportion", "requestdistribution", "maxscanlength"})
      if (c.config["properties"].contains(key))
        out.emplace_back(key, text(c.config["properties"][key]));
  return out;
}

std::vector<std::string> MeasurementMismatches(const std::vector<BuildSide>& sides) {
  std::vector<std::string> out;
  if (sides.size() < 2) return out;
  for (const BuildGroup& g : CommonGroups(sides)) {
    const CompareCell* first = nullptr;
    for (const CompareCell& c : sides[0].cells)
      if (InGroup(c, g)) { first = &c; break; }
    if (!first) continue;
    const auto want = MeasurementOf(*first);
    for (size_t i = 1; i < sides.size(); ++i)
      for (const CompareCell& c : sides[i].cells) {
        if (!InGroup(c, g)) continue;
        const auto got = MeasurementOf(c);
        std::string diff;
        for (const auto& [k, v] : want)
          for (const auto& [k2, v2] : got)
            if (k == k2 && v != v2)
              diff += (diff.empty() ? "" : "; ") + k + ": " + v + " in " + sides[0].label +
                      ", " + v2 + " in " + sides[i].label;
        if (!diff.empty()) out.push_back(GroupName(g) + ": " + diff);
        break;  // One cell per side and group says how it was measured.
      }
  }
  return out;
}

std::vector<std::string> IncompleteSides(const std::vector<BuildSide>& sides) {
  std::vector<std::string> out;
  for (const BuildSide& s : sides) {
    const std::string who = s.label + " (" + s.source + ")";
    if (s.cells.empty()) {
      out.push_back(who + " has no cells");
      continue;
    }
    int partial = 0;
    for (const CompareCell& c : s.cells) partial += CellIsPartial(c) ? 1 : 0;
    if (partial)
      out.push_back(who + " has " + std::to_string(partial) +
                    " cell(s) stopped early (partial): its compare was interrupted");
    if (s.requested_repeats > 0)
      for (const BuildGroup& g : GroupsOf(s)) {
        int n = 0;
        for (const CompareCell& c : s.cells) n += InGroup(c, g) ? 1 : 0;
        if (n < s.requested_repeats) {
          out.push_back(who + " has " + std::to_string(n) + " of " +
                        std::to_string(s.requested_repeats) + " requested repeats of " +
                        GroupName(g) + " (a partial compare)");
          break;
        }
      }
  }
  return out;
}

namespace {

// The markdown of BuildsMarkdown, one part at a time.

// The title, the setup, a row per build and what the figures mean.
void WriteBuildsPreamble(std::ostream& os, const std::vector<BuildSide>& sides,
                         const BuildTableOptions& o) {
  os << "# " << o.title << "\n\n";
  if (!o.setup.empty()) os << o.setup << "\n\n";
  os << "| build | from | git revision | build type | compiler | result version |\n"
     << "|---|---|---|---|---|---:|\n";
  for (const BuildSide& s : sides)
    os << "| " << s.label << " | " << s.source << " | " << EnvText(s.environment, "git_revision")
       << " | " << EnvText(s.environment, "build_type") << " | "
       << EnvText(s.environment, "compiler") << " | "
       << (s.result_version ? std::to_string(s.result_version) : "?") << " |\n";
  os << "\n";
  for (const std::string& w : EnvironmentWarnings(sides)) os << "**Warning:** " << w << ".\n\n";
  os << "Each figure is the median over repeats, and % diff is of those medians (each build "
        "against `"
     << (sides.empty() ? "" : sides[0].label)
     << "`; positive is more: dearer for a cost, faster for throughput). The test column "
        "(wall-clock costs, throughput and p99 only) is the ratio of the geometric means with a "
        "95% interval, "
     << (o.paired ? "paired by repeat index (the builds' repeats ran interleaved)"
                  : "Welch's (the two sides ran at different times)")
     << "; a row is **different** only after Holm's correction over all tested rows of that "
        "build (family-wise 5%), `~` otherwise. Instruction totals are callgrind's counts, gated "
        "by --fail-above; their layers are shown to explain them, not gated. Max latency is "
        "one sample: shown, never tested. docs/verdicts.md says how a verdict is made.\n\n";
}

// The rows of `rows` for one group and metric, a build each after the first.
std::vector<const BuildRow*> RowsOf(const std::vector<BuildRow>& rows, const BuildGroup& g,
                                    const std::string& metric) {
  std::vector<const BuildRow*> mine;
  for (const BuildRow& r : rows)
    if (r.group == g && r.metric == metric) mine.push_back(&r);
  return mine;
}

// A table row's figures: the first build's, then each later build's with its
// % diff and test.
void WriteRowFigures(std::ostream& os, const std::vector<const BuildRow*>& mine) {
  os << FormatFigure(mine[0]->base) << " |";
  for (const BuildRow* r : mine)
    os << " " << FormatFigure(r->value) << " | " << PercentDiffText(*r) << " | " << TestText(*r)
       << " |";
  os << "\n";
}

// The host around each repeat of `g`, and the repeats far from their median.
void WriteGroupHosts(std::ostream& os, const std::vector<BuildSide>& sides, const BuildGroup& g) {
  bool any_host = false;
  for (const BuildSide& s : sides)
    for (const CompareCell& c : s.cells)
      any_host = any_host || (InGroup(c, g) && c.host.is_object() && !c.host.empty());
  if (!any_host) return;
  os << "\n| build | repeat | throughput (ops/s) | CPU (us/op) | host | flag |\n"
        "|---|---:|---:|---:|---|---|\n";
  for (const BuildSide& s : sides) {
    const GroupRepeats r = RepeatsOf(s, g);
    const auto& [mine, figs, flags] = r;
    for (size_t k = 0; k < mine.size(); ++k)
      os << "| " << s.label << " | " << figs[k].repeat << " | " << FormatFigure(figs[k].throughput)
         << " | " << FormatFigure(figs[k].cpu_per_op) << " | " << HostText(mine[k]->host) << " | "
         << (flags[k].empty() ? "" : "**outlier:** " + flags[k]) << " |\n";
  }
}

// One group's section: the repeats present, a row per metric, the hosts.
void WriteGroupSection(std::ostream& os, const std::vector<BuildSide>& sides, const BuildGroup& g,
                       const std::vector<BuildRow>& rows, const std::vector<MetricDef>& metrics) {
  os << "## " << GroupName(g) << "\n\nRepeats present:";
  for (size_t i = 0; i < sides.size(); ++i) {
    int n = 0;
    for (const CompareCell& c : sides[i].cells) n += InGroup(c, g) ? 1 : 0;
    os << (i ? ", " : " ") << sides[i].label << " " << n;
  }
  os << ".\n\n| metric |";
  for (size_t i = 0; i < sides.size(); ++i) {
    os << " " << sides[i].label << " |";
    if (i == 0) continue;
    const std::string vs = sides.size() == 2 ? "" : " vs " + sides[0].label;
    os << " % diff" << vs << " (medians) | test" << vs << " |";
  }
  os << "\n|---|";
  for (size_t i = 0; i < 3 * sides.size() - 2; ++i) os << "---:|";
  os << "\n";
  for (const MetricDef& m : metrics) {
    const std::vector<const BuildRow*> mine = RowsOf(rows, g, m.name);
    if (mine.empty()) continue;
    os << "| " << m.name << " | ";
    WriteRowFigures(os, mine);
  }
  WriteGroupHosts(os, sides, g);
  os << "\n";
}

// The release table of the mailing-list comparisons: a row per workload
// (and thread count, column), a column per build, for the headline rows.
void WriteHeadlineTables(std::ostream& os, const std::vector<BuildSide>& sides,
                         const std::vector<BuildRow>& rows) {
  const std::vector<BuildGroup> groups = CommonGroups(sides);
  if (groups.size() < 2) return;
  for (const char* headline :
       {"Throughput (ops/s)", "Total instructions/op", "Total CPU (us/op)"}) {
    std::ostringstream t;
    bool any = false;
    t << "## " << headline << " by cell\n\n| workload | threads | column |";
    for (size_t i = 0; i < sides.size(); ++i)
      t << " " << sides[i].label << " |" << (i == 0 ? "" : " % diff (medians) | test |");
    t << "\n|---|---:|---|";
    for (size_t i = 0; i < 3 * sides.size() - 2; ++i) t << "---:|";
    t << "\n";
    for (const BuildGroup& g : groups) {
      const std::vector<const BuildRow*> mine = RowsOf(rows, g, headline);
      if (mine.empty()) continue;
      any = true;
      t << "| " << g.workload << " | " << g.threads << " | " << g.column << " | ";
      WriteRowFigures(t, mine);
    }
    if (any) os << t.str() << "\n";
  }
}

// What the verdict on one later build rests on: its gated and tested rows,
// those found different and those that could not be tested.
void WriteVerdict(std::ostream& os, const std::string& label, const std::string& first,
                  const std::vector<BuildRow>& rows) {
  std::vector<BuildRow> mine;
  for (const BuildRow& r : rows)
    if (r.side == label) mine.push_back(r);
  const GateCoverage cov = CoverageOf(mine);
  os << "- " << label << " against " << first << ": " << cov.instruction_totals
     << " instruction total(s) (counts), " << cov.tested
     << " wall-clock row(s) tested (Holm, family-wise 5%)";
  int different = 0;
  for (const BuildRow& r : mine) different += r.different ? 1 : 0;
  os << "; " << different << " tested row(s) different";
  if (different) {
    os << ":";
    for (const BuildRow& r : mine)
      if (r.different)
        os << " " << r.group.workload << " " << r.group.column << " " << r.metric << " "
           << Pct(r.ratio.ratio) << "%;";
  }
  os << "\n";
  std::vector<std::string> untested;
  for (const BuildRow& r : mine)
    if (r.kind == RowKind::kTested && !r.ratio.has_interval())
      untested.push_back(r.group.workload + ", " + std::to_string(r.group.threads) + ", " +
                         r.group.column + ": " + r.metric + " (" + r.not_tested + ")");
  if (!untested.empty()) {
    os << "  - not tested (" << untested.size() << " row(s), no verdict on them):";
    const size_t shown = std::min<size_t>(untested.size(), 12);
    for (size_t k = 0; k < shown; ++k) os << (k ? "; " : " ") << untested[k];
    if (shown < untested.size()) os << "; and " << untested.size() - shown << " more";
    os << "\n";
  }
  if (cov.instruction_totals == 0 && cov.tested == 0)
    os << "  - **no row could be tested**: this table is no evidence that nothing changed\n";
}

}  // namespace

std::string BuildsMarkdown(const std::vector<BuildSide>& sides, const BuildTableOptions& o) {
  std::ostringstream os;
  WriteBuildsPreamble(os, sides, o);
  const std::vector<BuildRow> rows = BuildRows(sides, o.paired);
  const std::vector<MetricDef> metrics = AllMetrics(sides);
  for (const BuildGroup& g : CommonGroups(sides)) WriteGroupSection(os, sides, g, rows, metrics);
  WriteHeadlineTables(os, sides, rows);
  os << "## Verdict\n\n";
  for (size_t i = 1; i < sides.size(); ++i) WriteVerdict(os, sides[i].label, sides[0].label, rows);
  os << "\n";
  const std::vector<std::string> only = OneSideOnly(sides);
  if (!only.empty()) {
    os << "## Cells on one side only (not compared)\n\n";
    for (const std::string& line : only) os << "- " << line << "\n";
    os << "\n";
  }
  return os.str();
}

json BuildsJson(const std::vector<BuildSide>& sides, const BuildTableOptions& o) {
  json j;
  j["title"] = o.title;
  j["setup"] = o.setup;
  j["intervals"] = o.paired ? "paired" : "welch";
  j["multiple_comparisons"] = {{"method", "holm"}, {"family_wise_alpha", kFamilyAlpha},
                               {"family", "the tested rows of each later build"}};
  j["instruction_gate_floor"] = kInstructionGateFloor;
  for (const BuildSide& s : sides)
    j["builds"].push_back({{"label", s.label},
                           {"source", s.source},
                           {"result_version", s.result_version},
                           {"environment", s.environment}});
  j["warnings"] = EnvironmentWarnings(sides);
  j["one_side_only"] = OneSideOnly(sides);
  j["rows"] = json::array();
  const auto num = [](double x) { return std::isnan(x) ? json(nullptr) : json(x); };
  for (const BuildRow& r : BuildRows(sides, o.paired)) {
    json row = {{"workload", r.group.workload},
                {"threads", r.group.threads},
                {"column", r.group.column},
                {"metric", r.metric},
                {"unit", r.unit},
                {"build", r.side},
                {"kind", RowKindName(r.kind)},
                {"base", num(r.base)},
                {"value", num(r.value)},
                {"median_ratio", num(r.median_ratio)},
                {"instructions", r.instructions},
                {"gated", r.gated},
                {"percent_diff", PercentDiffText(r)},
                {"test", TestText(r)}};
    if (r.kind == RowKind::kTested) {
      row["ratio"] = num(r.ratio.ratio);  // Of the geometric means.
      row["lo"] = num(r.ratio.lo);
      row["hi"] = num(r.ratio.hi);
      row["p"] = num(r.ratio.p);
      row["different"] = r.ratio.has_interval() ? json(r.different) : json(nullptr);
      // The 95% interval alone excludes 1 (before Holm's correction).
      row["distinguishable"] =
          r.ratio.has_interval() ? json(r.ratio.distinguishable()) : json(nullptr);
      if (!r.not_tested.empty()) row["not_tested"] = r.not_tested;
    } else {
      row["ratio"] = num(r.median_ratio);
    }
    j["rows"].push_back(std::move(row));
  }
  // The host around every repeat, and the outliers.
  j["repeats"] = json::array();
  for (const BuildSide& s : sides)
    for (const BuildGroup& g : CommonGroups(sides)) {
      const GroupRepeats r = RepeatsOf(s, g);
      const auto& [mine, figs, flags] = r;
      for (size_t k = 0; k < mine.size(); ++k) {
        json rep = {{"build", s.label},   {"workload", g.workload},
                    {"threads", g.threads}, {"column", g.column},
                    {"repeat", figs[k].repeat}, {"throughput", num(figs[k].throughput)},
                    {"cpu_us_per_op", num(figs[k].cpu_per_op)}, {"host", mine[k]->host}};
        rep["outlier"] = flags[k].empty() ? json(nullptr) : json(flags[k]);
        j["repeats"].push_back(std::move(rep));
      }
    }
  return j;
}

StatusOr<BuildSide> ReadSavedSide(const std::string& path, const std::string& label,
                                  const std::string& default_rpc) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return ReadFolder(path, label);
  if (!std::filesystem::exists(path, ec))
    return Status::NotFound(path + " does not exist: give a `compare` output folder (--out) or a "
                            "result file (`wirebench run --json FILE`)");
  return ReadFile(path, label, default_rpc);
}

}  // namespace wirebench
