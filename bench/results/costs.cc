#include "bench/results/costs.h"

#include <map>

#include "common/perf_counters.h"

namespace wirebench {

namespace {

// One server thread's figures as its Stats reply gives them.
struct ThreadFigures {
  ThreadUsage usage;
  CounterTotals counters;
  ThreadFigures& operator+=(const ThreadFigures& o) {
    usage += o.usage;
    counters += o.counters;
    return *this;
  }
};

ThreadFigures FiguresOf(const nlohmann::json& t) {
  ThreadFigures f;
  ThreadUsage& u = f.usage;
  u.cpu_ns = t.value("cpu_ns", 0.0);
  u.user_ns = t.value("user_ns", 0.0);
  u.sys_ns = t.value("sys_ns", 0.0);
  u.voluntary_switches = t.value("voluntary_switches", uint64_t(0));
  u.involuntary_switches = t.value("involuntary_switches", uint64_t(0));
  u.hw_available = t.value("hw_available", false);
  u.cycles = t.value("cycles", 0.0);
  u.instructions = t.value("instructions", 0.0);
  u.cache_misses = t.value("cache_misses", 0.0);
  u.threads = 1;
  CounterTotals& c = f.counters;
  c.allocs = t.value("allocs", uint64_t(0));
  c.alloc_bytes = t.value("alloc_bytes", uint64_t(0));
  c.frees = t.value("frees", uint64_t(0));
  c.encode_copied = t.value("encode_copied", uint64_t(0));
  c.decode_copied = t.value("decode_copied", uint64_t(0));
  return f;
}

// Per role, the sum over server threads of `after` minus `before`, matching
// threads by tid (a thread missing from `before` started in the phase and
// counts from zero; whether its hardware counters are available is its own).
std::map<std::string, ThreadFigures> ServerDeltas(const nlohmann::json& before,
                                                  const nlohmann::json& after) {
  std::map<int, const nlohmann::json*> prev;
  if (before.contains("threads"))
    for (const auto& t : before["threads"]) prev[t.value("tid", 0)] = &t;
  std::map<std::string, ThreadFigures> out;
  if (!after.contains("threads")) return out;
  for (const auto& t : after["threads"]) {
    ThreadFigures d = FiguresOf(t);
    auto it = prev.find(t.value("tid", 0));
    if (it != prev.end()) {
      const ThreadFigures b = FiguresOf(*it->second);
      d.usage = d.usage - b.usage;
      d.counters = d.counters - b.counters;
    }
    out[t.value("role", std::string("?"))] += d;
  }
  return out;
}

// Client figures per operation (`ops` >= 1).
SideCosts ClientCosts(const RunResult& r, double ops) {
  SideCosts cl;
  const ThreadUsage& u = r.client_usage;
  const CounterTotals& k = r.client_counters;
  cl.available = true;
  cl.cpu_us = u.cpu_ns / 1000.0 / ops;
  cl.user_us = u.user_ns / 1000.0 / ops;
  cl.sys_us = u.sys_ns / 1000.0 / ops;
  cl.allocs_available = AllocationCountingActive();
  cl.allocs = double(k.allocs) / ops;
  cl.alloc_bytes = double(k.alloc_bytes) / ops;
  cl.encode_copied = double(k.encode_copied) / ops;
  cl.decode_copied = double(k.decode_copied) / ops;
  cl.voluntary_switches = double(u.voluntary_switches) / ops;
  cl.involuntary_switches = double(u.involuntary_switches) / ops;
  cl.threads = u.threads;
  cl.hw_available = u.hw_available && u.threads > 0;
  cl.hw_reason = cl.hw_available ? "" : HardwareCountersUnavailableReason();
  if (!cl.hw_available && cl.hw_reason.empty()) cl.hw_reason = "counters could not be read";
  cl.cycles = u.cycles / ops;
  cl.instructions = u.instructions / ops;
  cl.cache_misses = u.cache_misses / ops;
  cl.wire_bytes_out = double(r.connections.bytes_out) / ops;
  cl.wire_bytes_in = double(r.connections.bytes_in) / ops;
  if (!r.external_client.empty()) {
    cl.counters_unavailable_reason =
        "an external client: only its process tree's CPU and context switches are measured";
    cl.allocs_available = false;
    cl.hw_available = false;
    cl.hw_reason = cl.counters_unavailable_reason;
  }
  return cl;
}

// Server figures per operation, from the Stats snapshots.
SideCosts ServerCosts(const RunResult& r, double ops) {
  SideCosts sv;
  if (!r.server_before.is_object() || !r.server_after.is_object()) {
    sv.unavailable_reason =
        r.server_stats_error.empty() ? "server Stats not fetched" : r.server_stats_error;
    return sv;
  }
  sv.available = true;
  auto roles = ServerDeltas(r.server_before, r.server_after);
  ThreadFigures all;
  for (auto& [role, f] : roles) all += f;
  const ThreadUsage& u = all.usage;
  sv.hw_available = u.hw_available && u.threads > 0;
  sv.hw_reason = sv.hw_available ? ""
                                 : r.server_after.value("/hw_counters/reason"_json_pointer,
                                                        std::string("not reported by the server"));
  if (!sv.hw_available && sv.hw_reason.empty()) sv.hw_reason = "counters could not be read";
  sv.cycles = u.cycles / ops;
  sv.instructions = u.instructions / ops;
  sv.cache_misses = u.cache_misses / ops;
  sv.cpu_us = u.cpu_ns / 1000.0 / ops;
  sv.user_us = u.user_ns / 1000.0 / ops;
  sv.sys_us = u.sys_ns / 1000.0 / ops;
  sv.io_cpu_us = roles["server-io"].usage.cpu_ns / 1000.0 / ops;
  sv.handler_cpu_us = roles["server-handler"].usage.cpu_ns / 1000.0 / ops;
  sv.allocs_available = r.server_after.value("allocation_counting", false);
  sv.allocs = double(all.counters.allocs) / ops;
  sv.alloc_bytes = double(all.counters.alloc_bytes) / ops;
  sv.encode_copied = double(all.counters.encode_copied) / ops;
  sv.decode_copied = double(all.counters.decode_copied) / ops;
  sv.voluntary_switches = double(u.voluntary_switches) / ops;
  sv.involuntary_switches = double(u.involuntary_switches) / ops;
  sv.threads = u.threads;
  auto delta = [&](const char* k) {
    return double(r.server_after.value(k, uint64_t(0)) - r.server_before.value(k, uint64_t(0)));
  };
  // The server's bytes include the two Stats replies; they are a few KB
  // against megabytes, and are left in rather than guessed out.
  sv.wire_bytes_in = delta("bytes_in") / ops;
  sv.wire_bytes_out = delta("bytes_out") / ops;
  return sv;
}

}  // namespace

RunCosts ComputeCosts(const RunResult& r) {
  RunCosts c;
  if (r.operations == 0) {
    // Nothing to divide by: a run stopped before its first operation
    // completed has no per-operation figure, not its whole cost as one.
    c.client.unavailable_reason = c.server.unavailable_reason = "no operation was measured";
  } else {
    const double ops = double(r.operations);
    c.client = ClientCosts(r, ops);
    c.server = ServerCosts(r, ops);
  }
  c.frames_per_write =
      r.connections.writes ? double(r.connections.frames_out) / double(r.connections.writes) : 0;
  return c;
}

}  // namespace wirebench
