// The process-wide stop request a running load obeys: set by the signal
// watcher (SIGINT/SIGTERM, see stop_on_signal.h) or by a caller, read by the
// driver's waits and its logical clients. The reason is recorded so that a
// result says what stopped it (an internal failure is never reported as a
// signal).
// Thread-safety: every function may be called from any thread.
#pragma once

#include <string>

namespace wirebench {

enum class StopReason {
  kNone,
  kSigint,
  kSigterm,
  kRequested,  // RequestStop() from code (tests, an embedding program).
};

// Asks a running RunLoad to stop; it returns what was measured so far,
// marked partial. The first reason given is kept until ResetStopRequest().
void RequestStop(StopReason reason = StopReason::kRequested);
void ResetStopRequest();
bool StopRequested();
StopReason StopRequestReason();
// "SIGINT", "SIGTERM" or "a stop request".
std::string StopReasonText(StopReason reason);

}  // namespace wirebench
