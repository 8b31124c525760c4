// `wirebench run --mpi` launched by Slurm: `srun --mpi=pmix -n 3` on a
// single-node Slurm cluster the test starts itself, once for the binary:
// munged with a key of its own (generated with dd) on a private socket,
// slurmctld and slurmd with a generated slurm.conf (this host as the only
// node, on 127.0.0.1, ports picked free, state, spool, pid and log files in a
// temporary directory, no cgroups: proctrack/linuxproc, task/none), and a
// real `wirebench server`. Checks: one report with three ranks, and the
// server's calls between rank 0's Stats snapshots equal to the ranks'
// operations within 2% (the aligned windows, as under mpirun); and `run --mpi
// --servers 2` with four tasks, the last two serving the job's own cluster.
// Every daemon is stopped by its PID at the end.
// Skips, saying why, when not root, when a Slurm or MUNGE program is missing,
// when Slurm has no PMIx plugin, or when built without Open MPI. A daemon that
// is there but does not start is a failure (its log is printed).
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "rpc/free_ports.h"
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

// Distinct free TCP ports on 127.0.0.1 (bound together, then released).
std::vector<int> FreePorts(int n) {
  const std::vector<uint16_t> ports = wirebench::rpc::FreeLoopbackPorts(n);
  return std::vector<int>(ports.begin(), ports.end());
}

std::string ShortHostname() {
  char b[256] = {};
  gethostname(b, sizeof(b) - 1);
  std::string h = b;
  return h.substr(0, h.find('.'));
}

class SlurmMpi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    skip_ = new std::string;
    failure_ = new std::string;
    *skip_ = WhyNot();
    if (!skip_->empty()) {
      std::fprintf(stderr, "slurm_mpi_test: SKIPPED: %s\n", skip_->c_str());
      return;
    }
    *failure_ = StartCluster();
  }
  static void TearDownTestSuite() {
    // Every job gone before slurmd stops (its slurmstepd would outlive it).
    if (slurmctld_ && slurmctld_->Running()) {
      Sh("scancel --user=root");  // This private controller has no other jobs.
      for (int i = 0; i < 100; ++i) {
        std::string q;
        if (Sh("squeue -h -o %i", &q) != 0 || q.empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    // By PID, in reverse order of start.
    delete server_;
    delete slurmd_;
    delete slurmctld_;
    delete munged_;
    server_ = slurmd_ = slurmctld_ = munged_ = nullptr;
    if (dir_) std::filesystem::remove_all(*dir_);
    delete dir_;
    delete address_;
    delete skip_;
    delete failure_;
  }
  void SetUp() override {
    if (!skip_->empty()) GTEST_SKIP() << *skip_;
    ASSERT_TRUE(failure_->empty()) << *failure_;
  }

  // Why the test cannot run here, or "".
  static std::string WhyNot() {
    if (geteuid() != 0)
      return "not root (slurmd must run as root to start the job's processes as its user)";
    for (const char* program :
         {"munged", "munge", "slurmctld", "slurmd", "srun", "sinfo", "squeue", "scancel"}) {
      std::string out;
      if (Sh(std::string("command -v ") + program, &out) != 0)
        return std::string("`") + program +
               "` is not installed (Debian: apt-get install slurm-wlm munge)";
    }
    return "";
  }

  static std::string Log(const Child* c) {
    return c ? "\n--- " + c->out_file() + ":\n" + ReadFile(c->out_file()) : "";
  }

  // Starts munged, slurmctld, slurmd and the wirebench server; "" or what failed.
  static std::string StartCluster() {
    dir_ = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                     ("wb_slurm_" + std::to_string(getpid())));
    namespace fs = std::filesystem;
    const fs::path& d = *dir_;
    fs::remove_all(d);
    for (const char* sub : {"key", "run", "log", "state", "spool"}) fs::create_directories(d / sub);
    // munged refuses a key readable by others, a socket directory others
    // cannot search, and a log directory others can write.
    fs::permissions(d, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(d / "run", fs::perms::owner_all | fs::perms::group_read |
                                   fs::perms::group_exec | fs::perms::others_read |
                                   fs::perms::others_exec);
    fs::permissions(d / "key", fs::perms::owner_all);
    fs::permissions(d / "log", fs::perms::owner_all);
    const std::string key = (d / "key" / "munge.key").string();
    const std::string socket = (d / "run" / "munge.socket").string();
    std::string out;
    if (Sh("dd if=/dev/urandom of=" + key + " bs=1024 count=1 && chmod 600 " + key, &out) != 0)
      return "cannot make a MUNGE key with dd: " + out;

    munged_ = new Child({"munged", "--foreground", "--key-file=" + key, "--socket=" + socket,
                         "--pid-file=" + (d / "run" / "munged.pid").string(),
                         "--log-file=" + (d / "log" / "munged.log").string(),
                         "--seed-file=" + (d / "key" / "munged.seed").string()},
                        (d / "log" / "munged.out").string());
    // Ready when a credential it encodes decodes.
    bool munge_ok = false;
    for (int i = 0; i < 100 && !munge_ok && munged_->Running(); ++i) {
      munge_ok = Sh("munge -S " + socket + " -n | unmunge -S " + socket, &out) == 0;
      if (!munge_ok) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!munge_ok)
      return "munged did not start: " + out + Log(munged_) + ReadFile((d / "log" / "munged.log"));

    const std::vector<int> ports = FreePorts(2);
    if (ports.size() != 2) return "cannot pick two free ports on 127.0.0.1";
    const std::string host = ShortHostname();
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const std::string conf = (d / "slurm.conf").string();
    {
      std::ofstream f(conf);
      f << "# Generated by slurm_mpi_test: a one-node cluster on loopback.\n"
        << "ClusterName=wirebench\n"
        << "SlurmctldHost=" << host << "(127.0.0.1)\n"
        << "SlurmctldPort=" << ports[0] << "\n"
        << "SlurmdPort=" << ports[1] << "\n"
        << "SlurmUser=root\nSlurmdUser=root\n"
        << "AuthType=auth/munge\nCredType=cred/munge\n"
        << "AuthInfo=socket=" << socket << "\n"
        << "StateSaveLocation=" << (d / "state").string() << "\n"
        << "SlurmdSpoolDir=" << (d / "spool").string() << "\n"
        << "SlurmctldPidFile=" << (d / "run" / "slurmctld.pid").string() << "\n"
        << "SlurmdPidFile=" << (d / "run" / "slurmd.pid").string() << "\n"
        << "SlurmctldLogFile=" << (d / "log" / "slurmctld.log").string() << "\n"
        << "SlurmdLogFile=" << (d / "log" / "slurmd.log").string() << "\n"
        << "PlugStackConfig=" << (d / "plugstack.conf").string() << "\n"
        << "MailProg=/bin/true\n"
        // No cgroups: processes tracked by their parentage, no task binding.
        << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
        << "JobAcctGatherType=jobacct_gather/none\n"
        << "AccountingStorageType=accounting_storage/none\n"
        << "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
        << "SchedulerType=sched/builtin\nMpiDefault=none\nReturnToService=2\n"
        << "NodeName=" << host << " NodeAddr=127.0.0.1 CPUs=" << cpus << " State=UNKNOWN\n"
        << "PartitionName=wirebench Nodes=" << host << " Default=YES MaxTime=10 State=UP\n";
      std::ofstream(d / "plugstack.conf") << "";
    }
    // The clients (srun, sinfo, squeue, scancel) and the daemons read it.
    setenv("SLURM_CONF", conf.c_str(), 1);

    slurmctld_ = new Child({"slurmctld", "-D", "-i"}, (d / "log" / "slurmctld.out").string());
    slurmd_ = new Child({"slurmd", "-D", "-N", host}, (d / "log" / "slurmd.out").string());
    // Wait for the node to be idle.
    std::string state;
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (Clock::now() < deadline && slurmctld_->Running() && slurmd_->Running()) {
      Sh("sinfo -h -N -n " + host + " -o %T", &state);
      if (state.rfind("idle", 0) == 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    if (state.rfind("idle", 0) != 0)
      return "the node did not become idle within 60 s (sinfo: " + state + ")" + Log(slurmctld_) +
             Log(slurmd_) + "\n--- slurm.conf:\n" + ReadFile(conf);
    std::string plugins;
    Sh("srun --mpi=list", &plugins);
    if (plugins.find("pmix") == std::string::npos) {
      // Debian's Open MPI 4.1 has no PMI-2 client (its pmix components are
      // ext3x, isolated and flux), so --mpi=pmi2 is no way out.
      *skip_ = "Slurm has no PMIx plugin (`srun --mpi=list`: " + plugins + ")";
      return "";
    }

    server_ = new Child({kBinary, "server", "--port", "0", "--io-threads", "2"},
                        (d / "log" / "server.log").string());
    for (int i = 0; i < 200; ++i) {
      const std::string log = ReadFile((d / "log" / "server.log").string());
      const size_t at = log.find("listening on ");
      const size_t eol = at == std::string::npos ? at : log.find('\n', at);
      if (eol != std::string::npos) {
        address_ = new std::string(log.substr(at + 13, eol - at - 13));
        return "";
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return "the wirebench server did not start" + Log(server_);
  }

  static std::filesystem::path* dir_;
  static std::string* skip_;
  static std::string* failure_;
  static std::string* address_;
  static Child* munged_;
  static Child* slurmctld_;
  static Child* slurmd_;
  static Child* server_;
};

std::filesystem::path* SlurmMpi::dir_ = nullptr;
std::string* SlurmMpi::skip_ = nullptr;
std::string* SlurmMpi::failure_ = nullptr;
std::string* SlurmMpi::address_ = nullptr;
Child* SlurmMpi::munged_ = nullptr;
Child* SlurmMpi::slurmctld_ = nullptr;
Child* SlurmMpi::slurmd_ = nullptr;
Child* SlurmMpi::server_ = nullptr;

// srun starts the three ranks itself (PMIx; no mpirun). --overcommit: three
// tasks on a node with fewer CPUs (srun's --oversubscribe is about sharing
// CPUs with other jobs and, with the partition's OverSubscribe=NO, leaves
// the job pending).
TEST_F(SlurmMpi, SrunPmixThreeRanksOneReport) {
  // Under AddressSanitizer: Open MPI's own allocations live until exit. srun
  // passes its environment on to the ranks.
  const char* asan = std::getenv("ASAN_OPTIONS");
  setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":detect_leaks=0").c_str(), 1);
  constexpr int kRanks = 3, kOps = 3000;
  const std::string out = (*dir_ / "srun.out").string();
  const std::string result = (*dir_ / "srun.json").string();
  // No warm-up: rank 0 takes the "before" Stats ahead of the common start.
  Child srun({"srun", "--mpi=pmix", "-n", std::to_string(kRanks), "--overcommit", "--time=5",
              "--job-name=wirebench-test", kBinary, "run", "--mpi", "-P", kWorkloadA, "--server",
              *address_, "--ops", std::to_string(kOps), "--threads", "2", "--warmup", "0",
              "--json", result},
             out);
  bool timed_out = false;
  const int rc = srun.Wait(120, &timed_out);
  const std::string text = ReadFile(out);
  ASSERT_FALSE(timed_out) << "srun did not end within 120 s:\n" << text;
  ASSERT_EQ(rc, 0) << text << Log(slurmd_);
  std::printf("%s", text.c_str());

  size_t reports = 0;
  for (size_t at = text.find("[OVERALL], RunTime(ms)"); at != std::string::npos;
       at = text.find("[OVERALL], RunTime(ms)", at + 1))
    ++reports;
  EXPECT_EQ(reports, 1u) << text;  // Rank 0's only.
  EXPECT_NE(text.find("[MPI], Ranks, 3"), std::string::npos) << text;
  const json j = json::parse(ReadFile(result));
  EXPECT_EQ(j["mpi"]["ranks"], kRanks);
  ASSERT_EQ(j["mpi"]["per_rank"].size(), size_t(kRanks));
  for (const json& pr : j["mpi"]["per_rank"]) EXPECT_EQ(pr["operations"], kOps) << pr;
  const json& r = j["results"];
  EXPECT_EQ(r["operations"], kRanks * kOps);
  const json& before = r["server"]["before"];
  const json& after = r["server"]["after"];
  ASSERT_TRUE(before.is_object() && after.is_object()) << r["server"];
  const int64_t calls = Calls(after) - Calls(before);
  std::printf("server calls in the window: %lld for %d operations\n",
              static_cast<long long>(calls), kRanks * kOps);
  EXPECT_NEAR(double(calls), double(kRanks * kOps), kRanks * kOps * 0.02)
      << "server calls in the window: " << calls;
}


// The job's own cluster under srun: `srun -n 4 wirebench run --mpi
// --servers 2`, the same spelling as under mpirun. Tasks 2 and 3 (the last
// two) serve, tasks 0 and 1 drive; on this one node every task shares the
// host, so the servers listen on loopback. One report with both servers'
// figures, every operation answered once by its row's server, and the
// servers gone with the job step.
TEST_F(SlurmMpi, SrunPmixJobServesItsOwnCluster) {
  const char* asan = std::getenv("ASAN_OPTIONS");
  setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":detect_leaks=0").c_str(), 1);
  constexpr int kClients = 2, kServers = 2, kOps = 2000;
  const std::string out = (*dir_ / "srun-cluster.out").string();
  const std::string result = (*dir_ / "srun-cluster.json").string();
  Child srun({"srun", "--mpi=pmix", "-n", std::to_string(kClients + kServers), "--overcommit",
              "--time=5", "--job-name=wirebench-cluster-test", kBinary, "run", "--mpi",
              "--servers", std::to_string(kServers), "-P", kWorkloadA, "--ops",
              std::to_string(kOps), "--threads", "2", "--warmup", "0", "--json", result},
             out);
  bool timed_out = false;
  const int rc = srun.Wait(120, &timed_out);
  const std::string text = ReadFile(out);
  ASSERT_FALSE(timed_out) << "srun did not end within 120 s:\n" << text;
  ASSERT_EQ(rc, 0) << text << Log(slurmd_);
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
  ASSERT_EQ(j["mpi"]["servers"].size(), size_t(kServers)) << j["mpi"];
  for (int k = 0; k < kServers; ++k)
    EXPECT_EQ(j["mpi"]["servers"][size_t(k)]["rank"], kClients + k);
  const json& r = j["results"];
  EXPECT_EQ(r["operations"], kClients * kOps);
  EXPECT_EQ(r["error_replies"], 0) << r["first_error_reply"];
  const json& servers = r["cluster"]["servers"];
  ASSERT_EQ(servers.size(), size_t(kServers)) << r["cluster"];
  int64_t calls = 0;
  for (const json& s : servers) {
    ASSERT_TRUE(s["before"].is_object() && s["after"].is_object()) << s["address"];
    EXPECT_EQ(s["address"].get<std::string>().rfind("127.0.0.1:", 0), 0u) << s["address"];
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


// The pid of the task whose command line holds `marker` and whose
// SLURM_PROCID is `task`; 0 when there is none (yet).
pid_t PidOfTask(const std::string& marker, int task) {
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = ReadFile(e.path().string() + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(marker) == std::string::npos || cmdline.rfind("srun", 0) == 0) continue;
    std::string env = ReadFile(e.path().string() + "/environ");
    std::replace(env.begin(), env.end(), '\0', '\n');
    if (("\n" + env).find("\nSLURM_PROCID=" + std::to_string(task) + "\n") != std::string::npos)
      return pid_t(std::stoi(name));
  }
  return 0;
}

// A client task of the job's own cluster killed mid-step: rank 0 reports
// what it has and leaves without MPI_Finalize, and Slurm's PMIx plugin then
// cancels the step, so the serving tasks, which wait for a release that
// cannot come, end with their servers; srun ends non-zero, the output names
// rank 1.
TEST_F(SlurmMpi, SrunJobClusterEndsWhenAClientTaskDies) {
  const char* asan = std::getenv("ASAN_OPTIONS");
  setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":detect_leaks=0").c_str(), 1);
  const std::string out = (*dir_ / "srun-cluster-kill.out").string();
  // fieldlength 996 marks this test's tasks and servers.
  Child srun({"srun", "--mpi=pmix", "-n", "4", "--overcommit", "--time=5",
              "--job-name=wirebench-cluster-kill", kBinary, "run", "--mpi", "--servers", "2",
              "-P", kWorkloadA, "--seconds", "60", "--threads", "2", "-p", "fieldlength=996"},
             out);
  pid_t victim = 0;
  for (int i = 0; i < 300 && victim == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    victim = PidOfTask("fieldlength=996", 1);
  }
  ASSERT_GT(victim, 0) << "task 1 never started:\n" << ReadFile(out);
  std::this_thread::sleep_for(std::chrono::seconds(3));  // Most likely measuring by then.
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  bool timed_out = false;
  const int rc = srun.Wait(60, &timed_out);
  const std::string text = ReadFile(out);
  ASSERT_FALSE(timed_out) << "the step did not end after task 1 died:\n" << text;
  std::printf("%s", text.c_str());
  EXPECT_NE(rc, 0) << text;
  EXPECT_NE(text.find("rank 1 (host"), std::string::npos) << text;
  std::string left;  // "[-]"-style classes: the shell running pgrep does not match itself.
  for (int i = 0; i < 100; ++i) {
    Sh("pgrep -f -a -- '[f]ieldlength=996|[c]anned-field-length 996'", &left);
    if (left.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(left, "") << "tasks or cluster servers left running";
}

#else  // Built without Open MPI: there is no --mpi to launch.

TEST(SlurmMpi, SrunPmixThreeRanksOneReport) {
  GTEST_SKIP() << "built without Open MPI (wirebench load/run --mpi not built in)";
}

TEST(SlurmMpi, SrunPmixJobServesItsOwnCluster) {
  GTEST_SKIP() << "built without Open MPI (wirebench load/run --mpi not built in)";
}

TEST(SlurmMpi, SrunJobClusterEndsWhenAClientTaskDies) {
  GTEST_SKIP() << "built without Open MPI (wirebench load/run --mpi not built in)";
}

#endif

}  // namespace
