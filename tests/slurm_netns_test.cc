// `wirebench run --mpi --servers 2` launched by Slurm across nodes that are
// network namespaces on one machine: the test makes a controller namespace
// (10.79.0.1, a bridge) and four node namespaces (10.79.0.2-5) joined by
// it, and starts, once for the binary, munged (a key of its own, a private
// socket, which every namespace reaches through the file system), slurmctld
// in the controller's namespace and one slurmd in each node's, each with a
// host name of its own (a UTS namespace) and its own spool, temporary and
// log files (%n in slurm.conf). `srun --mpi=pmix -N 4 -n 4` from the
// controller's namespace then runs one task per node: tasks 0-1 drive, tasks
// 2-3 serve the job's own cluster at their nodes' addresses. Checks counts
// only: one report naming both servers, each on its node, every server
// answering calls, the servers' calls equal to the operations, no failure,
// no server left.
// slurmd is started with nsenter --net (the network namespace only) and not
// `ip netns exec`, which remounts /sys and hides /sys/fs/cgroup, without
// which slurmd does not start. Each node's TmpFS is its own: Slurm's PMIx
// plugin makes its per-step directory there, and nodes sharing /tmp collide.
// Skips, saying why, when not root or when a program is missing; a daemon
// that is there but does not start is a failure (its log is printed).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/child_process.h"
#include "tests/read_file.h"
#include "tests/shell.h"
#include "tests/wirebench_paths.h"

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

#ifdef WIREBENCH_TEST_MPIEXEC

using wirebench::kBinary;
using wirebench::kWorkloadA;
using wirebench::testing::Child;
using wirebench::testing::ReadFile;
using wirebench::testing::Sh;

int64_t Calls(const json& stats) {
  int64_t n = 0;
  for (const char* m : {"Mutate", "Get", "Scan", "Multi"})
    n += stats["calls"].value(m, int64_t(0));
  return n;
}

constexpr int kNodes = 4;

class SlurmNetns : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tag_ = new std::string("wbl" + std::to_string(getpid()));
    skip_ = new std::string(WhyNot());
    failure_ = new std::string;
    dir_ = new std::filesystem::path(std::filesystem::temp_directory_path() / (*tag_ + "_slurm"));
    if (skip_->empty()) *skip_ = MakeNamespaces();
    if (!skip_->empty()) {
      std::fprintf(stderr, "slurm_netns_test: SKIPPED: %s\n", skip_->c_str());
      return;
    }
    *failure_ = StartDaemons();
  }
  static void TearDownTestSuite() {
    if (slurmctld_ && slurmctld_->Running())
      Sh("ip netns exec " + Ns("c") + " scancel --user=root");
    for (Child*& d : daemons_) delete d;  // slurmds first, then slurmctld, then munged.
    daemons_.clear();
    slurmctld_ = nullptr;
    if (made_)
      for (const std::string& ns : *made_) Sh("ip netns del " + ns);
    std::filesystem::remove_all(*dir_);
    delete made_;
    delete dir_;
    delete tag_;
    delete skip_;
    delete failure_;
  }
  void SetUp() override {
    if (!skip_->empty()) GTEST_SKIP() << *skip_;
    ASSERT_TRUE(failure_->empty()) << *failure_;
  }

  // A namespace's name, which is also its host's: "c" the controller's, "1".."4" the nodes'.
  static std::string Ns(const std::string& which) {
    return *tag_ + (which == "c" ? "c" : "n" + which);
  }
  static std::string NodeAddress(int i) { return "10.79.0." + std::to_string(i + 1); }

  static std::string WhyNot() {
    if (geteuid() != 0) return "not root (namespaces and slurmd need it)";
    for (const char* program : {"munged", "munge", "slurmctld", "slurmd", "srun", "sinfo",
                                "scancel", "ip", "nsenter", "unshare"}) {
      std::string out;
      if (Sh(std::string("command -v ") + program, &out) != 0)
        return std::string("`") + program +
               "` is not installed (Debian: apt-get install slurm-wlm munge iproute2 util-linux)";
    }
    return "";
  }

  // The controller's namespace with the bridge, a node namespace on it per node.
  static std::string MakeNamespaces() {
    made_ = new std::vector<std::string>;
    std::string out;
    const std::string c = "ip -n " + Ns("c") + " ";
    std::vector<std::string> cmds = {"ip netns add " + Ns("c"), c + "link set lo up",
                                     c + "link add br0 type bridge",
                                     c + "addr add 10.79.0.1/24 dev br0", c + "link set br0 up"};
    for (int i = 1; i <= kNodes; ++i) {
      const std::string ns = Ns(std::to_string(i)), n = "ip -n " + ns + " ",
                        port = "q" + std::to_string(i);
      cmds.insert(
          cmds.end(),
          {"ip netns add " + ns, c + "link add " + port + " type veth peer name eth0 netns " + ns,
           c + "link set " + port + " master br0", c + "link set " + port + " up",
           n + "link set lo up", n + "addr add " + NodeAddress(i) + "/24 dev eth0",
           n + "link set eth0 up"});
    }
    for (const std::string& cmd : cmds) {
      if (Sh(cmd, &out) != 0) return "cannot make network namespaces: `" + cmd + "` failed: " + out;
      if (cmd.rfind("ip netns add ", 0) == 0) made_->push_back(cmd.substr(13));
    }
    return "";
  }

  static std::string Log(const Child* c) {
    return c ? "\n--- " + c->out_file() + ":\n" + ReadFile(c->out_file()) : "";
  }

  static std::string WriteConf(const std::string& socket) {
    namespace fs = std::filesystem;
    const fs::path& d = *dir_;
    const std::string conf = (d / "slurm.conf").string();
    std::ofstream f(conf);
    f << "# Generated by slurm_netns_test: four nodes in network namespaces.\n"
      << "ClusterName=wbnetns\nSlurmctldHost=" << Ns("c") << "(10.79.0.1)\n"
      << "SlurmctldPort=6817\nSlurmdPort=6818\n"  // Each namespace has its own ports.
      << "SlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\nCredType=cred/munge\n"
      << "AuthInfo=socket=" << socket << "\n"
      << "StateSaveLocation=" << (d / "state").string() << "\n"
      << "SlurmdSpoolDir=" << (d / "spool-%n").string() << "\n"
      << "TmpFS=" << (d / "tmp-%n").string() << "\n"
      << "SlurmctldPidFile=" << (d / "run" / "slurmctld.pid").string() << "\n"
      << "SlurmdPidFile=" << (d / "run" / "slurmd-%n.pid").string() << "\n"
      << "SlurmctldLogFile=" << (d / "log" / "slurmctld.log").string() << "\n"
      << "SlurmdLogFile=" << (d / "log" / "slurmd-%n.log").string() << "\n"
      << "PlugStackConfig=" << (d / "plugstack.conf").string() << "\n"
      << "MailProg=/bin/true\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
      << "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
      << "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      << "SchedulerType=sched/builtin\nMpiDefault=none\nReturnToService=2\n";
    for (int i = 1; i <= kNodes; ++i)
      f << "NodeName=" << Ns(std::to_string(i)) << " NodeAddr=" << NodeAddress(i)
        << " CPUs=1 State=UNKNOWN\n";
    f << "PartitionName=wirebench Nodes=" << Ns("1");
    for (int i = 2; i <= kNodes; ++i) f << "," << Ns(std::to_string(i));
    f << " Default=YES MaxTime=10 State=UP\n";
    std::ofstream(d / "plugstack.conf") << "";
    return conf;
  }

  // munged, slurmctld and the slurmds; "" or what failed.
  static std::string StartDaemons() {
    namespace fs = std::filesystem;
    const fs::path& d = *dir_;
    fs::remove_all(d);
    for (const char* sub : {"key", "run", "log", "state"}) fs::create_directories(d / sub);
    for (int i = 1; i <= kNodes; ++i)
      for (const char* sub : {"spool-", "tmp-"})
        fs::create_directories(d / (sub + Ns(std::to_string(i))));
    // munged refuses a key others can read and a socket directory they cannot search.
    const auto open = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                      fs::perms::others_read | fs::perms::others_exec;
    fs::permissions(d, open);
    fs::permissions(d / "run", open);
    fs::permissions(d / "key", fs::perms::owner_all);
    fs::permissions(d / "log", fs::perms::owner_all);
    const std::string key = (d / "key" / "munge.key").string();
    const std::string socket = (d / "run" / "munge.socket").string();
    std::string out;
    if (Sh("dd if=/dev/urandom of=" + key + " bs=1024 count=1 && chmod 600 " + key, &out) != 0)
      return "cannot make a MUNGE key with dd: " + out;
    daemons_.insert(daemons_.begin(),
                    new Child({"munged", "--foreground", "--key-file=" + key, "--socket=" + socket,
                               "--pid-file=" + (d / "run" / "munged.pid").string(),
                               "--log-file=" + (d / "log" / "munged.log").string(),
                               "--seed-file=" + (d / "key" / "munged.seed").string()},
                              (d / "log" / "munged.out").string()));
    bool munge_ok = false;
    for (int i = 0; i < 100 && !munge_ok; ++i) {
      munge_ok = Sh("munge -S " + socket + " -n | unmunge -S " + socket, &out) == 0;
      if (!munge_ok) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!munge_ok) return "munged did not start: " + out + Log(daemons_.front());
    setenv("SLURM_CONF", WriteConf(socket).c_str(), 1);  // For the daemons, srun and sinfo.
    slurmctld_ = new Child({"ip", "netns", "exec", Ns("c"), "unshare", "--uts", "sh", "-c",
                            "hostname " + Ns("c") + " && exec slurmctld -D -i"},
                           (d / "log" / "slurmctld.out").string());
    daemons_.insert(daemons_.begin(), slurmctld_);
    for (int i = 1; i <= kNodes; ++i) {
      const std::string ns = Ns(std::to_string(i));
      daemons_.insert(daemons_.begin(),
                      new Child({"nsenter", "--net=/run/netns/" + ns, "unshare", "--uts", "sh",
                                 "-c", "hostname " + ns + " && exec slurmd -D"},
                                (d / "log" / ("slurmd-" + ns + ".out")).string()));
    }
    return WaitForIdleNodes();
  }

  static std::string WaitForIdleNodes() {
    std::string state;
    size_t idle = 0;
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (Clock::now() < deadline && idle < size_t(kNodes)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      Sh("ip netns exec " + Ns("c") + " sinfo -h -N -o %T", &state);
      idle = 0;
      for (size_t at = state.find("idle"); at != std::string::npos; at = state.find("idle", at + 1))
        ++idle;
    }
    if (idle < size_t(kNodes)) {
      std::string logs;
      for (Child* c : daemons_) logs += Log(c);
      return "the nodes did not all become idle within 60 s (sinfo: " + state + ")" + logs;
    }
    std::string plugins;
    Sh("ip netns exec " + Ns("c") + " srun --mpi=list", &plugins);
    if (plugins.find("pmix") == std::string::npos)
      *skip_ = "Slurm has no PMIx plugin (`srun --mpi=list`: " + plugins + ")";
    return "";
  }

  static std::string* tag_;
  static std::string* skip_;
  static std::string* failure_;
  static std::filesystem::path* dir_;
  static std::vector<std::string>* made_;
  static std::vector<Child*> daemons_;  // Stopped in this order: slurmds, slurmctld, munged.
  static Child* slurmctld_;
};

std::string* SlurmNetns::tag_ = nullptr;
std::string* SlurmNetns::skip_ = nullptr;
std::string* SlurmNetns::failure_ = nullptr;
std::filesystem::path* SlurmNetns::dir_ = nullptr;
std::vector<std::string>* SlurmNetns::made_ = nullptr;
std::vector<Child*> SlurmNetns::daemons_;
Child* SlurmNetns::slurmctld_ = nullptr;

// srun from the controller's namespace (the login node), one task per node
// (each node has one CPU): tasks 0-1 on nodes 1-2 drive, tasks 2-3 on
// nodes 3-4 serve at 10.79.0.4 and .5, the address each node reaches rank
// 0's node from. Open MPI's TCP between the ranks is kept on the bridge.
TEST_F(SlurmNetns, SrunPlacesTheJobsClusterOnItsOwnNodes) {
  const char* asan = std::getenv("ASAN_OPTIONS");
  setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":detect_leaks=0").c_str(), 1);
  setenv("OMPI_MCA_btl_tcp_if_include", "10.79.0.0/24", 1);  // srun passes it to the tasks.
  constexpr int kClients = 2, kServers = 2, kOps = 2000;
  const std::string out = (*dir_ / "srun.out").string();
  const std::string result = (*dir_ / "srun.json").string();
  Child srun({"ip", "netns", "exec", Ns("c"), "srun", "--mpi=pmix", "-N", std::to_string(kNodes),
              "-n", std::to_string(kNodes), "--time=5", "--job-name=wirebench-netns", kBinary,
              "run", "--mpi", "--servers", std::to_string(kServers), "-P", kWorkloadA, "--ops",
              std::to_string(kOps), "--threads", "2", "--warmup", "0", "--json", result},
             out);
  bool timed_out = false;
  const int rc = srun.Wait(120, &timed_out);
  const std::string text = ReadFile(out);
  ASSERT_FALSE(timed_out) << "srun did not end within 120 s:\n" << text;
  ASSERT_EQ(rc, 0) << text;
  std::printf("%s", text.c_str());

  size_t reports = 0;
  for (size_t at = text.find("[OVERALL], RunTime(ms)"); at != std::string::npos;
       at = text.find("[OVERALL], RunTime(ms)", at + 1))
    ++reports;
  EXPECT_EQ(reports, 1u) << text;
  EXPECT_NE(text.find("[MPI], Ranks, 2"), std::string::npos) << text;
  EXPECT_NE(text.find("[MPI], ServerRanks, 2"), std::string::npos) << text;
  EXPECT_NE(text.find("[CLUSTER], Servers, 2"), std::string::npos) << text;
  const json j = json::parse(ReadFile(result));
  std::set<std::string> client_hosts;
  for (const json& h : j["mpi"]["hosts"]) client_hosts.insert(h.get<std::string>());
  EXPECT_EQ(client_hosts, (std::set<std::string>{Ns("1"), Ns("2")})) << j["mpi"];
  ASSERT_EQ(j["mpi"]["servers"].size(), size_t(kServers)) << j["mpi"];
  const json& r = j["results"];
  EXPECT_EQ(r["operations"], kClients * kOps);
  EXPECT_EQ(r["error_replies"], 0) << r["first_error_reply"];
  const json& servers = r["cluster"]["servers"];
  ASSERT_EQ(servers.size(), size_t(kServers)) << r["cluster"];
  int64_t calls = 0;
  for (int k = 0; k < kServers; ++k) {
    const json& placed = j["mpi"]["servers"][size_t(k)];
    const json& s = servers[size_t(k)];
    EXPECT_EQ(placed["rank"], kClients + k) << placed;
    EXPECT_EQ(placed["host"], Ns(std::to_string(kClients + k + 1))) << placed;
    EXPECT_EQ(s["address"].get<std::string>().rfind(NodeAddress(kClients + k + 1) + ":", 0), 0u)
        << s["address"];
    ASSERT_TRUE(s["before"].is_object() && s["after"].is_object()) << s["address"];
    EXPECT_GT(s["calls"].get<double>(), 0) << s["address"];
    EXPECT_EQ(s["after"]["failed_calls"], 0) << s["address"];
    EXPECT_EQ(s["client_failures"], 0) << s["address"];
    calls += Calls(s["after"]) - Calls(s["before"]);
  }
  EXPECT_EQ(calls, kClients * kOps);
  std::string left;  // "[-]": the shell running pgrep does not match itself.
  Sh("pgrep -f -a -- '[-]-cluster " + servers[0]["address"].get<std::string>() + "'", &left);
  EXPECT_EQ(left, "") << "cluster servers left running";
}

#else  // Built without Open MPI: there is no --mpi to launch.

TEST(SlurmNetns, SrunPlacesTheJobsClusterOnItsOwnNodes) {
  GTEST_SKIP() << "built without Open MPI (wirebench load/run --mpi not built in)";
}

#endif

}  // namespace
