#include "rpc/stats_json.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>

#include "common/perf_counters.h"

namespace wirebench::rpc {

nlohmann::json ThreadJson(std::string_view role, const std::string& name, int tid,
                          const ThreadUsage& u, const CounterTotals& c) {
  return {{"role", role},
          {"name", name},
          {"tid", tid},
          {"cpu_ns", u.cpu_ns},
          {"user_ns", u.user_ns},
          {"sys_ns", u.sys_ns},
          {"voluntary_switches", u.voluntary_switches},
          {"involuntary_switches", u.involuntary_switches},
          {"hw_available", u.hw_available},
          {"cycles", u.cycles},
          {"instructions", u.instructions},
          {"cache_misses", u.cache_misses},
          {"allocs", c.allocs},
          {"alloc_bytes", c.alloc_bytes},
          {"encode_copied", c.encode_copied},
          {"decode_copied", c.decode_copied}};
}

nlohmann::json ServerThreadsJson() {
  nlohmann::json threads = nlohmann::json::array();
  for (const RegisteredThread& t : ReadRegisteredThreads()) {
    if (t.role != ThreadRole::kServerIo && t.role != ThreadRole::kServerHandler &&
        t.role != ThreadRole::kServerOther)
      continue;
    threads.push_back(ThreadJson(ThreadRoleName(t.role), t.name, t.tid, t.usage, t.counters));
  }
  return threads;
}

const std::string& ServerInstanceId() {
  static const std::string id = [] {
    char buf[96];
    std::snprintf(buf, sizeof(buf), "pid %d started %lld ns, %08x", int(getpid()),
                  static_cast<long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count()),
                  unsigned(std::random_device()()));
    return std::string(buf);
  }();
  return id;
}

void AppendCallCounts(const uint64_t (&calls)[kMaxMethod + 1], uint64_t failed,
                      uint64_t unknown_method, uint64_t frames_in, uint64_t frames_out,
                      nlohmann::json* j) {
  nlohmann::json by_method = nlohmann::json::object();
  for (int m = 1; m <= kMaxMethod; ++m) by_method[std::string(MethodName(Method(m)))] = calls[m];
  (*j)["calls"] = by_method;
  (*j)["failed_calls"] = failed;
  (*j)["unknown_method_calls"] = unknown_method;
  (*j)["frames_in"] = frames_in;
  (*j)["frames_out"] = frames_out;
}

void AppendProcessAndServiceStats(Service* service, nlohmann::json* j) {
  (*j)["server"]["instance"] = ServerInstanceId();
  (*j)["allocation_counting"] = AllocationCountingActive();
  (*j)["hw_counters"] = {{"available", HardwareCountersAvailable()},
                         {"reason", HardwareCountersUnavailableReason()}};
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  (*j)["process"] = {{"user_ns", double(ru.ru_utime.tv_sec) * 1e9 + ru.ru_utime.tv_usec * 1e3},
                     {"sys_ns", double(ru.ru_stime.tv_sec) * 1e9 + ru.ru_stime.tv_usec * 1e3},
                     {"voluntary_switches", ru.ru_nvcsw},
                     {"involuntary_switches", ru.ru_nivcsw},
                     {"max_rss_kb", ru.ru_maxrss}};
  nlohmann::json extra = nlohmann::json::object();
  service->AppendStats(&extra);
  for (auto& [k, v] : extra.items()) (*j)[k] = v;
}

}  // namespace wirebench::rpc
