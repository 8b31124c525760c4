// Runs a shell command line for a test: its exit status and everything it
// printed (stdout and stderr of every command in it, in order).
// Thread-safety: reentrant (one popen per call).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <utility>

namespace wirebench::testing {

struct ShellOutcome {
  int exit_code = -1;  // -1: not started, or ended by a signal.
  std::string out;     // stdout and stderr.
};

inline ShellOutcome RunShell(const std::string& command) {
  ShellOutcome o;
  FILE* f = popen(("(" + command + ") 2>&1").c_str(), "r");
  if (f == nullptr) return o;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) o.out.append(buf, n);
  const int status = pclose(f);
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

// RunShell's exit status, its output in `out` when asked for.
inline int Sh(const std::string& command, std::string* out = nullptr) {
  ShellOutcome o = RunShell(command);
  if (out) *out = std::move(o.out);
  return o.exit_code;
}

}  // namespace wirebench::testing
