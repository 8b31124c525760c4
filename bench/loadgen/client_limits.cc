#include "bench/loadgen/client_limits.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "bench/loadgen/driver.h"

namespace wirebench {

namespace {

uint64_t SoftLimit(int resource) {
  rlimit r{};
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  return r.rlim_cur;
}

std::string GiB(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f GiB", double(bytes) / double(1ull << 30));
  return buf;
}

}  // namespace

HostLimits ReadHostLimits() {
  HostLimits h;
  h.max_processes = SoftLimit(RLIMIT_NPROC);
  h.max_open_files = SoftLimit(RLIMIT_NOFILE);
  uint64_t threads_max = 0;
  if (std::ifstream tm("/proc/sys/kernel/threads-max"); tm >> threads_max && threads_max > 0)
    h.max_processes = std::min(h.max_processes, threads_max);
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") {
      h.memory_available = kib * 1024;
      break;
    }
  }
  return h;
}

LoadLayout PlanLayout(const DriverOptions& o) {
  LoadLayout l;
  const bool os_model = o.thread_model == ThreadModel::kOs;
  l.client_threads = os_model ? o.threads : std::min(o.client_io_threads, o.threads);
  if (os_model && o.transport->SharesConnectionsAcrossThreads()) {
    // The threads share --connections connections (at most one per thread),
    // round-robin; each connection has a reader thread.
    l.connections = std::max(1, std::min(o.connections, o.threads));
    l.reader_threads = l.connections;
    l.max_clients_per_connection = (o.threads + l.connections - 1) / l.connections;
    return l;
  }
  // The OS model over a transport without shared connections: each thread
  // has its own endpoint.
  l.connections = os_model ? o.threads : std::max(o.connections, l.client_threads);
  // Clients go round-robin over threads, then over each thread's connections
  // (see LoadRun::PlaceClients): thread 0 has the most of both.
  const int clients0 = (o.threads + l.client_threads - 1) / l.client_threads;
  const int conns0 = l.connections / l.client_threads;
  // A logical client's lanes (--pipeline) share its connection: each takes a call slot.
  l.max_clients_per_connection = (clients0 + conns0 - 1) / conns0 * std::max(o.pipeline, 1);
  return l;
}

Status CheckClientLimits(const DriverOptions& o, const HostLimits& host) {
  const LoadLayout l = PlanLayout(o);
  const bool os_model = o.thread_model == ThreadModel::kOs;
  const std::string threads = "-threads " + std::to_string(o.threads);
  // Threads and memory first: an OS-thread load too big for this host is
  // refused for that, whatever its connections.
  if (uint64_t(l.client_threads) + uint64_t(l.reader_threads) + 64 > host.max_processes)
    return Status::ResourceExhausted(
        threads + " with --thread-model os needs " +
        std::to_string(l.client_threads + l.reader_threads) +
        " threads but this user may run only " + std::to_string(host.max_processes) +
        " (ulimit -u, kernel.threads-max): lower -threads or use --thread-model coroutines");
  const uint64_t estimate = kClientThreadBytes * uint64_t(l.client_threads) +
                            kLogicalClientBytes * uint64_t(o.threads) *
                                uint64_t(std::max(o.pipeline, 1)) +
                            kConnectionBytes * uint64_t(l.connections);
  if (estimate > host.memory_available)
    return Status::ResourceExhausted(
        threads + (os_model ? " with --thread-model os" : "") + " needs about " + GiB(estimate) +
        " of client memory (" + std::to_string(kClientThreadBytes >> 20) +
        " MiB per client thread" + (os_model ? ", one per logical client" : "") +
        "), more than the " + GiB(host.memory_available) +
        " available (MemAvailable): lower -threads" +
        (os_model ? " or use --thread-model coroutines" : " or --client-io-threads"));
  if (l.max_clients_per_connection > kMaxClientsPerConnection) {
    // The fewest connections that fit (ValidateDriverOptions keeps one
    // client's pipeline within a connection, so some number does).
    DriverOptions enough = o;
    enough.connections = int((int64_t(o.threads) * std::max(o.pipeline, 1) +
                              kMaxClientsPerConnection - 1) /
                             kMaxClientsPerConnection);
    while (PlanLayout(enough).max_clients_per_connection > kMaxClientsPerConnection)
      ++enough.connections;
    return Status::InvalidArgument(
        threads + (o.pipeline > 1 ? " --pipeline " + std::to_string(o.pipeline) : "") +
        " over --connections " + std::to_string(o.connections) + " puts " +
        std::to_string(l.max_clients_per_connection) +
        (o.pipeline > 1 ? " calls in flight (logical clients x --pipeline)"
                        : " logical clients") +
        " on one connection; a connection carries at most " +
        std::to_string(kMaxClientsPerConnection) + ": use --connections " +
        std::to_string(enough.connections) + " or more");
  }
  // Descriptors: one per connection, plus some for the process itself.
  if (uint64_t(l.connections) + 64 > host.max_open_files)
    return Status::ResourceExhausted(
        threads + (os_model ? " with --thread-model os" : "") + " needs " +
        std::to_string(l.connections) + " connections but only " +
        std::to_string(host.max_open_files) + " files may be open (ulimit -n): raise ulimit -n " +
        (os_model && !o.transport->SharesConnectionsAcrossThreads() ? "or lower -threads"
                                                                    : "or lower --connections"));
  return Status::Ok();
}

}  // namespace wirebench
