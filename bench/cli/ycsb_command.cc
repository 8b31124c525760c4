#include "bench/cli/ycsb_command.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "bench/cli/cluster_options.h"
#include "bench/cli/entry_option.h"
#include "bench/cli/region_factory.h"
#include "bench/cli/transport_options.h"
#include "bench/loadgen/host_port.h"
#include "bench/loadgen/instructions.h"
#include "bench/loadgen/protocol_probe.h"
#include "bench/loadgen/stop_request.h"
#include "bench/loadgen/ycsb_run.h"
#include "bench/mpi/mpi_run.h"
#include "codecs/codec.h"
#include "transports/transport.h"

namespace wirebench {

namespace {

// Flags that are not run options: YCSB's accepted for compatibility and
// unused. Owned by the
// command's callback, which CLI11 keeps as long as the parser.
struct IgnoredYcsbFlags {
  // -t and -load: bin/ycsb appends the command's own flag (-t for run, -load
  // for load) after the user's arguments, and YCSB's Client lets the later
  // one win, so the subcommand decides the phase whatever these say.
  bool run_flag = false;
  bool load_flag = false;
  bool mpi = false;       // --mpi: this process is one rank of an MPI job (bench/mpi/).
  TransportFlags transport_flags;  // The transports' own client options given.
};

// Where the transport's own client options say the server is (HBase's
// --zookeeper) becomes --server.
Status ResolveServerFromClientOptions(YcsbRunOptions* o) {
  auto server = o->rpc->ServerFromClientOptions(o->transport_client_options, o->server);
  if (!server.ok()) return server.status();
  if (!server->empty()) o->server = *server;
  return Status::Ok();
}

void AddServerFlags(CLI::App* cmd, YcsbRunOptions* o) {
  cmd->add_option("--server", o->server,
                  "HOST:PORT or [IPV6]:PORT of a running `wirebench server` (default: start one "
                  "co-located)");
  cmd->add_option("--server-io-threads", o->colocated.io_threads, "Co-located server: I/O threads")
      ->capture_default_str()
      ->type_name("INT:INT in [1 - 256]");
  cmd->add_option("--handlers", o->colocated.handlers,
                  "Co-located server: handler threads (0 = inline)")
      ->capture_default_str()
      ->type_name("INT:INT in [0 - 1024]");
  cmd->add_option("--server-cpus", o->colocated.cpus, "Co-located server: pin to these CPUs");
  cmd->add_option("--servers", o->servers,
                  "Co-located servers: N > 1 starts a null cluster of N servers (regions of "
                  "each table round-robin over them, hbase:meta on the first), all pinned to "
                  "--server-cpus; each call goes to its row's server. With --mpi the job's "
                  "last N ranks are the servers, on their own hosts, and the others its clients")
      ->capture_default_str()
      ->type_name("INT:INT in [1 - 64]");
  AddClusterOptions(cmd, &o->cluster, /*server=*/false);
  AddRegionOptions(cmd, &o->colocated.region);
}

// The codec a run over `rpc` uses when --codec is not given: `fallback`
// (raw) where the transport carries it, else the first codec its entry lists
// (cellblock for HBase's RPC, pb for gRPC's generated service).
const CodecInfo* DefaultCodecFor(const Transport& rpc, const CodecInfo* fallback) {
  if (rpc.CheckCodec(*fallback).ok()) return fallback;
  for (std::string_view name : rpc.traits().codecs)
    if (const CodecInfo* c = Codecs().Find(name)) return c;
  return fallback;
}

// A run whose every read was NOT_FOUND says why: the null region's
// HBASE-10001 mode (--null-reads empty) answers every Get with no cells.
void ExplainNotFoundReads(const YcsbRunOptions& o, const RunResult& r) {
  const OpStats& reads = r.ops[size_t(OpType::kRead)];
  const uint64_t not_found = reads.results[size_t(OpResult::kNotFound)];
  if (not_found == 0 || reads.results[size_t(OpResult::kOk)] != 0) return;
  if (o.server.empty() && o.colocated.region.entry == &NullRegionEntry())
    std::fprintf(stderr,
                 "wirebench: note: every read is NOT_FOUND (counted under READ-FAILED, as YCSB "
                 "does) because --null-reads empty answers every Get with no cells: "
                 "HBASE-10001's mode, which leaves the record's bytes out of the read path; "
                 "leave out --null-reads empty for canned reads of the workload's record\n");
  else if (o.server.empty())
    std::fprintf(stderr,
                 "wirebench: note: every read is NOT_FOUND (counted under READ-FAILED, as YCSB "
                 "does): the co-located %s region starts empty on every run; load and run "
                 "against one server (wirebench server --region %s, then wirebench load and "
                 "run --server HOST:PORT)\n",
                 std::string(o.colocated.region.entry->name()).c_str(),
                 std::string(o.colocated.region.entry->name()).c_str());
  else
    std::fprintf(stderr,
                 "wirebench: note: every read is NOT_FOUND (counted under READ-FAILED, as YCSB "
                 "does): the server's region holds none of the keys read; a null region answers "
                 "reads empty unless its server is started with --null-reads canned, and a "
                 "memstore or wal region needs a load phase first (wirebench load)\n");
}

void AddClientFlags(CLI::App* cmd, YcsbRunOptions* o) {
  // -threads, -target and -db are rewritten into -p threadcount=, -p target=
  // and -p db= by TranslateYcsbArgs, so that the later of -threads and
  // -p threadcount wins, as in YCSB. These entries document them in --help.
  cmd->add_option("--threads", o->threads,
                  "Logical clients (YCSB -threads, = -p threadcount=N), one op in flight each "
                  "(--pipeline N: N each)")
      ->type_name("INT:POSITIVE");
  cmd->add_option("--target", o->target,
                  "Target ops/sec in all: open loop (YCSB -target, = -p target=N; 0 = unthrottled)")
      ->type_name("FLOAT:NONNEGATIVE");
  AddEntryOption(cmd, "--codec", &o->codec, Codecs(),
                 "Codec: " + CodecNames() + " (default " + std::string(Codecs().front().name()) +
                     "; over an RPC layer that carries only some codecs, the first it lists)");
  AddEntryOption(cmd, "--rpc", &o->rpc, Transports(),
                 "RPC layer: " + TransportHelp() + "; the co-located server uses the same");
  cmd->add_option("--batch", o->batch,
                  "Operations per call: each logical client gathers B reads, inserts and updates "
                  "and sends them in one Multi call, on every transport and codec (YCSB's "
                  "clientbuffering counted in operations, reads included; -p wirebench.batch=B; "
                  "0 = off)")
      ->type_name("INT:NONNEGATIVE");
  cmd->add_option("--connections", o->connections, "Connections in all")
      ->capture_default_str()
      ->type_name("INT:POSITIVE");
  cmd->add_option("--pipeline", o->pipeline,
                  "Operations each logical client keeps in flight on its connection, as "
                  "memtier_benchmark's --pipeline: N lanes sharing the client's thread, "
                  "connection and codec, each timed from its own send; with -target the total "
                  "rate is unchanged and N bounds what is outstanding (coroutine model only)")
      ->capture_default_str()
      ->type_name("INT:INT in [1 - 65534]");
  cmd->add_option("--client-io-threads", o->client_io_threads,
                  "Client event-loop threads the logical clients run on")
      ->capture_default_str()
      ->type_name("INT:POSITIVE");
  cmd->add_option("--thread-model", o->thread_model,
                  "coroutines, or os (one OS thread per client sharing --connections, as "
                  "YCSB's Java client)")
      ->capture_default_str();
  cmd->add_option("--ops", o->ops, "Operations to run (operationcount; 0 = no limit)")
      ->type_name("INT:NONNEGATIVE");
  cmd->add_option("--records", o->records,
                  "Records in the key space (recordcount, = -p recordcount=N; as compare --records)")
      ->type_name("INT:POSITIVE");
  cmd->add_option("--seconds", o->seconds,
                  "Stop after this many seconds (maxexecutiontime; 0 = no time limit: the "
                  "workload's operationcount ends the run)")
      ->type_name("FLOAT:NONNEGATIVE");
  cmd->add_option("--warmup", o->warmup, "Seconds of unmeasured warm-up before measuring")
      ->capture_default_str()
      ->type_name("FLOAT:NONNEGATIVE");
  cmd->add_option("--stall-timeout", o->stall_timeout,
                  "End the run with a partial report (exit 3) when the server completes no "
                  "operation for this many seconds (a stopped or hung server); 0 = never")
      ->capture_default_str()
      ->type_name("FLOAT:NONNEGATIVE");
  cmd->add_option("--client-cpus", o->client_cpus, "Pin the client to these CPUs (e.g. 0)");
  cmd->add_flag("--floor", o->floor,
                "After the run, measure the machine's floor for its bytes (`wirebench floor`: "
                "the run's request and reply bytes per operation, its operations in flight, "
                "pinned as it was; the median of three) and report [FLOOR] and [TOTAL] "
                "CpuVsFloor (co-located runs only)");
}

}  // namespace

void AddInstructionFlags(CLI::App* cmd, YcsbRunOptions* o) {
  cmd->add_flag("--instructions", o->instructions,
                "Count user-space instructions per operation on both sides under Valgrind's "
                "callgrind, by layer (--ops operations, default 20000; deterministic)");
  cmd->add_option("--instruction-warmup-ops", o->instruction_warmup_ops,
                  "With --instructions: unmeasured operations before the measured ones")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

bool ReRunUnderCallgrind(const YcsbRunOptions& o, int* exit_code) {
  if (!o.instructions || !InstructionsModeDir().empty()) return false;
  // Checked before Valgrind starts: --ops 0 (no limit) would run under
  // callgrind until killed, as --instructions sets no time limit.
  if (o.ops && *o.ops <= 0) {
    std::fprintf(stderr,
                 "wirebench: --instructions needs a fixed number of operations: --ops must be 1 "
                 "or more (got %lld; 0 means no limit, and an --instructions run has no time "
                 "limit); leave --ops out for the default %lld\n",
                 static_cast<long long>(*o.ops), static_cast<long long>(kDefaultInstructionOps));
    *exit_code = 2;
    return true;
  }
  // The measured phase has fixed costs (starting and ending it, the
  // closing Stats call) that a few operations cannot amortize: with
  // --ops 1 the client's harness figure is hundreds of times its per-op cost.
  if (o.ops && *o.ops < kMinInstructionOps)
    std::fprintf(stderr,
                 "wirebench: warning: --instructions with --ops %lld: the measured phase's fixed "
                 "costs are divided among only %lld operations, so the per-operation figures come "
                 "out too high (mostly the client's harness); use --ops %lld or more (default "
                 "%lld)\n",
                 static_cast<long long>(*o.ops), static_cast<long long>(*o.ops),
                 static_cast<long long>(kMinInstructionOps),
                 static_cast<long long>(kDefaultInstructionOps));
  *exit_code = RunSelfUnderCallgrind();
  return true;
}

namespace {

// YCSB's own flags, as its Client reads them.
void AddYcsbFlags(CLI::App* cmd, YcsbRunOptions* o, IgnoredYcsbFlags* ignored) {
  // One value per flag, as YCSB's Client reads them: `-P a b` leaves b a stray word.
  cmd->add_option("-P", o->property_files, "YCSB workload/property file (repeatable, in order)")
      ->allow_extra_args(false);
  cmd->add_option("-p", o->properties, "key=value property override (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("-s", o->status, "Print a status line every status.interval seconds to stderr");
  cmd->add_option("-l,--label", o->label, "Label prefixed to status lines (YCSB's -l)");
  cmd->add_flag("--load", ignored->load_flag,
                "YCSB's -load (accepted; as with bin/ycsb, the subcommand decides the phase: "
                "`run ... -load` runs the transaction phase)");
  cmd->add_flag("-t", ignored->run_flag,
                "YCSB's -t (accepted; as with bin/ycsb, the subcommand decides the phase: `load "
                "... -t` loads)");
  cmd->add_option("--db", o->db,
                  "YCSB's -db binding class (= -p db=CLASS; recorded: wirebench is the binding)");
  cmd->add_option("binding", o->binding,
                  "bin/ycsb's binding name before the options (" + YcsbBindingNames() +
                      "; wirebench is an HBase-style binding)")
      ->check(CLI::Validator(
          [](std::string& name) {
            const auto& known = YcsbBindingList();
            if (std::find(known.begin(), known.end(), name) != known.end()) return std::string();
            return "unknown binding '" + name +
                   "': wirebench is an HBase-style binding; give one of " + YcsbBindingNames() +
                   " (bin/ycsb's names) or leave it out";
          },
          "BINDING"));
}

// wirebench's own: the result files, the client and server, ZooKeeper, MPI
// and instruction counting.
void AddWirebenchFlags(CLI::App* cmd, YcsbRunOptions* o, IgnoredYcsbFlags* ignored) {
  cmd->add_option("--json", o->json_out, "Write the self-describing JSON result here");
  cmd->add_option("--hlog", o->hlog_out,
                  "Write an HdrHistogram interval log (1 s intervals, one tag per operation)");
  AddClientFlags(cmd, o);
  AddTransportOptions(cmd, TransportOptionKind::kClient, &o->transport_client_options,
                      &ignored->transport_flags);
  AddServerFlags(cmd, o);
  cmd->add_flag("--mpi", ignored->mpi,
                "Run as one rank of an MPI job (mpirun -np N wirebench run --mpi ...): every rank "
                "a client, the load partitioned, the measured phases aligned by barriers, one "
                "merged report from rank 0 (docs/multi-host.md); with --servers N the last N "
                "ranks serve a null cluster instead");
  cmd->add_option("--mpi-server-network", o->mpi_server_network,
                  "With --mpi --servers N: the IPv4 network (CIDR, e.g. 10.0.0.0/24) whose "
                  "address each serving rank listens on and is reached at (default: the "
                  "address its host reaches rank 0's host from)")
      ->type_name("CIDR");
  AddInstructionFlags(cmd, o);
}

// YCSB's -t given to load, or -load to run: bin/ycsb appends the command's
// own flag after the user's, so the command wins; said once.
void NoteOverriddenPhaseFlag(bool load, const IgnoredYcsbFlags& ignored) {
  const char* flag = load ? (ignored.run_flag ? "-t" : nullptr)
                          : (ignored.load_flag ? "-load" : nullptr);
  if (!flag) return;
  std::fprintf(stderr,
               "wirebench: note: %s is overridden by the %s command, as bin/ycsb appends %s "
               "after your arguments and YCSB's later flag wins: this %s (use `wirebench "
               "%s` for the other phase)\n",
               flag, load ? "load" : "run", load ? "-load" : "-t",
               load ? "loads" : "runs the transaction phase", load ? "run" : "load");
}

// A run that failed before its first operation against --server: a server
// of another protocol is named as such, with the flag to pass, and one of
// the client's own protocol that serves something else gets the hint the
// transport's entry declares. True when it said so.
bool ExplainedWrongServer(const YcsbRunOptions& o, const StatusOr<YcsbOutcome>& r) {
  const bool failed_at_start =
      !r.ok() || (r->result.partial && r->result.operations == 0 && !StopRequested());
  if (!failed_at_start || o.server.empty()) return false;
  std::string host;
  uint16_t port = 0;
  if (!ParseHostPort(o.server, &host, &port).ok()) return false;
  const std::string error = r.ok() ? r->result.error.ToString() : r.status().ToString();
  const ServerProbe probe = ProbeServer(host, port);
  auto why = WrongProtocolMessage(*o.rpc, probe.seen, o.server, error);
  if (!why) why = UnknownPeerMessage(*o.rpc, o.server, probe);
  if (!why) return false;
  std::fprintf(stderr, "wirebench: %s\n", why->c_str());
  return true;
}

// A finished run's exit status: 1 when the server answered calls with an
// error, 3 when it stopped early (partial results), each said on stderr.
void ReportRunEnd(const YcsbRunOptions& o, const RunResult& result, int* exit_code) {
  if (!o.quiet) ExplainNotFoundReads(o, result);
  if (result.error_replies > 0) {
    std::fprintf(stderr,
                 "wirebench: the server answered %llu call(s) with an error (counted as "
                 "Return=ERROR); the first: %s\n",
                 static_cast<unsigned long long>(result.error_replies),
                 result.first_error_reply.c_str());
    *exit_code = 1;
  }
  if (result.partial) {
    std::fprintf(stderr, "wirebench: run stopped early: %s (results above are partial)\n",
                 result.error.ToString().c_str());
    *exit_code = 3;
  }
}

// The load or run command once its flags are parsed.
void RunPhase(YcsbRunOptions& o, const IgnoredYcsbFlags& ignored, bool load, int* exit_code) {
  if (ignored.mpi && !o.cluster.servers.empty() && o.servers == 1) {
    std::fprintf(stderr, "wirebench: --mpi with --cluster (a cluster already running) is not "
                         "built yet: let the job start its cluster (mpirun -np N wirebench run "
                         "--mpi --servers S: the last S ranks serve), or drive the running one "
                         "from one process\n");
    *exit_code = 2;
    return;
  }
  if (!o.mpi_server_network.empty() && (!ignored.mpi || o.servers == 1)) {
    std::fprintf(stderr, "wirebench: --mpi-server-network says where an MPI job's own cluster "
                         "servers listen: give it with --mpi and --servers N, or leave it out\n");
    *exit_code = 2;
    return;
  }
  if (ignored.mpi && o.instructions) {
    std::fprintf(stderr, "wirebench: --mpi and --instructions cannot be combined: count "
                         "instructions with one client process (leave out --mpi)\n");
    *exit_code = 2;
    return;
  }
  const Transport* chosen[] = {o.rpc};
  if (Status st = CheckTransportClientOptions(ignored.transport_flags, o.transport_client_options,
                                              chosen);
      !st.ok()) {
    std::fprintf(stderr, "wirebench: %s\n", st.ToString().c_str());
    *exit_code = 2;
    return;
  }
  if (Status st = CheckFloorOptions(o); !st.ok()) {
    std::fprintf(stderr, "wirebench: %s\n", st.ToString().c_str());
    *exit_code = 2;
    return;
  }
  if (ReRunUnderCallgrind(o, exit_code)) return;
  NoteOverriddenPhaseFlag(load, ignored);
  if (Status st = ResolveServerFromClientOptions(&o); !st.ok()) {
    std::fprintf(stderr, "wirebench: %s\n", st.ToString().c_str());
    *exit_code = 2;
    return;
  }
  if (ignored.mpi) {
    *exit_code = RunYcsbMpi(o);
    return;
  }
  auto r = RunYcsb(o);
  if (ExplainedWrongServer(o, r)) {
    *exit_code = 2;
    return;
  }
  if (!r.ok()) {
    std::fprintf(stderr, "wirebench: %s\n", r.status().ToString().c_str());
    *exit_code = 2;
    return;
  }
  ReportRunEnd(o, r->result, exit_code);
}

void AddCommand(CLI::App& app, bool load, int* exit_code) {
  auto o = std::make_shared<YcsbRunOptions>();
  auto ignored = std::make_shared<IgnoredYcsbFlags>();
  o->load_phase = load;
  // Reads succeed by default, as in compare: the null region answers a
  // canned record of the workload's shape. --null-reads empty is HBASE-10001's.
  o->colocated.region.settings.Set("--null-reads", "canned");
  CLI::App* cmd = app.add_subcommand(
      load ? "load" : "run",
      load ? "YCSB load phase: insert the records (1 KB puts with the defaults)"
           : "YCSB run phase: the workload's operation mix (YCSB's command line works as is)");
  AddYcsbFlags(cmd, o.get(), ignored.get());
  AddWirebenchFlags(cmd, o.get(), ignored.get());
  // The callback owns every object the options write into (CLI11 keeps
  // pointers to them for the parser's lifetime).
  cmd->callback([o, ignored, exit_code, cmd, load] {
    if (cmd->count("--codec") == 0) o->codec = DefaultCodecFor(*o->rpc, o->codec);
    RunPhase(*o, *ignored, load, exit_code);
  });
}

}  // namespace

const std::vector<std::string>& YcsbBindingList() {
  // bin/ycsb's names of HBase bindings (and BasicDB's, whose operations
  // wirebench also answers): the ones a YCSB script for an HBase-style store uses.
  static const std::vector<std::string> names = {"hbase2", "hbase1", "hbase20", "hbase14",
                                                 "hbase12", "hbase10", "hbase098", "basic"};
  return names;
}

std::string YcsbBindingNames() {
  std::string out;
  for (const std::string& n : YcsbBindingList()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<std::string> TranslateYcsbArgs(int argc, char** argv) {
  std::vector<std::string> out;
  const bool ycsb = argc >= 2 && (std::string(argv[1]) == "run" || std::string(argv[1]) == "load");
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (ycsb && i + 1 < argc) {
      // YCSB sets these properties in command-line order, with -p: the later
      // of "-threads 8" and "-p threadcount=4" wins.
      const char* property = nullptr;
      if (a == "-threads" || a == "--threads") property = "threadcount";
      if (a == "-target" || a == "--target") property = "target";
      if (a == "-db" || a == "--db") property = "db";
      if (property != nullptr) {
        out.push_back("-p");
        out.push_back(std::string(property) + "=" + argv[++i]);
        continue;
      }
    }
    if (a == "-threads" || a == "-target" || a == "-load" || a == "-db") a = "-" + a;
    out.push_back(a);
  }
  return out;
}

void AddYcsbCommands(CLI::App& app, int* exit_code) {
  AddCommand(app, /*load=*/true, exit_code);
  AddCommand(app, /*load=*/false, exit_code);
}

}  // namespace wirebench
