// The order compare runs its columns in within each repeat (ColumnRunAt):
// listed order on even repeats, reversed on odd ones, so over any two
// consecutive repeats every column runs once in each position and a linear
// drift in the host's speed adds the same to every column's mean.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "bench/loadgen/compare_runner.h"

namespace wirebench {
namespace {

TEST(CompareOrder, EvenRepeatsRunInListedOrderOddOnesReversed) {
  std::vector<size_t> even, odd;
  for (size_t k = 0; k < 3; ++k) {
    even.push_back(ColumnRunAt(3, 0, k));
    odd.push_back(ColumnRunAt(3, 1, k));
  }
  EXPECT_EQ(even, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(odd, (std::vector<size_t>{2, 1, 0}));
  EXPECT_EQ(ColumnRunAt(3, 4, 0), 0u);
  EXPECT_EQ(ColumnRunAt(3, 5, 0), 2u);
  EXPECT_EQ(ColumnRunAt(1, 1, 0), 0u);
}

TEST(CompareOrder, EveryRepeatRunsEachColumnOnceAndPositionsBalanceOverTwoRepeats) {
  for (size_t n = 1; n <= 6; ++n) {
    std::vector<size_t> position_sum(n, 0);
    for (int rep = 0; rep < 2; ++rep) {
      std::set<size_t> seen;
      for (size_t k = 0; k < n; ++k) {
        const size_t i = ColumnRunAt(n, rep, k);
        ASSERT_LT(i, n);
        seen.insert(i);
        position_sum[i] += k;
      }
      EXPECT_EQ(seen.size(), n) << "repeat " << rep << " of " << n << " columns";
    }
    // Over two repeats every column's positions add up to n-1: on average
    // each runs in the middle of the repeat.
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(position_sum[i], n - 1) << n << " columns";
  }
}

// A count given twice would run cells whose files
// overwrite each other's.
TEST(CompareThreads, ACountGivenTwiceIsRefused) {
  auto t = ParseThreadList("1,1");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().ToString().find("--threads lists 1 twice"), std::string::npos)
      << t.status().ToString();
  EXPECT_FALSE(ParseThreadList("1,3,1").ok());
  ASSERT_TRUE(ParseThreadList("1,3,5").ok());
}

// Pipeline depths and batch sizes: {0} (the cell's own) when not given; bad
// or repeated values are refused naming the flag and its range.
TEST(ComparePipelines, ListParsesAndBadDepthsAreRefused) {
  const CallSweep& pipelines = CallSweeps()[0];
  const CallSweep& batches = CallSweeps()[1];
  for (const CallSweep* s : {&pipelines, &batches}) {
    auto none = ParseDepthList("", *s);
    ASSERT_TRUE(none.ok());
    EXPECT_EQ(*none, std::vector<int>{0});
    auto depths = ParseDepthList("1,8,64", *s);
    ASSERT_TRUE(depths.ok());
    EXPECT_EQ(*depths, (std::vector<int>{1, 8, 64}));
  }
  for (const auto& [sweep, arg, message] :
       std::vector<std::tuple<const CallSweep*, std::string, std::string>>{
           {&pipelines, "0", "--pipelines must be a list of depths 1-65534"},
           {&pipelines, "1,x", "--pipelines must be a list of depths"},
           {&pipelines, "70000", "--pipelines must be a list of depths"},
           {&pipelines, "8,8", "--pipelines lists 8 twice"},
           {&pipelines, ",", "--pipelines must be"},
           {&batches, "0", "--batches must be a list of batch sizes 1-4096"},
           {&batches, "5000", "--batches must be a list of batch sizes 1-4096"},
           {&batches, "10,10", "--batches lists 10 twice"}}) {
    auto r = ParseDepthList(arg, *sweep);
    ASSERT_FALSE(r.ok()) << arg;
    EXPECT_NE(r.status().message().find(message), std::string::npos) << r.status().ToString();
  }
}

// Record sizes: every fieldcount x fieldlength pair, 0 for a list not
// given; bad or repeated sizes are refused naming the flag.
TEST(CompareRecordShapes, ListsCrossAndBadSizesAreRefused) {
  auto none = ParseRecordShapes("", "");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, (std::vector<std::pair<int, int>>{{0, 0}}));
  auto lengths = ParseRecordShapes("", "10,100,1000,10000");
  ASSERT_TRUE(lengths.ok());
  EXPECT_EQ(*lengths, (std::vector<std::pair<int, int>>{{0, 10}, {0, 100}, {0, 1000}, {0, 10000}}));
  auto both = ParseRecordShapes("1,20", "5,50");
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(*both, (std::vector<std::pair<int, int>>{{1, 5}, {1, 50}, {20, 5}, {20, 50}}));
  for (const auto& [counts, lengths_arg, message] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"", "10,abc", "--fieldlengths must be a list of whole numbers 0-67108864"},
           {"", "100,100", "--fieldlengths lists 100 twice"},
           {"0", "", "--fieldcounts must be a list of whole numbers 1-4096"},
           {"5000", "", "--fieldcounts must be a list of whole numbers 1-4096"},
           {"", "-1", "--fieldlengths must be"}}) {
    auto r = ParseRecordShapes(counts, lengths_arg);
    ASSERT_FALSE(r.ok()) << counts << " / " << lengths_arg;
    EXPECT_NE(r.status().ToString().find(message), std::string::npos) << r.status().ToString();
  }
}

// A --baseline that is no column of the matrix.
TEST(CompareBaseline, AGivenBaselineOutsideTheMatrixIsRefused) {
  CompareOptions o;
  o.codecs = {Codecs().Find("raw")};
  o.baseline = "flatbuffers";
  o.baseline_given = true;
  o.out = std::string(WIREBENCH_BINARY_DIR) + "/compare_baseline_test";
  auto r = RunCompare(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("--baseline flatbuffers is not a column of this "
                                       "comparison (raw)"),
            std::string::npos)
      << r.status().ToString();
}

}  // namespace
}  // namespace wirebench
