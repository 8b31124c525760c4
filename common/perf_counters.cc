#include "common/perf_counters.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace wirebench {

namespace {

constexpr int kMaxHandles = 4096;
struct Group {
  int fds[3] = {-1, -1, -1};
};
Group g_groups[kMaxHandles];
std::atomic<int> g_next{0};

std::once_flag g_probe_once;
bool g_available = false;
std::string g_reason;

int OpenOne(uint64_t config, int group_fd) {
  perf_event_attr a;
  std::memset(&a, 0, sizeof(a));
  a.size = sizeof(a);
  a.type = PERF_TYPE_HARDWARE;
  a.config = config;
  a.disabled = 0;
  a.exclude_kernel = 0;
  a.exclude_hv = 1;
  a.read_format = 0;
  return int(syscall(SYS_perf_event_open, &a, 0 /* this thread */, -1, group_fd, 0));
}

void Probe() {
  if (const char* e = std::getenv("WIREBENCH_DISABLE_PERF"); e && std::strcmp(e, "1") == 0) {
    g_reason = "disabled by WIREBENCH_DISABLE_PERF=1";
    return;
  }
  int fd = OpenOne(PERF_COUNT_HW_CPU_CYCLES, -1);
  if (fd < 0) {
    g_reason = std::string("perf_event_open(cycles): ") + std::strerror(errno) +
               " (no hardware counters in this VM/container, or kernel.perf_event_paranoid "
               "forbids them)";
    return;
  }
  close(fd);
  g_available = true;
}

}  // namespace

bool HardwareCountersAvailable() {
  std::call_once(g_probe_once, Probe);
  return g_available;
}

std::string HardwareCountersUnavailableReason() {
  HardwareCountersAvailable();
  return g_reason;
}

int OpenThreadHwCounters() {
  if (!HardwareCountersAvailable()) return -1;
  int h = g_next.fetch_add(1);
  if (h >= kMaxHandles) return -1;
  Group& g = g_groups[h];
  g.fds[0] = OpenOne(PERF_COUNT_HW_CPU_CYCLES, -1);
  g.fds[1] = OpenOne(PERF_COUNT_HW_INSTRUCTIONS, -1);
  g.fds[2] = OpenOne(PERF_COUNT_HW_CACHE_MISSES, -1);
  if (g.fds[0] < 0 || g.fds[1] < 0) return -1;
  return h;
}

bool ReadHwCounters(int handle, HwCounts* out) {
  if (handle < 0 || handle >= kMaxHandles) return false;
  const Group& g = g_groups[handle];
  uint64_t v[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    if (g.fds[i] < 0) continue;
    if (read(g.fds[i], &v[i], sizeof(v[i])) != ssize_t(sizeof(v[i]))) return false;
  }
  out->cycles = v[0];
  out->instructions = v[1];
  out->cache_misses = v[2];
  return true;
}

}  // namespace wirebench
