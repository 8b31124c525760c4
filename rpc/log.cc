#include "rpc/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "common/local_time.h"

namespace wirebench::rpc {

namespace {
std::atomic<int64_t> g_window_second{0};
std::atomic<int> g_in_window{0};
std::atomic<int> g_suppressed{0};
}  // namespace

void LogLine(std::string_view msg) {
  std::fprintf(stderr, "%s wirebench: %.*s\n", LocalTimestamp('.').c_str(), int(msg.size()),
               msg.data());
}

void LogRateLimited(std::string_view msg) {
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  int64_t window = g_window_second.load(std::memory_order_relaxed);
  if (window != now && g_window_second.compare_exchange_strong(window, now)) {
    g_in_window.store(0, std::memory_order_relaxed);
  }
  if (g_in_window.fetch_add(1, std::memory_order_relaxed) >= kLogBurst) {
    g_suppressed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  int suppressed = g_suppressed.exchange(0, std::memory_order_relaxed);
  if (suppressed > 0) {
    char buf[96];
    std::snprintf(buf, sizeof(buf), "(%d similar lines suppressed)", suppressed);
    LogLine(buf);
  }
  LogLine(msg);
}

}  // namespace wirebench::rpc
