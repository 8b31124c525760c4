#include "bench/loadgen/stop_on_signal.h"

#include <pthread.h>

#include <cstdio>

#include "bench/loadgen/stop_request.h"

namespace wirebench {

StopOnSignal::StopOnSignal() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set_, &old_);
  thread_ = std::thread([this] {
    timespec tick{0, 100 * 1000 * 1000};
    while (!done_.load()) {
      const int sig = sigtimedwait(&set_, nullptr, &tick);
      if (sig != SIGINT && sig != SIGTERM) continue;
      const StopReason reason = sig == SIGINT ? StopReason::kSigint : StopReason::kSigterm;
      std::fprintf(stderr, "wirebench: %s: stopping, reporting what was measured so far\n",
                   StopReasonText(reason).c_str());
      RequestStop(reason);
    }
  });
}

StopOnSignal::~StopOnSignal() {
  done_.store(true);
  thread_.join();
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace wirebench
