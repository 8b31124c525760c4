// Test helpers: a TCP listener on loopback that accepts connections and
// never writes a byte (a peer that is not a wirebench server), and a
// `wirebench` child process whose stderr is captured, for tests that signal
// it and check how it ends; and whether a process still runs.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace wirebench::testing {

// A listening socket on 127.0.0.1 at a port the kernel picks (set in *port).
inline int ListenOnLoopback(uint16_t* port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  listen(fd, 64);
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}

class SilentListener {
 public:
  SilentListener() {
    fd_ = ListenOnLoopback(&port_);
    thread_ = std::thread([this] { AcceptLoop(); });
  }
  ~SilentListener() {
    stop_.store(true);
    thread_.join();
    for (int c : accepted_) close(c);
    for (int c : finished_) close(c);
    close(fd_);
  }
  uint16_t port() const { return port_; }
  // Waits until a connection was accepted; false after `timeout`.
  bool WaitForConnection(std::chrono::seconds timeout = std::chrono::seconds(30)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return !accepted_.empty() || !finished_.empty(); });
  }
  // Waits until at least `n` bytes were received in all (calls are waiting
  // for their answer); false after `timeout`.
  bool WaitForBytes(size_t n, std::chrono::seconds timeout = std::chrono::seconds(30)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return received_ >= n; });
  }

 private:
  // Accepts, and reads (and drops) what the peers send; never writes.
  void AcceptLoop() {
    while (!stop_.load()) {
      std::vector<pollfd> fds = {{fd_, POLLIN, 0}};
      {
        std::lock_guard<std::mutex> lock(mu_);
        for (int c : accepted_) fds.push_back({c, POLLIN, 0});
      }
      if (poll(fds.data(), fds.size(), 20) <= 0) continue;
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t i = 1; i < fds.size(); ++i) {
        char buf[4096];
        if (fds[i].revents == 0) continue;
        const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
        if (n > 0) {
          received_ += size_t(n);
        } else {  // The peer closed: stop polling it (closed in the destructor).
          std::erase(accepted_, fds[i].fd);
          finished_.push_back(fds[i].fd);
        }
      }
      if (fds[0].revents & POLLIN) {
        const int c = accept(fd_, nullptr, nullptr);
        if (c >= 0) accepted_.push_back(c);  // Kept open, never written to.
      }
      cv_.notify_all();
    }
  }
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int> accepted_;
  std::vector<int> finished_;
  size_t received_ = 0;
};

// Exists and is not a zombie (a container's PID 1 may never reap).
inline bool ProcessAlive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

// `wirebench ARGS...` as a child process; stdout and stderr go to files.
// With ProcessGroup::kOwn it leads a process group of its own, as a shell's
// foreground job does (so a signal to the group reaches it and its children,
// and the destructor kills the whole group).
enum class ProcessGroup { kInherit, kOwn };
class WirebenchProcess {
 public:
  WirebenchProcess(const std::string& binary, const std::vector<std::string>& args,
                   const std::string& stem, ProcessGroup group = ProcessGroup::kInherit)
      : out_(stem + ".out"), err_(stem + ".err"), own_group_(group == ProcessGroup::kOwn) {
    // Opened (and emptied) before the fork, so the parent never reads what
    // an earlier run left in these files.
    int o = open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int e = open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    pid_ = fork();
    if (pid_ == 0) {
      if (own_group_) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);  // Not ignored, even if the test was started so.
      }
      dup2(o, 1);
      dup2(e, 2);
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(binary.c_str()));
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    if (own_group_) setpgid(pid_, pid_);  // Also here: no race with a signal to the group.
    close(o);
    close(e);
  }
  ~WirebenchProcess() {
    if (own_group_ && pid_ > 0) kill(-pid_, SIGKILL);
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  void Signal(int sig) { kill(pid_, sig); }
  pid_t pid() const { return pid_; }
  // Waits for the exit; returns the exit code (128 + signal if killed, -1
  // if still running after `timeout`).
  int Wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      int status = 0;
      const pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      if (std::chrono::steady_clock::now() >= deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // Polling waitpid, not a wait.
    }
  }
  std::string Stderr() const { return ReadAll(err_); }
  std::string Stdout() const { return ReadAll(out_); }

 private:
  static std::string ReadAll(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::string out_, err_;
  bool own_group_ = false;
  pid_t pid_ = -1;
  bool exited_ = false;
};

}  // namespace wirebench::testing
