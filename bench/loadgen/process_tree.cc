#include "bench/loadgen/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

extern char** environ;

namespace wirebench {

namespace {

// One /proc/PID/stat line's fields this file uses.
struct ProcStat {
  int pid = 0, ppid = 0;
  char state = '?';
  uint64_t utime = 0, stime = 0, cutime = 0, cstime = 0;  // Clock ticks.
  uint64_t starttime = 0;
};

bool ReadProcStat(int pid, ProcStat* out) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/stat", pid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  const ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  // The command name is in parentheses and may hold anything: parse after the last ')'.
  const char* close_paren = std::strrchr(buf, ')');
  if (close_paren == nullptr) return false;
  out->pid = pid;
  // Fields 3.. : state ppid pgrp session tty_nr tpgid flags minflt cminflt
  // majflt cmajflt utime stime cutime cstime priority nice num_threads
  // itrealvalue starttime.
  unsigned long long f[20] = {};
  char state = '?';
  const int got = std::sscanf(close_paren + 2,
                              "%c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
                              "%llu %llu %llu %llu %llu %llu %llu",
                              &state, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7],
                              &f[8], &f[9], &f[10], &f[11], &f[12], &f[13], &f[14], &f[15], &f[16],
                              &f[17], &f[18]);
  if (got < 20) return false;
  out->state = state;
  out->ppid = int(f[0]);
  out->utime = f[10];
  out->stime = f[11];
  out->cutime = f[12];
  out->cstime = f[13];
  out->starttime = f[18];
  return true;
}

std::vector<int> AllPids() {
  std::vector<int> pids;
  DIR* d = opendir("/proc");
  if (d == nullptr) return pids;
  while (dirent* e = readdir(d)) {
    char* end;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (*end == '\0' && pid > 0) pids.push_back(int(pid));
  }
  closedir(d);
  return pids;
}

// Context switches of every thread of a live process (/proc/PID/status
// counts the main thread's only).
void AddSwitches(int pid, uint64_t* voluntary, uint64_t* involuntary) {
  char dir_path[64];
  std::snprintf(dir_path, sizeof(dir_path), "/proc/%d/task", pid);
  DIR* d = opendir(dir_path);
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream status(std::string(dir_path) + "/" + e->d_name + "/status");
    std::string line;
    while (std::getline(status, line)) {
      unsigned long long v = 0;
      if (std::sscanf(line.c_str(), "voluntary_ctxt_switches: %llu", &v) == 1) *voluntary += v;
      if (std::sscanf(line.c_str(), "nonvoluntary_ctxt_switches: %llu", &v) == 1)
        *involuntary += v;
    }
  }
  closedir(d);
}

bool IsExcluded(const std::vector<pid_t>& excluded, pid_t pid) {
  return std::find(excluded.begin(), excluded.end(), pid) != excluded.end();
}

// The tree's members at one moment: the command and its descendants, and
// orphans of the tree re-parented to this (subreaper) process.
class TreeSampler {
 public:
  TreeSampler(pid_t root, std::vector<pid_t> exclude)
      : root_(root), exclude_(std::move(exclude)), self_(getpid()) {}

  // One /proc walk: returns the live members' figures (zombies included).
  std::vector<ProcStat> Sample() {
    std::unordered_map<int, ProcStat> all;
    for (int pid : AllPids()) {
      ProcStat s;
      if (ReadProcStat(pid, &s)) all[pid] = s;
    }
    std::vector<ProcStat> members;
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [pid, s] : all) {
      if (!IsMember(s, all)) continue;
      seen_.insert({s.pid, s.starttime});
      members.push_back(s);
    }
    ++samples_;
    return members;
  }
  int processes_seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return int(seen_.size());
  }
  int samples() {
    std::lock_guard<std::mutex> lock(mu_);
    return samples_;
  }

 private:
  bool IsMember(const ProcStat& s, const std::unordered_map<int, ProcStat>& all) const {
    if (s.pid == self_ || IsExcluded(exclude_, s.pid)) return false;
    // Walk up the parent links; a child of this process is the command or
    // an orphan of its tree (this process has no other children but the
    // excluded servers).
    int pid = s.pid;
    for (int depth = 0; depth < 256; ++depth) {
      if (pid == root_) return true;
      auto it = all.find(pid);
      if (it == all.end()) return false;
      if (it->second.ppid == self_) return !IsExcluded(exclude_, pid);
      pid = it->second.ppid;
      if (pid <= 1) return false;
    }
    return false;
  }

  const pid_t root_;
  const std::vector<pid_t> exclude_;
  const pid_t self_;
  std::mutex mu_;
  std::set<std::pair<int, uint64_t>> seen_;  // Guarded by mu_.
  int samples_ = 0;                          // Guarded by mu_.
};

// Reaps exited children until none is left or the next is one of `keep`
// (the co-located servers, whose exit their owner reaps).
void ReapOrphans(const std::vector<pid_t>& keep) {
  for (;;) {
    siginfo_t info{};
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) return;
    if (IsExcluded(keep, info.si_pid)) return;  // Left for its owner (LocalServer::Alive/Stop).
    waitpid(info.si_pid, nullptr, 0);
  }
}


// The stop signal received while a command runs (0: none). Set by the
// handler; read by the sampling thread, which passes it on.
volatile sig_atomic_t g_stop_signal = 0;
void OnStopSignal(int sig) { g_stop_signal = sig; }

constexpr auto kForwardGrace = std::chrono::milliseconds(500);
constexpr auto kKillAfter = std::chrono::seconds(5);
constexpr auto kLeftoverGrace = std::chrono::seconds(2);

bool Alive(pid_t pid) {
  ProcStat s;
  return ReadProcStat(pid, &s) && s.state != 'Z' && s.state != 'X';
}

// SIGTERM to each of `pids`, then SIGKILL to those alive after the grace
// period; reaps those that were this process's (orphans of the tree).
int StopLeftovers(const std::vector<int>& pids, const std::vector<pid_t>& keep) {
  for (int p : pids) kill(p, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + kLeftoverGrace;
  for (;;) {
    ReapOrphans(keep);
    bool any = false;
    for (int p : pids) any = any || Alive(p);
    if (!any || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (int p : pids)
    if (Alive(p)) kill(p, SIGKILL);
  for (int i = 0; i < 50; ++i) {  // SIGKILL is prompt; reap what was ours.
    ReapOrphans(keep);
    bool any = false;
    for (int p : pids) any = any || Alive(p);
    if (!any) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return int(pids.size());
}

// The command's argv and environment (o.env over this process's) as
// execvpe takes them: the strings and the pointers into them, kept together.
class ExecArgs {
 public:
  explicit ExecArgs(const CommandOptions& o) : argv_s_(o.argv) {
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string kv = *e;
      if (!o.env.count(kv.substr(0, kv.find('=')))) env_s_.push_back(kv);
    }
    for (const auto& [k, v] : o.env) env_s_.push_back(k + "=" + v);
    for (auto& s : env_s_) envp_.push_back(s.data());
    envp_.push_back(nullptr);
    for (auto& s : argv_s_) argv_.push_back(s.data());
    argv_.push_back(nullptr);
  }
  ExecArgs(const ExecArgs&) = delete;
  ExecArgs& operator=(const ExecArgs&) = delete;

  char* const* argv() const { return argv_.data(); }
  char* const* envp() const { return envp_.data(); }

 private:
  std::vector<std::string> env_s_, argv_s_;
  std::vector<char*> envp_, argv_;
};

// Ctrl-C at a terminal reaches the command too (same process group); this
// process waits for it to end and still reports, as time(1) does. A SIGINT
// or SIGTERM sent to this process alone is passed on to the command (by the
// sampling thread, ForwardStopSignal), which is then waited for and reported.
class StopSignalHandlers {
 public:
  StopSignalHandlers() {
    g_stop_signal = 0;
    struct sigaction on_stop {};
    on_stop.sa_handler = OnStopSignal;
    sigemptyset(&on_stop.sa_mask);
    on_stop.sa_flags = SA_RESTART;
    sigaction(SIGINT, &on_stop, &old_int_);
    sigaction(SIGTERM, &on_stop, &old_term_);
  }
  void Restore() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// The forked child: becomes the command, or writes exec's errno to `err_fd`.
[[noreturn]] void ExecCommand(const ExecArgs& args, pid_t parent, int err_fd) {
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(126);
  execvpe(args.argv()[0], args.argv(), args.envp());
  const int e = errno;
  (void)!write(err_fd, &e, sizeof(e));
  _exit(127);
}

// Passes a stop signal this process received on to the command `pid`: after
// kForwardGrace (a Ctrl-C at a terminal has reached it already), then
// SIGKILL kKillAfter later. Called by the sampling thread on each wake.
class StopForwarder {
 public:
  explicit StopForwarder(pid_t pid) : pid_(pid) {}
  void Poll() {
    const int sig = g_stop_signal;
    if (sig == 0 || killed_) return;
    const auto now = std::chrono::steady_clock::now();
    if (seen_ == std::chrono::steady_clock::time_point()) seen_ = now;
    if (forwarded_ == 0 && now - seen_ >= kForwardGrace) {
      kill(pid_, sig);
      forwarded_ = sig;
      sent_ = now;
    } else if (forwarded_ != 0 && now - sent_ >= kKillAfter) {
      kill(pid_, SIGKILL);
      killed_ = true;
    }
  }

 private:
  const pid_t pid_;
  int forwarded_ = 0;
  std::chrono::steady_clock::time_point seen_, sent_;
  bool killed_ = false;
};

// The sampling thread's loop: samples the tree at `interval` and passes stop
// signals on until `done`.
void SampleUntilDone(TreeSampler* sampler, pid_t pid, std::chrono::milliseconds interval,
                     const std::atomic<bool>& done) {
  StopForwarder stops(pid);
  auto next_sample = std::chrono::steady_clock::now();
  while (!done.load()) {
    if (std::chrono::steady_clock::now() >= next_sample) {
      sampler->Sample();
      next_sample += interval;
    }
    stops.Poll();
    // Wakes at least every 50 ms to pass a stop signal on, sampling at its own interval.
    std::this_thread::sleep_until(
        std::min(next_sample, std::chrono::steady_clock::now() + std::chrono::milliseconds(50)));
  }
}

// Waits for the command and returns its wait status, reaping the tree's
// orphans meanwhile: blocked in waitid until some child ends; once the
// excluded children (the servers) has ended and must be left for its owner,
// by polling.
int WaitForCommand(pid_t pid, const std::vector<pid_t>& exclude) {
  int status = 0;
  bool excluded_ended = false;
  for (;;) {
    if (excluded_ended) {
      if (waitpid(pid, &status, WNOHANG) == pid) return status;
      ReapOrphans(exclude);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    siginfo_t info{};
    if (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0) {
      if (errno == EINTR) continue;
      waitpid(pid, &status, 0);  // ECHILD cannot be: the command is a child.
      return status;
    }
    if (info.si_pid == pid) {
      waitpid(pid, &status, 0);
      return status;
    }
    if (IsExcluded(exclude, info.si_pid)) {
      excluded_ended = true;
      continue;
    }
    waitpid(info.si_pid, nullptr, 0);  // An orphan of the tree.
  }
}

// What is left of the tree when the command ended: its CPU and switches as
// they stand now, and which processes still run.
void CountWhatIsLeft(TreeSampler* sampler, ProcessTreeUsage* u) {
  const double tick_ns = 1e9 / double(sysconf(_SC_CLK_TCK));
  for (const ProcStat& s : sampler->Sample()) {
    u->user_ns += double(s.utime + s.cutime) * tick_ns;
    u->sys_ns += double(s.stime + s.cstime) * tick_ns;
    AddSwitches(s.pid, &u->voluntary_switches, &u->involuntary_switches);
    if (s.state != 'Z') u->left_running.push_back(s.pid);
  }
}

// What the reaped members of the tree cost, from RUSAGE_CHILDREN before and after.
void AddReapedUsage(const ReapedChildrenUsage& before, const ReapedChildrenUsage& after,
                    ProcessTreeUsage* u) {
  u->user_ns += after.user_ns - before.user_ns;
  u->sys_ns += after.sys_ns - before.sys_ns;
  u->voluntary_switches += after.voluntary_switches - before.voluntary_switches;
  u->involuntary_switches += after.involuntary_switches - before.involuntary_switches;
}

int ExitCodeOf(int status) {
  return WIFEXITED(status)     ? WEXITSTATUS(status)
         : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                               : 1;
}

}  // namespace

StatusOr<ProcessTreeUsage> RunCommandTree(const CommandOptions& o) {
  if (o.argv.empty()) return Status::InvalidArgument("no command to run: give it after --");
  // Orphans of the tree come to this process, which waits for them, so
  // their CPU lands in RUSAGE_CHILDREN.
  int was_subreaper = 0;
  prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  const ReapedChildrenUsage before = o.host->ReapedChildren();

  const ExecArgs args(o);
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0)
    return Status::IoError(std::string("pipe: ") + std::strerror(errno));
  StopSignalHandlers stop_handlers;
  const auto start = o.host->MonotonicNow();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    stop_handlers.Restore();
    prctl(PR_SET_CHILD_SUBREAPER, was_subreaper);
    return Status::IoError(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) ExecCommand(args, parent, err_pipe[1]);
  close(err_pipe[1]);
  int exec_errno = 0;
  const bool exec_failed = read(err_pipe[0], &exec_errno, sizeof(exec_errno)) == sizeof(exec_errno);
  close(err_pipe[0]);
  if (!exec_failed && o.started) o.started();

  TreeSampler sampler(pid, o.exclude);
  std::atomic<bool> done{false};
  std::thread sampling([&] { SampleUntilDone(&sampler, pid, o.sample_interval, done); });
  const int status = WaitForCommand(pid, o.exclude);
  ProcessTreeUsage u;
  // Never negative: a clock that stepped back gives no wall time, not less than none.
  u.wall_s = std::max(0.0, std::chrono::duration<double>(o.host->MonotonicNow() - start).count());
  done.store(true);
  sampling.join();
  ReapOrphans(o.exclude);
  CountWhatIsLeft(&sampler, &u);
  // Nothing of the command outlives the measurement (counted above as they
  // stood when it ended).
  // RUSAGE_CHILDREN first: the leftovers' CPU is the /proc figure above, not
  // again what their reaping would add.
  const ReapedChildrenUsage after = o.host->ReapedChildren();
  if (!u.left_running.empty()) u.stopped_leftovers = StopLeftovers(u.left_running, o.exclude);
  u.stop_signal = g_stop_signal;
  stop_handlers.Restore();
  prctl(PR_SET_CHILD_SUBREAPER, was_subreaper);
  if (exec_failed)
    return Status::InvalidArgument("cannot run '" + o.argv[0] + "': " + std::strerror(exec_errno) +
                                   (exec_errno == ENOENT ? " (not found on PATH)" : ""));
  AddReapedUsage(before, after, &u);
  u.processes_seen = std::max(1, sampler.processes_seen());
  u.samples = sampler.samples();
  u.how = DescribeExit(status);
  u.exit_code = ExitCodeOf(status);
  return u;
}

}  // namespace wirebench
