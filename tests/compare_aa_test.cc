// The A/A check, end to end: `wirebench compare --codecs raw,raw`
// runs one codec as two columns ("raw" and "raw#2") through the real binary,
// and the cost rows must come out "not distinguishable" (their 95% interval
// contains 1.0). Latency tails are not checked.
//
// A 95% interval excludes the truth 5% of the time by construction, and five
// rows are checked, so one matrix in five or so has a row out by chance; a
// burst of host load (steal on a shared VM) during one repeat does the same.
// Neither repeats in a given direction. A real bias does (the second column
// always dearer, say), so a row fails only when it comes out distinguishable
// in the same direction in each of up to three independent matrices.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/aa_check.h"
#include "tests/silent_listener.h"

namespace wirebench {
namespace {

using testing::kAaRows;

const std::string kBinary = std::string(WIREBENCH_BINARY_DIR) + "/bench/wirebench";

// Runs the A/A matrix; returns the rows whose raw#2-vs-raw interval excludes
// 1.0, keyed "row, dearer" or "row, cheaper" (raw#2 against raw), with the
// interval.
testing::AaRows DistinguishableRows(int attempt, int* checked) {
  const std::string out = std::string(WIREBENCH_BINARY_DIR) + "/compare_aa_" + std::to_string(attempt);
  const std::string stem = out + "_process";
  testing::WirebenchProcess p(kBinary,
                              {"compare", "--codecs", "raw,raw", "--baseline", "raw", "--threads",
                               "8", "--repeat", "4", "--seconds", "0.5", "--warmup", "0.2",
                               "--records", "1000", "--out", out},
                              stem);
  EXPECT_EQ(p.Wait(std::chrono::seconds(240)), 0) << p.Stderr();
  std::ifstream in(out + "/comparison.json");
  const auto j = nlohmann::json::parse(in, nullptr, false);
  EXPECT_TRUE(j.is_object()) << p.Stderr();
  if (!j.is_object()) return {{"(no comparison.json)", ""}};
  EXPECT_EQ(j.at("codecs"), nlohmann::json({"raw", "raw#2"}));
  testing::AaRows distinguishable;
  for (const auto& table : j.at("tables")) {
    EXPECT_EQ(table.at("repeats").at("raw#2"), 4);
    for (const std::string& row : kAaRows) {
      if (!table.at("metrics").contains(row)) continue;
      const auto& v = table.at("metrics").at(row).at("raw#2");
      if (!v.contains("vs_baseline")) continue;
      const auto& r = v.at("vs_baseline");
      if (r.at("distinguishable").is_null()) continue;  // E.g. 0 allocations: no ratio.
      ++*checked;
      if (r.at("distinguishable").get<bool>())
        distinguishable[row + (r.at("ratio").get<double>() > 1 ? ", dearer" : ", cheaper")] =
            r.dump();
    }
  }
  return distinguishable;
}

TEST(CompareAA, SameCodecTwiceIsNotDistinguishableOnCostRows) {
  testing::ExpectNoRowApartThreeTimes(DistinguishableRows, "distinguishable");
}

}  // namespace
}  // namespace wirebench
