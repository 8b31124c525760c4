// A co-located server started as a child process of the client: the same
// `wirebench` binary re-executed as `wirebench server --port 0 ...`. A
// separate process (rather than server threads inside the client) keeps the
// two sides' CPU, allocations and context switches apart exactly as they
// are when the server runs on another host, and the Stats call reports them
// the same way in both cases. The child never outlives the client: it gets
// SIGTERM when the thread that spawned it exits (PR_SET_PDEATHSIG), so
// spawn it from a thread that lives as long as the server should (the main
// thread).
// Whether and how the child ended is read through a HostEnv
// (common/host_env.h), so a test can feed a server that died.
// Thread-safety: not thread-safe; owned by the command that started it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/host_env.h"
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
  // Watches server child `pid` (started and listening) through `env`: what
  // Spawn returns once the server listens; a test gives a fake env and pid.
  LocalServer(pid_t pid, HostEnv& env) : env_(&env), pid_(pid) {}
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
  // "" while the child runs, else what a run's error is prefixed with: "the
  // co-located server process died (killed by signal 9)".
  std::string DeathNote();
  // The same, giving a process that is dying up to `wait` to be seen dead
  // (its sockets close before it can be reaped).
  std::string DeathNote(std::chrono::milliseconds wait);

 private:
  HostEnv* env_;
  pid_t pid_ = -1;
  std::string ended_;  // How it ended, once reaped ("killed by signal 9").
  std::string host_;
  uint16_t port_ = 0;
};

// Co-located servers: one, or a null cluster's in the plan's order.
using LocalServers = std::vector<std::unique_ptr<LocalServer>>;

// Parses a CPU list like "0", "0,2" or "0-3" into a mask for sched_setaffinity.
StatusOr<std::vector<int>> ParseCpuList(const std::string& list);
// Pins the calling thread (and threads it starts later) to `cpus`.
Status PinThisThread(const std::vector<int>& cpus);

}  // namespace wirebench
