// `wirebench measure` (bench/loadgen/measure.h) with the wirebench transport:
// a `wirebench run` child as the measured client, a shell tree of short-lived
// and orphaned processes whose CPU must all count, the command's exit status
// passed through, and a command that cannot be started; nothing measured is
// exit 2, leftovers are stopped, and SIGINT/SIGTERM sent to measure alone end
// the command with a report.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "tests/read_file.h"
#include "tests/silent_listener.h"

namespace wirebench {
namespace {

const std::string kBinary = WIREBENCH_BINARY_DIR "/bench/wirebench";

using testing::ReadFile;

std::string Stem(const char* name) {
  return ::testing::TempDir() + "/measure_" + name + "_" + std::to_string(getpid());
}

nlohmann::json Measure(const char* name, std::vector<std::string> command, int* rc,
                       std::vector<std::string> flags = {}) {
  const std::string stem = Stem(name);
  std::vector<std::string> args = {"measure", "--out", stem + ".json"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back("--");
  args.insert(args.end(), command.begin(), command.end());
  testing::WirebenchProcess p(kBinary, args, stem);
  *rc = p.Wait(std::chrono::seconds(120));
  auto doc = nlohmann::json::parse(ReadFile(stem + ".json"), nullptr, false);
  if (doc.is_discarded()) ADD_FAILURE() << ReadFile(stem + ".err");
  return doc;
}

TEST(Measure, AWirebenchRunChildIsCountedByTheServerPerOperation) {
  int rc = -1;
  auto doc = Measure("run",
                     {kBinary, "run", "--server", "{server}", "-P",
                      WIREBENCH_SOURCE_DIR "/workloads/workloada", "--ops", "2000", "--threads",
                      "4", "--codec", "cellblock"},
                     &rc);
  ASSERT_EQ(rc, 0);
  ASSERT_TRUE(doc.is_object());
  const auto& calls = doc["measure"]["calls"];
  EXPECT_EQ(calls["Get"].get<uint64_t>() + calls["Mutate"].get<uint64_t>(), 2000u)
      << calls.dump();
  EXPECT_EQ(doc["results"]["operations"], 2000);
  EXPECT_EQ(doc["config"]["phase"], "measure");
  EXPECT_EQ(doc["config"]["rpc"], "wirebench");
  const auto& costs = doc["results"]["costs"];
  EXPECT_TRUE(costs["server"]["available"].get<bool>());
  EXPECT_GT(costs["client"]["cpu_us_per_op"].get<double>(), 0);
  EXPECT_GT(costs["server"]["cpu_us_per_op"].get<double>(), 0);
  // The client's wire bytes are the server's, the other way round.
  EXPECT_EQ(costs["client"]["wire_bytes_out_per_op"], costs["server"]["wire_bytes_in_per_op"]);
  EXPECT_FALSE(costs["client"]["allocs_available"].get<bool>());
}

// `--servers 3`: a co-located null cluster whose servers the command reaches
// through {servers}; each server's Stats are read and reported apart, their
// calls add up to the operations, and none of the servers' CPU is counted
// as the command's (they are not its children).
TEST(Measure, ACommandAgainstAThreeServerClusterIsReportedPerServer) {
  int rc = -1;
  auto doc = Measure("cluster",
                     {kBinary, "run", "--cluster", "{servers}", "-P",
                      WIREBENCH_SOURCE_DIR "/workloads/workloada", "--ops", "1500", "--threads",
                      "4"},
                     &rc, {"--servers", "3"});
  ASSERT_EQ(rc, 0);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc["results"]["operations"], 1500);
  EXPECT_EQ(doc["config"]["servers"], 3);
  const auto& servers = doc["results"]["cluster"]["servers"];
  ASSERT_EQ(servers.size(), 3u) << doc["results"]["cluster"].dump();
  double calls = 0;
  for (const auto& server : servers) {
    EXPECT_GT(server["calls"].get<double>(), 0) << server["address"];
    calls += server["calls"].get<double>();
  }
  EXPECT_EQ(int64_t(calls), 1500);
  EXPECT_GE(doc["results"]["cluster"]["imbalance"].get<double>(), 1.0);
  // The combined server figures hold every server's threads.
  EXPECT_GE(doc["results"]["server"]["after"]["threads"].size(), 3u);
}

// What cannot go together is refused before anything starts.
TEST(Measure, ClusterFlagsThatCannotGoTogetherAreRefused) {
  const struct {
    std::vector<std::string> flags;
    std::string says;
  } cases[] = {
      {{"--servers", "3", "--server", "127.0.0.1:1"}, "give one of them"},
      {{"--servers", "3", "--cluster", "127.0.0.1:1,127.0.0.1:2"}, "give one of them"},
      {{"--cluster", "127.0.0.1:1,127.0.0.1:2", "--zookeeper", "127.0.0.1:2181"},
       "register those servers themselves"},
      {{"--servers", "0"}, "--servers must be 1 to 64"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"measure"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    args.insert(args.end(), {"--", "true"});
    testing::WirebenchProcess p(kBinary, args, Stem("refused"));
    EXPECT_EQ(p.Wait(std::chrono::seconds(30)), 2) << c.says;
    EXPECT_NE(p.Stderr().find(c.says), std::string::npos) << p.Stderr();
  }
}

// The same amount of shell work done by one process, then by a tree of
// five: two run in turn, two are orphaned (their parent exits at once), one
// outlives nobody. Every one's CPU counts, whether its parent waited for it
// or not.
TEST(Measure, TheWholeProcessTreeCountsShortLivedAndOrphanedChildren) {
  const std::string work = "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done";
  int rc = -1;
  auto one = Measure("one", {"sh", "-c", work}, &rc);
  ASSERT_EQ(rc, 2) << "no call reached the server: nothing measured (the JSON still written)";
  // The orphans leave a file when done; the shell waits for both files, so
  // their work is over before the command ends (they are nobody's to wait for).
  const std::string dir = ::testing::TempDir() + "/measure_orphans_" + std::to_string(getpid());
  const std::string tree = "rm -rf " + dir + "; mkdir -p " + dir + "; (sh -c '" + work +
                           "; touch " + dir + "/a' &) ; (sh -c '" + work + "; touch " + dir +
                           "/b' &) ; sh -c '" + work + "'; sh -c '" + work + "'; sh -c '" + work +
                           "'; while [ ! -e " + dir + "/a ] || [ ! -e " + dir +
                           "/b ]; do sleep 0.05; done";
  auto five = Measure("tree", {"sh", "-c", tree}, &rc);
  ASSERT_EQ(rc, 2);
  auto cpu = [](const nlohmann::json& d) {
    return d["measure"]["command"]["user_ns"].get<double>() +
           d["measure"]["command"]["sys_ns"].get<double>();
  };
  ASSERT_GT(cpu(one), 0);
  // Five times the work. The sampler saw every process (each lives far
  // longer than its interval); their CPU all counts, so the tree costs well
  // over what three of them would, whatever the host's noise (measured under
  // ctest -j2 beside other tests: 3.6x to 4.9x).
  EXPECT_GT(cpu(five), 3.0 * cpu(one)) << "one: " << cpu(one) << " ns, tree: " << cpu(five);
  EXPECT_GE(five["measure"]["command"]["processes_seen"].get<int>(), 6)
      << "the shell, two orphaning subshells and five workers";
}

TEST(Measure, PassesTheCommandsExitStatusAndRefusesWhatCannotRun) {
  int rc = -1;
  Measure("exit", {"sh", "-c", "exit 7"}, &rc);
  EXPECT_EQ(rc, 7);
  const std::string stem = Stem("missing");
  testing::WirebenchProcess p(kBinary, {"measure", "--", "/nonexistent/client"}, stem);
  EXPECT_EQ(p.Wait(std::chrono::seconds(60)), 2);
  EXPECT_NE(ReadFile(stem + ".err").find("cannot run '/nonexistent/client'"), std::string::npos)
      << ReadFile(stem + ".err");
  testing::WirebenchProcess none(kBinary, {"measure"}, stem + "_none");
  EXPECT_NE(none.Wait(std::chrono::seconds(60)), 0);
}

// `measure -- true` exited 0 although the server counted
// no call; the README says 2 when nothing could be measured.
TEST(Measure, NothingCountedByTheServerIsExitTwo) {
  const std::string stem = Stem("true");
  testing::WirebenchProcess p(kBinary, {"measure", "--quiet", "--", "true"}, stem);
  EXPECT_EQ(p.Wait(std::chrono::seconds(60)), 2);
  EXPECT_NE(ReadFile(stem + ".err").find("the server counted no call from the command, so "
                                         "nothing was measured (exit 2)"),
            std::string::npos)
      << ReadFile(stem + ".err");
}

// `bash -c '(sleep 300) &'` left the sleep running.
TEST(Measure, LeftoverProcessesAreCountedThenStopped) {
  int rc = -1;
  const auto start = std::chrono::steady_clock::now();
  auto doc = Measure("leftover", {"bash", "-c", "(sleep 300) &"}, &rc);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  ASSERT_TRUE(doc.is_object());
  const auto& command = doc["measure"]["command"];
  ASSERT_EQ(command["left_running"].size(), 1u) << command.dump();
  EXPECT_EQ(command["stopped_leftovers"], 1);
  EXPECT_FALSE(testing::ProcessAlive(command["left_running"][0].get<int>()))
      << "the leftover sleep still runs";
}

// SIGINT sent to measure alone was ignored (the command ran
// its 300 s); SIGTERM killed measure (143) with no report.
void StopSignalEndsTheCommandWithAReport(int sig) {
  const std::string stem = Stem(sig == SIGINT ? "sigint" : "sigterm");
  testing::WirebenchProcess p(kBinary, {"measure", "--out", stem + ".json", "--", "sleep", "300"},
                              stem);
  // Once the command runs (the co-located server is up and the banner printed).
  for (int i = 0; i < 200 && ReadFile(stem + ".err").find("command: sleep") == std::string::npos;
       ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_NE(ReadFile(stem + ".err").find("command: sleep"), std::string::npos);
  const auto sent = std::chrono::steady_clock::now();
  p.Signal(sig);
  EXPECT_EQ(p.Wait(std::chrono::seconds(60)), 3) << ReadFile(stem + ".err");
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds(30));
  EXPECT_NE(p.Stdout().find("[COMMAND], ExitStatus, " + std::to_string(128 + sig)),
            std::string::npos)
      << p.Stdout();
  auto doc = nlohmann::json::parse(ReadFile(stem + ".json"), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["measure"]["command"]["stop_signal"], sig);
}
TEST(Measure, SigintToMeasureAloneEndsTheCommandWithAReport) {
  StopSignalEndsTheCommandWithAReport(SIGINT);
}
TEST(Measure, SigtermEndsTheCommandWithAReport) { StopSignalEndsTheCommandWithAReport(SIGTERM); }

}  // namespace
}  // namespace wirebench
