// The A/A check across builds: `wirebench compare --builds
// x=WB,y=WB` runs every cell once per build through a child of that binary,
// repeats interleaved ABBA; with the same binary on both sides, the cost rows
// must come out not different (`~`: not different after Holm's correction
// over the tested rows, docs/verdicts.md).
//
// As in compare_aa_test: a 95% interval excludes the truth 5% of the time,
// and a burst of host load does the same, in no given direction; a real bias
// (the second build always dearer) repeats its direction. So a row fails
// only when it is distinguishable in the same direction in each of up to
// three independent matrices. Runs alone (SERIAL): it reads wall-clock CPU.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/aa_check.h"

namespace wirebench {
namespace {

using testing::kAaRows;

const std::string kBinary = std::string(WIREBENCH_BINARY_DIR) + "/bench/wirebench";

// Runs the A/A matrix; returns the rows y-vs-x calls different (after
// Holm), keyed "row, dearer" or "row, cheaper", with the row's test.
testing::AaRows DistinguishableRows(int attempt, int* checked) {
  const std::string out =
      std::string(WIREBENCH_BINARY_DIR) + "/compare_builds_aa_" + std::to_string(attempt);
  std::filesystem::remove_all(out);
  const std::string command = kBinary + " compare --builds x=" + kBinary + ",y=" + kBinary +
                              " --codecs raw --threads 8 --repeat 4 --seconds 0.5 --warmup 0.2 "
                              "--records 1000 --out " + out + " >/dev/null 2>" + out + ".log";
  const int status = std::system(command.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "see " << out << ".log";
  std::ifstream in(out + "/builds.json");
  const auto j = nlohmann::json::parse(in, nullptr, false);
  EXPECT_TRUE(j.is_object()) << "see " << out << ".log";
  if (!j.is_object()) return {{"(no builds.json)", ""}};
  EXPECT_EQ(j.at("intervals"), "paired");
  // Every repeat of every build carries the host around it (load, steal, clock).
  EXPECT_FALSE(j.at("repeats").empty());
  for (const auto& rep : j.at("repeats"))
    EXPECT_TRUE(rep.at("host").contains("load1") && rep.at("host").contains("steal_percent"))
        << rep.dump();
  testing::AaRows distinguishable;
  for (const auto& row : j.at("rows")) {
    const std::string metric = row.at("metric");
    if (std::find(kAaRows.begin(), kAaRows.end(), metric) == kAaRows.end()) continue;
    // Not tested (e.g. 0 allocations on both sides): no verdict on it.
    if (row.value("different", nlohmann::json()).is_null()) continue;
    ++*checked;
    if (row.at("different").get<bool>())
      distinguishable[metric + (row.at("ratio").get<double>() > 1 ? ", dearer" : ", cheaper")] =
          row.at("test");
  }
  return distinguishable;
}

TEST(CompareBuildsAA, SameBinaryTwiceIsNotDifferentOnCostRows) {
  testing::ExpectNoRowApartThreeTimes(DistinguishableRows, "different");
}

}  // namespace
}  // namespace wirebench
