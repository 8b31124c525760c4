// The `wirebench` binary under the inputs users actually give:
// bad numbers are refused naming the flag and its range, a peer that never
// answers ends the run by itself, SIGINT/SIGTERM end a run promptly and are
// reported as themselves, oversized loads are refused up front, --server
// takes [IPV6]:PORT, and an interrupted compare says what it ran.
#include <dirent.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/read_file.h"
#include "tests/silent_listener.h"
#include "tests/wirebench_paths.h"

namespace wirebench {
namespace {

using std::chrono::steady_clock;
using testing::WirebenchProcess;

std::string Stem(const std::string& name) {
  return std::string(WIREBENCH_BINARY_DIR) + "/cli_reliability_" + name;
}

struct Outcome {
  int rc;
  std::string err;
};

Outcome RunWirebench(const std::string& name, const std::vector<std::string>& args,
                     std::chrono::seconds bound = std::chrono::seconds(60)) {
  WirebenchProcess p(kBinary, args, Stem(name));
  const int rc = p.Wait(bound);
  return {rc, p.Stderr()};
}

// A number that is not one is refused naming the flag.
TEST(CliReliability, BadNumbersAreRefusedNamingTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {{"run", "-P", kWorkloadA, "-threads", "0"}, "-threads (threadcount) must be 1 or more"},
      {{"run", "-P", kWorkloadA, "-threads", "-1"}, "-threads (threadcount) must be 1 or more"},
      // -target 0 is YCSB's "unthrottled" (tests/ycsb_cli_test.cc).
      {{"run", "-P", kWorkloadA, "-target", "nan"},
       "property 'target' must be an integer, got 'nan'"},
      {{"run", "-P", "/tmp"}, "-P /tmp is a directory"},
      {{"run", "-P", kWorkloadA, "--connections", "0"}, "--connections must be 1 or more"},
      {{"run", "-P", kWorkloadA, "--client-io-threads", "0"}, "--client-io-threads must be 1"},
      {{"run", "-P", kWorkloadA, "--seconds", "-1"}, "--seconds (maxexecutiontime) must be 0"},
      // Was "property 'maxexecutiontime' must be a number".
      {{"run", "-P", kWorkloadA, "--seconds", "nan"},
       "--seconds (maxexecutiontime) must be 0 (no limit) or a positive number of seconds, got "
       "'NaN'"},
      {{"run", "-P", kWorkloadA, "--seconds", "inf"},
       "--seconds (maxexecutiontime) must be 0 (no limit) or a positive number of seconds, got "
       "'Infinity'"},
      {{"run", "-P", kWorkloadA, "--warmup", "-1"}, "--warmup must be 0 or a positive"},
      {{"run", "-P", kWorkloadA, "--ops", "-1"}, "operationcount"},
      {{"run", "-P", kWorkloadA, "--server", "::1:80"}, "[IPV6]:PORT"},
      {{"server", "--max-connections", "-1"}, "--max-connections: Value -1 not in range 1"},
      {{"server", "--max-frame", "0"}, "--max-frame: Value 0 not in range 1024"},
      // Every registry name is refused in one form, naming the flag.
      {{"calibrate", "--codec", "nope"}, "--codec must be one of raw, pb, pb-arena, cellblock"},
      {{"run", "--region", "nope"}, "--region must be one of null, memstore, wal, got 'nope'"},
      {{"server", "--rpc", "nope"}, "--rpc must be one of wirebench"},
      {{"compare", "--codecs", "raw,nope"}, "--codecs must be one of raw, pb"},
      {{"compare", "--rpcs", "wirebench,nope"}, "--rpcs must be one of wirebench"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Outcome o = RunWirebench("bad" + std::to_string(i), cases[i].args);
    EXPECT_NE(o.rc, 0) << cases[i].expect;
    EXPECT_NE(o.rc, -1) << cases[i].expect << ": still running";
    EXPECT_NE(o.err.find(cases[i].expect), std::string::npos)
        << "expected '" << cases[i].expect << "' in: " << o.err;
  }
  // --seconds 0 is YCSB's "no time limit": the run ends after its --ops.
  const Outcome zero = RunWirebench(
      "seconds0", {"run", "-P", kWorkloadA, "--seconds", "0", "--ops", "100", "-p", "recordcount=100"});
  EXPECT_EQ(zero.rc, 0) << zero.err;
}

// Refused before anything starts.
TEST(CliReliability, OversizedLoadsAreRefusedUpFront) {
  // As many operations as clients: YCSB cuts threadcount to the operation count.
  Outcome o =
      RunWirebench("slots", {"run", "-P", kWorkloadA, "-threads", "70000", "--ops", "70000"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.err.find("use --connections 2 or more"), std::string::npos) << o.err;
  o = RunWirebench("os", {"run", "-P", kWorkloadA, "--thread-model", "os", "-threads", "100000",
                          "--ops", "100000"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.err.find("--thread-model os"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("SIGINT"), std::string::npos) << o.err;
}

// `--seconds 0.5` against a peer that accepts and never
// answers ends by itself, with an error naming the peer.
TEST(CliReliability, SilentPeerRunEndsByItself) {
  testing::SilentListener silent;
  const std::string where = "127.0.0.1:" + std::to_string(silent.port());
  const Outcome o =
      RunWirebench("silent", {"run", "-P", kWorkloadA, "--server", where, "--seconds", "0.5"});
  EXPECT_NE(o.rc, -1) << "still running";
  EXPECT_TRUE(o.rc == 2 || o.rc == 3) << o.rc << "\n" << o.err;
  EXPECT_NE(o.err.find(where), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("SIGINT"), std::string::npos) << o.err;
}

// A signal ends a run stuck on a silent peer
// within about a second, reported as the signal that was sent.
void SignalEndsStuckRun(int sig, const std::string& name) {
  testing::SilentListener silent;
  const std::string where = "127.0.0.1:" + std::to_string(silent.port());
  WirebenchProcess p(kBinary, {"run", "-P", kWorkloadA, "--server", where}, Stem(name));
  ASSERT_TRUE(silent.WaitForConnection());  // The run (and its signal watcher) is under way.
  const auto sent = steady_clock::now();
  p.Signal(sig);
  const int rc = p.Wait(std::chrono::seconds(30));
  // Designed for well under 1 s; the bound leaves room for a loaded machine.
  EXPECT_LT(steady_clock::now() - sent, std::chrono::seconds(3));
  EXPECT_EQ(rc, 3) << p.Stderr();
  EXPECT_NE(p.Stderr().find("stopped on request (" + name + ")"), std::string::npos) << p.Stderr();
}

TEST(CliReliability, SigintEndsARunStuckOnASilentPeer) { SignalEndsStuckRun(SIGINT, "SIGINT"); }
TEST(CliReliability, SigtermIsReportedAsSigterm) { SignalEndsStuckRun(SIGTERM, "SIGTERM"); }

// --server [::1]:PORT.
TEST(CliReliability, ServerFlagTakesBracketedIpv6) {
  WirebenchProcess server(kBinary, {"server", "--bind", "::1", "--port", "0", "--quiet"},
                          Stem("v6server"));
  std::string out;
  const auto deadline = steady_clock::now() + std::chrono::seconds(30);
  while ((out = server.Stdout()).find('\n') == std::string::npos) {
    if (server.Wait(std::chrono::milliseconds(10)) != -1)
      GTEST_SKIP() << "no IPv6 loopback here: " << server.Stderr();
    ASSERT_LT(steady_clock::now(), deadline) << "server did not start";
  }
  const size_t colon = out.rfind(':');
  ASSERT_NE(colon, std::string::npos) << out;
  const std::string port = out.substr(colon + 1, out.find('\n') - colon - 1);
  const Outcome o = RunWirebench("v6run", {"run", "-P", kWorkloadA, "--server", "[::1]:" + port,
                                           "--ops", "100", "-p", "recordcount=100"});
  EXPECT_EQ(o.rc, 0) << o.err;
}

// A gRPC client pointed at the wirebench transport's port
// fails at once (well within its 10 s connect timeout, which the bound of
// the Wait below does not rely on) naming the mismatch.
TEST(CliReliability, GrpcClientAtAWirebenchServerSaysItIsNotGrpc) {
#ifndef WIREBENCH_TEST_HAVE_GRPC
  GTEST_SKIP() << "built with WIREBENCH_GRPC=OFF: there is no gRPC client to point at the server";
#endif
  WirebenchProcess server(kBinary, {"server", "--port", "0", "--quiet"}, Stem("notgrpc_server"));
  std::string out;
  const auto deadline = steady_clock::now() + std::chrono::seconds(30);
  while ((out = server.Stdout()).find('\n') == std::string::npos) {
    ASSERT_EQ(server.Wait(std::chrono::milliseconds(10)), -1) << server.Stderr();
    ASSERT_LT(steady_clock::now(), deadline) << "server did not start";
  }
  const std::string addr = out.substr(out.find("127.0.0.1:"));
  const Outcome o =
      RunWirebench("notgrpc_run", {"run", "-P", kWorkloadA, "--rpc", "grpc", "--server",
                                   addr.substr(0, addr.find('\n')), "--ops", "10"});
  // The protocol the server speaks, the flag to pass, exit 2.
  EXPECT_EQ(o.rc, 2) << o.err;
  EXPECT_NE(o.err.find("speaks wirebench's own RPC protocol"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("pass --rpc wirebench"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("within 10000 ms"), std::string::npos) << o.err;
}

// A peer that speaks HTTP/1: it answers a request (anything ending in a
// blank line) with a 400 and closes; to anything else it says nothing.
class HttpPeer {
 public:
  HttpPeer() {
    fd_ = testing::ListenOnLoopback(&port_);
    thread_ = std::thread([this] { Serve(); });
  }
  ~HttpPeer() {
    stop_.store(true);
    shutdown(fd_, SHUT_RDWR);
    thread_.join();
    close(fd_);
  }
  uint16_t port() const { return port_; }

 private:
  void Serve() {
    std::vector<std::thread> conns;
    while (!stop_.load()) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      conns.emplace_back([this, c] {
        std::string got;
        char buf[512];
        while (!stop_.load() && got.find("\r\n\r\n") == std::string::npos) {
          pollfd q{c, POLLIN, 0};
          if (poll(&q, 1, 50) <= 0) continue;
          const ssize_t n = read(c, buf, sizeof buf);
          if (n <= 0) break;
          got.append(buf, size_t(n));
        }
        const std::string reply = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
        if (got.find("\r\n\r\n") != std::string::npos)
          (void)!write(c, reply.data(), reply.size());
        close(c);
      });
    }
    for (auto& t : conns) t.join();
  }
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// A plain HTTP server given as --server: a usage error naming what it
// answered, exit 2 (it was an empty report and exit 3).
TEST(CliReliability, AnHttpServerGivenAsServerIsNamedAsSuch) {
  HttpPeer http;
  const Outcome o = RunWirebench("http_peer", {"run", "-P", kWorkloadA, "--server",
                                               "127.0.0.1:" + std::to_string(http.port()),
                                               "--ops", "10"});
  EXPECT_EQ(o.rc, 2) << o.err;
  EXPECT_NE(o.err.find("is not a server wirebench knows: to an HTTP GET it answered "
                       "\"HTTP/1.1 400 Bad Request"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("point --server at a `wirebench server --rpc wirebench`"), std::string::npos)
      << o.err;
}

// SIGTERM to the whole process group (as `timeout`, Slurm and `docker stop`
// send it) stops the run on request and keeps what was measured, the
// co-located server's figures included: the server is out of the group.
TEST(CliReliability, SigtermToTheProcessGroupKeepsTheServersFigures) {
  const std::string json = Stem("group_term") + ".json";
  std::remove(json.c_str());
  WirebenchProcess p(kBinary,
                     {"run", "-P", kWorkloadA, "--seconds", "30", "-p", "recordcount=100",
                      "--json", json},
                     Stem("group_term"), testing::ProcessGroup::kOwn);
  // Until the run measures (its status shows in the JSON only at the end:
  // wait for the co-located server's banner, then a little).
  const auto deadline = steady_clock::now() + std::chrono::seconds(30);
  while (p.Stderr().find("co-located child process") == std::string::npos) {
    ASSERT_EQ(p.Wait(std::chrono::milliseconds(20)), -1) << p.Stderr();
    ASSERT_LT(steady_clock::now(), deadline) << p.Stderr();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(-p.pid(), SIGTERM);
  const int rc = p.Wait(std::chrono::seconds(60));
  EXPECT_EQ(rc, 3) << p.Stderr();
  EXPECT_NE(p.Stderr().find("stopped on request (SIGTERM)"), std::string::npos) << p.Stderr();
  EXPECT_EQ(p.Stderr().find("server process died"), std::string::npos) << p.Stderr();
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(j.is_object()) << p.Stderr();
  EXPECT_TRUE(j["results"]["server"]["after"].is_object()) << j["results"]["server"].dump();
  EXPECT_GT(j["results"]["operations"].get<int64_t>(), 0);
}

// compare's output folder reused, its log and its charts: a second
// comparison into the same --out leaves none of the first's cells; stderr
// that is not a terminal gets whole lines (no carriage returns); charts.gp
// draws again from its own folder.
TEST(CliReliability, CompareOutReusedHoldsOneComparisonAndItsLogHasNoCarriageReturns) {
  const std::string out = Stem("compare_reused");
  std::filesystem::remove_all(out);
  const std::vector<std::string> common = {"--seconds", "0.2", "--warmup", "0", "--repeat", "1",
                                           "--records", "100", "--threads", "2", "--out", out};
  std::vector<std::string> first = {"compare", "--codecs", "raw"};
  first.insert(first.end(), common.begin(), common.end());
  Outcome o = RunWirebench("compare_reused1", first, std::chrono::seconds(120));
  ASSERT_EQ(o.rc, 0) << o.err;
  std::vector<std::string> second = {"compare", "--codecs", "pb"};
  second.insert(second.end(), common.begin(), common.end());
  o = RunWirebench("compare_reused2", second, std::chrono::seconds(120));
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_NE(o.err.find("held an earlier comparison"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find('\r'), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("[1/1] pb "), std::string::npos) << o.err;
  int cells = 0;
  for (const auto& e : std::filesystem::directory_iterator(out + "/cells")) {
    ++cells;
    EXPECT_EQ(e.path().filename().string().find("raw"), std::string::npos) << e.path();
  }
  EXPECT_GT(cells, 0);
  const std::string md = testing::ReadFile(out + "/comparison.md");
  EXPECT_EQ(md.find("| raw"), std::string::npos) << md;
  if (std::filesystem::exists(out + "/charts.gp")) {
    EXPECT_EQ(testing::ReadFile(out + "/charts.gp").find(out + "/"), std::string::npos)
        << "charts.gp names its folder";
    const std::string redraw = "cd '" + out + "' && gnuplot charts.gp 2>/dev/null";
    EXPECT_EQ(std::system(redraw.c_str()), 0);
  }
}

// `wirebench floor`: the framing-only loop runs and reports both sides; a
// comparison adds "Total CPU vs floor" rows from floors measured after its
// matrix, and --no-floor leaves them out. (Figures are not held to any
// bound here: they are wall clock.)
TEST(CliReliability, FloorRunsAndCompareReadsItsColumnsAgainstIt) {
  const std::string json = Stem("floor") + ".json";
  std::remove(json.c_str());
  WirebenchProcess floor(kBinary,
                         {"floor", "--depth", "4", "--seconds", "0.3", "--request-bytes", "100",
                          "--reply-bytes", "800", "--json", json},
                         Stem("floor"));
  ASSERT_EQ(floor.Wait(std::chrono::seconds(60)), 0) << floor.Stderr();
  EXPECT_NE(floor.Stdout().find("floor: depth 4, 100 B requests, 800 B replies: "),
            std::string::npos)
      << floor.Stdout();
  std::ifstream in(json);
  const nlohmann::json f = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(f.is_object()) << floor.Stderr();
  EXPECT_GT(f["operations"].get<uint64_t>(), 0u);
  EXPECT_GT(f["client_us_per_op"].get<double>(), 0);
  EXPECT_GT(f["server_us_per_op"].get<double>(), 0);
  // Large frames both ways fill both sockets' buffers: neither side may wait
  // on the other for ever (a 100 KB record sweep's cell).
  Outcome o = RunWirebench("floor_large", {"floor", "--depth", "32", "--seconds", "0.3",
                                           "--request-bytes", "200000", "--reply-bytes", "200000"});
  EXPECT_EQ(o.rc, 0) << o.err;
  o = RunWirebench("floor_bad", {"floor", "--depth", "0"});
  EXPECT_EQ(o.rc, 2) << o.err;
  EXPECT_NE(o.err.find("--depth must be 1 to 65536"), std::string::npos) << o.err;

  const std::string out = Stem("floor_compare");
  std::filesystem::remove_all(out);
  const std::vector<std::string> cmp = {"compare", "--codecs", "raw,pb", "--seconds", "0.3",
                                        "--warmup", "0", "--repeat", "1", "--records", "100",
                                        "--threads", "2", "--out", out};
  o = RunWirebench("floor_compare", cmp, std::chrono::seconds(120));
  ASSERT_EQ(o.rc, 0) << o.err;
  const std::string md = testing::ReadFile(out + "/comparison.md");
  EXPECT_NE(md.find("| Total CPU vs floor |"), std::string::npos) << md;
  EXPECT_NE(md.find("The floor (`wirebench floor`"), std::string::npos) << md;
  std::ifstream js_in(out + "/comparison.json");
  const nlohmann::json doc = nlohmann::json::parse(js_in, nullptr, false);
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(doc.contains("floors")) << doc.dump().substr(0, 400);
  EXPECT_EQ(doc["floors"].size(), 2u);
  std::vector<std::string> no_floor = cmp;
  no_floor.push_back("--no-floor");
  o = RunWirebench("floor_compare_off", no_floor, std::chrono::seconds(120));
  ASSERT_EQ(o.rc, 0) << o.err;
  const std::string off = testing::ReadFile(out + "/comparison.md");
  EXPECT_EQ(off.find("Total CPU vs floor"), std::string::npos) << off;
}

// `run --floor`: after the run, the floor over the run's own bytes with its
// logical clients as requests outstanding; [FLOOR] lines, CpuVsFloor and the
// JSON's results.floor. Runs it cannot be set beside are refused first.
// (No bound on the figures: wall clock.)
TEST(CliReliability, RunFloorMeasuresTheFloorForTheRunsOwnBytes) {
  const std::string json = Stem("run_floor") + ".json";
  std::remove(json.c_str());
  WirebenchProcess run(kBinary,
                       {"run", "-P", kWorkloadA, "--ops", "2000", "-threads", "3", "--codec", "raw",
                        "--floor", "--json", json},
                       Stem("run_floor"));
  ASSERT_EQ(run.Wait(std::chrono::seconds(120)), 0) << run.Stderr();
  EXPECT_NE(run.Stdout().find("[FLOOR], Depth, 3\n"), std::string::npos) << run.Stdout();
  EXPECT_NE(run.Stdout().find("[TOTAL], CpuVsFloor, "), std::string::npos) << run.Stdout();
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << run.Stderr();
  const nlohmann::json& r = doc["results"];
  ASSERT_TRUE(r.contains("floor")) << r.dump().substr(0, 400);
  // The floor's frames carry the run's bytes per operation, less the length.
  const double out_bytes = r["costs"]["client"]["wire_bytes_out_per_op"].get<double>();
  const double in_bytes = r["costs"]["client"]["wire_bytes_in_per_op"].get<double>();
  EXPECT_NEAR(r["floor"]["request_bytes"].get<double>(), out_bytes - 4, 1.0);
  EXPECT_NEAR(r["floor"]["reply_bytes"].get<double>(), in_bytes - 4, 1.0);
  EXPECT_GT(r["floor"]["total_cpu_us_per_op"].get<double>(), 0);
  EXPECT_GT(r["floor"]["cpu_vs_floor"].get<double>(), 0);

  const struct {
    std::vector<std::string> args;
    std::string says;
  } refused[] = {
      {{"--servers", "2"}, "the floor loop is one"},
      {{"--instructions"}, "the floor is CPU time"},
      {{"-db", "site.ycsb.BasicDB"}, "has no server"},
      {{"--server", "127.0.0.1:1"}, "beside a co-located server"},
  };
  for (const auto& c : refused) {
    std::vector<std::string> args = {"run", "-P", kWorkloadA, "--ops", "10", "--floor"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const Outcome o = RunWirebench("run_floor_refused", args);
    EXPECT_EQ(o.rc, 2) << c.says << ": " << o.err;
    EXPECT_NE(o.err.find("--floor: "), std::string::npos) << o.err;
    EXPECT_NE(o.err.find(c.says), std::string::npos) << o.err;
  }
}

int CountSockets(pid_t pid) {
  int n = 0;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::error_code lec;
    if (std::filesystem::read_symlink(e.path(), lec).string().rfind("socket:", 0) == 0) ++n;
  }
  return n;
}

// An interrupted compare says how many repeats ran.
TEST(CliReliability, InterruptedCompareStatesTheRepeatsRun) {
  const std::string out = Stem("compare_out");
  std::filesystem::remove_all(out);
  WirebenchProcess p(
      kBinary,
      {"compare", "--codecs", "raw", "--workloads", kWorkloadA, "--threads", "1", "--repeat", "2",
       "--seconds", "30", "--warmup", "0", "--records", "100", "--out", out},
      Stem("compare"));
  // The first cell is measuring once its client connection exists.
  const auto deadline = steady_clock::now() + std::chrono::seconds(60);
  while (CountSockets(p.pid()) == 0) {
    ASSERT_EQ(p.Wait(std::chrono::milliseconds(10)), -1) << p.Stderr();
    ASSERT_LT(steady_clock::now(), deadline) << p.Stderr();
  }
  p.Signal(SIGINT);
  EXPECT_EQ(p.Wait(std::chrono::seconds(30)), 3) << p.Stderr();
  std::ifstream md(out + "/comparison.md");
  std::stringstream text;
  text << md.rdbuf();
  EXPECT_NE(text.str().find("1 of 2 repeats run"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find(", 2 repeats"), std::string::npos) << text.str();
}

}  // namespace
}  // namespace wirebench
