// What the two A/A tests (compare_aa_test, compare_builds_aa_test) share: the
// cost rows they check, and the rule that a row fails only when it comes out
// distinguishable in the same direction in each of up to three independent
// matrices (chance and a burst of host load pick no direction; a real bias
// does).
// Thread-safety: one test thread.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace wirebench::testing {

// The rows checked: CPU per op (the tool's main figure) and allocations.
inline const std::vector<std::string> kAaRows = {"Client CPU (us/op)", "Server CPU (us/op)",
                                                 "Total CPU (us/op)", "Client allocations/op",
                                                 "Server allocations/op"};

// Rows an A/A matrix called apart, keyed "row, dearer" or "row, cheaper",
// with the evidence (an interval or a test) as text.
using AaRows = std::map<std::string, std::string>;

// Runs matrix 1 (which must check at least 3 rows), then matrices 2 and 3
// while a row stays apart in the same direction; fails on the rows apart in
// all three. `verdict` names being apart in the messages ("distinguishable").
inline void ExpectNoRowApartThreeTimes(const std::function<AaRows(int attempt, int* checked)>& run,
                                       const char* verdict) {
  int checked = 0;
  AaRows rows = run(1, &checked);
  EXPECT_GE(checked, 3) << "the CPU rows must carry an interval";
  for (int attempt = 2; attempt <= 3 && !rows.empty(); ++attempt) {
    for (const auto& [row, evidence] : rows)
      std::printf("matrix %d: %s: %s %s\n", attempt - 1, verdict, row.c_str(), evidence.c_str());
    int again = 0;
    const AaRows next = run(attempt, &again);
    AaRows both;  // Same row, same direction, again.
    for (const auto& [row, evidence] : next)
      if (rows.count(row)) both[row] = evidence;
    rows = both;
  }
  for (const auto& [row, evidence] : rows)
    ADD_FAILURE() << "A/A row " << verdict << " in the same direction three times: " << row << " "
                  << evidence;
}

}  // namespace wirebench::testing
