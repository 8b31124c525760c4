#include "bench/cli/diff_command.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/results/build_compare.h"
#include "bench/results/report.h"
#include "bench/results/result_json.h"
#include "transports/transport.h"

namespace wirebench {

namespace {

struct DiffOptions {
  std::string base, next;
  std::optional<double> fail_above;  // Percent.
  std::string json_out;
};

// A side's label: its folder's or file's name ("before" for OUT/before),
// else `fallback`.
std::string LabelOf(const std::string& path, const std::string& fallback) {
  std::filesystem::path p(path);
  if (!p.has_filename()) p = p.parent_path();
  std::string name = p.stem().string();
  if (name == "comparison" || name.empty()) name = p.parent_path().filename().string();
  return name.empty() ? fallback : name;
}

int RunDiff(const DiffOptions& o) {
  std::string base_label = LabelOf(o.base, "base"), new_label = LabelOf(o.next, "new");
  if (base_label == new_label) {
    base_label = "base";
    new_label = "new";
  }
  const std::string rpc(DefaultTransport().name());
  std::vector<BuildSide> sides;
  for (const auto& [path, label] : {std::pair{o.base, base_label}, std::pair{o.next, new_label}}) {
    auto side = ReadSavedSide(path, label, rpc);
    if (!side.ok()) {
      std::fprintf(stderr, "wirebench diff: %s\n", side.status().ToString().c_str());
      return 2;
    }
    sides.push_back(std::move(side).value());
  }
  if (Status s = CheckComparable(sides); !s.ok()) {
    std::fprintf(stderr, "wirebench diff: %s\n", s.ToString().c_str());
    return 2;
  }
  BuildTableOptions to;
  to.title = "wirebench diff: " + new_label + " against " + base_label;
  to.setup = "Saved results: " + base_label + " from " + o.base + ", " + new_label + " from " +
             o.next + ".";
  to.paired = false;
  std::fputs(BuildsMarkdown(sides, to).c_str(), stdout);
  std::fflush(stdout);
  for (const std::string& w : EnvironmentWarnings(sides))
    std::fprintf(stderr, "wirebench diff: warning: %s\n", w.c_str());
  for (const std::string& line : OneSideOnly(sides))
    std::fprintf(stderr, "wirebench diff: not compared: %s\n", line.c_str());
  if (!o.json_out.empty()) {
    if (Status s = WriteFileAtomically(o.json_out, BuildsJson(sides, to).dump(2)); !s.ok()) {
      std::fprintf(stderr, "wirebench diff: %s\n", s.ToString().c_str());
      return 2;
    }
  }
  if (CommonGroups(sides).empty()) {
    std::fprintf(stderr,
                 "wirebench diff: no cell of %s matches one of %s (cells are matched by workload, "
                 "logical clients and codec@rpc): nothing compared\n",
                 o.next.c_str(), o.base.c_str());
    return 2;
  }
  if (!o.fail_above) return 0;
  const std::vector<BuildRow> bad = Regressions(BuildRows(sides, false), *o.fail_above);
  if (bad.empty()) {
    std::fprintf(stderr, "wirebench diff: no cost row regressed by more than %g%%\n",
                 *o.fail_above);
    return 0;
  }
  std::fprintf(stderr, "wirebench diff: %zu row(s) regressed by more than %g%%:\n", bad.size(),
               *o.fail_above);
  for (const BuildRow& r : bad)
    std::fprintf(stderr, "  %s, %d logical clients, %s: %s %s\n", r.group.workload.c_str(),
                 r.group.threads, r.group.column.c_str(), r.metric.c_str(),
                 PercentDiffText(r).c_str());
  return 1;
}

}  // namespace

void AddDiffCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<DiffOptions>();
  CLI::App* cmd = app.add_subcommand(
      "diff",
      "Before/after table of two saved comparisons (compare --out folders, or result files), "
      "cells matched by configuration; --fail-above PCT gates a CI job on it");
  cmd->add_option("BASE", o->base, "The baseline: a compare output folder or a result file")
      ->required();
  cmd->add_option("NEW", o->next, "The one compared against it")->required();
  cmd->add_option("--fail-above", o->fail_above,
                  "Exit 1 when a cost row regressed by more than PCT percent: instruction rows "
                  "by their (deterministic) difference, wall-clock rows only where the whole 95% "
                  "interval is past PCT; the rows are printed")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--json", o->json_out, "Also write the rows as JSON here");
  cmd->callback([o, exit_code] { *exit_code = RunDiff(*o); });
}

void AddVersionCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "version",
      "This build as JSON: its result schema (wirebench_result_version) and environment (git "
      "revision, build type, compiler)");
  cmd->callback([exit_code] {
    nlohmann::json j;
    j["wirebench_result_version"] = kResultVersion;
    j["environment"] = EnvironmentJson();
    std::fputs((j.dump(2) + "\n").c_str(), stdout);
    *exit_code = 0;
  });
}

}  // namespace wirebench
