// Multi-host run on one machine: the test makes three "hosts" with network
// namespaces (a server at 10.77.0.1 and two clients at .2 and .3, joined by
// a bridge in the server's namespace), runs the real `wirebench server` in
// one and a `wirebench run --server` client in each of the others at the
// same time, merges their results with `wirebench merge`, and checks the
// merged report: operations are the sum, and the server's Mutate/Get calls
// between the earliest and latest Stats snapshot cover them.
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
#include <filesystem>
#include <string>
#include <vector>

#include "bench/results/merge.h"
#include "common/str_cat.h"

namespace wirebench {
namespace {

const std::string kBinary = std::string(WIREBENCH_BINARY_DIR) + "/bench/wirebench";
const std::string kWorkloadA = std::string(WIREBENCH_SOURCE_DIR) + "/workloads/workloada";

// Runs a shell command; returns its exit status and its output (stdout and stderr).
int Sh(const std::string& cmd, std::string* output = nullptr) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  const int st = pclose(p);
  if (output) *output = out;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

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
      kill(pid_, SIGKILL);
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
    client_ns_ = {tag + "a", tag + "b"};
    dir_ = std::filesystem::temp_directory_path() / (tag + "_netns");
    std::filesystem::create_directories(dir_);
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
    for (const std::string& ns : {server_ns_, client_ns_[0], client_ns_[1]}) {
      if (Sh("ip netns add " + ns, &out) != 0) return "`ip netns add` failed: " + out;
      made_.push_back(ns);
    }
    const std::string s = "ip -n " + server_ns_ + " ";
    std::vector<std::string> cmds = {s + "link set lo up", s + "link add br0 type bridge",
                                     s + "addr add 10.77.0.1/24 dev br0", s + "link set br0 up"};
    for (int i = 0; i < 2; ++i) {
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
  std::vector<std::string> client_ns_;
  std::vector<std::string> made_;
  std::filesystem::path dir_;
};

TEST_F(NetnsMerge, TwoClientHostsOneServerHostMerged) {
  const std::string why = MakeHosts();
  if (!why.empty()) {
    std::fprintf(stderr, "netns_merge_test: SKIPPED: cannot make network namespaces: %s\n",
                 why.c_str());
    GTEST_SKIP() << "cannot make network namespaces: " << why;
  }

  Child server({"ip", "netns", "exec", server_ns_, kBinary, "server", "--bind", "10.77.0.1",
                "--port", "0", "--io-threads", "2"},
               "");
  ASSERT_TRUE(server.started());
  std::string seen;
  const std::string line = server.WaitForLine("listening on ", 15, &seen);
  ASSERT_FALSE(line.empty()) << "the server did not start in its namespace; output: " << seen;
  const std::string address = line.substr(std::string("listening on ").size());
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

}  // namespace
}  // namespace wirebench
