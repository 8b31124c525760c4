// A co-located server started as a child process of the client: the same
// `wirebench` binary re-executed as `wirebench server --port 0 ...`. A
// separate process (rather than server threads inside the client) keeps the
// two sides' CPU, allocations and context switches apart exactly as they
// are when the server runs on another host, and the Stats call reports them
// the same way in both cases. The child never outlives the client: it gets
// SIGTERM when the thread that spawned it exits (PR_SET_PDEATHSIG), so
// spawn it from a thread that lives as long as the server should (the main
// thread).
// Thread-safety: not thread-safe; owned by the command that started it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace wirebench {

class LocalServer {
 public:
  // Starts `wirebench server <args>` (with --port 0 added) and waits for its
  // "listening on HOST:PORT" line. `cpus`, if not empty, pins the child
  // (a list like "1" or "0-1").
  // `binary` is the wirebench executable (default: this process's own).
  static StatusOr<std::unique_ptr<LocalServer>> Spawn(const std::vector<std::string>& args,
                                                      const std::string& cpus = "",
                                                      const std::string& binary = "/proc/self/exe");
  // SIGKILL: the server gets no chance to flush or close anything.
  void Kill();
  ~LocalServer();  // Stops it.
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;

  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }
  // SIGTERM, then waits (SIGKILL after 5 s). Returns the exit status text.
  std::string Stop();
  // True while the child has not exited.
  bool Alive();

 private:
  LocalServer() = default;
  pid_t pid_ = -1;
  std::string host_;
  uint16_t port_ = 0;
};

// Parses a CPU list like "0", "0,2" or "0-3" into a mask for sched_setaffinity.
StatusOr<std::vector<int>> ParseCpuList(const std::string& list);
// Pins the calling thread (and threads it starts later) to `cpus`.
Status PinThisThread(const std::vector<int>& cpus);

}  // namespace wirebench
