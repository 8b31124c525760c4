#include "bench/cli/measure_command.h"

#include <csignal>
#include <cstdio>
#include <memory>

#include "bench/cli/cluster_options.h"
#include "bench/cli/entry_option.h"
#include "bench/cli/region_factory.h"
#include "bench/loadgen/measure.h"
#include "transports/transport.h"

namespace wirebench {

namespace {

struct MeasureFlags {
  MeasureOptions o;
  int sample_ms = 20;
};

// Where the server (or cluster) is, or how to start it co-located.
void AddServerOptions(CLI::App* cmd, MeasureOptions* opts) {
  MeasureOptions& o = *opts;
  AddEntryOption(cmd, "--rpc", &o.rpc, Transports(),
                 "RPC layer of the server: " + TransportNames());
  cmd->add_option("--server", o.server,
                  "HOST:PORT of a running `wirebench server` (default: start one co-located)");
  cmd->add_option("--servers", o.servers,
                  "Start this many co-located servers as one null cluster (as `run --servers`) "
                  "and report each one's figures; the command reaches them through {servers}, "
                  "or through {server} (the first, which holds hbase:meta) or {zookeeper}")
      ->capture_default_str();
  AddClusterOptions(cmd, &o.cluster, /*server=*/false);
  cmd->get_option("--cluster")
      ->description("A running null cluster to measure (instead of starting one): its servers, "
                    "HOST:PORT,HOST:PORT,... in the order they were given (`wirebench server "
                    "--cluster`); each one's Stats are read");
  cmd->add_option("--server-io-threads", o.colocated.io_threads, "Co-located server: I/O threads")
      ->capture_default_str();
  cmd->add_option("--handlers", o.colocated.handlers,
                  "Co-located server: handler threads (0 = inline)")
      ->capture_default_str();
  cmd->add_option("--server-cpus", o.colocated.cpus, "Co-located server: pin to these CPUs");
  cmd->add_option("--zookeeper", o.zookeeper,
                  "Co-located server (--rpc hbase): register in ZooKeeper at "
                  "HOST:PORT[,HOST:PORT...][/ROOT] so HBase clients find it");
}

}  // namespace

void AddMeasureCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<MeasureFlags>();
  MeasureOptions& o = f->o;
  // The co-located server is started as `run` starts it: canned reads.
  o.colocated.region.settings.Set("--null-reads", "canned");
  CLI::App* cmd = app.add_subcommand(
      "measure",
      "Run COMMAND (after --) as the client of a co-located server (or --server) and report "
      "its cost per operation counted by the server: the command's whole process tree's CPU, "
      "the server's CPU by thread role, allocations, wire bytes and context switches");
  AddServerOptions(cmd, &o);
  AddRegionOptions(cmd, &o.colocated.region);
  cmd->add_option("--json", o.out, "Write the JSON result (the schema of `run --json`) here");
  // The name it had before `run --json`'s was taken for one thing everywhere.
  cmd->add_option("--out", o.out, "Same as --json")->group("");
  cmd->add_option("--label", o.label, "Recorded in the JSON result's config");
  cmd->add_option("--sample-ms", f->sample_ms,
                  "How often the command's process tree is sampled from /proc, ms")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  cmd->add_flag("--quiet", o.quiet, "No report on stdout (the --out file still gets it)");
  cmd->add_option("command", o.command,
                  "The client to run, after --; {server}, {servers}, {host}, {port} and "
                  "{zookeeper} in it are replaced, and WIREBENCH_SERVER=HOST:PORT (and "
                  "WIREBENCH_SERVERS, a cluster's list) is in its environment")
      ->required();
  cmd->callback([f, exit_code] {
    f->o.sample_interval = std::chrono::milliseconds(f->sample_ms);
    auto r = RunMeasure(f->o);
    if (!r.ok()) {
      std::fprintf(stderr, "wirebench measure: %s\n", r.status().ToString().c_str());
      *exit_code = 2;
      return;
    }
    *exit_code = r->command_exit_code;
    if (r->stop_signal != 0) {
      const std::string how = r->json["measure"]["command"].value("how", std::string("ended"));
      const bool killed = how == "killed by signal " + std::to_string(SIGKILL);
      std::fprintf(stderr,
                   "wirebench measure: %s received: passed on to the command, which %s; the "
                   "report covers it up to then (partial results, exit 3)\n",
                   r->stop_signal == SIGINT ? "SIGINT" : "SIGTERM",
                   killed ? "did not stop on it and was killed (SIGKILL) 5 s later"
                          : ("then " + how).c_str());
      *exit_code = 3;
    } else if (!r->server_figures) {
      std::fprintf(stderr, "wirebench measure: the server's figures are missing (see the "
                           "report's SERVER lines): nothing was measured (exit 2)\n");
      *exit_code = 2;
    } else if (r->operations == 0 && r->command_exit_code == 0) {
      // The README's promise: 2 when nothing could be measured.
      std::fprintf(stderr,
                   "wirebench measure: the server counted no call from the command, so nothing "
                   "was measured (exit 2): point the command at the server with {server} in its "
                   "arguments or WIREBENCH_SERVER in its environment\n");
      *exit_code = 2;
    } else if (r->operations == 0) {
      std::fprintf(stderr,
                   "wirebench measure: the server counted no call from the command, which %s "
                   "(its exit status is passed on)\n",
                   r->command_exit_code > 128 ? "was killed by a signal" : "failed");
    }
  });
}

}  // namespace wirebench
