// Field-wise counter arithmetic (common/counters.h) and the structs built on
// it: CounterTotals, ThreadUsage (common/thread_stats.h) and
// rpc::ClientConnectionStats.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <thread>
#include <utility>

#include "common/counters.h"
#include "common/thread_stats.h"
#include "transports/wirebench/client.h"

namespace wirebench {
namespace {

struct Sample {
  uint64_t a = 0;
  int64_t b = 0;
  double c = 0;
  uint64_t per[3] = {};
  uint64_t not_a_counter = 0;
  using Fields = FieldList<&Sample::a, &Sample::b, &Sample::c, &Sample::per>;
  Sample& operator+=(const Sample& o) { return AddFields(*this, o); }
  Sample operator-(const Sample& o) const { return SubtractFields(*this, o); }
};

TEST(FieldList, AddsAndSubtractsListedFieldsIncludingArrays) {
  Sample x{1, -2, 0.5, {1, 2, 3}, 7};
  Sample y{10, 20, 1.5, {10, 20, 30}, 100};
  x += y;
  EXPECT_EQ(x.a, 11u);
  EXPECT_EQ(x.b, 18);
  EXPECT_DOUBLE_EQ(x.c, 2.0);
  EXPECT_EQ(x.per[0], 11u);
  EXPECT_EQ(x.per[2], 33u);
  EXPECT_EQ(x.not_a_counter, 7u);  // Not listed: untouched.
  Sample d = x - y;
  EXPECT_EQ(d.a, 1u);
  EXPECT_EQ(d.b, -2);
  EXPECT_DOUBLE_EQ(d.c, 0.5);
  EXPECT_EQ(d.per[1], 2u);
}

TEST(FieldList, AddSharedSeesEveryBumpOnceTheWriterIsDone) {
  Sample shared;
  std::thread writer([&] {
    for (int i = 0; i < 100000; ++i) {
      BumpShared(shared.a, 1);
      BumpShared(shared.b, -1);
      BumpShared(shared.per[1], 2);
    }
  });
  // Concurrent sums are allowed (and never exceed the final value).
  Sample partial;
  Sample::Fields::AddShared(partial, shared);
  EXPECT_LE(partial.a, 100000u);
  writer.join();
  Sample sum;
  Sample::Fields::AddShared(sum, shared);
  Sample::Fields::AddShared(sum, shared);
  EXPECT_EQ(sum.a, 200000u);
  EXPECT_EQ(sum.b, -200000);
  EXPECT_EQ(sum.per[1], 400000u);
}

// For a struct of uint64_t counters: a + b holds each listed field's sum,
// and (a + b) - b gives every listed field of a back.
template <typename T>
void ExpectSumAndDifference(const T& a, const T& b,
                            std::initializer_list<std::pair<uint64_t T::*, uint64_t>> sums) {
  T s = a;
  s += b;
  const T d = s - b;
  for (const auto& [field, sum] : sums) {
    EXPECT_EQ(s.*field, sum);
    EXPECT_EQ(d.*field, a.*field);
  }
}

TEST(CounterTotals, SumAndDifference) {
  ExpectSumAndDifference(CounterTotals{5, 500, 4, 10, 20}, CounterTotals{1, 100, 1, 1, 2},
                         {{&CounterTotals::allocs, 6},
                          {&CounterTotals::alloc_bytes, 600},
                          {&CounterTotals::frees, 5},
                          {&CounterTotals::encode_copied, 11},
                          {&CounterTotals::decode_copied, 22}});
}

TEST(ThreadUsage, SumNeedsHardwareCountersOnEveryThread) {
  ThreadUsage with;
  with.cpu_ns = 100;
  with.voluntary_switches = 3;
  with.hw_available = true;
  with.cycles = 1000;
  with.threads = 1;
  ThreadUsage without = with;
  without.hw_available = false;

  ThreadUsage sum;
  sum += with;
  EXPECT_TRUE(sum.hw_available);  // The first thread decides.
  sum += with;
  EXPECT_TRUE(sum.hw_available);
  EXPECT_DOUBLE_EQ(sum.cpu_ns, 200);
  EXPECT_EQ(sum.voluntary_switches, 6u);
  EXPECT_DOUBLE_EQ(sum.cycles, 2000);
  EXPECT_EQ(sum.threads, 2);
  sum += without;
  EXPECT_FALSE(sum.hw_available);
  EXPECT_EQ(sum.threads, 3);

  ThreadUsage later = with;
  later.cpu_ns = 250;
  later.cycles = 4000;
  ThreadUsage d = later - with;
  EXPECT_DOUBLE_EQ(d.cpu_ns, 150);
  EXPECT_DOUBLE_EQ(d.cycles, 3000);
  EXPECT_EQ(d.voluntary_switches, 0u);
  EXPECT_EQ(d.threads, 1);  // A difference of readings of the same threads.
  EXPECT_TRUE(d.hw_available);
  EXPECT_FALSE((later - without).hw_available);
}

TEST(ClientConnectionStats, SumAndDifference) {
  using Stats = rpc::ClientConnectionStats;
  ExpectSumAndDifference(Stats{10, 9, 1000, 900, 3, 4, 1}, Stats{1, 2, 3, 4, 5, 6, 7},
                         {{&Stats::frames_out, 11},
                          {&Stats::frames_in, 11},
                          {&Stats::bytes_out, 1003},
                          {&Stats::bytes_in, 904},
                          {&Stats::writes, 8},
                          {&Stats::reads, 10},
                          {&Stats::stray_replies, 8}});
}

}  // namespace
}  // namespace wirebench
