// The Stats snapshot arithmetic of ComputeCosts (bench/results/report.cc), on
// hand-built server_before / server_after documents: per-thread figures are
// after minus before (so warm-up is excluded), threads are matched by tid (a
// thread only in "after" started during the phase and counts from zero),
// the io / handler role split, and the division by the measured operations.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench/results/report.h"

namespace wirebench {
namespace {

using nlohmann::json;

json Thread(const char* role, int tid, double cpu_ns, double allocs, double vcsw = 0) {
  return {{"role", role},          {"name", role},
          {"tid", tid},            {"cpu_ns", cpu_ns},
          {"user_ns", cpu_ns * 0.75}, {"sys_ns", cpu_ns * 0.25},
          {"voluntary_switches", vcsw}, {"involuntary_switches", vcsw / 2},
          {"allocs", allocs},      {"alloc_bytes", allocs * 64},
          {"encode_copied", allocs * 10}, {"decode_copied", allocs * 20}};
}

json Snapshot(double uptime, uint64_t bytes_in, uint64_t bytes_out, json threads) {
  return {{"server", {{"bind", "127.0.0.1"}, {"port", 4000}, {"io_threads", 1}, {"uptime_s", uptime}}},
          {"bytes_in", bytes_in},
          {"bytes_out", bytes_out},
          {"allocation_counting", true},
          {"threads", std::move(threads)}};
}

// 100 operations. Before holds large warm-up figures that must not count.
RunResult HandBuilt() {
  RunResult r;
  r.operations = 100;
  r.runtime_s = 1;
  r.server_before = Snapshot(10, 5'000'000, 7'000'000,
                             json::array({Thread("server-io", 11, 9e9, 1e6, 1000),
                                          Thread("server-handler", 12, 4e9, 5e5, 500),
                                          Thread("server-other", 13, 1e6, 10)}));
  r.server_after = Snapshot(11, 5'000'000 + 100 * 1100, 7'000'000 + 100 * 300,
                            json::array({Thread("server-io", 11, 9e9 + 500'000, 1e6 + 400, 1200),
                                         Thread("server-handler", 12, 4e9 + 300'000, 5e5 + 100, 600),
                                         // Started during the phase: counts from zero.
                                         Thread("server-handler", 14, 200'000, 100, 100),
                                         Thread("server-other", 13, 1e6 + 100'000, 10)}));
  r.client_usage.cpu_ns = 2'000'000;
  r.client_usage.user_ns = 1'500'000;
  r.client_usage.sys_ns = 500'000;
  r.client_usage.voluntary_switches = 50;
  r.client_usage.threads = 2;
  r.client_counters.allocs = 300;
  r.connections.bytes_out = 100 * 1100;
  r.connections.bytes_in = 100 * 300;
  r.connections.frames_out = 100;
  r.connections.writes = 25;
  return r;
}

TEST(StatsArithmetic, ServerFiguresAreAfterMinusBeforePerOperation) {
  const RunCosts c = ComputeCosts(HandBuilt());
  ASSERT_TRUE(c.server.available) << c.server.unavailable_reason;
  // io 500 us + handlers 300 + 200 us + other 100 us = 1100 us over 100 ops.
  EXPECT_DOUBLE_EQ(c.server.cpu_us, 11.0);
  EXPECT_DOUBLE_EQ(c.server.user_us, 11.0 * 0.75);
  EXPECT_DOUBLE_EQ(c.server.sys_us, 11.0 * 0.25);
  // Allocations: 400 + 100 + 100 + 0 = 600 over 100 ops.
  EXPECT_DOUBLE_EQ(c.server.allocs, 6.0);
  EXPECT_DOUBLE_EQ(c.server.alloc_bytes, 6.0 * 64);
  EXPECT_DOUBLE_EQ(c.server.encode_copied, 60.0);
  EXPECT_DOUBLE_EQ(c.server.decode_copied, 120.0);
  EXPECT_TRUE(c.server.allocs_available);
  // Switches: 200 + 100 + 100 = 400 voluntary; half that involuntary.
  EXPECT_DOUBLE_EQ(c.server.voluntary_switches, 4.0);
  EXPECT_DOUBLE_EQ(c.server.involuntary_switches, 2.0);
  EXPECT_DOUBLE_EQ(c.server.wire_bytes_in, 1100.0);
  EXPECT_DOUBLE_EQ(c.server.wire_bytes_out, 300.0);
  EXPECT_EQ(c.server.threads, 4);
}

TEST(StatsArithmetic, RolesSplitIntoIoAndHandlerThreads) {
  const RunCosts c = ComputeCosts(HandBuilt());
  EXPECT_DOUBLE_EQ(c.server.io_cpu_us, 5.0);
  // Both handler threads, the new one included.
  EXPECT_DOUBLE_EQ(c.server.handler_cpu_us, 5.0);
  // The acceptor / Stats thread counts in the total, in neither role.
  EXPECT_DOUBLE_EQ(c.server.cpu_us - c.server.io_cpu_us - c.server.handler_cpu_us, 1.0);
}

TEST(StatsArithmetic, WarmUpIsExcluded) {
  // The same phase with ten times the warm-up before it gives the same costs.
  RunResult a = HandBuilt();
  RunResult b = HandBuilt();
  for (json* snap : {&b.server_before, &b.server_after})
    for (auto& t : (*snap)["threads"])
      if (t["tid"] != 14) t["cpu_ns"] = t["cpu_ns"].get<double>() + 9e10;
  EXPECT_DOUBLE_EQ(ComputeCosts(a).server.cpu_us, ComputeCosts(b).server.cpu_us);
  // And a thread wrongly matched against another tid would show: give the
  // new thread a tid that exists in "before" and the delta goes negative.
  RunResult c = HandBuilt();
  c.server_after["threads"][2]["tid"] = 11;
  EXPECT_LT(ComputeCosts(c).server.cpu_us, ComputeCosts(a).server.cpu_us);
}

TEST(StatsArithmetic, ClientFiguresAreDividedByOperations) {
  const RunCosts c = ComputeCosts(HandBuilt());
  EXPECT_DOUBLE_EQ(c.client.cpu_us, 20.0);
  EXPECT_DOUBLE_EQ(c.client.user_us, 15.0);
  EXPECT_DOUBLE_EQ(c.client.sys_us, 5.0);
  EXPECT_DOUBLE_EQ(c.client.allocs, 3.0);
  EXPECT_DOUBLE_EQ(c.client.voluntary_switches, 0.5);
  EXPECT_DOUBLE_EQ(c.client.wire_bytes_out, 1100.0);
  EXPECT_DOUBLE_EQ(c.client.wire_bytes_in, 300.0);
  EXPECT_DOUBLE_EQ(c.frames_per_write, 4.0);
  EXPECT_EQ(c.client.threads, 2);
}

TEST(StatsArithmetic, DoublingOperationsHalvesEveryPerOpFigure) {
  RunResult r = HandBuilt();
  const RunCosts one = ComputeCosts(r);
  r.operations = 200;
  const RunCosts two = ComputeCosts(r);
  EXPECT_DOUBLE_EQ(two.server.cpu_us * 2, one.server.cpu_us);
  EXPECT_DOUBLE_EQ(two.server.allocs * 2, one.server.allocs);
  EXPECT_DOUBLE_EQ(two.client.cpu_us * 2, one.client.cpu_us);
}

// A run stopped before its first operation completed has nothing to divide
// by: no per-operation figure (neither infinity nor its whole cost as one op).
TEST(StatsArithmetic, ZeroOperationsHaveNoPerOperationFigure) {
  RunResult r = HandBuilt();
  r.operations = 0;
  const RunCosts c = ComputeCosts(r);
  EXPECT_FALSE(c.client.available);
  EXPECT_FALSE(c.server.available);
  EXPECT_EQ(c.client.unavailable_reason, "no operation was measured");
  const std::string text = FormatTextReport(r, c, {});
  EXPECT_NE(text.find("[CLIENT], CpuPerOp(us), unavailable (no operation was measured)"),
            std::string::npos)
      << text;
}

TEST(StatsArithmetic, MissingSnapshotMakesServerUnavailableWithTheReason) {
  RunResult r = HandBuilt();
  r.server_before = json();
  r.server_stats_error = "Unavailable: Stats call timed out";
  const RunCosts c = ComputeCosts(r);
  EXPECT_FALSE(c.server.available);
  EXPECT_EQ(c.server.unavailable_reason, "Unavailable: Stats call timed out");
  EXPECT_DOUBLE_EQ(c.server.cpu_us, 0.0);
  const std::string text = FormatTextReport(r, c, {});
  EXPECT_NE(text.find("[SERVER], CpuPerOp(us), unavailable (Unavailable: Stats call timed out)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[TOTAL], CpuPerOp(us), unavailable"), std::string::npos);
}

TEST(StatsArithmetic, AllocationsUnavailableWhenTheServerDidNotCount) {
  RunResult r = HandBuilt();
  r.server_after["allocation_counting"] = false;
  EXPECT_FALSE(ComputeCosts(r).server.allocs_available);
}

}  // namespace
}  // namespace wirebench
