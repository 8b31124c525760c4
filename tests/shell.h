// Runs a shell command line for a test: its exit status and everything it
// printed (stdout and stderr of every command in it, in order).
// Thread-safety: reentrant (one popen per call).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

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

}  // namespace wirebench::testing
