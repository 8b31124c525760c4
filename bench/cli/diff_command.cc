#include "bench/cli/diff_command.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/cli/subcommand.h"
#include "bench/results/build_compare.h"
#include "bench/results/compare_tables.h"
#include "bench/results/report.h"
#include "bench/results/result_json.h"
#include "transports/transport.h"

namespace wirebench {

namespace {

struct DiffOptions {
  std::string base, next;
  std::string fail_above;  // Percent, as given; checked by ParseFailAbove.
  std::string json_out;
};

// --fail-above's value: a finite percentage >= 0. A NaN bound would pass
// every regression (every comparison with NaN is false), a negative one
// fail every row that did not move: both are refused.
std::optional<double> ParseFailAbove(const std::string& text, std::string* error) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end != 0 || !std::isfinite(v) || v < 0) {
    *error = "--fail-above takes a percentage >= 0 like 2 (a row fails past +2%), got '" + text +
             "'";
    return std::nullopt;
  }
  return v;
}

// A side's label: its folder's or file's name ("before" for OUT/before),
// else `fallback`.
std::string LabelOf(const std::string& path, const std::string& fallback) {
  std::filesystem::path p(path);
  if (!p.has_filename()) p = p.parent_path();
  std::string name = p.stem().string();
  if (name == "comparison" || name.empty()) name = p.parent_path().filename().string();
  return name.empty() ? fallback : name;
}

// Reads both saved sides, labelled; false (said on stderr) when one cannot
// be read or the two are not comparable.
bool ReadSides(const DiffOptions& o, const std::string& base_label, const std::string& new_label,
               std::vector<BuildSide>* sides) {
  const std::string rpc(DefaultTransport().name());
  for (const auto& [path, label] : {std::pair{o.base, base_label}, std::pair{o.next, new_label}}) {
    auto side = ReadSavedSide(path, label, rpc);
    if (!side.ok()) {
      std::fprintf(stderr, "wirebench diff: %s\n", side.status().ToString().c_str());
      return false;
    }
    sides->push_back(std::move(side).value());
  }
  if (Status s = CheckComparable(*sides); !s.ok()) {
    std::fprintf(stderr, "wirebench diff: %s\n", s.ToString().c_str());
    return false;
  }
  return true;
}

// Says on stderr why there is no verdict: `what`, each of `lines` indented,
// then `advice` when there is one. Returns false, WorthComparing's answer.
bool Refuse(const std::string& what, const std::vector<std::string>& lines, const char* advice) {
  std::fprintf(stderr, "wirebench diff: %s\n", what.c_str());
  for (const std::string& line : lines) std::fprintf(stderr, "  %s\n", line.c_str());
  if (advice != nullptr) std::fprintf(stderr, "wirebench diff: %s\n", advice);
  return false;
}

// No verdict over nothing, over a part, or over figures measured
// differently: false (said on stderr) for any of them.
bool WorthComparing(const DiffOptions& o, const std::vector<BuildSide>& sides) {
  const std::string both = o.base + " and " + o.next;
  if (const auto incomplete = IncompleteSides(sides); !incomplete.empty())
    return Refuse("cannot compare " + both + ":", incomplete,
                  "run the incomplete comparison again to the end (every cell, every repeat), "
                  "then diff the two folders");
  if (CommonGroups(sides).empty())
    return Refuse("no cell of " + o.next + " matches one of " + o.base +
                      " (cells are matched by workload, logical clients and codec@rpc): nothing "
                      "compared",
                  OneSideOnly(sides), nullptr);
  if (const auto mismatches = MeasurementMismatches(sides); !mismatches.empty())
    return Refuse(both + " were measured differently:", mismatches,
                  "a difference between them would be the setup's, not the code's; run both "
                  "sides with the same compare options");
  return true;
}

// --fail-above: 0 when no gated row regressed by more than `fail_above`
// percent, 1 when one did (each listed, with its layers), 2 when no row
// could be gated at all.
int Gate(const std::vector<BuildSide>& sides, double fail_above, const std::string& both) {
  const std::vector<BuildRow> rows = BuildRows(sides, false);
  const GateCoverage cov = CoverageOf(rows);
  if (cov.instruction_totals == 0 && cov.tested == 0) {
    std::fprintf(stderr,
                 "wirebench diff: no row of %s could be gated (%d row(s) not tested: one repeat "
                 "or zero values, listed under Verdict above): no verdict; run compare with "
                 "--repeat 3 or more (or --instructions) on both sides\n",
                 both.c_str(), cov.untestable);
    return 2;
  }
  const std::string considered =
      std::to_string(cov.instruction_totals) + " instruction total(s) gated by count (past " +
      std::to_string(int(kInstructionGateFloor)) + " instructions/op too), " +
      std::to_string(cov.tested) + " wall-clock row(s) tested (Holm)" +
      (cov.untestable ? ", " + std::to_string(cov.untestable) + " row(s) not tested (see Verdict)"
                      : std::string());
  const std::vector<BuildRow> bad = Regressions(rows, fail_above);
  if (bad.empty()) {
    std::fprintf(stderr, "wirebench diff: gate passed at %g%%: %s; none regressed\n", fail_above,
                 considered.c_str());
    return 0;
  }
  std::fprintf(stderr, "wirebench diff: %zu row(s) regressed by more than %g%% (%s):\n",
               bad.size(), fail_above, considered.c_str());
  for (const BuildRow& r : bad) {
    std::fprintf(stderr, "  %s, %d logical clients, %s: %s %s%s\n", r.group.workload.c_str(),
                 r.group.threads, r.group.column.c_str(), r.metric.c_str(),
                 PercentDiffText(r).c_str(),
                 r.kind == RowKind::kTested ? (" " + TestText(r)).c_str() : "");
    for (const std::string& layer : ExplainRegression(rows, r))
      std::fprintf(stderr, "      of which %s\n", layer.c_str());
  }
  return 1;
}

int RunDiff(const DiffOptions& o) {
  std::optional<double> fail_above;
  if (!o.fail_above.empty()) {
    std::string error;
    fail_above = ParseFailAbove(o.fail_above, &error);
    if (!fail_above) {
      std::fprintf(stderr, "wirebench diff: %s\n", error.c_str());
      return 2;
    }
  }
  std::string base_label = LabelOf(o.base, "base"), new_label = LabelOf(o.next, "new");
  if (base_label == new_label) {
    base_label = "base";
    new_label = "new";
  }
  std::vector<BuildSide> sides;
  if (!ReadSides(o, base_label, new_label, &sides) || !WorthComparing(o, sides)) return 2;
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
  if (!fail_above) return 0;
  return Gate(sides, *fail_above, o.base + " and " + o.next);
}

}  // namespace

void AddDiffCommand(CLI::App& app, int* exit_code) {
  auto [cmd, o] = AddSubcommand<DiffOptions>(
      app, "diff",
      "Before/after table of two saved comparisons (compare --out folders, or result files), "
      "cells matched by configuration; --fail-above PCT gates a CI job on it",
      exit_code, RunDiff);
  cmd->add_option("BASE", o->base, "The baseline: a compare output folder or a result file")
      ->required();
  cmd->add_option("NEW", o->next, "The one compared against it")->required();
  cmd->add_option("--fail-above", o->fail_above,
                  "Exit 1 when a row regressed by more than PCT percent (a number >= 0): "
                  "instruction totals (total, client, server) by their difference, past a floor "
                  "of a few instructions/op; wall-clock costs, throughput and p99 only when "
                  "different after Holm and the whole 95% interval is past PCT; the rows are "
                  "printed (docs/verdicts.md)");
  cmd->add_option("--json", o->json_out, "Also write the rows as JSON here");
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
