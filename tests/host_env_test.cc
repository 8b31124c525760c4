// The code that reads the host through HostEnv (common/host_env.h), fed a
// host by the test (tests/fake_host_env.h) instead of made to happen: a busy
// host and a quiet one (HostProbe, SampleHost, BusyHost), counters and a
// clock that step back or stand still (no negative, wrapped or infinite
// figure), and a co-located server that dies or will not stop (LocalServer).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "bench/loadgen/local_server.h"
#include "bench/loadgen/process_tree.h"
#include "bench/results/host_figures.h"
#include "tests/fake_host_env.h"

namespace wirebench {
namespace {

using testing::FakeHostEnv;

// A 2-CPU host over 100 jiffies of wall time (200 jiffies in all): 100 busy,
// `steal` of them stolen; this process (and its reaped children) used
// `own` ticks of them.
FakeHostEnv Host(uint64_t own, uint64_t steal = 0) {
  FakeHostEnv env;
  env.cpu_times = {CpuJiffies{1000, 10, 800}, CpuJiffies{1200, 10 + steal, 900}};
  env.own_ticks = {uint64_t(50), 50 + own};
  return env;
}

nlohmann::json Probe(HostEnv& env) {
  HostProbe probe(env);
  probe.Start();
  return probe.Finish();
}

TEST(HostEnvProbe, ABusyHostIsSaidToBeBusyAndAQuietOneIsNot) {
  FakeHostEnv quiet = Host(/*own=*/100);  // Every busy jiffy was ours.
  const nlohmann::json q = Probe(quiet);
  EXPECT_DOUBLE_EQ(q["other_cpus"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(q["steal_percent"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(q["cpu_mhz"].get<double>(), 2400);
  EXPECT_FALSE(q.contains("unreadable")) << q.dump();
  EXPECT_EQ(BusyHost(q), "");

  FakeHostEnv others = Host(/*own=*/10);  // 90 of the 100 busy jiffies were not ours.
  EXPECT_EQ(BusyHost(Probe(others)), "other processes used 0.90 CPUs");

  FakeHostEnv stolen = Host(/*own=*/100, /*steal=*/8);  // 8 of 200 jiffies: 4%.
  EXPECT_EQ(BusyHost(Probe(stolen)), "steal 4.0%");
}

// compare's check before its first cell: a second of the host, slept on the
// host's clock (not the test's).
TEST(HostEnvProbe, TheCheckBeforeTheFirstCellSleepsOnTheHostsClock) {
  FakeHostEnv busy = Host(/*own=*/0);
  busy.load1 = 3.5;
  const nlohmann::json h = SampleHost(1.0, busy);
  EXPECT_EQ(busy.slept, std::chrono::seconds(1));
  EXPECT_EQ(h["cpus"].get<int>(), 2);
  EXPECT_DOUBLE_EQ(h["load1"].get<double>(), 3.5);
  EXPECT_EQ(BusyHost(h), "other processes used 1.00 CPUs");
}

// /proc/stat's idle (with iowait) can step back, and a counter can stand
// still: neither may come out as a wrapped, negative or infinite figure (a
// wrapped one would flag the cell BUSY with "1e17 CPUs").
TEST(HostEnvProbe, CountersThatStepBackOrStandStillGiveNoWrappedFigure) {
  FakeHostEnv back;
  back.cpu_times = {CpuJiffies{1000, 50, 800}, CpuJiffies{1200, 40, 1050}};  // Busy 200 -> 150.
  back.own_ticks = {uint64_t(50), uint64_t(60)};
  const nlohmann::json b = Probe(back);
  EXPECT_DOUBLE_EQ(b["other_cpus"].get<double>(), 0.0) << b.dump();
  EXPECT_FALSE(b.contains("steal_percent")) << b.dump();  // Steal went back: no figure.
  EXPECT_EQ(BusyHost(b), "");

  FakeHostEnv still;
  still.cpu_times = {CpuJiffies{1000, 50, 800}};  // The same reading before and after.
  still.own_ticks = {uint64_t(50)};
  const nlohmann::json s = Probe(still);
  EXPECT_FALSE(s.contains("other_cpus")) << s.dump();
  EXPECT_FALSE(s.contains("steal_percent")) << s.dump();
  EXPECT_EQ(s["unreadable"], nlohmann::json({"steal (/proc/stat)"}));
}

// `measure`'s wall time (its ops/s divide by it) over a command that runs
// for real, on a clock that steps back, stands still, or jumps two hours.
TEST(HostEnvCommandTree, AClockJumpGivesNoNegativeWallTime) {
  const std::vector<std::pair<HostEnv::Clock::duration, double>> cases = {
      {-std::chrono::hours(1), 0.0},
      {HostEnv::Clock::duration::zero(), 0.0},
      {std::chrono::hours(2), 7200.0}};
  for (const auto& [step, want] : cases) {
    FakeHostEnv env;
    env.step = step;
    CommandOptions o;
    o.argv = {"true"};
    o.host = &env;
    auto u = RunCommandTree(o);
    ASSERT_TRUE(u.ok()) << u.status().ToString();
    EXPECT_EQ(u->exit_code, 0);
    EXPECT_DOUBLE_EQ(u->wall_s, want) << "clock step " << step.count();
  }
}

// The pid is never a real process's: every signal goes to the fake.
constexpr pid_t kServerPid = 424242;

TEST(HostEnvLocalServer, AServerKilledBySignalIsReportedDeadWithTheSignal) {
  FakeHostEnv env;
  LocalServer server(kServerPid, env);
  EXPECT_TRUE(server.Alive());
  EXPECT_EQ(server.DeathNote(), "");
  env.KillChild(kServerPid, SIGKILL);  // The OOM killer, say.
  EXPECT_EQ(server.DeathNote(), "the co-located server process died (killed by signal 9)");
  EXPECT_FALSE(server.Alive());
  EXPECT_EQ(server.Stop(), "already exited");
  EXPECT_TRUE(env.signals.empty());
}

TEST(HostEnvLocalServer, StopWaitsFiveSecondsForSigtermThenKills) {
  FakeHostEnv env;
  LocalServer healthy(kServerPid, env);
  EXPECT_EQ(healthy.Stop(), "exited with status 0");
  EXPECT_EQ(env.signals, (std::vector<std::pair<pid_t, int>>{{kServerPid, SIGTERM}}));

  FakeHostEnv stuck_env;
  stuck_env.ignores_sigterm.insert(kServerPid);
  LocalServer stuck(kServerPid, stuck_env);
  EXPECT_EQ(stuck.Stop(), "did not stop on SIGTERM; killed");
  EXPECT_EQ(stuck_env.signals,
            (std::vector<std::pair<pid_t, int>>{{kServerPid, SIGTERM}, {kServerPid, SIGKILL}}));
  EXPECT_EQ(stuck_env.slept, std::chrono::seconds(5));
  EXPECT_FALSE(stuck.Alive());
}

}  // namespace
}  // namespace wirebench
