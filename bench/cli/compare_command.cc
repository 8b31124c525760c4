#include "bench/cli/compare_command.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

#include "bench/cli/entry_option.h"
#include "bench/cli/transport_options.h"
#include "bench/cli/region_factory.h"
#include "bench/cli/ycsb_command.h"
#include "bench/loadgen/build_runner.h"
#include "bench/loadgen/compare_runner.h"
#include "bench/mpi/mpi_run.h"
#include "codecs/codec.h"

namespace wirebench {

namespace {

void AddCellFlags(CLI::App* cmd, YcsbRunOptions* cell) {
  cmd->add_option("-p", cell->properties, "key=value YCSB property for every cell");
  cmd->add_option("--connections", cell->connections, "Connections per cell")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--client-io-threads", cell->client_io_threads, "Client event-loop threads")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--server-io-threads", cell->colocated.io_threads, "Server I/O threads")
      ->capture_default_str();
  cmd->add_option("--handlers", cell->colocated.handlers, "Server handler threads (0 = inline)")
      ->capture_default_str();
  cmd->add_option("--client-cpus", cell->client_cpus, "Pin the client to these CPUs");
  cmd->add_option("--server-cpus", cell->colocated.cpus, "Pin the server to these CPUs");
  AddRegionOptions(cmd, &cell->colocated.region);
}

int RunCompareCommand(CompareOptions o) {
  o.print_markdown = o.report;  // Printed as soon as it is made (RunCompare).
  auto r = RunCompare(o);
  if (!r.ok()) {
    if (o.report) std::fprintf(stderr, "wirebench compare: %s\n", r.status().ToString().c_str());
    return 2;
  }
  if (!o.report) return 0;  // An MPI rank other than 0: rank 0 reports.
  std::fprintf(stderr, "wirebench compare: wrote");
  for (const auto& f : r->written) std::fprintf(stderr, " %s", f.c_str());
  std::fprintf(stderr, " and %zu cell results under %s/cells\n", r->cells.size(), r->out.c_str());
  if (!r->failures.empty()) {
    std::fprintf(stderr, "wirebench compare: the comparison is incomplete (%zu problem(s)):\n",
                 r->failures.size());
    for (const auto& f : r->failures) std::fprintf(stderr, "  %s\n", f.c_str());
    std::fprintf(stderr,
                 "wirebench compare: fix the cause (e.g. free space under %s, or give --out on "
                 "another file system) and run again\n",
                 r->out.c_str());
    return 2;
  }
  if (r->cells.empty()) return 1;
  return r->interrupted ? 3 : 0;
}

// The arguments after `compare` on this process's command line (what each
// build's child is given, less the matrix flags).
std::vector<std::string> CompareArguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  bool after = false;
  bool first = true;
  while (std::getline(in, arg, '\0')) {
    if (first) {
      first = false;
      continue;
    }
    if (after) {
      args.push_back(arg);
    } else if (arg == "compare") {
      after = true;
    }
  }
  return args;
}

int RunBuildsCommand(const CompareOptions& o, const std::string& builds) {
  auto specs = ParseBuilds(builds);
  if (!specs.ok()) {
    std::fprintf(stderr, "wirebench compare: %s\n", specs.status().ToString().c_str());
    return 2;
  }
  BuildsCompareOptions bo;
  bo.builds = *specs;
  bo.compare = o;
  bo.forwarded = ForwardedCompareArgs(CompareArguments());
  auto r = RunBuildsCompare(bo);
  if (!r.ok()) {
    std::fprintf(stderr, "wirebench compare: %s\n", r.status().ToString().c_str());
    return 2;
  }
  std::fputs(r->markdown.c_str(), stdout);
  std::fflush(stdout);
  for (const auto& w : r->warnings) std::fprintf(stderr, "wirebench compare: warning: %s\n", w.c_str());
  std::fprintf(stderr, "wirebench compare: wrote");
  for (const auto& f : r->written) std::fprintf(stderr, " %s", f.c_str());
  std::fprintf(stderr, " and %d cell results under %s/<build>/cells\n", r->cells, r->out.c_str());
  if (!r->failures.empty()) {
    std::fprintf(stderr, "wirebench compare: the comparison is incomplete (%zu problem(s)):\n",
                 r->failures.size());
    for (const auto& f : r->failures) std::fprintf(stderr, "  %s\n", f.c_str());
    return 2;
  }
  if (r->cells == 0) return 1;
  return r->interrupted ? 3 : 0;
}

// compare --mpi: this process is one rank of an MPI job; every rank runs
// the matrix, each cell as one `run --mpi` run (bench/mpi/mpi_run.h); rank 0
// alone prints and writes.
int RunCompareMpi(CompareOptions o) {
  int code = 0;
  std::unique_ptr<MpiCellRunner> mpi = StartMpiCells(&code);
  if (!mpi) return code;
  MpiCellRunner* runner = mpi.get();
  o.run_cell = [runner](YcsbRunOptions c) { return runner->RunCell(std::move(c)); };
  o.report = runner->rank() == 0;
  o.mpi_ranks = runner->ranks();
  code = RunCompareCommand(o);
  return runner->Finish(code);
}

// What --mpi cannot be combined with, and what to do instead ("" = fine).
std::string MpiConflict(const CompareOptions& o, const std::string& builds) {
  if (!builds.empty())
    return "--mpi and --builds cannot be combined: a builds comparison runs each build's own "
           "binary as a child process; compare builds without --mpi, or run compare --mpi once "
           "per build (each build's binary under mpirun) and compare the comparison.json files";
  if (o.cell.instructions)
    return "--mpi and --instructions cannot be combined: instructions are counted in one client "
           "process under callgrind; leave out --mpi";
  return "";
}

// The matrix: codecs, RPC layers, workloads, thread counts, record sizes, repeats.
void AddMatrixOptions(CLI::App* cmd, CompareOptions* o) {
  AddEntryListOption(cmd, "--codecs", &o->codecs, Codecs(),
                     "Codecs to compare (default: all: " + CodecNames() + ")");
  AddEntryListOption(cmd, "--rpcs", &o->rpcs, Transports(),
                     "RPC layers each codec runs over (default " +
                         std::string(DefaultTransport().name()) + "): " + TransportHelp() +
                         "; a codec a layer does not carry is skipped; more than one makes "
                         "columns like raw, raw@grpc, pb@grpc-native");
  cmd->add_option("--workloads", o->workloads, "YCSB workloads: a-f or files")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--threads", o->threads,
                  "Logical clients, or a sweep like 1,3,5,10,25,50,100,200")
      ->capture_default_str();
  cmd->add_option("--fieldlengths", o->fieldlengths,
                  "Record-size sweep: bytes per field, like 10,100,1000,10000 (each size its own "
                  "tables and cells; charts of cost against size); the canned read matches");
  cmd->add_option("--fieldcounts", o->fieldcounts,
                  "Record-size sweep: fields per record, like 1,10,100 (with --fieldlengths: every "
                  "pair)");
  cmd->add_option("--pipelines", o->pipelines,
                  "Pipeline-depth sweep: operations each logical client keeps in flight "
                  "(run's --pipeline), like 1,8,64 (each depth its own tables and cells, "
                  "\"workloada-p8\"; charts of cost against depth)");
  cmd->add_option("--batches", o->batches,
                  "Batch-size sweep: operations each logical client sends in one Multi call "
                  "(run's --batch), like 1,10,100 (each size its own tables and cells, "
                  "\"workloada-b10\"; charts of cost against size)");
  cmd->add_option("--servers", o->servers,
                  "Cluster-size sweep: co-located null cluster servers (run's --servers), like "
                  "1,3,5 (each size its own tables and cells, \"workloada-s3\"; charts of cost "
                  "against cluster size; per-server figures in each cell's result)");
  cmd->add_option("--target", o->cell.target,
                  "Target operations per second in all, over every logical client (YCSB "
                  "-target, = -p target=N): every cell open loop at this rate; 0 = closed loop")
      ->type_name("OPS")
      ->check(CLI::Validator(
          [](std::string& v) {
            // YCSB reads target as a whole number; refused here, not in every cell.
            char* end = nullptr;
            const double d = std::strtod(v.c_str(), &end);
            return end != v.c_str() && *end == '\0' && d >= 0 && d <= 1e9 && d == std::floor(d)
                       ? std::string()
                       : "must be whole operations per second, 0 to 1000000000 (got " + v +
                             "; 0 = closed loop)";
          },
          ""));
  cmd->add_option("--repeat", o->repeat, "Runs per cell (median and spread reported)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
}

// The report: the baseline column (its option returned, to tell whether it
// was given), the pairwise table, the floor, the output folder.
CLI::Option* AddReportOptions(CLI::App* cmd, const std::shared_ptr<CompareOptions>& o) {
  CLI::Option* baseline =
      cmd->add_option("--baseline", o->baseline,
                      "Column the ratios are against (any column; when the default pb is not "
                      "among them, the first column)")
          ->capture_default_str();
  cmd->add_flag("--pairwise", o->pairwise,
                "Also a table of every column against every other for the headline cost row "
                "(total instructions with --instructions, else total CPU)");
  cmd->add_flag_callback("--no-floor", [o] { o->floor = false; },
                "Leave out the machine's floor (`wirebench floor` for each column's bytes, measured "
                "after the matrix) and the \"Total CPU vs floor\" rows");
  cmd->add_option("--out", o->out, "Output folder (default results/compare-<time>)");
  return baseline;
}

// How each cell runs: its measured and warm-up seconds, key space, pinning
// and instruction counting.
void AddCellOptions(CLI::App* cmd, CompareOptions* o) {
  cmd->add_option("--seconds", o->seconds, "Measured seconds per cell")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& v) {
            // CLI::PositiveNumber's refusal prints the double range's 309-digit bound.
            char* end = nullptr;
            const double d = std::strtod(v.c_str(), &end);
            return end != v.c_str() && *end == '\0' && d > 0 && std::isfinite(d)
                       ? std::string()
                       : "must be a number of seconds above 0 (got " + v + ")";
          },
          "SECONDS>0"));
  cmd->add_option("--warmup", o->warmup, "Warm-up seconds per cell (not measured)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--records", o->records, "recordcount (key space)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  AddCellFlags(cmd, &o->cell);
  cmd->add_flag("!--no-pin", o->pin,
                "Do not pin the client to CPU 0 and the server to CPU 1 (the default when there "
                "are 2+ CPUs and neither --client-cpus nor --server-cpus is given)");
  AddInstructionFlags(cmd, &o->cell);
  cmd->add_option("--ops", o->cell.ops,
                  "With --instructions: measured operations per cell (default 20000)")
      ->check(CLI::PositiveNumber);
}

// The other ways to run the matrix: across builds, as one MPI job.
struct CompareModes {
  std::string builds;
  bool mpi = false;
  TransportFlags transport_flags;  // The transports' own client options given.
};

void AddModeOptions(CLI::App* cmd, CompareOptions* o, CompareModes* m) {
  cmd->add_option("--builds", m->builds,
                  "Compare builds, not only codecs: LABEL=PATH,LABEL=PATH (each PATH a wirebench "
                  "binary; every cell runs with that build's client and server, ratios against "
                  "the first; the same binary twice is an A/A check)");
  cmd->add_flag("--mpi", m->mpi,
                "Run the matrix as one MPI job (mpirun -np N wirebench compare --mpi ...): every "
                "rank a client of every cell, each cell measured as `run --mpi` measures one "
                "run; rank 0 writes the report (docs/multi-host.md)");
  cmd->add_option("--server", o->cell.server,
                  "With --mpi: every cell against this running server (HOST:PORT; it must serve "
                  "every codec of --codecs) instead of a co-located one per cell");
}

// --builds runs one cluster size (every cell of every build against it);
// what is wrong with `servers` for that ("" = fine, or not given).
std::string BuildsClusterConflict(const std::string& servers) {
  if (servers.empty()) return "";
  auto sizes = ParseDepthList(servers, CallSweeps()[2]);
  if (!sizes.ok()) return sizes.status().ToString();
  if (sizes->size() != 1)
    return "--builds runs every build against one cluster size, not a sweep (got --servers " +
           servers +
           "): give one size, like --servers 5, and run compare --builds once per size; or "
           "sweep one build's cluster sizes without --builds";
  return "";
}

// Refuses what cannot be combined (exit 2, saying what to do instead).
int Refuse(const std::string& why) {
  std::fprintf(stderr, "wirebench compare: %s\n", why.c_str());
  return 2;
}

// Runs the matrix the way the command line asked: as an MPI job, across
// builds, or here (under callgrind first when counting instructions).
void RunCompareAsAsked(CompareOptions& o, const CompareModes& m, bool repeat_given,
                       int* exit_code) {
  if (Status st = CheckTransportClientOptions(m.transport_flags, o.cell.transport_client_options,
                                              o.rpcs);
      !st.ok()) {
    *exit_code = Refuse(st.ToString());
    return;
  }
  // Without --mpi each cell starts its own server: a flag naming one is
  // refused before anything is looked up (a ZooKeeper lookup can take seconds).
  if (!m.mpi) {
    std::string named = o.cell.server.empty() ? std::string() : "--server";
    for (const Transport* t : o.rpcs)
      if (named.empty()) named = t->ServerLocatorFlag(o.cell.transport_client_options);
    if (!named.empty()) {
      *exit_code = Refuse(
          named +
          " names a server, which is for compare --mpi (clients on many hosts against one "
          "server); without --mpi compare starts a co-located server per cell: leave out " +
          named + ", or add --mpi and start it under mpirun");
      return;
    }
  }
  // A transport's own client options may say where the server is (HBase's
  // --zookeeper); that stands for --server.
  for (const Transport* t : o.rpcs) {
    auto server = t->ServerFromClientOptions(o.cell.transport_client_options, o.cell.server);
    if (!server.ok()) {
      *exit_code = Refuse(server.status().ToString());
      return;
    }
    if (!server->empty()) o.cell.server = *server;
  }
  if (m.mpi && !o.servers.empty()) {
    *exit_code = Refuse("--mpi with --servers is not built yet: sweep cluster sizes from one "
                        "client process (leave out --mpi)");
    return;
  }
  if (m.mpi) {
    if (const std::string why = MpiConflict(o, m.builds); !why.empty()) {
      *exit_code = Refuse(why);
      return;
    }
    // Several ranks on one host: the default pinning would put every rank on CPU 0.
    o.pin = false;
    *exit_code = RunCompareMpi(o);
    return;
  }
  if (!m.builds.empty()) {
    if (!o.fieldlengths.empty() || !o.fieldcounts.empty()) {
      *exit_code = Refuse(
          "--builds does not sweep record sizes yet; give one size with -p fieldlength=N (and "
          "-p fieldcount=N), or compare one build's sizes without --builds");
      return;
    }
    if (!o.pipelines.empty() || !o.batches.empty()) {
      *exit_code = Refuse(
          "--builds does not sweep pipeline depths or batch sizes yet; compare one build's "
          "depths or sizes without --builds, or give the builds one with --pipeline or "
          "--batch");
      return;
    }
    if (const std::string why = BuildsClusterConflict(o.servers); !why.empty()) {
      *exit_code = Refuse(why);
      return;
    }
    // Each cell's child runs itself under callgrind with --instructions.
    if (o.cell.instructions && !repeat_given) o.repeat = 1;
    *exit_code = RunBuildsCommand(o, m.builds);
    return;
  }
  if (ReRunUnderCallgrind(o.cell, exit_code)) return;
  // Instruction counts are deterministic: one repeat unless asked for more.
  if (o.cell.instructions && !repeat_given) o.repeat = 1;
  *exit_code = RunCompareCommand(o);
}

}  // namespace

void AddCompareCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<CompareOptions>();
  o->cell.colocated.region.settings.Set("--null-reads", "canned");
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Codec comparison: codecs x workloads x record sizes x thread counts, co-located, repeated; "
      "tables, charts "
      "and HdrHistogram logs in --out");
  AddMatrixOptions(cmd, o.get());
  CLI::Option* baseline = AddReportOptions(cmd, o);
  AddCellOptions(cmd, o.get());
  auto modes = std::make_shared<CompareModes>();
  AddModeOptions(cmd, o.get(), modes.get());
  AddTransportOptions(cmd, TransportOptionKind::kClient, &o->cell.transport_client_options,
                      &modes->transport_flags);
  cmd->callback([o, exit_code, cmd, baseline, modes] {
    o->baseline_given = baseline->count() > 0;
    RunCompareAsAsked(*o, *modes, cmd->count("--repeat") > 0, exit_code);
  });
}

}  // namespace wirebench
