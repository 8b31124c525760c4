// Minimal logging for the server and client: timestamped lines on stderr,
// and a rate-limited variant for events a hostile peer can trigger at will
// (refused connections, bad frames), so they cannot flood the log.
// Thread-safety: all functions may be called from any thread.
#pragma once

#include <string_view>

namespace wirebench::rpc {

void LogLine(std::string_view msg);
// Logs at most `kLogBurst` lines per second across the process; counts the
// rest and reports how many were suppressed in the next line that gets out.
void LogRateLimited(std::string_view msg);
inline constexpr int kLogBurst = 10;

}  // namespace wirebench::rpc
