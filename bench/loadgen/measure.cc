#include "bench/loadgen/measure.h"

#include <cstdio>
#include <memory>

#include "bench/loadgen/host_port.h"
#include "bench/loadgen/instructions.h"
#include "bench/loadgen/local_server.h"
#include "bench/loadgen/process_tree.h"
#include "bench/loadgen/stats_client.h"
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

// The server side: a co-located child or --server, and a Stats connection.
struct ServerSide {
  std::unique_ptr<LocalServer> local;
  std::string host;
  uint16_t port = 0;
  std::unique_ptr<StatsClient> stats;
};

Status StartServer(const MeasureOptions& o, const Transport& transport, ServerSide* s) {
  if (!o.server.empty()) {
    if (!o.zookeeper.empty())
      return Status::InvalidArgument(
          "--zookeeper registers a co-located server; with --server, register that server "
          "itself (`wirebench server --zookeeper ...`)");
    WB_RETURN_IF_ERROR(ParseHostPort(o.server, &s->host, &s->port));
  } else {
    WB_RETURN_IF_ERROR(CheckRegion(o.colocated.region));
    ColocatedServerOptions c = o.colocated;
    c.rpc = &transport;
    std::vector<std::string> args = ChildServerArgs(c, o.quiet);
    if (!o.zookeeper.empty()) {
      args.push_back("--zookeeper");
      args.push_back(o.zookeeper);
    }
    auto spawned = LocalServer::Spawn(args, c.cpus, SelfExecutable());
    if (!spawned.ok()) return spawned.status();
    s->local = std::move(spawned).value();
    s->host = s->local->host();
    s->port = s->local->port();
  }
  auto stats = StatsClient::Connect(transport, s->host, s->port, kConnectTimeout);
  if (!stats.ok()) return stats.status();
  s->stats = std::move(stats).value();
  return Status::Ok();
}

nlohmann::json ConfigJson(const MeasureOptions& o, const Transport& transport,
                          const std::vector<std::string>& command, bool colocated) {
  nlohmann::json c;
  c["phase"] = "measure";
  c["rpc"] = transport.name();
  c["command"] = command;
  c["server"] = colocated ? "co-located" : o.server;
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
  const std::map<std::string, std::string> values = {{"server", address},
                                                     {"host", server.host},
                                                     {"port", std::to_string(server.port)},
                                                     {"zookeeper", o.zookeeper}};
  CommandOptions cmd;
  cmd.argv = Substitute(o.command, values);
  cmd.env = {{"WIREBENCH_SERVER", address},
             {"WIREBENCH_SERVER_HOST", server.host},
             {"WIREBENCH_SERVER_PORT", std::to_string(server.port)}};
  if (!o.zookeeper.empty()) cmd.env["WIREBENCH_ZOOKEEPER"] = o.zookeeper;
  cmd.sample_interval = o.sample_interval;
  cmd.exclude = server.local ? server.local->pid() : -1;
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
  auto before = server.stats->Fetch(kStatsTimeout);
  if (!before.ok()) return before.status();
  r.server_before = *before;
  if (!o.quiet)
    cmd.started = [&] {
      std::fprintf(stderr, "wirebench measure: rpc=%s server=%s%s command: %s\n",
                   std::string(o.rpc->name()).c_str(), address.c_str(),
                   server.local ? " (co-located child process)" : "",
                   JoinCommand(cmd.argv).c_str());
    };
  auto tree = RunCommandTree(cmd);
  if (!tree.ok()) return tree.status();
  auto after = server.stats->Fetch(kStatsTimeout);
  if (after.ok()) {
    r.server_after = *after;
  } else {
    r.server_before = nlohmann::json();
    r.server_stats_error = after.status().ToString();
    if (const std::string died = server.local ? server.local->DeathNote() : ""; !died.empty())
      r.server_stats_error = died + ": " + r.server_stats_error;
  }

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
  out.json["config"] = ConfigJson(o, *o.rpc, cmd.argv, server.local != nullptr);
  out.json["environment"] = EnvironmentJson();
  out.json["results"] = ResultToJson(r, costs, report);
  out.json["measure"] = {{"calls", calls}, {"command", CommandJson(cmd.argv, *tree)}};
  server.stats.reset();
  if (server.local) server.local->Stop();
  if (!o.out.empty()) WB_RETURN_IF_ERROR(WriteFileAtomically(o.out, out.json.dump(2)));
  PrintMeasureEnd(o, out, *tree);
  return out;
}

}  // namespace wirebench
