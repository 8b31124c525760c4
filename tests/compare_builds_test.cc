// Builds as columns: `compare --builds` and `diff`.
// - The parsing and the --fail-above rule on hand-made rows.
// - Through the real binary: a PATH that is no wirebench and a build whose
//   result schema differs are refused, saying why; `diff` says which cells
//   exist on one side only, refuses a schema mismatch and warns across
//   compilers; a record-size sweep (--fieldlengths) gives cells per size
//   with the canned read of that size, and `diff` matches them by size.
// - Under Valgrind (skipped without it): the same binary twice with
//   --instructions gives equal instruction rows (codec and region layers
//   within 0.1%, the rest within 1%: reply batching), and a known
//   cost (--spin-instructions N in the server's region) shows up in `diff`
//   as the region row +N with nothing else moving, and trips --fail-above.
// The wall-clock A/A of two builds is compare_builds_aa_test (run alone).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/loadgen/build_runner.h"
#include "bench/results/build_compare.h"
#include "tests/sanitized_build.h"
#include "tests/shell.h"

namespace wirebench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kBinary = std::string(WIREBENCH_BINARY_DIR) + "/bench/wirebench";

using Outcome = testing::ShellOutcome;
using testing::RunShell;

Outcome Wirebench(const std::string& args) { return RunShell(kBinary + " " + args); }

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in, nullptr, false);
}

void WriteJson(const std::string& path, const json& j) {
  std::ofstream(path) << j.dump(2);
}

// Every result file of a compare folder, edited by `edit`.
void EditCells(const std::string& folder, const std::function<void(json&)>& edit) {
  for (const auto& e : fs::directory_iterator(folder + "/cells")) {
    if (e.path().extension() != ".json") continue;
    json doc = ReadJson(e.path().string());
    edit(doc);
    WriteJson(e.path().string(), doc);
  }
}

// A small saved comparison (wall-clock, a fraction of a second per cell).
std::string SavedCompare(const std::string& name, const std::string& threads) {
  const std::string out = ::testing::TempDir() + "/builds-" + name;
  fs::remove_all(out);
  Outcome o = Wirebench("compare --codecs raw --threads " + threads +
                        " --repeat 1 --seconds 0.2 --warmup 0.1 --records 1000 --out " + out);
  EXPECT_EQ(o.exit_code, 0) << o.out;
  return out;
}

// --- Parsing and the gate, on hand-made input. ---

TEST(CompareBuilds, ParsesLabelledBuildsAndRefusesBadOnes) {
  auto b = ParseBuilds("before=/a/wirebench,after=b/wirebench");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->size(), 2u);
  EXPECT_EQ((*b)[0].label, "before");
  EXPECT_EQ((*b)[1].path, "b/wirebench");
  EXPECT_FALSE(ParseBuilds("before=/a").ok());              // One build.
  EXPECT_FALSE(ParseBuilds("x=/a,x=/b").ok());              // A label twice.
  EXPECT_FALSE(ParseBuilds("/a,/b").ok());                  // No labels.
  EXPECT_FALSE(ParseBuilds("a/b=/a,c=/b").ok());            // A label that is no folder name.
  EXPECT_NE(ParseBuilds("x=/a,x=/b").status().message().find("twice"), std::string::npos);
}

TEST(CompareBuilds, ForwardsTheCellFlagsButNotTheMatrixOnes) {
  const std::vector<std::string> args = {
      "--builds", "x=a,y=b", "--codecs", "raw", "pb", "--seconds", "2", "--threads=4",
      "--instructions", "--out", "o", "--repeat", "3", "--spin-instructions", "10"};
  EXPECT_EQ(ForwardedCompareArgs(args),
            (std::vector<std::string>{"--seconds", "2", "--instructions", "--spin-instructions",
                                      "10"}));
  // The cluster size and target each child is given in its own form; YCSB's
  // spellings of -threads and -target are the matrix's too.
  EXPECT_EQ(ForwardedCompareArgs({"--servers", "5", "-target", "900", "-threads", "32",
                                  "--target=5", "--records", "100"}),
            (std::vector<std::string>{"--records", "100"}));
}

BuildRow Row(bool instructions, double ratio, double lo, double hi, bool higher_is_better = false,
             bool different = true) {
  BuildRow r;
  r.base = 10000;  // A pb-sized total: 2% of it is past the floor.
  r.value = 10000 * ratio;
  r.median_ratio = ratio;
  r.metric = instructions ? "Server instructions/op" : "Total CPU (us/op)";
  r.kind = instructions ? RowKind::kInstructionTotal : RowKind::kTested;
  r.instructions = instructions;
  r.gated = true;
  r.higher_is_better = higher_is_better;
  r.ratio.ratio = ratio;
  r.ratio.lo = lo;
  r.ratio.hi = hi;
  r.ratio.method = std::isnan(lo) ? IntervalMethod::kNone : IntervalMethod::kWelch;
  r.different = different && !std::isnan(lo);
  return r;
}

TEST(CompareBuilds, FailAboveTakesInstructionTotalsByCountAndWallClockOnlyPastHolmAndInterval) {
  const double nan = std::nan("");
  // Instruction totals: the median difference, past the floor too.
  EXPECT_EQ(Regressions({Row(true, 1.021, nan, nan)}, 2).size(), 1u);
  EXPECT_EQ(Regressions({Row(true, 1.019, nan, nan)}, 2).size(), 0u);
  EXPECT_EQ(Regressions({Row(true, 0.95, nan, nan)}, 2).size(), 0u);  // Cheaper.
  // 1000 -> 1015: +1.5%, past a 1% bound, but within the A/A floor.
  BuildRow small = Row(true, 1.015, nan, nan);
  small.base = 1000;
  small.value = 1015;
  ASSERT_LT(15.0, kInstructionGateFloor);
  EXPECT_EQ(Regressions({small}, 1).size(), 0u);
  // A layer never fails the gate, however far it moves (batching moves the
  // client's harness and other layers): its side's total does.
  BuildRow layer = Row(true, 1.061, nan, nan);
  layer.kind = RowKind::kInstructionLayer;
  layer.metric = "Client instructions/op: other";
  EXPECT_EQ(Regressions({layer}, 2).size(), 0u);
  // Wall clock: different after Holm, and the whole interval past the threshold.
  EXPECT_EQ(Regressions({Row(false, 1.10, 1.03, 1.17)}, 2).size(), 1u);
  EXPECT_EQ(Regressions({Row(false, 1.10, 1.03, 1.17, false, false)}, 2).size(), 0u);  // Not after Holm.
  EXPECT_EQ(Regressions({Row(false, 1.10, 1.01, 1.19)}, 2).size(), 0u);
  EXPECT_EQ(Regressions({Row(false, 1.10, nan, nan)}, 2).size(), 0u);  // No interval.
  // Throughput regresses downwards.
  EXPECT_EQ(Regressions({Row(false, 0.90, 0.85, 0.95, true)}, 2).size(), 1u);
  EXPECT_EQ(Regressions({Row(false, 1.10, 1.05, 1.15, true)}, 2).size(), 0u);
}

// --- The real binary. ---

TEST(CompareBuilds, RefusesAPathThatIsNoWirebench) {
  const std::string out = ::testing::TempDir() + "/builds-refused";
  Outcome o = Wirebench("compare --codecs raw --builds x=" + kBinary + ",y=/bin/true --out " + out);
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.out.find("y=/bin/true is not a wirebench binary"), std::string::npos) << o.out;
  o = Wirebench("compare --codecs raw --builds x=" + kBinary + ",y=/nonexistent/wb --out " + out);
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.out.find("no such file"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("[1/"), std::string::npos) << "a cell ran: " << o.out;
}

TEST(CompareBuilds, RefusesARecordSizeSweepSayingWhatToDo) {
  const std::string out = ::testing::TempDir() + "/builds-sizes-refused";
  Outcome o = Wirebench("compare --codecs raw --fieldlengths 10,100 --builds x=" + kBinary +
                        ",y=" + kBinary + " --out " + out);
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.out.find("--builds does not sweep record sizes yet; give one size with -p "
                       "fieldlength=N"),
            std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("[1/"), std::string::npos) << "a cell ran: " << o.out;
}

TEST(CompareBuilds, RefusesABuildWhoseResultSchemaDiffers) {
  // A later wirebench, as far as `version` tells: a wrapper that reports
  // schema 2 and is the real binary otherwise.
  const std::string script = ::testing::TempDir() + "/wirebench-schema2";
  std::ofstream(script) << "#!/bin/sh\nif [ \"$1\" = version ]; then\n"
                        << "  echo '{\"wirebench_result_version\": 2, \"environment\": {}}'\n"
                        << "  exit 0\nfi\nexec " << kBinary << " \"$@\"\n";
  ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  const std::string out = ::testing::TempDir() + "/builds-schema";
  Outcome o = Wirebench("compare --codecs raw --seconds 0.2 --warmup 0.1 --builds old=" + kBinary +
                        ",new=" + script + " --out " + out);
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.out.find("wirebench_result_version 2"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("cannot be compared"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("[1/"), std::string::npos) << "a cell ran: " << o.out;
}

// Each build's cells against a null cluster of the size given, open loop
// at the target given: the same binary twice, one tiny cell each.
TEST(CompareBuilds, RunsEveryBuildsCellsAgainstTheClusterSizeAndTargetGiven) {
  const std::string out = ::testing::TempDir() + "/builds-cluster";
  fs::remove_all(out);
  Outcome o = Wirebench("compare --codecs raw --workloads a --threads 2 --servers 3 -target 400 "
                        "--repeat 1 --seconds 0.3 --warmup 0.1 --records 1000 --no-floor "
                        "--builds x=" + kBinary + ",y=" + kBinary + " --out " + out);
  ASSERT_EQ(o.exit_code, 0) << o.out;
  for (const std::string label : {"x", "y"}) {
    int cells = 0;
    for (const auto& e : fs::directory_iterator(out + "/" + label + "/cells")) {
      if (e.path().extension() != ".json") continue;
      ++cells;
      const json doc = ReadJson(e.path().string());
      ASSERT_TRUE(doc.is_object()) << e.path();
      ASSERT_TRUE(doc["results"].contains("cluster")) << e.path();
      EXPECT_EQ(doc["results"]["cluster"]["servers"].size(), 3u) << e.path();
      EXPECT_EQ(doc["config"].value("target_ops", 0.0), 400.0) << e.path();
    }
    EXPECT_EQ(cells, 1) << label;
  }
  // The table in YCSB's layout: a column per build, the cluster size in the group.
  std::ifstream in(out + "/comparison.ycsb.md");
  std::stringstream md;
  md << in.rdbuf();
  EXPECT_NE(md.str().find("| | x | y |\n|---|---:|---:|\n| **workloada-s3**, 2 threads | 1 run "
                          "| 1 run |\n| [OVERALL], RunTime(ms) |"),
            std::string::npos)
      << md.str();
  EXPECT_NE(md.str().find("| [UPDATE], 99thPercentileLatency(us) |"), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("null cluster of 3 servers"), std::string::npos) << md.str();
}

// A build whose compare lacks --servers (one from before the null cluster)
// is refused before any cell, naming the build and what to do.
TEST(CompareBuilds, RefusesABuildWithoutServersBeforeAnyCell) {
  const std::string script = ::testing::TempDir() + "/wirebench-no-cluster";
  std::ofstream(script) << "#!/bin/sh\nif [ \"$1\" = compare ] && [ \"$2\" = --help ]; then\n"
                        << "  echo 'Usage: wirebench compare [OPTIONS]'\n"
                        << "  echo '  --codecs TEXT  Codecs to compare'\n  exit 0\nfi\n"
                        << "exec " << kBinary << " \"$@\"\n";
  ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  const std::string out = ::testing::TempDir() + "/builds-no-cluster";
  Outcome o = Wirebench("compare --codecs raw --seconds 0.2 --warmup 0.1 --servers 5 --builds new=" +
                        kBinary + ",old=" + script + " --out " + out);
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.out.find("--builds old=" + script + ": that wirebench's compare has no --servers"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("or leave out --servers"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("[1/"), std::string::npos) << "a cell ran: " << o.out;
}

// compare's -target (--target): every cell open loop at that rate in all.
TEST(CompareTarget, EveryCellRunsAtTheTargetInAll) {
  const std::string out = ::testing::TempDir() + "/compare-target";
  fs::remove_all(out);
  Outcome o = Wirebench("compare --codecs raw --workloads a --threads 4 -target 300 --repeat 1 "
                        "--seconds 0.3 --warmup 0.1 --records 1000 --no-floor --out " + out);
  ASSERT_EQ(o.exit_code, 0) << o.out;
  const json doc = ReadJson(out + "/cells/workloada-t4-raw-r1.json");
  ASSERT_TRUE(doc.is_object()) << o.out;
  EXPECT_EQ(doc["config"].value("target_ops", 0.0), 300.0);
  EXPECT_EQ(doc["config"].value("threads", 0), 4);
  EXPECT_TRUE(fs::exists(out + "/comparison.ycsb.md"));
}

TEST(Diff, SaysWhichCellsExistOnOneSideOnlyAndComparesTheRest) {
  const std::string base = SavedCompare("one-side-base", "2");
  const std::string next = SavedCompare("one-side-new", "2,4");
  Outcome o = Wirebench("diff " + base + " " + next + " --json " + base + "-diff.json");
  EXPECT_EQ(o.exit_code, 0) << o.out;
  EXPECT_NE(o.out.find("## workloada, 2 logical clients, raw"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("## workloada, 4 logical clients, raw"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("workloada, 4 logical clients, raw: only in builds-one-side-new (not in "
                       "builds-one-side-base)"),
            std::string::npos)
      << o.out;
  const json j = ReadJson(base + "-diff.json");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["one_side_only"].size(), 1u);
  for (const json& row : j["rows"]) EXPECT_EQ(row["threads"], 2) << row.dump();
  // A result file on each side matches by codec and threads too.
  o = Wirebench("diff " + base + "/cells/workloada-t2-raw-r1.json " + next +
                "/cells/workloada-t2-raw-r1.json");
  EXPECT_EQ(o.exit_code, 0) << o.out;
  EXPECT_NE(o.out.find("## run, 2 logical clients, raw"), std::string::npos) << o.out;
  // Nothing in common is an error, not an empty table.
  o = Wirebench("diff " + base + "/cells/workloada-t2-raw-r1.json " + next +
                "/cells/workloada-t4-raw-r1.json");
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.out.find("nothing compared"), std::string::npos) << o.out;
}

// A record-size sweep through the real binary: each size is its own cells
// (files, tables, JSON), the canned read is sized to match (bytes on the
// wire from the server grow with the field length), and `diff` matches
// cells by size.
TEST(Diff, MatchesRecordSizeSweepsBySize) {
  const auto sweep = [](const std::string& name, const std::string& lengths) {
    const std::string out = ::testing::TempDir() + "/builds-" + name;
    fs::remove_all(out);
    Outcome o = Wirebench("compare --codecs raw --workloads c --threads 2 --fieldlengths " +
                          lengths +
                          " --repeat 1 --seconds 0.2 --warmup 0.1 --records 1000 --out " + out);
    EXPECT_EQ(o.exit_code, 0) << o.out;
    return out;
  };
  const std::string base = sweep("sizes-base", "10,1000");
  const std::string next = sweep("sizes-new", "1000,10000");
  EXPECT_TRUE(fs::exists(base + "/cells/workloadc-10B-t2-raw-r1.json"));
  EXPECT_TRUE(fs::exists(base + "/cells/workloadc-1000B-t2-raw-r1.json"));
  const json j = ReadJson(base + "/comparison.json");
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["tables"].size(), 2u) << j["tables"].dump();
  std::map<int, double> wire_in;  // fieldlength -> server->client bytes per op.
  for (const json& t : j["tables"])
    wire_in[t["fieldlength"].get<int>()] =
        t["metrics"]["Wire bytes/op server->client"]["raw"]["median"].get<double>();
  ASSERT_EQ(wire_in.size(), 2u);
  // workloadc reads only: each reply carries the canned record, 10 fields.
  EXPECT_GT(wire_in[1000] - wire_in[10], 9 * (1000 - 10)) << j["tables"].dump();
  EXPECT_LT(wire_in[10], 10 * 100) << "a 10-byte-field record is not the default 100 x 10";

  Outcome o = Wirebench("diff " + base + " " + next + " --json " + base + "-diff.json");
  EXPECT_EQ(o.exit_code, 0) << o.out;
  EXPECT_NE(o.out.find("## workloadc-1000B, 2 logical clients, raw"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("workloadc-10B, 2 logical clients, raw: only in builds-sizes-base"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("workloadc-10000B, 2 logical clients, raw: only in builds-sizes-new"),
            std::string::npos)
      << o.out;
  const json d = ReadJson(base + "-diff.json");
  ASSERT_TRUE(d.is_object());
  EXPECT_EQ(d["one_side_only"].size(), 2u);
  ASSERT_FALSE(d["rows"].empty());
  for (const json& row : d["rows"]) EXPECT_EQ(row["workload"], "workloadc-1000B") << row.dump();
}

TEST(Diff, RefusesASchemaMismatchAndWarnsAcrossCompilers) {
  const std::string base = SavedCompare("schema-base", "2");
  const std::string next = SavedCompare("schema-new", "2");
  EditCells(next, [](json& doc) { doc["environment"]["compiler"] = "clang 99.0.0"; });
  Outcome o = Wirebench("diff " + base + " " + next);
  EXPECT_EQ(o.exit_code, 0) << o.out;
  EXPECT_NE(o.out.find("warning: builds-schema-new was built with compiler 'clang 99.0.0'"),
            std::string::npos)
      << o.out;
  EditCells(next, [](json& doc) { doc["wirebench_result_version"] = 2; });
  o = Wirebench("diff " + base + " " + next);
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.out.find("wirebench_result_version 2"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("| metric |"), std::string::npos) << "a table was printed: " << o.out;
  o = Wirebench("diff " + base + " /nonexistent/folder");
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.out.find("does not exist"), std::string::npos) << o.out;
}

// --fail-above takes a finite percentage >= 0: NaN passed every regression
// (each comparison with NaN is false), -1 printed CLI11's 300-digit bound.
TEST(Diff, RefusesANonFiniteOrNegativeBoundInOneLine) {
  const std::string base = SavedCompare("bound-base", "2");
  const std::string next = SavedCompare("bound-new", "2");
  for (const char* bound : {"nan", "-1", "inf", "-0.5", "2x"}) {
    Outcome o = Wirebench("diff " + base + " " + next + " --fail-above '" + bound + "'");
    EXPECT_EQ(o.exit_code, 2) << bound << ": " << o.out;
    EXPECT_NE(o.out.find("--fail-above takes a percentage >= 0"), std::string::npos) << o.out;
    EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 1) << "not one line: " << o.out;
    EXPECT_EQ(o.out.find("| metric |"), std::string::npos) << "a table was printed: " << o.out;
  }
}

// One repeat a side: no row can be tested, so no verdict (exit 2), never
// "no row regressed"; the table lists the rows as not tested.
TEST(Diff, GivesNoVerdictWhenNoRowCouldBeTested) {
  const std::string base = SavedCompare("untested-base", "2");
  const std::string next = SavedCompare("untested-new", "2");
  Outcome o = Wirebench("diff " + base + " " + next + " --fail-above 5");
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.out.find("could be gated"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("not tested: 1 repeat"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("none regressed"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("no cost row regressed"), std::string::npos) << o.out;
}

// Sides that cannot make a verdict, or were measured differently: exit 2
// naming both folders and what differs, before any table.
TEST(Diff, RefusesEmptyPartialAndDifferentlyMeasuredSides) {
  const std::string base = SavedCompare("refuse-base", "2");
  const auto fresh = [&](const std::string& name) {
    const std::string next = ::testing::TempDir() + "/builds-refuse-" + name;
    fs::remove_all(next);
    fs::copy(base, next, fs::copy_options::recursive);
    return next;
  };
  const auto edit_table = [](const std::string& folder, const std::function<void(json&)>& edit) {
    json j = ReadJson(folder + "/comparison.json");
    edit(j);
    WriteJson(folder + "/comparison.json", j);
  };
  const auto expect_refused = [&](const std::string& next, const std::string& what) {
    Outcome o = Wirebench("diff " + base + " " + next + " --fail-above 2");
    EXPECT_EQ(o.exit_code, 2) << o.out;
    EXPECT_NE(o.out.find(base), std::string::npos) << "base not named: " << o.out;
    EXPECT_NE(o.out.find(next), std::string::npos) << "new side not named: " << o.out;
    EXPECT_NE(o.out.find(what), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("| metric |"), std::string::npos) << "a table was printed: " << o.out;
  };
  // Under Valgrind against wall clock (a +1072% "Total CPU" once, when the clocks were compared).
  std::string next = fresh("valgrind");
  edit_table(next, [](json& j) {
    for (json& c : j["cells"]) c["results"]["instructions"]["client"]["total"] = 2000.0;
  });
  expect_refused(next, "measured: by wall clock in builds-refuse-base, under Valgrind");
  // Another null-reads mode, read from the cells' result files.
  next = fresh("null-reads");
  EditCells(next, [](json& doc) { doc["config"]["null_reads"] = "empty"; });
  expect_refused(next, "null_reads: canned in builds-refuse-base, empty in");
  // Another record size.
  next = fresh("record");
  EditCells(next, [](json& doc) { doc["config"]["fieldlength"] = 1000; });
  expect_refused(next, "fieldlength: 100 in builds-refuse-base, 1000 in");
  // A partial compare: a cell stopped early, or fewer repeats than asked for.
  next = fresh("partial");
  edit_table(next, [](json& j) { j["cells"][0]["partial"] = true; });
  expect_refused(next, "stopped early (partial)");
  next = fresh("repeats");
  edit_table(next, [](json& j) { j["requested_repeats"] = 3; });
  expect_refused(next, "1 of 3 requested repeats");
  // One side empty.
  next = fresh("empty");
  edit_table(next, [](json& j) { j["cells"] = json::array(); });
  expect_refused(next, "has no cells");
}

// --- Under Valgrind. ---

bool HaveValgrind() { return std::system("command -v valgrind >/dev/null 2>&1") == 0; }

#define SKIP_WITHOUT_VALGRIND()                                                             \
  if (testing::kSanitizedBuild) GTEST_SKIP() << "a sanitizer build does not run under Valgrind"; \
  if (!HaveValgrind())                                                                      \
  GTEST_SKIP() << "valgrind is not installed (scripts/install-deps installs it); the "      \
                  "--instructions checks need it"

constexpr char kInstructionCell[] =
    " --instructions --codecs raw --threads 8 --ops 1000 --instruction-warmup-ops 300 "
    "--records 1000";
constexpr double kSpin = 20000;

// ctest runs each test as its own process, two at a time: each test makes
// its own runs in its own folders.
std::string Fresh(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  fs::remove_all(dir);
  return dir;
}

TEST(InstructionsAcrossBuilds, TheSameBinaryTwiceGivesEqualInstructionRows) {
  SKIP_WITHOUT_VALGRIND();
  const std::string aa = Fresh("builds-instructions-aa");
  const Outcome aa_run = Wirebench("compare --builds x=" + kBinary + ",y=" + kBinary +
                                    kInstructionCell + " --out " + aa);
  ASSERT_EQ(aa_run.exit_code, 0) << aa_run.out;
  const json j = ReadJson(aa + "/builds.json");
  ASSERT_TRUE(j.is_object()) << aa_run.out;
  ASSERT_EQ(j["builds"].size(), 2u);
  for (const json& b : j["builds"]) {
    EXPECT_EQ(b["result_version"], 1);
    EXPECT_TRUE(b["environment"].contains("git_revision")) << b.dump();
  }
  int instruction_rows = 0;
  for (const json& row : j["rows"]) {
    if (!row["instructions"].get<bool>()) continue;
    ++instruction_rows;
    ASSERT_TRUE(row["ratio"].is_number()) << row.dump();
    // The codec and region layers are the code alone: within 0.1%. The
    // totals (the gated rows) also hold the event loop's batching (how many
    // replies one read brings): within the gate's floor of 40
    // instructions/op (docs/verdicts.md: twice the largest A/A move
    // measured). The client's harness and other layers are shown, never
    // gated, and are not held to a bound here: on a loaded machine the
    // batching moves a 160-instruction `other` layer by 1.5% (seen here).
    const std::string metric = row["metric"];
    const bool code_only = metric.find(": codec") != std::string::npos ||
                           metric.find(": region") != std::string::npos;
    if (code_only) {
      EXPECT_NEAR(row["ratio"].get<double>(), 1.0, 0.001) << row.dump();
    } else if (row["gated"].get<bool>()) {
      EXPECT_LE(std::abs(row["value"].get<double>() - row["base"].get<double>()), 40.0)
          << row.dump();
    }
  }
  // Total, client, server, and a side's 4 layers with rpc's core and transport shares.
  EXPECT_EQ(instruction_rows, 15);
  EXPECT_NE(aa_run.out.find("| metric | x | y | % diff (medians) | test |"), std::string::npos)
      << aa_run.out;
  // Each build's folder is a compare folder `diff` reads: A/A passes a 1% gate.
  Outcome o = Wirebench("diff " + aa + "/x " + aa + "/y --fail-above 1");
  EXPECT_EQ(o.exit_code, 0) << o.out;
}

TEST(InstructionsAcrossBuilds, AKnownRegionCostShowsUpAsPlusNAndTripsTheGate) {
  SKIP_WITHOUT_VALGRIND();
  const std::string base = Fresh("builds-instructions-base");
  const std::string spun = Fresh("builds-instructions-spun");
  const Outcome base_run = Wirebench(std::string("compare") + kInstructionCell + " --out " + base);
  ASSERT_EQ(base_run.exit_code, 0) << base_run.out;
  const Outcome spun_run = Wirebench(std::string("compare") + kInstructionCell +
                                     " --spin-instructions 20000 --out " + spun);
  ASSERT_EQ(spun_run.exit_code, 0) << spun_run.out;
  const std::string rows = ::testing::TempDir() + "/builds-spun-diff.json";
  const auto start = std::chrono::steady_clock::now();
  Outcome o = Wirebench("diff " + base + " " + spun + " --fail-above 1 --json " + rows);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(o.exit_code, 1) << o.out;
  EXPECT_NE(o.out.find("row(s) regressed by more than 1%"), std::string::npos) << o.out;
  // The gate names the server's total, and the layer that moved under it.
  EXPECT_NE(o.out.find("raw: Server instructions/op +"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("of which Server instructions/op: region +"), std::string::npos) << o.out;
  std::printf("diff took %.3f s\n", took);  // A figure for the report, not an assertion.
  const json j = ReadJson(rows);
  ASSERT_TRUE(j.is_object()) << o.out;
  int moved = 0;
  for (const json& row : j["rows"]) {
    if (!row["instructions"].get<bool>()) continue;
    const std::string metric = row["metric"];
    const double rise = row["value"].get<double>() - row["base"].get<double>();
    if (metric == "Server instructions/op: region" || metric == "Server instructions/op" ||
        metric == "Total instructions/op") {
      EXPECT_NEAR(rise, kSpin, 0.02 * kSpin) << metric;
      ++moved;
      continue;
    }
    // Nothing else moves in the code: the codec layers hold within 0.1%. The
    // client's total moves with the batching a slower server brings (its
    // reads of its replies; instructions_test holds them to 5%); the harness
    // and `other` layers move with reply batching on a loaded machine
    // (docs/verdicts.md: shown, never gated), so they are not held to a
    // bound here.
    if (metric.find(": codec") != std::string::npos) {
      EXPECT_NEAR(row["ratio"].get<double>(), 1.0, 0.001) << metric;
    } else if (row["gated"].get<bool>()) {
      EXPECT_NEAR(row["ratio"].get<double>(), 1.0, 0.05) << metric;
    }
  }
  EXPECT_EQ(moved, 3);
}

}  // namespace
}  // namespace wirebench
