// Multi-host run on one machine: the test makes "hosts" with network
// namespaces (a server at 10.77.0.1 and clients at .2 to .6, joined by a
// bridge in the server's namespace), runs the real `wirebench server` in
// one and a `wirebench run --server` client in each of the others at the
// same time, merges their results with `wirebench merge`, and checks the
// merged report: operations are the sum, and the server's Mutate/Get calls
// between the earliest and latest Stats snapshot cover them.
// A second test runs `wirebench run --mpi` across the namespaces: mpirun
// (in the server's namespace) starts one rank in each client namespace
// through an rsh agent that runs `ip netns exec` instead of ssh, and rank 0
// reports both ranks once. A third runs `wirebench run --mpi --servers 3`
// with five ranks, one per client namespace: the last three serve a null
// cluster on their hosts, the first two drive it, one report.
// Where namespaces cannot be made (not root, no CAP_NET_ADMIN, no `ip`), the
// test says why and skips. Namespaces are removed even when it fails.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/results/merge.h"
#include "common/str_cat.h"
#include "tests/read_file.h"
#include "tests/shell.h"
#include "tests/wirebench_paths.h"

namespace wirebench {
namespace {

using wirebench::testing::Sh;

// A child process started with execvp, its stdout on a pipe (optional).
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::string& stdout_file) {
    std::vector<std::string> args = argv;
    std::vector<char*> cargv;
    for (auto& a : args) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    int fds[2] = {-1, -1};
    if (stdout_file.empty() && pipe2(fds, O_CLOEXEC) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);  // Its own group: mpirun's daemons and ranks are ended with it.
      if (stdout_file.empty()) {
        dup2(fds[1], STDOUT_FILENO);
      } else {
        int fd = open(stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
      }
      execvp(cargv[0], cargv.data());
      _exit(127);
    }
    if (stdout_file.empty()) {
      close(fds[1]);
      out_fd_ = fds[0];
    }
  }
  ~Child() {
    if (pid_ > 0) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) close(out_fd_);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Reads stdout until a line containing `marker` or until `seconds` pass;
  // returns the line (empty on timeout or EOF). `seen` gets all output read.
  std::string WaitForLine(const std::string& marker, double seconds, std::string* seen) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      size_t at = seen->find(marker);
      size_t eol = at == std::string::npos ? at : seen->find('\n', at);
      if (eol != std::string::npos) return seen->substr(at, eol - at);
      pollfd p{out_fd_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char buf[512];
      ssize_t n = read(out_fd_, buf, sizeof(buf));
      if (n <= 0) return "";
      seen->append(buf, size_t(n));
    }
    return "";
  }
  // Waits for the exit; returns the exit status (-1 when killed by a signal).
  int Wait() {
    int st = 0;
    if (pid_ <= 0 || waitpid(pid_, &st, 0) != pid_) return -1;
    pid_ = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  // The same, giving up after `seconds` (-1, and `*timed_out` set).
  int Wait(double seconds, bool* timed_out) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    int st = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      const pid_t r = waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        pid_ = -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
      }
      if (r < 0) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    *timed_out = true;
    return -1;
  }
  int Terminate() {
    if (pid_ > 0) kill(pid_, SIGTERM);
    return Wait();
  }
  bool started() const { return pid_ > 0; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
};

class NetnsMerge : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string tag = "wbm" + std::to_string(getpid());
    server_ns_ = tag + "s";
    // Two client hosts, and three more for the tests whose job starts its
    // own cluster's servers.
    client_ns_ = {tag + "a", tag + "b", tag + "c", tag + "d", tag + "e"};
    dir_ = std::filesystem::temp_directory_path() / (tag + "_netns");
    std::filesystem::create_directories(dir_);
    // Every test here runs across the three namespaces.
    const std::string why = MakeHosts();
    if (!why.empty()) {
      std::fprintf(stderr, "netns_merge_test: SKIPPED: cannot make network namespaces: %s\n",
                   why.c_str());
      GTEST_SKIP() << "cannot make network namespaces: " << why;
    }
  }
  void TearDown() override {
    // Deleting a namespace removes its veth ends and the bridge with it.
    for (const std::string& ns : made_) Sh("ip netns del " + ns);
    std::filesystem::remove_all(dir_);
  }

  // Makes the three namespaces and the links. On failure returns why.
  std::string MakeHosts() {
    std::string out;
    if (Sh("command -v ip", &out) != 0) return "the `ip` command (iproute2) is not installed";
    if (geteuid() != 0) return "not root (network namespaces need CAP_NET_ADMIN)";
    std::vector<std::string> all = {server_ns_};
    all.insert(all.end(), client_ns_.begin(), client_ns_.end());
    for (const std::string& ns : all) {
      if (Sh("ip netns add " + ns, &out) != 0) return "`ip netns add` failed: " + out;
      made_.push_back(ns);
    }
    const std::string s = "ip -n " + server_ns_ + " ";
    std::vector<std::string> cmds = {s + "link set lo up", s + "link add br0 type bridge",
                                     s + "addr add 10.77.0.1/24 dev br0", s + "link set br0 up"};
    for (int i = 0; i < int(client_ns_.size()); ++i) {
      const std::string c = "ip -n " + client_ns_[size_t(i)] + " ";
      const std::string port = StrCat("p", std::to_string(i));
      cmds.push_back(s + "link add " + port + " type veth peer name eth0 netns " +
                     client_ns_[size_t(i)]);
      cmds.push_back(s + "link set " + port + " master br0");
      cmds.push_back(s + "link set " + port + " up");
      cmds.push_back(c + "link set lo up");
      cmds.push_back(c + "addr add 10.77.0." + std::to_string(i + 2) + "/24 dev eth0");
      cmds.push_back(c + "link set eth0 up");
    }
    for (const std::string& cmd : cmds)
      if (Sh(cmd, &out) != 0) return "`" + cmd + "` failed: " + out;
    return "";
  }

  std::string server_ns_;
  // `wirebench server` inside the server's namespace, on its bridge address.
  std::vector<std::string> ServerCommand() const {
    return {"ip", "netns", "exec", server_ns_, kBinary, "server", "--bind", "10.77.0.1",
            "--port", "0", "--io-threads", "2"};
  }
  // The address `server` listens on; empty (and a failure said) when it did not start.
  static std::string ServerAddress(Child& server) {
    EXPECT_TRUE(server.started());
    std::string seen;
    const std::string line = server.WaitForLine("listening on ", 15, &seen);
    EXPECT_FALSE(line.empty()) << "the server did not start in its namespace; output: " << seen;
    return line.empty() ? line : line.substr(std::string("listening on ").size());
  }
  // Open MPI's rsh agent for the namespaces as hosts: Open MPI calls it as
  // `agent [options] HOST COMMAND...`, COMMAND being a shell command line
  // (what ssh would hand the remote shell); 10.77.0.<i + 2> is client_ns_[i].
  // Each call is logged ("HOST NAMESPACE") to agent.log.
  std::string WriteRshAgent() const {
    const std::string agent = (dir_ / "netns-rsh").string();
    std::ofstream f(agent);
    f << "#!/bin/sh\n"
         "# Open MPI's rsh agent for network namespaces as hosts: ip netns exec, not ssh.\n"
         "while [ $# -gt 0 ]; do case \"$1\" in -*) shift ;; *) break ;; esac; done\n"
         "host=$1; shift\n"
         "case \"$host\" in\n";
    for (size_t i = 0; i < client_ns_.size(); ++i)
      f << "  10.77.0." << i + 2 << ") ns=" << client_ns_[i] << " ;;\n";
    f << "  *) echo \"netns-rsh: no namespace for host $host\" >&2; exit 255 ;;\n"
         "esac\n"
      << "echo \"$host $ns\" >> " << (dir_ / "agent.log").string() << "\n"
      << "exec ip netns exec \"$ns\" unshare --uts /bin/sh -c \"hostname $ns && $*\"\n";
    f.close();
    std::filesystem::permissions(agent, std::filesystem::perms::owner_all);
    return agent;
  }
  std::vector<std::string> client_ns_;
  std::vector<std::string> made_;
  std::filesystem::path dir_;
};

TEST_F(NetnsMerge, TwoClientHostsOneServerHostMerged) {

  Child server(ServerCommand(), "");
  const std::string address = ServerAddress(server);
  ASSERT_FALSE(address.empty());
  ASSERT_EQ(address.rfind("10.77.0.1:", 0), 0u) << address;

  // Both clients at once, each from its own host.
  constexpr int kOps = 20000;
  std::vector<std::string> jsons, logs;
  std::vector<std::unique_ptr<Child>> clients;
  for (int i = 0; i < 2; ++i) {
    jsons.push_back((dir_ / ("client" + std::to_string(i) + ".json")).string());
    logs.push_back((dir_ / ("client" + std::to_string(i) + ".log")).string());
    clients.push_back(std::make_unique<Child>(
        std::vector<std::string>{"ip", "netns", "exec", client_ns_[size_t(i)], kBinary, "run",
                                 "-P", kWorkloadA, "--server", address, "--threads", "4",
                                 "--ops", std::to_string(kOps), "--json", jsons.back()},
        logs.back()));
  }
  for (int i = 0; i < 2; ++i) {
    std::string log;
    const int rc = clients[size_t(i)]->Wait();
    Sh("cat " + logs[size_t(i)], &log);
    ASSERT_EQ(rc, 0) << "client " << i << " in " << client_ns_[size_t(i)] << ":\n" << log;
  }

  const std::string merged = (dir_ / "merged.json").string();
  std::string text;
  ASSERT_EQ(Sh(kBinary + " merge " + jsons[0] + " " + jsons[1] + " --out " + merged + " --text",
               &text),
            0)
      << text;
  std::printf("%s", text.c_str());
  EXPECT_NE(text.find("[MERGE], Inputs, 2"), std::string::npos) << text;
  EXPECT_NE(text.find("[OVERALL], Throughput(ops/sec)"), std::string::npos);
  EXPECT_EQ(server.Terminate(), 0);

  auto a = ReadResultFile(jsons[0]);
  auto b = ReadResultFile(jsons[1]);
  auto m = ReadResultFile(merged);
  ASSERT_TRUE(a.ok() && b.ok() && m.ok());
  const auto& ra = a->doc["results"];
  const auto& rb = b->doc["results"];
  const auto& rm = m->doc["results"];
  EXPECT_EQ(ra["operations"].get<uint64_t>(), uint64_t(kOps));
  EXPECT_EQ(rb["operations"].get<uint64_t>(), uint64_t(kOps));
  EXPECT_EQ(rm["operations"].get<uint64_t>(), 2u * kOps);
  EXPECT_EQ(a->doc["config"]["server"], address);
  // Per operation type, the merged counts are the sums.
  for (const auto& [op, e] : rm["ops"].items()) {
    uint64_t want = 0;
    for (const auto* r : {&ra, &rb})
      if ((*r)["ops"].contains(op))
        want += (*r)["ops"][op]["latency"]["operations"].get<uint64_t>();
    EXPECT_EQ(e["latency"]["operations"].get<uint64_t>(), want) << op;
  }
  // The server's figures, once, from the earliest before to the latest after.
  const auto& before = rm["server"]["before"];
  const auto& after = rm["server"]["after"];
  ASSERT_TRUE(before.is_object() && after.is_object());
  EXPECT_EQ(after["server"]["bind"], "10.77.0.1");
  const uint64_t calls = after["calls"]["Mutate"].get<uint64_t>() -
                         before["calls"]["Mutate"].get<uint64_t>() +
                         after["calls"]["Get"].get<uint64_t>() -
                         before["calls"]["Get"].get<uint64_t>();
  EXPECT_GE(calls, 2u * kOps);
  EXPECT_GE(after["connections"]["accepted"].get<uint64_t>(), 2u);
  EXPECT_TRUE(rm["costs"]["server"]["available"].get<bool>());
  EXPECT_GT(rm["costs"]["server"]["cpu_us_per_op"].get<double>(), 0.0);
}

#ifdef WIREBENCH_TEST_MPIEXEC

using testing::ReadFile;

int64_t Calls(const nlohmann::json& stats) {
  int64_t n = 0;
  for (const char* m : {"Mutate", "Get", "Scan", "Multi"})
    n += stats["calls"].value(m, int64_t(0));
  return n;
}

// `wirebench run --mpi` with its two ranks on the two client hosts: mpirun
// runs in the server's namespace (the launch host, as a login node would be)
// and starts Open MPI's daemon (orted) on "hosts" 10.77.0.2 and 10.77.0.3
// through an rsh agent script that, in place of ssh, runs the command with
// `ip netns exec <that host's namespace>` in a UTS namespace of its own whose
// host name is the namespace's (so the ranks' host names differ, as on two
// machines). Each rank then reaches the server, and rank 0's control
// channel, over the bridge only.
//
// Open MPI's out-of-band TCP: each orted connects back to mpirun at the
// address in orte_hnp_uri, which lists mpirun's own interfaces. That is why
// mpirun runs in the server's namespace: its bridge address 10.77.0.1 is
// reachable from both client namespaces. Started in the root namespace
// (which has no address on the bridge), the daemons cannot connect back and
// mpirun fails ("ORTE does not know how to route a message to the specified
// daemon located on the indicated node: 10.77.0.2"). oob_tcp_if_include and
// btl_tcp_if_include pin the daemons' and the ranks' TCP to the bridge's
// subnet: every namespace has its own 127.0.0.1, which must never be taken
// for another host's (Open MPI leaves loopback out of a multi-node job by
// default; the include lists make that explicit). Tree spawn (the default) is
// kept: with two daemons both are mpirun's direct children in the routing
// tree, so mpirun itself calls the agent for both, and the agent works from
// any namespace anyway (as root, `ip netns exec` reaches every namespace).
TEST_F(NetnsMerge, MpiRanksOnTwoClientHostsOneReport) {
  std::string out;
  if (Sh("command -v unshare", &out) != 0)
    GTEST_SKIP() << "the `unshare` command (util-linux) is not installed";
  // CI runs as root; Open MPI refuses that unless told (the flag below, and
  // these for the daemons' side).
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  // Under AddressSanitizer: Open MPI's own allocations live until exit.
  const char* asan = std::getenv("ASAN_OPTIONS");
  setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":detect_leaks=0").c_str(), 1);

  Child server(ServerCommand(), "");
  const std::string address = ServerAddress(server);
  ASSERT_FALSE(address.empty());

  const std::string agent = WriteRshAgent();
  const std::string agent_log = (dir_ / "agent.log").string();

  constexpr int kOps = 4000;
  const std::string result = (dir_ / "mpi.json").string();
  const std::string log = (dir_ / "mpirun.log").string();
  // No warm-up: rank 0 takes the "before" Stats ahead of the common start,
  // so the server's calls in the window are the ranks' operations.
  Child mpirun({"ip", "netns", "exec", server_ns_, WIREBENCH_TEST_MPIEXEC, "-np", "2",
                "--oversubscribe", "--allow-run-as-root", "--mca", "plm_rsh_agent", agent, "--mca",
                "oob_tcp_if_include", "10.77.0.0/24", "--mca", "btl_tcp_if_include",
                "10.77.0.0/24", "-H", "10.77.0.2,10.77.0.3", kBinary, "run", "--mpi", "-P",
                kWorkloadA, "--server", address, "--ops", std::to_string(kOps), "--threads", "4",
                "--warmup", "0", "--json", result},
               log);
  ASSERT_TRUE(mpirun.started());
  bool timed_out = false;
  const int rc = mpirun.Wait(120, &timed_out);
  const std::string text = ReadFile(log);
  ASSERT_FALSE(timed_out) << "mpirun did not end within 120 s:\n" << text;
  ASSERT_EQ(rc, 0) << text << "\nagent log:\n" << ReadFile(agent_log);
  std::printf("%s", text.c_str());

  // One report, from rank 0, with both ranks.
  size_t reports = 0;
  for (size_t at = text.find("[OVERALL], RunTime(ms)"); at != std::string::npos;
       at = text.find("[OVERALL], RunTime(ms)", at + 1))
    ++reports;
  EXPECT_EQ(reports, 1u) << text;
  EXPECT_NE(text.find("[MPI], Ranks, 2"), std::string::npos) << text;
  EXPECT_NE(text.find("host " + client_ns_[0]), std::string::npos) << text;
  EXPECT_NE(text.find("host " + client_ns_[1]), std::string::npos) << text;

  // The agent started one daemon per client host, each in its namespace.
  const std::string launched = ReadFile(agent_log);
  EXPECT_NE(launched.find("10.77.0.2 " + client_ns_[0]), std::string::npos) << launched;
  EXPECT_NE(launched.find("10.77.0.3 " + client_ns_[1]), std::string::npos) << launched;

  auto r = ReadResultFile(result);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& doc = r->doc;
  EXPECT_EQ(doc["mpi"]["ranks"], 2);
  // Both ranks' hosts recorded: one rank per client namespace.
  std::set<std::string> hosts;
  for (const auto& h : doc["mpi"]["hosts"]) hosts.insert(h.get<std::string>());
  EXPECT_EQ(hosts, (std::set<std::string>{client_ns_[0], client_ns_[1]})) << doc["mpi"];
  ASSERT_EQ(doc["mpi"]["per_rank"].size(), 2u);
  for (const auto& pr : doc["mpi"]["per_rank"])
    EXPECT_EQ(pr["operations"].get<int64_t>(), kOps) << pr;
  const auto& res = doc["results"];
  EXPECT_EQ(res["operations"].get<int64_t>(), 2 * kOps);
  // The server (in its own namespace) saw both ranks' operations once.
  const auto& before = res["server"]["before"];
  const auto& after = res["server"]["after"];
  ASSERT_TRUE(before.is_object() && after.is_object()) << res["server"];
  EXPECT_EQ(after["server"]["bind"], "10.77.0.1");
  const int64_t calls = Calls(after) - Calls(before);
  std::printf("server calls in the window: %lld for %d operations\n",
              static_cast<long long>(calls), 2 * kOps);
  EXPECT_NEAR(double(calls), 2.0 * kOps, 2.0 * kOps * 0.02) << "server calls in the window";
  EXPECT_EQ(server.Terminate(), 0);
}

// Servers of the job and clients of it in one mpirun: `wirebench run --mpi
// --servers 3` with five ranks, one per namespace (10.77.0.2-6). Ranks 0
// and 1 drive; ranks 2-4, the last three, each start a cluster server on
// their own host, at the address their host reaches rank 0's host from
// (10.77.0.4-6: every namespace's only address on the bridge) and a free
// port, exchanged through MPI. Rank 0 reports once, with every server's
// figures; the servers end with the job.
TEST_F(NetnsMerge, MpiJobServesItsOwnClusterOnThreeHosts) {
  std::string out;
  if (Sh("command -v unshare", &out) != 0)
    GTEST_SKIP() << "the `unshare` command (util-linux) is not installed";
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  const char* asan = std::getenv("ASAN_OPTIONS");
  setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":detect_leaks=0").c_str(), 1);
  const std::string agent = WriteRshAgent();

  constexpr int kOps = 3000, kClients = 2, kServers = 3;
  const std::string result = (dir_ / "cluster.json").string();
  const std::string log = (dir_ / "mpirun-cluster.log").string();
  // No warm-up: rank 0 reads every server's Stats ahead of the common start.
  Child mpirun({"ip", "netns", "exec", server_ns_, WIREBENCH_TEST_MPIEXEC, "-np",
                std::to_string(kClients + kServers), "--oversubscribe", "--allow-run-as-root",
                "--mca", "plm_rsh_agent", agent, "--mca", "oob_tcp_if_include", "10.77.0.0/24",
                "--mca", "btl_tcp_if_include", "10.77.0.0/24", "-H",
                "10.77.0.2,10.77.0.3,10.77.0.4,10.77.0.5,10.77.0.6", kBinary, "run", "--mpi",
                "--servers", std::to_string(kServers), "-P", kWorkloadA, "--ops",
                std::to_string(kOps), "--threads", "2", "--warmup", "0", "--json", result},
               log);
  ASSERT_TRUE(mpirun.started());
  bool timed_out = false;
  const int rc = mpirun.Wait(120, &timed_out);
  const std::string text = ReadFile(log);
  ASSERT_FALSE(timed_out) << "mpirun did not end within 120 s:\n" << text;
  ASSERT_EQ(rc, 0) << text << "\nagent log:\n" << ReadFile((dir_ / "agent.log").string());
  std::printf("%s", text.c_str());

  size_t reports = 0;
  for (size_t at = text.find("[OVERALL], RunTime(ms)"); at != std::string::npos;
       at = text.find("[OVERALL], RunTime(ms)", at + 1))
    ++reports;
  EXPECT_EQ(reports, 1u) << text;
  EXPECT_NE(text.find("[MPI], Ranks, 2"), std::string::npos) << text;
  EXPECT_NE(text.find("[MPI], ServerRanks, 3"), std::string::npos) << text;
  EXPECT_NE(text.find("[CLUSTER], Servers, 3"), std::string::npos) << text;
  for (int k = 0; k < kServers; ++k)
    EXPECT_NE(text.find("[SERVER " + std::to_string(k) + "], Calls"), std::string::npos)
        << text;

  auto r = ReadResultFile(result);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& doc = r->doc;
  // Each server rank on its own host, at that host's bridge address.
  ASSERT_EQ(doc["mpi"]["servers"].size(), size_t(kServers)) << doc["mpi"];
  for (int k = 0; k < kServers; ++k) {
    const auto& s = doc["mpi"]["servers"][size_t(k)];
    EXPECT_EQ(s["rank"], kClients + k) << s;
    EXPECT_EQ(s["host"], client_ns_[size_t(kClients + k)]) << s;
    const std::string host_address = "10.77.0." + std::to_string(kClients + k + 2);
    EXPECT_EQ(s["address"].get<std::string>().rfind(host_address + ":", 0), 0u) << s;
  }
  const auto& res = doc["results"];
  EXPECT_EQ(res["operations"].get<int64_t>(), kClients * kOps);
  EXPECT_EQ(res["error_replies"].get<int64_t>(), 0) << res["first_error_reply"];
  const auto& servers = res["cluster"]["servers"];
  ASSERT_EQ(servers.size(), size_t(kServers)) << res["cluster"];
  int64_t calls = 0;
  for (int k = 0; k < kServers; ++k) {
    const auto& s = servers[size_t(k)];
    EXPECT_EQ(s["address"], doc["mpi"]["servers"][size_t(k)]["address"]) << s["address"];
    ASSERT_TRUE(s["before"].is_object() && s["after"].is_object()) << s["address"];
    EXPECT_EQ(s["after"]["server"]["bind"], "10.77.0." + std::to_string(kClients + k + 2));
    EXPECT_GT(s["calls"].get<double>(), 0) << s["address"];
    EXPECT_EQ(s["after"]["failed_calls"].get<int64_t>(), 0) << s["address"];
    EXPECT_EQ(s["client_failures"].get<int64_t>(), 0) << s["address"];
    calls += Calls(s["after"]) - Calls(s["before"]);
  }
  // Every operation of both clients reached its row's server, once.
  EXPECT_EQ(calls, kClients * kOps);
  // The servers ended with the job: none of their processes is left.
  std::string left;
  // ("[-]": the shell running pgrep does not match itself.)
  Sh("pgrep -f -a -- '[-]-cluster " + servers[0]["address"].get<std::string>() + "'", &left);
  EXPECT_EQ(left, "") << "cluster servers left running";
}

#else  // Built without Open MPI.

TEST_F(NetnsMerge, MpiRanksOnTwoClientHostsOneReport) {
  GTEST_SKIP() << "built without Open MPI (wirebench load/run --mpi not built in)";
}

TEST_F(NetnsMerge, MpiJobServesItsOwnClusterOnThreeHosts) {
  GTEST_SKIP() << "built without Open MPI (wirebench load/run --mpi not built in)";
}

#endif

}  // namespace
}  // namespace wirebench
