#include "bench/loadgen/measure.h"

#include <cstdio>
#include <memory>

#include "bench/loadgen/host_port.h"
#include "bench/loadgen/instructions.h"
#include "bench/loadgen/local_server.h"
#include "bench/loadgen/process_tree.h"
#include "bench/loadgen/stats_client.h"
#include "bench/results/cluster_stats.h"
#include "bench/results/report.h"
#include "transports/transport.h"

namespace wirebench {

namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(10);
constexpr auto kStatsTimeout = std::chrono::seconds(10);

// The command line with {server}, {host}, {port} and {zookeeper} replaced.
std::vector<std::string> Substitute(const std::vector<std::string>& argv,
                                    const std::map<std::string, std::string>& values) {
  std::vector<std::string> out;
  for (std::string a : argv) {
    for (const auto& [key, value] : values) {
      const std::string placeholder = "{" + key + "}";
      for (size_t at = a.find(placeholder); at != std::string::npos;
           at = a.find(placeholder, at + value.size()))
        a.replace(at, placeholder.size(), value);
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::string JoinCommand(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) {
    if (!s.empty()) s += ' ';
    const bool quote = a.empty() || a.find_first_of(" \t\"'\\$") != std::string::npos;
    s += quote ? "'" + a + "'" : a;
  }
  return s;
}

// The server side: a co-located child or --server (or a null cluster: N
// co-located children or --cluster), and a Stats connection to each.
struct ServerSide {
  LocalServers local;
  std::vector<std::string> addresses;  // HOST:PORT, in the plan's order.
  std::string host;                    // The first server's.
  uint16_t port = 0;
  std::vector<std::unique_ptr<StatsClient>> stats;
  bool cluster = false;
  std::vector<pid_t> pids() const {
    std::vector<pid_t> out;
    for (const auto& l : local) out.push_back(l->pid());
    return out;
  }
};

Status CheckServerFlags(const MeasureOptions& o) {
  WB_RETURN_IF_ERROR(CheckColocatedServers(o.servers));
  const bool cluster = o.servers > 1 || !o.cluster.servers.empty();
  if (cluster && !o.server.empty())
    return Status::InvalidArgument("--server names one server and --servers/--cluster a "
                                   "cluster: give one of them");
  if (o.servers > 1 && !o.cluster.servers.empty())
    return Status::InvalidArgument("--servers starts a co-located cluster and --cluster names a "
                                   "running one: give one of them");
  if (!o.zookeeper.empty() && (!o.server.empty() || !o.cluster.servers.empty()))
    return Status::InvalidArgument(
        "--zookeeper registers co-located servers; with --server or --cluster, register those "
        "servers themselves (`wirebench server --zookeeper ...`)");
  return Status::Ok();
}

// The co-located server or cluster, started as `run` starts them.
Status StartColocated(const MeasureOptions& o, const Transport& transport, ServerSide* s) {
  WB_RETURN_IF_ERROR(CheckRegion(o.colocated.region));
  ColocatedServerOptions c = o.colocated;
  c.rpc = &transport;
  std::vector<std::string> zookeeper;
  if (!o.zookeeper.empty()) zookeeper = {"--zookeeper", o.zookeeper};
  if (o.servers > 1) {
    auto plan = SpawnColocatedCluster(o.servers, o.cluster, c, zookeeper, o.quiet, &s->local);
    if (!plan.ok()) return plan.status();
    for (const rpc::Endpoint& e : plan->servers) s->addresses.push_back(e.host + ":" + std::to_string(e.port));
    return Status::Ok();
  }
  std::vector<std::string> args = ChildServerArgs(c, o.quiet);
  args.insert(args.end(), zookeeper.begin(), zookeeper.end());
  auto spawned = LocalServer::Spawn(args, c.cpus, SelfExecutable());
  if (!spawned.ok()) return spawned.status();
  s->local.push_back(std::move(spawned).value());
  s->addresses.push_back(s->local[0]->host() + ":" + std::to_string(s->local[0]->port()));
  return Status::Ok();
}

Status StartServer(const MeasureOptions& o, const Transport& transport, ServerSide* s) {
  WB_RETURN_IF_ERROR(CheckServerFlags(o));
  s->cluster = o.servers > 1 || !o.cluster.servers.empty();
  if (!o.cluster.servers.empty()) {
    auto plan = ClusterPlanFromFlags(o.cluster);
    if (!plan.ok()) return plan.status();
    for (const rpc::Endpoint& e : plan->servers) s->addresses.push_back(e.host + ":" + std::to_string(e.port));
  } else if (!o.server.empty()) {
    s->addresses.push_back(o.server);
  } else {
    WB_RETURN_IF_ERROR(StartColocated(o, transport, s));
  }
  for (size_t k = 0; k < s->addresses.size(); ++k) {
    std::string host;
    uint16_t port = 0;
    WB_RETURN_IF_ERROR(ParseHostPort(s->addresses[k], &host, &port));
    if (k == 0) {
      s->host = host;
      s->port = port;
    }
    auto stats = StatsClient::Connect(transport, host, port, kConnectTimeout);
    if (!stats.ok()) return stats.status();
    s->stats.push_back(std::move(stats).value());
  }
  return Status::Ok();
}

nlohmann::json ConfigJson(const MeasureOptions& o, const Transport& transport,
                          const std::vector<std::string>& command, bool colocated) {
  nlohmann::json c;
  c["phase"] = "measure";
  c["rpc"] = transport.name();
  c["command"] = command;
  c["server"] = colocated ? "co-located" : o.server.empty() ? o.cluster.servers : o.server;
  c["servers"] = o.servers;
  c["server_io_threads"] = o.colocated.io_threads;
  c["handlers"] = o.colocated.handlers;
  c["region"] = std::string(o.colocated.region.entry->name());
  c["null_reads"] = o.colocated.region.settings.Get("--null-reads");
  c["zookeeper"] = o.zookeeper;
  c["sample_interval_ms"] = o.sample_interval.count();
  c["label"] = o.label;
  return c;
}

}  // namespace

nlohmann::json CallsBetween(const nlohmann::json& before, const nlohmann::json& after) {
  nlohmann::json calls = nlohmann::json::object();
  if (!after.is_object() || !after.contains("calls") || !after["calls"].is_object()) return calls;
  for (const auto& [method, n] : after["calls"].items()) {
    if (method == "Stats" || method == "Ping" || !n.is_number_unsigned()) continue;
    uint64_t b = 0;
    if (before.is_object() && before.contains("calls") && before["calls"].contains(method) &&
        before["calls"][method].is_number_unsigned())
      b = before["calls"][method].get<uint64_t>();
    const uint64_t a = n.get<uint64_t>();
    calls[method] = a >= b ? a - b : 0;
  }
  return calls;
}

namespace {

// The command to run against `server`: {server}, {host}, {port} and
// {zookeeper} substituted, and the same in WIREBENCH_SERVER* variables.
CommandOptions MeasuredCommand(const MeasureOptions& o, const ServerSide& server,
                               const std::string& address) {
  std::string servers;
  for (const std::string& a : server.addresses) servers += (servers.empty() ? "" : ",") + a;
  const std::map<std::string, std::string> values = {{"server", address},
                                                     {"servers", servers},
                                                     {"host", server.host},
                                                     {"port", std::to_string(server.port)},
                                                     {"zookeeper", o.zookeeper}};
  CommandOptions cmd;
  cmd.argv = Substitute(o.command, values);
  cmd.env = {{"WIREBENCH_SERVER", address},
             {"WIREBENCH_SERVERS", servers},
             {"WIREBENCH_SERVER_HOST", server.host},
             {"WIREBENCH_SERVER_PORT", std::to_string(server.port)}};
  if (!o.zookeeper.empty()) cmd.env["WIREBENCH_ZOOKEEPER"] = o.zookeeper;
  cmd.sample_interval = o.sample_interval;
  cmd.exclude = server.pids();
  return cmd;
}

// The command's tree as the client: its CPU and switches, and the bytes the
// server counted (the other way round: TCP on the one connection each way).
void AddClientFigures(const ProcessTreeUsage& tree, RunResult* r) {
  ThreadUsage& u = r->client_usage;
  u.user_ns = tree.user_ns;
  u.sys_ns = tree.sys_ns;
  u.cpu_ns = tree.user_ns + tree.sys_ns;
  u.voluntary_switches = tree.voluntary_switches;
  u.involuntary_switches = tree.involuntary_switches;
  u.threads = tree.processes_seen;
  if (r->server_after.is_object()) {
    auto delta = [&](const char* k) {
      return r->server_after.value(k, uint64_t(0)) - r->server_before.value(k, uint64_t(0));
    };
    r->connections.bytes_out = delta("bytes_in");
    r->connections.bytes_in = delta("bytes_out");
  }
}

// The YCSB-style report's [CALLS] and [COMMAND] lines.
std::string CommandLines(const nlohmann::json& calls, const ProcessTreeUsage& tree) {
  std::string text;
  for (const auto& [method, n] : calls.items())
    text += "[CALLS], " + method + ", " + std::to_string(n.get<uint64_t>()) + "\n";
  text += "[COMMAND], ExitStatus, " + std::to_string(tree.exit_code) + "\n";
  char cpu[128];
  std::snprintf(cpu, sizeof(cpu), "[COMMAND], UserCpu(ms), %.3f\n[COMMAND], SysCpu(ms), %.3f\n",
                tree.user_ns / 1e6, tree.sys_ns / 1e6);
  text += cpu;
  text += "[COMMAND], Processes, " + std::to_string(tree.processes_seen) + "\n";
  text += "[COMMAND], LeftRunning, " + std::to_string(tree.left_running.size()) + "\n";
  return text;
}

nlohmann::json CommandJson(const std::vector<std::string>& argv, const ProcessTreeUsage& tree) {
  return {{"argv", argv},
          {"exit_status", tree.exit_code},
          {"how", tree.how},
          {"wall_s", tree.wall_s},
          {"user_ns", tree.user_ns},
          {"sys_ns", tree.sys_ns},
          {"voluntary_switches", tree.voluntary_switches},
          {"involuntary_switches", tree.involuntary_switches},
          {"processes_seen", tree.processes_seen},
          {"samples", tree.samples},
          {"left_running", tree.left_running},
          {"stopped_leftovers", tree.stopped_leftovers},
          {"stop_signal", tree.stop_signal}};
}

// The report on stdout, after the command's own output, and a word on
// processes of the command that outlived it.
void PrintMeasureEnd(const MeasureOptions& o, const MeasureOutcome& out,
                     const ProcessTreeUsage& tree) {
  if (!o.quiet) {
    // The command's own output (a YCSB report, say) may be just above.
    std::fputs("wirebench measure: the command's output ends here; wirebench's report of it:\n",
               stdout);
    std::fputs(out.text.c_str(), stdout);
    std::fflush(stdout);
  }
  if (!tree.left_running.empty())
    std::fprintf(stderr,
                 "wirebench measure: %zu process(es) of the command still ran after it ended: "
                 "counted up to then, and stopped (SIGTERM, then SIGKILL)\n",
                 tree.left_running.size());
}

}  // namespace

// Every server's Stats: before the command (each must answer) or after it
// (one that does not, lost meanwhile, is named in server_stats_error and the
// others' figures kept). A cluster's are kept apart in cluster_servers and
// combined into server_before/after, as `run` does.
Status FetchStats(ServerSide& server, bool after, RunResult* r) {
  std::vector<nlohmann::json> before_of, after_of;
  std::string missing;
  for (size_t k = 0; k < server.stats.size(); ++k) {
    if (server.cluster && r->cluster_servers.size() <= k)
      r->cluster_servers.push_back({server.addresses[k], {}, {}});
    auto stats = server.stats[k]->Fetch(kStatsTimeout);
    if (!stats.ok() && !after) return stats.status();
    if (!stats.ok()) {
      std::string why = stats.status().ToString();
      if (k < server.local.size())
        if (const std::string died = server.local[k]->DeathNote(); !died.empty())
          why = died + ": " + why;
      missing += (missing.empty() ? "" : "; ") +
                 (server.cluster ? "server " + std::to_string(k) + " (" + server.addresses[k] + "): " : "") + why;
      continue;
    }
    if (!server.cluster) {
      (after ? r->server_after : r->server_before) = *stats;
      continue;
    }
    (after ? r->cluster_servers[k].after : r->cluster_servers[k].before) = *stats;
    before_of.push_back(r->cluster_servers[k].before);
    after_of.push_back(*stats);
  }
  if (!missing.empty()) r->server_stats_error = missing;
  if (!server.cluster) {
    if (after && !missing.empty()) r->server_before = nlohmann::json();
    return Status::Ok();
  }
  r->server_before = CombineClusterStats(before_of);
  if (after) r->server_after = CombineClusterStats(after_of);
  return Status::Ok();
}

StatusOr<MeasureOutcome> RunMeasure(const MeasureOptions& o) {
  if (o.command.empty())
    return Status::InvalidArgument(
        "no command to measure: give it after --, e.g. wirebench measure -- node client.js");
  if (o.sample_interval.count() < 1 || o.sample_interval.count() > 10000)
    return Status::InvalidArgument("--sample-ms must be 1-10000");
  ServerSide server;
  WB_RETURN_IF_ERROR(StartServer(o, *o.rpc, &server));
  const std::string address = server.host + ":" + std::to_string(server.port);
  CommandOptions cmd = MeasuredCommand(o, server, address);

  RunResult r;
  WB_RETURN_IF_ERROR(FetchStats(server, /*after=*/false, &r));
  if (!o.quiet)
    cmd.started = [&] {
      const std::string where =
          server.cluster ? std::to_string(server.addresses.size()) + " servers, the first " + address
                         : address;
      std::fprintf(stderr, "wirebench measure: rpc=%s server=%s%s command: %s\n",
                   std::string(o.rpc->name()).c_str(), where.c_str(),
                   server.local.empty()       ? ""
                   : server.local.size() == 1 ? " (co-located child process)"
                                              : " (co-located child processes)",
                   JoinCommand(cmd.argv).c_str());
    };
  auto tree = RunCommandTree(cmd);
  if (!tree.ok()) return tree.status();
  WB_RETURN_IF_ERROR(FetchStats(server, /*after=*/true, &r));

  const nlohmann::json calls = CallsBetween(r.server_before, r.server_after);
  for (const auto& [method, n] : calls.items()) r.operations += n.get<uint64_t>();
  r.runtime_s = tree->wall_s;
  r.external_client = JoinCommand(cmd.argv);
  AddClientFigures(*tree, &r);

  MeasureOutcome out;
  out.command_exit_code = tree->exit_code;
  out.server_figures = r.server_after.is_object();
  out.operations = r.operations;
  out.stop_signal = tree->stop_signal;
  const RunCosts costs = ComputeCosts(r);
  const ReportOptions report;
  out.text = FormatTextReport(r, costs, report) + CommandLines(calls, *tree);
  out.json["wirebench_result_version"] = kResultVersion;
  out.json["config"] = ConfigJson(o, *o.rpc, cmd.argv, !server.local.empty());
  out.json["environment"] = EnvironmentJson();
  out.json["results"] = ResultToJson(r, costs, report);
  out.json["measure"] = {{"calls", calls}, {"command", CommandJson(cmd.argv, *tree)}};
  server.stats.clear();
  for (auto& l : server.local) l->Stop();
  if (!o.out.empty()) WB_RETURN_IF_ERROR(WriteFileAtomically(o.out, out.json.dump(2)));
  PrintMeasureEnd(o, out, *tree);
  return out;
}

}  // namespace wirebench
