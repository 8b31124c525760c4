#include "bench/results/build_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/results/compare_tables.h"
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
  std::vector<std::pair<int, double>> v;
  for (const CompareCell& c : s.cells) {
    if (!InGroup(c, g)) continue;
    const double x = MetricValue(m, c.results);
    if (!std::isnan(x)) v.emplace_back(c.repeat, x);
  }
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<double> Only(const std::vector<std::pair<int, double>>& v) {
  std::vector<double> out;
  for (const auto& p : v) out.push_back(p.second);
  return out;
}

double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
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
    cell.repeat = c.value("repeat", 1);
    cell.partial = c.value("partial", false);
    cell.results = c["results"];
    side.cells.push_back(std::move(cell));
  }
  // The schema and build of its cells: every result file must agree.
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(path + "/cells", ec))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty())
    return Status::InvalidArgument(path + "/cells holds no result files: the schema and build of "
                                   "its cells cannot be checked; give a complete compare folder");
  for (const std::string& f : files) {
    json doc;
    WB_RETURN_IF_ERROR(ReadDocHeader(f, &doc));
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

std::vector<BuildRow> BuildRows(const std::vector<BuildSide>& sides, bool paired) {
  std::vector<BuildRow> rows;
  if (sides.size() < 2) return rows;
  const std::vector<MetricDef> metrics = AllMetrics(sides);
  for (const BuildGroup& g : CommonGroups(sides)) {
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
        r.base = Median(Only(base));
        r.value = Median(Only(x));
        r.instructions = m.unit == "instructions/op";
        r.higher_is_better = m.higher_is_better;
        r.gated = r.instructions || m.baseline_ratio;
        if (base.empty() || x.empty()) {
          r.ratio.ratio = std::nan("");
          r.ratio.no_interval = "no value on one side";
        } else {
          r.ratio = paired && SameRepeats(x, base) ? PairedRatioInterval(Only(x), Only(base))
                                                   : WelchRatioInterval(Only(x), Only(base));
        }
        rows.push_back(std::move(r));
      }
    }
  }
  return rows;
}

std::vector<BuildRow> Regressions(const std::vector<BuildRow>& rows, double pct) {
  std::vector<BuildRow> out;
  const double up = 1.0 + pct / 100.0, down = 1.0 - pct / 100.0;
  for (const BuildRow& r : rows) {
    if (!r.gated || std::isnan(r.ratio.ratio)) continue;
    bool regressed;
    if (r.instructions) {
      regressed = r.ratio.ratio > up && r.value - r.base > kInstructionNoiseFloor;
    } else {
      regressed = r.ratio.has_interval() &&
                  (r.higher_is_better ? r.ratio.hi < down : r.ratio.lo > up);
    }
    if (regressed) out.push_back(r);
  }
  return out;
}

std::string PercentDiffText(const BuildRow& r) {
  if (std::isnan(r.ratio.ratio)) return "n/a";
  if (r.instructions) {  // The count moved, too: a known cost reads as +N.
    char abs[48];
    std::snprintf(abs, sizeof(abs), "%+.1f", r.value - r.base);
    return Pct(r.ratio.ratio, "%+.2f") + "% (" + abs + ")";
  }
  std::string text = r.ratio.has_interval() && !r.ratio.distinguishable() ? "~" : "";
  text += Pct(r.ratio.ratio);
  if (!r.ratio.has_interval()) return text + "% (" + r.ratio.no_interval + ")";
  text += "% [";
  text += Pct(r.ratio.lo);
  text += ", ";
  text += Pct(r.ratio.hi);
  text += "]";
  return text;
}

std::string BuildsMarkdown(const std::vector<BuildSide>& sides, const BuildTableOptions& o) {
  std::ostringstream os;
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
  os << "Each figure is the median over repeats. % diff is each build against `"
     << (sides.empty() ? "" : sides[0].label)
     << "` (the ratio of the geometric means, minus one; positive is more, so dearer for a cost "
        "and faster for throughput) with a 95% interval, "
     << (o.paired ? "paired by repeat index (the builds' repeats ran interleaved)"
                  : "Welch's (the two sides ran at different times)")
     << "; `~` marks an interval that contains 0: not distinguishable. Instruction rows are "
        "callgrind's deterministic counts: the point difference, no interval.\n\n";
  const std::vector<BuildRow> rows = BuildRows(sides, o.paired);
  const std::vector<MetricDef> metrics = AllMetrics(sides);
  for (const BuildGroup& g : CommonGroups(sides)) {
    os << "## " << GroupName(g) << "\n\nRepeats present:";
    for (size_t i = 0; i < sides.size(); ++i) {
      int n = 0;
      for (const CompareCell& c : sides[i].cells) n += InGroup(c, g) ? 1 : 0;
      os << (i ? ", " : " ") << sides[i].label << " " << n;
    }
    os << ".\n\n| metric |";
    for (size_t i = 0; i < sides.size(); ++i)
      os << " " << sides[i].label << " |"
         << (i == 0 ? "" : sides.size() == 2 ? " % diff |" : " % diff vs " + sides[0].label + " |");
    os << "\n|---|";
    for (size_t i = 0; i < 2 * sides.size() - 1; ++i) os << "---:|";
    os << "\n";
    for (const MetricDef& m : metrics) {
      std::vector<const BuildRow*> mine;
      for (const BuildRow& r : rows)
        if (r.group == g && r.metric == m.name) mine.push_back(&r);
      if (mine.empty()) continue;
      os << "| " << m.name << " | " << FormatFigure(mine[0]->base) << " |";
      for (const BuildRow* r : mine) os << " " << FormatFigure(r->value) << " | " << PercentDiffText(*r) << " |";
      os << "\n";
    }
    os << "\n";
  }
  // The release table of the mailing-list comparisons: a row per workload
  // (and thread count, column), a column per build, for the headline rows.
  const std::vector<BuildGroup> groups = CommonGroups(sides);
  if (groups.size() >= 2) {
    for (const char* headline : {"Throughput (ops/s)", "Total instructions/op", "Total CPU (us/op)"}) {
      std::ostringstream t;
      bool any = false;
      t << "## " << headline << " by cell\n\n| workload | threads | column |";
      for (size_t i = 0; i < sides.size(); ++i)
        t << " " << sides[i].label << " |" << (i == 0 ? "" : " % diff |");
      t << "\n|---|---:|---|";
      for (size_t i = 0; i < 2 * sides.size() - 1; ++i) t << "---:|";
      t << "\n";
      for (const BuildGroup& g : groups) {
        std::vector<const BuildRow*> mine;
        for (const BuildRow& r : rows)
          if (r.group == g && r.metric == headline) mine.push_back(&r);
        if (mine.empty()) continue;
        any = true;
        t << "| " << g.workload << " | " << g.threads << " | " << g.column << " | "
          << FormatFigure(mine[0]->base) << " |";
        for (const BuildRow* r : mine) t << " " << FormatFigure(r->value) << " | " << PercentDiffText(*r) << " |";
        t << "\n";
      }
      if (any) os << t.str() << "\n";
    }
  }
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
                {"base", num(r.base)},
                {"value", num(r.value)},
                {"ratio", num(r.ratio.ratio)},
                {"lo", num(r.ratio.lo)},
                {"hi", num(r.ratio.hi)},
                {"instructions", r.instructions},
                {"percent_diff", PercentDiffText(r)}};
    row["distinguishable"] =
        r.ratio.has_interval() ? json(r.ratio.distinguishable()) : json(nullptr);
    j["rows"].push_back(std::move(row));
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
