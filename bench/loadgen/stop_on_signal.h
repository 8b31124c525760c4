// StopOnSignal: while one exists, SIGINT and SIGTERM do not kill the process
// but ask the running load to stop (RequestStop with the signal as reason),
// so what was measured is still reported, marked partial.
// Thread-safety: create and destroy on one thread; it blocks the two signals
// in that thread (and threads it starts later) and watches them on its own.
#pragma once

#include <signal.h>

#include <atomic>
#include <thread>

namespace wirebench {

class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  sigset_t set_, old_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace wirebench
