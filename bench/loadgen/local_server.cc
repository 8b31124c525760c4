#include "bench/loadgen/local_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace wirebench {

StatusOr<std::vector<int>> ParseCpuList(const std::string& list) {
  std::vector<int> cpus;
  size_t pos = 0;
  while (pos < list.size()) {
    size_t comma = list.find(',', pos);
    std::string part = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    int a = -1, b = -1;
    char extra;
    if (std::sscanf(part.c_str(), "%d-%d%c", &a, &b, &extra) == 2 && a >= 0 && b >= a) {
      for (int c = a; c <= b; ++c) cpus.push_back(c);
    } else if (std::sscanf(part.c_str(), "%d%c", &a, &extra) == 1 && a >= 0) {
      cpus.push_back(a);
    } else {
      return Status::InvalidArgument("bad CPU list '" + list +
                                     "': use numbers and ranges like 0,2 or 0-1");
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (cpus.empty()) return Status::InvalidArgument("empty CPU list");
  return cpus;
}

Status PinThisThread(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0)
    return Status::InvalidArgument(std::string("cannot pin to the given CPUs: ") +
                                   std::strerror(errno) + " (check `nproc`)");
  return Status::Ok();
}

StatusOr<std::unique_ptr<LocalServer>> LocalServer::Spawn(const std::vector<std::string>& args,
                                                          const std::string& cpus,
                                                          const std::string& binary) {
  std::vector<int> cpu_list;
  if (!cpus.empty()) {
    auto parsed = ParseCpuList(cpus);
    if (!parsed.ok()) return parsed.status();
    cpu_list = *parsed;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return Status::IoError(std::string("pipe: ") + std::strerror(errno));
  std::vector<std::string> argv_s = {"wirebench", "server", "--port", "0"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return Status::IoError(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Die with the client: if it is killed (kill -9, OOM) the server gets
    // SIGTERM instead of living on re-parented to PID 1. The check after it
    // covers a client that died before the prctl took effect.
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(126);
    // Ctrl-C at a terminal, `timeout`, and other supervisors signal the
    // whole process group (SIGINT or SIGTERM): the client stops its run and
    // then stops this server by its PID, so the server leaves the group and
    // ignores SIGINT (`wirebench server` keeps a SIGINT ignored at its start
    // ignored): its figures are still there to fetch after the signal.
    setpgid(0, 0);
    signal(SIGINT, SIG_IGN);
    dup2(fds[1], STDOUT_FILENO);
    if (!cpu_list.empty()) {
      cpu_set_t set;
      CPU_ZERO(&set);
      for (int c : cpu_list) CPU_SET(c, &set);
      sched_setaffinity(0, sizeof(set), &set);
    }
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(fds[1]);
  auto server = std::make_unique<LocalServer>(pid, HostEnv::Default());
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) {
      if (!server->Alive()) break;
      continue;
    }
    char buf[256];
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, size_t(n));
    size_t at = out.find("listening on ");
    size_t eol = at == std::string::npos ? std::string::npos : out.find('\n', at);
    if (eol != std::string::npos) {
      std::string addr = out.substr(at + 13, eol - at - 13);
      size_t colon = addr.rfind(':');
      server->host_ = addr.substr(0, colon);
      server->port_ = uint16_t(std::stoi(addr.substr(colon + 1)));
      close(fds[0]);
      return server;
    }
  }
  close(fds[0]);
  std::string how = server->Stop();
  return Status::Unavailable("the co-located server did not start (" + how + "); output: " + out);
}

bool LocalServer::Alive() {
  if (pid_ <= 0) return false;
  if (const auto status = env_->ReapChild(pid_, /*block=*/false)) {
    ended_ = DescribeExit(*status);
    pid_ = -1;
    return false;
  }
  return true;
}

std::string LocalServer::DeathNote() {
  if (Alive()) return "";
  return "the co-located server process died" + (ended_.empty() ? "" : " (" + ended_ + ")");
}

std::string LocalServer::DeathNote(std::chrono::milliseconds wait) {
  for (auto waited = std::chrono::milliseconds(0); waited < wait && Alive();
       waited += std::chrono::milliseconds(10))
    env_->SleepFor(std::chrono::milliseconds(10));
  return DeathNote();
}

std::string LocalServer::Stop() {
  if (pid_ <= 0) return "already exited";
  env_->SignalChild(pid_, SIGTERM);
  for (int i = 0; i < 500; ++i) {
    if (!Alive()) return ended_;
    env_->SleepFor(std::chrono::milliseconds(10));
  }
  Kill();
  return "did not stop on SIGTERM; killed";
}

void LocalServer::Kill() {
  if (pid_ <= 0) return;
  env_->SignalChild(pid_, SIGKILL);
  if (const auto status = env_->ReapChild(pid_, /*block=*/true)) ended_ = DescribeExit(*status);
  pid_ = -1;
}

LocalServer::~LocalServer() { Stop(); }

}  // namespace wirebench
