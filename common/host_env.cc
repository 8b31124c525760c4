#include "common/host_env.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace wirebench {

namespace {

std::string ReadText(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double Ns(const timeval& tv) { return double(tv.tv_sec) * 1e9 + double(tv.tv_usec) * 1e3; }

class LinuxHostEnv final : public HostEnv {
 public:
  Clock::time_point MonotonicNow() override { return Clock::now(); }
  void SleepFor(Clock::duration d) override { std::this_thread::sleep_for(d); }

  std::optional<CpuJiffies> CpuTimes() override { return ParseProcStat(ReadText("/proc/stat")); }
  std::optional<double> LoadAverage() override {
    return ParseLoadAverage(ReadText("/proc/loadavg"));
  }
  std::optional<double> CpuMhz() override {
    const std::string khz = ReadText("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq");
    if (double k = 0; std::sscanf(khz.c_str(), "%lf", &k) == 1 && k > 0) return k / 1000.0;
    return ParseCpuInfoMhz(ReadText("/proc/cpuinfo"));
  }
  int OnlineCpus() override {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? int(n) : 1;
  }

  std::optional<uint64_t> OwnCpuTicks() override {
    return ParseOwnTicks(ReadText("/proc/self/stat"));
  }
  ReapedChildrenUsage ReapedChildren() override {
    rusage r{};
    getrusage(RUSAGE_CHILDREN, &r);
    return {Ns(r.ru_utime), Ns(r.ru_stime), uint64_t(r.ru_nvcsw), uint64_t(r.ru_nivcsw)};
  }

  std::optional<int> ReapChild(pid_t pid, bool block) override {
    int status = 0;
    if (waitpid(pid, &status, block ? 0 : WNOHANG) != pid) return std::nullopt;
    return status;
  }
  void SignalChild(pid_t pid, int signal) override { kill(pid, signal); }
};

}  // namespace

HostEnv& HostEnv::Default() {
  static HostEnv* const env = new LinuxHostEnv();  // Never destroyed: usable at exit.
  return *env;
}

std::string DescribeExit(int wait_status) {
  if (WIFEXITED(wait_status))
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) return "killed by signal " + std::to_string(WTERMSIG(wait_status));
  return "ended";
}

}  // namespace wirebench
