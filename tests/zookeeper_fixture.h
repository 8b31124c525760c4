// Test helper: Debian's ZooKeeper (the `zookeeper` package's jar, run with
// the machine's java) started standalone on a free loopback port with its own
// data directory, once per test binary (a gtest Environment), and stopped by
// PID. Tests that need it skip with ZooKeeperEnvironment::SkipReason() when
// java or the jar is missing or the server did not come up.
//
// Use: include this header (which registers the environment: a test binary
// includes it only to have the server), and in a test,
//   if (auto why = ZooKeeperEnvironment::SkipReason(); !why.empty()) GTEST_SKIP() << why;
//   ZooKeeperEnvironment::Instance()->port();
// WIREBENCH_ZOOKEEPER_CLASSPATH overrides the jar (ZooKeeper's own jar
// names its dependencies in its manifest, as Debian packages it).
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace wirebench::testing {

// A loopback port nothing listens on right now (bound to 0, then closed).
inline uint16_t FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// Sends a four-letter word to 127.0.0.1:port and returns the answer ("" when
// nothing answered within a second).
inline std::string FourLetterWord(uint16_t port, const char* word) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval tv{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  std::string out;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      write(fd, word, 4) == 4) {
    char buf[256];
    ssize_t n;
    while ((n = read(fd, buf, sizeof(buf))) > 0) out.append(buf, size_t(n));
  }
  close(fd);
  return out;
}

inline bool IsExecutable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

// The first `name` on PATH, or "".
inline std::string FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && IsExecutable(dir + "/" + name)) return dir + "/" + name;
  return "";
}

class ZooKeeperEnvironment : public ::testing::Environment {
 public:
  ZooKeeperEnvironment() { instance_ = this; }

  static ZooKeeperEnvironment* Instance() { return instance_; }
  // Empty when the server is up; otherwise why the tests that need it skip.
  static std::string SkipReason() {
    if (instance_ == nullptr) return "no ZooKeeperEnvironment registered in this test binary";
    return instance_->skip_reason_;
  }
  uint16_t port() const { return port_; }
  std::string quorum() const { return "127.0.0.1:" + std::to_string(port_); }
  pid_t pid() const { return pid_; }

  void SetUp() override {
    const std::string java = FindOnPath("java");
    if (java.empty()) {
      skip_reason_ = "java is not installed (apt-get install default-jre-headless zookeeper)";
      return;
    }
    const char* cp_env = std::getenv("WIREBENCH_ZOOKEEPER_CLASSPATH");
    const std::string classpath = cp_env ? cp_env : "/usr/share/java/zookeeper.jar";
    if (!cp_env && access(classpath.c_str(), R_OK) != 0) {
      skip_reason_ = "ZooKeeper is not installed (" + classpath +
                     " missing: apt-get install zookeeper, or set WIREBENCH_ZOOKEEPER_CLASSPATH)";
      return;
    }
    char tmpl[] = "/tmp/wirebench-zk-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      skip_reason_ = "cannot create a data directory under /tmp";
      return;
    }
    dir_ = tmpl;
    port_ = FreeLoopbackPort();
    const std::string cfg = dir_ + "/zoo.cfg";
    std::ofstream(cfg) << "tickTime=1000\n"
                       << "dataDir=" << dir_ << "/data\n"
                       << "clientPort=" << port_ << "\n"
                       << "clientPortAddress=127.0.0.1\n"
                       << "maxClientCnxns=0\n"
                       << "admin.enableServer=false\n"
                       << "4lw.commands.whitelist=ruok\n";
    log_ = dir_ + "/zookeeper.log";
    const std::vector<std::string> args = {
        java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-Dzookeeper.admin.enableServer=false", "-cp", classpath,
        "org.apache.zookeeper.server.ZooKeeperServerMain", cfg};
    const int log_fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
      // Dies with the test binary, even one killed by a timeout.
      if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(126);
      dup2(log_fd, 1);
      dup2(log_fd, 2);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(java.c_str(), argv.data());
      _exit(127);
    }
    close(log_fd);
    // A JVM on a busy 2-core machine can take a while: up to 90 s.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (std::chrono::steady_clock::now() < deadline) {
      int st;
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        skip_reason_ = "ZooKeeper exited at start (log: " + log_ + "): " + LogTail();
        return;
      }
      if (FourLetterWord(port_, "ruok") == "imok") return;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    skip_reason_ = "ZooKeeper did not answer on 127.0.0.1:" + std::to_string(port_) +
                   " within 90 s (log: " + log_ + "): " + LogTail();
    Stop();
  }

  void TearDown() override {
    Stop();
    if (!dir_.empty() && skip_reason_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }

  // Stops the server by its PID: SIGTERM, SIGKILL after 10 s.
  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 1000; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  std::string LogTail() const {
    std::ifstream in(log_);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
  }

  static inline ZooKeeperEnvironment* instance_ = nullptr;
  std::string skip_reason_;
  std::string dir_, log_;
  uint16_t port_ = 0;
  pid_t pid_ = -1;
};

inline ::testing::Environment* const kZooKeeperEnvironment =
    ::testing::AddGlobalTestEnvironment(new ZooKeeperEnvironment);

}  // namespace wirebench::testing
