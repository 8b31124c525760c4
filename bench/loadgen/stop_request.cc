#include "bench/loadgen/stop_request.h"

#include <atomic>

namespace wirebench {

namespace {
std::atomic<int> g_stop_reason{int(StopReason::kNone)};
}  // namespace

void RequestStop(StopReason reason) {
  int expected = int(StopReason::kNone);
  g_stop_reason.compare_exchange_strong(expected, int(reason));
}

void ResetStopRequest() { g_stop_reason.store(int(StopReason::kNone)); }

bool StopRequested() {
  return g_stop_reason.load(std::memory_order_relaxed) != int(StopReason::kNone);
}

StopReason StopRequestReason() { return StopReason(g_stop_reason.load()); }

std::string StopReasonText(StopReason reason) {
  switch (reason) {
    case StopReason::kSigint: return "SIGINT";
    case StopReason::kSigterm: return "SIGTERM";
    case StopReason::kRequested: return "a stop request";
    case StopReason::kNone: break;
  }
  return "nothing";
}

}  // namespace wirebench
