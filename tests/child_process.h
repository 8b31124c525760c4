// A child process of a test in its own process group, its stdout and stderr
// to a file: the Slurm daemons and srun steps the Slurm tests start, waited
// for by PID and stopped with SIGTERM, then SIGKILL to its group.
// Thread-safety: one thread.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace wirebench::testing {

class Child {
  using Clock = std::chrono::steady_clock;

 public:
  Child(std::vector<std::string> args, const std::string& out_file) : out_file_(out_file) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      const int fd = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      execvp(argv[0], argv.data());
      _exit(127);
    }
  }
  ~Child() { Stop(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& out_file() const { return out_file_; }
  bool Running() {
    if (pid_ <= 0) return false;
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) == pid_) {
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
      pid_ = -1;
      return false;
    }
    return true;
  }
  // The exit status, or -1 (killed by a signal, or not done within `seconds`).
  int Wait(double seconds, bool* timed_out = nullptr) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < deadline) {
      if (!Running()) return status_;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (timed_out) *timed_out = true;
    return -1;
  }
  // SIGTERM by PID, then (after 10 s) SIGKILL to its group.
  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    bool timed_out = false;
    Wait(10, &timed_out);
    if (timed_out) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  std::string out_file_;
};

}  // namespace wirebench::testing
