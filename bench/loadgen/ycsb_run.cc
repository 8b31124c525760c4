#include "bench/loadgen/ycsb_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>

#include "hdr/histogram_log.h"
#include "hdr/ycsb_summary.h"
#include "bench/loadgen/floor.h"
#include "bench/loadgen/host_port.h"
#include "bench/loadgen/instructions.h"
#include "bench/loadgen/local_server.h"
#include "bench/loadgen/status_line.h"
#include "bench/loadgen/stop_on_signal.h"
#include "bench/loadgen/ycsb_stream.h"
#include "ycsb/basic_db.h"
#include "ycsb/core_workload.h"
#include "ycsb/properties.h"
#include "ycsb/standard_workloads.h"
#include "ycsb/workload_config.h"
#include "common/build_info.h"
#include "common/str_cat.h"
#include "regions/registry.h"

namespace wirebench {

namespace {

// The binding class bin/ycsb passes as -db for a binding name.
std::string YcsbBindingClass(const std::string& binding) {
  if (binding == "hbase2") return "site.ycsb.db.hbase2.HBaseClient2";
  if (binding == "hbase1") return "site.ycsb.db.hbase1.HBaseClient1";
  if (binding == "hbase098") return "site.ycsb.db.HBaseClient";
  if (binding == "basic") return "site.ycsb.BasicDB";
  return "site.ycsb.db.HBaseClient10";  // hbase10, hbase12, hbase14, hbase20.
}

// The db property, set (not YCSB's default), names YCSB's BasicDB:
// bin/ycsb's `basic`, -db or -p db=. Unset, wirebench is an HBase binding.
bool IsBasicDb(const ycsb::Properties& props) {
  auto db = props.GetString("db");
  return props.Has("db") && db.ok() && (*db == "site.ycsb.BasicDB" || *db == "com.yahoo.ycsb.BasicDB");
}

// Checks what only the command line can get wrong. Every other range is
// checked once, by ValidateDriverOptions.
// A null cluster: co-located (--servers N) or running (--cluster), never
// both nor with --server; what a cluster's client does not do yet is refused
// saying what to do instead.
Status CheckClusterFlags(const YcsbRunOptions& o) {
  WB_RETURN_IF_ERROR(CheckColocatedServers(o.servers));
  const bool running = !o.cluster.servers.empty();
  if (!running && o.servers == 1) return Status::Ok();
  const std::string what = running ? "--cluster" : "--servers " + std::to_string(o.servers);
  if (running && o.servers > 1)
    return Status::InvalidArgument("--servers starts a co-located cluster and --cluster names a "
                                   "running one: give one of them");
  if (!o.server.empty())
    return Status::InvalidArgument("--server " + o.server + " and " + what +
                                   " both say where to run: give one of them");
  if (o.instructions)
    return Status::InvalidArgument(
        "--instructions counts one server process's instructions: leave out " + what);
  return Status::Ok();
}

Status CheckFlags(const YcsbRunOptions& o) {
  if (o.thread_model != "coroutines" && o.thread_model != "os")
    return Status::InvalidArgument("--thread-model must be 'coroutines' or 'os', got '" +
                                   o.thread_model + "'");
  return CheckClusterFlags(o);
}

// The binding's db class (-db, or --binding's), refused as YCSB refuses a
// class it cannot load when wirebench does not answer it.
Status SetDbClass(const YcsbRunOptions& o, ycsb::Properties* props) {
  // bin/ycsb passes the binding's class as -db before the user's options.
  if (!o.db.empty()) {
    props->Set("db", o.db, "-db");
  } else if (!o.binding.empty() &&
             std::none_of(o.properties.begin(), o.properties.end(),
                          [](const std::string& p) { return p.rfind("db=", 0) == 0; })) {
    props->Set("db", YcsbBindingClass(o.binding), "binding " + o.binding);
  }
  // YCSB loads the db class by name and stops with ClassNotFoundException
  // when there is none: a class wirebench does not answer as is refused.
  if (props->Has("db")) {
    auto given = props->GetString("db");
    const std::string db = given.ok() ? *given : "";
    static const char* const kClasses[] = {
        "site.ycsb.db.hbase2.HBaseClient2", "site.ycsb.db.hbase1.HBaseClient1",
        "site.ycsb.db.HBaseClient10", "site.ycsb.db.HBaseClient", "site.ycsb.BasicDB"};
    std::string known;
    bool found = db == "com.yahoo.ycsb.BasicDB";
    for (const char* cls : kClasses) {
      known += (known.empty() ? "" : ", ") + std::string(cls);
      found = found || db == cls;
    }
    if (!found)
      return Status::InvalidArgument(
          "java.lang.ClassNotFoundException: " + db + " (db, set at " + props->SourceOf("db") +
          "): wirebench answers the bindings " + known +
          " (HBase's, and YCSB's BasicDB); leave -db out for wirebench's HBase-style binding");
  }
  return Status::Ok();
}

// dotransactions: the command's phase, whatever the properties said.
void SetPhase(const YcsbRunOptions& o, ycsb::Properties* props) {
  // bin/ycsb appends the command's flag (-t for run, -load for load) after
  // the user's arguments, and YCSB's Client sets dotransactions from the
  // later one: the command decides the phase, whatever -p dotransactions
  // (or a workload file) said.
  if (props->Has("dotransactions") && props->GetYcsbBool("dotransactions") == o.load_phase &&
      !o.quiet)
    std::fprintf(stderr,
                 "wirebench: note: dotransactions=%s (set at %s) is overridden by the %s "
                 "command, as bin/ycsb appends %s after your arguments: this %s\n",
                 o.load_phase ? "true" : "false", props->SourceOf("dotransactions").c_str(),
                 o.load_phase ? "load" : "run", o.load_phase ? "-load" : "-t",
                 o.load_phase ? "loads" : "runs the transaction phase");
  props->Set("dotransactions", o.load_phase ? "false" : "true",
             o.load_phase ? "the load command (bin/ycsb's -load)" : "the run command (bin/ycsb's -t)");
}

// The counts and limits the command line gives (-threads, -target, --ops,
// --records, --seconds) over the properties'.
void SetCounts(const YcsbRunOptions& o, ycsb::Properties* props) {
  if (o.threads) props->Set("threadcount", std::to_string(*o.threads), "-threads");
  // YCSB reads target as an integer: a whole rate is written as one ("5000",
  // not Java's "5000.0", which ReadTarget would refuse).
  if (o.target)
    props->Set("target",
               *o.target == std::floor(*o.target) && std::fabs(*o.target) < 9e15
                   ? std::to_string(int64_t(*o.target))
                   : hdr::JavaDoubleToString(*o.target),
               "-target");
  if (o.ops) props->Set("operationcount", std::to_string(*o.ops), "--ops");
  if (o.records) props->Set("recordcount", std::to_string(*o.records), "--records");
  if (o.seconds) props->Set("maxexecutiontime", hdr::JavaDoubleToString(*o.seconds), "--seconds");
  // "--seconds 10" means a 10 s run: the workload file's operationcount (1000
  // in YCSB's files) does not cut it short unless -p operationcount or --ops says so.
  const bool ops_given = o.ops || std::any_of(o.properties.begin(), o.properties.end(),
                                              [](const std::string& p) {
                                                return p.rfind("operationcount=", 0) == 0;
                                              });
  // --seconds 0 is YCSB's maxexecutiontime=0 (no time limit): the
  // workload's operationcount ends the run.
  if (o.seconds && *o.seconds > 0 && !ops_given && !o.load_phase)
    props->Set("operationcount", "0", "--seconds without --ops");
}

Status LoadProperties(const YcsbRunOptions& o, ycsb::Properties* props) {
  props->RegisterKey({"wirebench.codec", std::nullopt, "codec used by this run (set by --codec)"});
  WB_RETURN_IF_ERROR(props->Load(o.property_files, o.properties));
  // YCSB's Client.checkRequiredProperties: no workload class, no run.
  if (!props->Has("workload"))
    return Status::InvalidArgument(
        "Missing property: workload (Failed check required properties.): give a workload "
        "file, e.g. -P workloads/workloada, or -p workload=site.ycsb.workloads.CoreWorkload");
  WB_RETURN_IF_ERROR(SetDbClass(o, props));
  SetPhase(o, props);
  SetCounts(o, props);
  props->Set("wirebench.codec", std::string(o.codec->name()), "--codec");
  if (o.batch != 0) {
    if (IsBasicDb(*props))
      return Status::InvalidArgument(
          "--batch sends puts to a server in Multi calls; the basic binding (YCSB's BasicDB) "
          "has no server: leave out --batch, or use a binding that sends calls");
    props->Set("wirebench.batch", std::to_string(o.batch), "--batch");
  }
  if (o.instructions) {  // A fixed operation count; time plays no part.
    if (InstructionsModeDir().empty())
      return Status::InvalidArgument(
          "--instructions: this process is not the one re-run under callgrind (use the run or "
          "compare command's --instructions)");
    if (!o.ops) props->Set("operationcount", std::to_string(kDefaultInstructionOps), "--instructions");
    props->Set("maxexecutiontime", "0", "--instructions");
  }
  return Status::Ok();
}

// --mpi: this part's share of the load, and its own seed in the run phase.
Status ShareAmongParts(const YcsbRunOptions& o, ycsb::Properties* props) {
  if (o.parts <= 1) return Status::Ok();
  auto cfg = ycsb::CoreWorkloadConfig::FromProperties(*props);
  if (!cfg.ok()) return cfg.status();
  const std::string source =
      StrCat("--mpi (rank ", std::to_string(o.part), " of ", std::to_string(o.parts), ")");
  if (o.load_phase) {
    const int64_t base = cfg->insert_start, total = cfg->load_count;
    const int64_t lo = base + total * o.part / o.parts;
    const int64_t hi = base + total * (o.part + 1) / o.parts;
    // insertstart without insertcount loads keys past recordcount (YCSB's
    // Client counts recordcount records from insertstart); the share's
    // insertcount must then fit under recordcount too. Load keys do not
    // depend on recordcount.
    if (cfg->record_count < base + total)
      props->Set("recordcount", std::to_string(base + total), source);
    props->Set("insertstart", std::to_string(lo), source);
    props->Set("insertcount", std::to_string(hi - lo), source);
  } else {
    props->Set("seed", std::to_string(cfg->seed + uint64_t(o.part)), source);
  }
  return Status::Ok();
}

// measurementtype and the options of YCSB's measurements.
Status ReadMeasurementOptions(const ycsb::Properties& props, ReportOptions* r) {
  auto type = props.GetString("measurementtype");
  if (!type.ok()) return type.status();
  static const char* const kTypes[] = {"hdrhistogram",     "histogram",  "hdrhistogram+histogram",
                                       "hdrhistogram+raw", "timeseries", "raw"};
  if (std::find(std::begin(kTypes), std::end(kTypes), *type) == std::end(kTypes))
    return Status::InvalidArgument(
        "property 'measurementtype' must be hdrhistogram, histogram, hdrhistogram+histogram, "
        "hdrhistogram+raw, timeseries or raw (YCSB's names), got '" + *type + "' (set at " +
        props.SourceOf("measurementtype") + ")");
  if (*type == "timeseries") {
    auto granularity = props.GetInt("timeseries.granularity");
    if (!granularity.ok()) return granularity.status();
    if (*granularity < 1 || *granularity > INT32_MAX)
      return Status::InvalidArgument(
          "property 'timeseries.granularity' must be a positive number of milliseconds, got " +
          std::to_string(*granularity) + " (set at " + props.SourceOf("timeseries.granularity") +
          ")");
    r->timeseries_granularity_ms = *granularity;
  }
  r->raw_no_summary = props.GetYcsbBool("measurement.raw.no_summary");
  r->measurement_type = *type;
  auto buckets = props.GetInt("histogram.buckets");
  if (!buckets.ok()) return buckets.status();
  if (*buckets < 1 || *buckets > 10'000'000)
    return Status::InvalidArgument("property 'histogram.buckets' must be 1 to 10000000 (ms), got " +
                                   std::to_string(*buckets));
  r->histogram_buckets = *buckets;
  r->histogram_verbose = props.GetYcsbBool("measurement.histogram.verbose");
  r->report_latency_for_each_error = props.GetYcsbBool("reportlatencyforeacherror");
  r->latency_tracked_errors.clear();
  if (auto tracked = props.GetString("latencytrackederrors"); tracked.ok()) {
    std::string_view rest = *tracked;
    while (!rest.empty()) {  // YCSB splits on ',' and uses the names as given.
      const size_t comma = rest.find(',');
      r->latency_tracked_errors.emplace_back(rest.substr(0, comma));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return Status::Ok();
}

// What the properties and flags say about the run, read once.
struct RunSettings {
  DriverOptions driver;
  double status_interval_s = 10;
  ReportOptions report;
  // hdrhistogram.fileoutput: YCSB's per-measurement .hdr logs, named
  // <hdrhistogram.output.path><NAME>.hdr.
  bool hdr_file_output = false;
  std::string hdr_output_path;
  // measurement.raw.output_file (empty: stdout).
  std::string raw_output_file;
  // threadcount was above the operation (load: record) count and was cut to it.
  bool threads_capped = false;
};

// YCSB reads target with Integer.parseInt: 100.5 stops it; any target <= 0
// is unthrottled (0 here, with a warning for a negative one).
StatusOr<int64_t> ReadTarget(const ycsb::Properties& props) {
  auto target = props.GetInt("target");
  if (!target.ok())
    return Status::InvalidArgument(std::string(target.status().message()) +
                                   ": YCSB's target is whole operations per second");
  if (*target < 0) {
    std::fprintf(stderr,
                 "wirebench: warning: target=%lld (set at %s): YCSB runs unthrottled for any "
                 "target <= 0; running closed loop (use 0, or omit -target)\n",
                 static_cast<long long>(*target), props.SourceOf("target").c_str());
    return int64_t{0};
  }
  return *target;
}

StatusOr<double> ReadMaxExecutionTime(const ycsb::Properties& props) {
  auto max_time = props.GetDouble("maxexecutiontime");
  if (max_time.ok()) return *max_time;
  // Not a number (nan, inf, text): say what is accepted.
  auto given = props.GetString("maxexecutiontime");
  return Status::InvalidArgument(
      "--seconds (maxexecutiontime) must be 0 (no limit) or a positive number of seconds, got '" +
      (given.ok() ? *given : std::string()) + "' (set at " + props.SourceOf("maxexecutiontime") +
      ")");
}

// What is reported and where: the status interval, the measurement interval
// and type, the percentiles, YCSB's .hdr and raw output files.
Status ReadReportSettings(const ycsb::Properties& props, RunSettings* r) {
  // YCSB reads status.interval with Integer.parseInt, as target.
  auto status_interval = props.GetInt("status.interval");
  if (!status_interval.ok())
    return Status::InvalidArgument(std::string(status_interval.status().message()) +
                                   ": YCSB's status.interval is whole seconds");
  auto interval_kind = props.GetString("measurement.interval");
  if (!interval_kind.ok()) return interval_kind.status();
  if (*interval_kind != "op" && *interval_kind != "intended" && *interval_kind != "both")
    return Status::InvalidArgument(
        "property 'measurement.interval' must be op, intended or both, "
        "got '" +
        *interval_kind + "'");
  auto pct = props.GetString("hdrhistogram.percentiles");
  if (!pct.ok()) return pct.status();
  auto percentiles = hdr::ParseYcsbPercentiles(*pct);
  if (!percentiles.ok()) return percentiles.status();
  r->status_interval_s = double(*status_interval);
  r->report.percentiles = *percentiles;
  r->report.measurement_interval = *interval_kind;
  WB_RETURN_IF_ERROR(ReadMeasurementOptions(props, &r->report));
  r->hdr_file_output = r->report.measurement_type.rfind("hdrhistogram", 0) == 0 &&
                       props.GetYcsbBool("hdrhistogram.fileoutput");
  if (auto path = props.GetString("hdrhistogram.output.path"); path.ok())
    r->hdr_output_path = *path;
  if (auto raw = props.GetString("measurement.raw.output_file"); raw.ok())
    r->raw_output_file = *raw;
  return Status::Ok();
}

// BasicDB's delay(); YCSB delays nothing for a value <= 0.
Status ReadBasicDbDelay(const ycsb::Properties& props, DriverOptions* d) {
  auto delay = props.GetInt("basicdb.simulatedelay");
  if (!delay.ok()) return delay.status();
  if (*delay > INT32_MAX)
    return Status::InvalidArgument("property 'basicdb.simulatedelay' must be a number of "
                                   "milliseconds up to 2147483647 (YCSB reads an int), got " +
                                   std::to_string(*delay));
  d->call_delay_ms = std::max<int64_t>(*delay, 0);
  d->call_delay_random = props.GetYcsbBool("basicdb.randomizedelay");
  return Status::Ok();
}

StatusOr<RunSettings> ReadSettings(const YcsbRunOptions& o, const ycsb::Properties& props,
                                   const ycsb::CoreWorkloadConfig& cfg) {
  RunSettings r;
  auto threads = props.GetInt("threadcount");
  if (!threads.ok()) return threads.status();
  auto target = ReadTarget(props);
  if (!target.ok()) return target.status();
  auto max_time = ReadMaxExecutionTime(props);
  if (!max_time.ok()) return max_time.status();
  WB_RETURN_IF_ERROR(ReadReportSettings(props, &r));
  DriverOptions& d = r.driver;
  d.codec = o.codec;
  d.transport = o.rpc;
  d.transport_client_options = o.transport_client_options;
  d.threads = int(std::clamp<int64_t>(*threads, INT32_MIN, INT32_MAX));
  d.client_io_threads = o.client_io_threads;
  d.connections = o.connections;
  d.pipeline = o.pipeline;
  d.thread_model = o.thread_model == "os" ? ThreadModel::kOs : ThreadModel::kCoroutines;
  d.operations = o.load_phase ? cfg.load_count : cfg.operation_count;
  // YCSB's Client: no more client threads than operations (or records to load).
  if (d.operations > 0 && d.threads > d.operations) {
    d.threads = int(d.operations);
    r.threads_capped = true;
  }
  d.max_seconds = *max_time;
  d.warmup_seconds = o.instructions ? 0 : o.warmup;  // --instructions: a fixed warm-up instead.
  d.target_ops = double(*target);
  d.stall_timeout_s = o.stall_timeout;
  d.binding_times_cleanup = !IsBasicDb(props);
  // The basic binding is YCSB's BasicDB itself: no server, every call
  // answered in this process.
  d.in_process = IsBasicDb(props);
  r.report.no_server = d.in_process;
  if (IsBasicDb(props)) WB_RETURN_IF_ERROR(ReadBasicDbDelay(props, &d));
  // raw and timeseries report every sample; the .hdr logs are cut from them.
  const std::string& type = r.report.measurement_type;
  d.keep_samples = type == "raw" || type == "hdrhistogram+raw" || type == "timeseries" ||
                   r.hdr_file_output;
  return r;
}

// Says once what YCSB would do silently: keys passed through unused, values
// read leniently, insertstart without insertcount.
// A built-in workload (workloada..f, YCSB's standard files) gets no note
// about what YCSB's HBase binding would want of a user's own file.
void PrintNotes(const YcsbRunOptions& o, const ycsb::Properties& props,
                const ycsb::CoreWorkloadConfig& cfg) {
  std::vector<std::string> notes = props.UnknownKeyNotes();
  notes.insert(notes.end(), props.notes().begin(), props.notes().end());
  const bool built_in = std::all_of(o.property_files.begin(), o.property_files.end(),
                                    [](const std::string& f) { return ycsb::IsBuiltInWorkload(f); });
  for (const std::string& n : cfg.notes)
    if (!built_in || n.rfind(ycsb::kColumnFamilyNotSetNote, 0) != 0) notes.push_back(n);
  for (const std::string& n : notes) std::fprintf(stderr, "wirebench: note: %s\n", n.c_str());
}

// The server a run starts: the run's region and server options, its RPC
// layer (the client's), and (the null region) a canned record of the
// workload's shape (fieldcount fields of fieldlength bytes: the maximum,
// for non-constant lengths) unless the command line chose one.
StatusOr<ColocatedServerOptions> ServerOptionsFor(const YcsbRunOptions& o,
                                                  const ycsb::CoreWorkloadConfig& cfg) {
  ColocatedServerOptions server = o.colocated;
  if (server.region.entry == &NullRegionEntry()) {
    if (server.region.settings.Get("--canned-fields").empty())
      server.region.settings.Set("--canned-fields", std::to_string(cfg.field_count));
    if (server.region.settings.Get("--canned-field-length").empty())
      server.region.settings.Set("--canned-field-length", std::to_string(cfg.field_length));
  }
  WB_RETURN_IF_ERROR(CheckRegion(server.region));  // Before the child starts.
  server.rpc = o.rpc;
  return server;
}

// --servers N: N co-located servers as one null cluster on loopback.
Status StartColocatedCluster(const YcsbRunOptions& o, const ColocatedServerOptions& server,
                             DriverOptions* d, LocalServers* local) {
  auto plan = SpawnColocatedCluster(o.servers, o.cluster, server, {}, o.quiet, local);
  if (!plan.ok()) return plan.status();
  d->cluster = std::move(plan).value();
  d->host = d->cluster.servers[0].host;
  d->port = d->cluster.servers[0].port;
  return Status::Ok();
}

// --floor needs a co-located server on this host and a run measured in CPU
// time: the floor is a loopback loop here, over one connection.
Status CheckFloorFlag(const YcsbRunOptions& o, bool in_process) {
  if (!o.floor) return Status::Ok();
  const char* why =
      in_process ? "the basic binding (YCSB's BasicDB) has no server and sends nothing"
      : o.instructions ? "--instructions counts instructions under Valgrind, the floor is CPU time"
      : !o.server.empty() || !o.cluster.servers.empty()
          ? "the floor is a loopback loop on this host, to set beside a co-located server"
      : o.servers > 1 ? "a null cluster spreads its calls over several connections, the floor "
                        "loop is one"
      : o.parts > 1 ? "--mpi's ranks run on several hosts, each with its own floor"
                    : nullptr;
  if (why == nullptr) return Status::Ok();
  return Status::InvalidArgument(std::string("--floor: ") + why +
                                 ": leave out --floor (or run `wirebench floor` by itself)");
}

// --floor: `wirebench floor` three times right after the run, over the
// run's own request and reply bytes per operation, with its logical clients'
// operations in flight as requests outstanding, pinned as the run was; the
// median is kept (compare's floor row, for one run).
void MeasureRunFloor(const YcsbRunOptions& o, const DriverOptions& d, int batch, RunResult* r) {
  const RunCosts c = ComputeCosts(*r);
  const double sent = c.client.wire_bytes_out, got = c.client.wire_bytes_in;
  if (r->operations == 0 || !(sent >= 4) || !(got >= 4)) {
    r->floor_error = "the run measured no operation's bytes";
    return;
  }
  if (!o.quiet) std::fputs("wirebench: measuring the floor for the run's bytes\n", stderr);
  FloorOptions f;
  f.depth = d.threads * std::max(1, d.pipeline);
  f.seconds = d.max_seconds > 0 ? std::min(1.0, std::max(0.5, d.max_seconds / 2)) : 1.0;
  f.warmup_seconds = 0.5;
  f.request_bytes = size_t(sent * batch + 0.5) - 4;
  f.reply_bytes = size_t(got * batch + 0.5) - 4;
  f.client_cpus = o.client_cpus;
  f.server_cpus = o.colocated.cpus;
  auto floor = MeasureFloor(f, 3, batch);
  if (floor.ok()) {
    r->floor = *floor;
  } else {
    r->floor_error = std::string(floor.status().message());
  }
}

// Points `d` at --server or --cluster, or starts the co-located server (or
// --servers N of them, a null cluster) and points `d` at it.
Status ChooseServer(const YcsbRunOptions& o, const ycsb::CoreWorkloadConfig& cfg,
                    DriverOptions* d, LocalServers* local) {
  if (!o.cluster.servers.empty()) {
    auto plan = ClusterPlanFromFlags(o.cluster);
    if (!plan.ok()) return plan.status();
    d->cluster = std::move(plan).value();
    d->host = d->cluster.servers[0].host;
    d->port = d->cluster.servers[0].port;
    return Status::Ok();
  }
  if (!o.server.empty()) return ParseHostPort(o.server, &d->host, &d->port);
  auto options = ServerOptionsFor(o, cfg);
  if (!options.ok()) return options.status();
  const ColocatedServerOptions& server = *options;
  if (o.servers > 1) return StartColocatedCluster(o, server, d, local);
  // SelfExecutable(): under Valgrind /proc/self/exe is Valgrind's own binary.
  auto spawned =
      LocalServer::Spawn(ChildServerArgs(server, o.quiet), server.cpus, SelfExecutable());
  if (!spawned.ok()) return spawned.status();
  local->push_back(std::move(spawned).value());
  d->host = local->front()->host();
  d->port = local->front()->port();
  return Status::Ok();
}

Status StartHlog(const YcsbRunOptions& o, std::ostream* out,
                 std::unique_ptr<hdr::HistogramLogWriter>* hlog) {
  // --instructions: no interval snapshots, whose number depends on time.
  if (o.hlog_out.empty() || o.instructions) return Status::Ok();
  *hlog = std::make_unique<hdr::HistogramLogWriter>(out);
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  WB_RETURN_IF_ERROR((*hlog)->WriteComment("[wirebench " +
                                           std::string(o.load_phase ? "load" : "run") + ", codec " +
                                           std::string(o.codec->name()) + "]"));
  return (*hlog)->WriteHeader(now_ms, now_ms);
}

// The region a server runs, from its Stats: the null region names itself,
// the others each write a section under their name (a wal region holds a
// memstore too: its own section wins).
std::string ServerRegionName(const nlohmann::json& stats) {
  if (!stats.is_object()) return "unknown (the server's Stats were not read)";
  if (stats.contains("region") && stats["region"].is_object() &&
      stats["region"].value("name", "") != "")
    return stats["region"]["name"].get<std::string>();
  std::string found;
  for (const RegionEntry* r : Regions())
    if (stats.contains(std::string(r->name()))) found = std::string(r->name());
  return found.empty() ? "unknown (the server's Stats do not name it)" : found;
}

nlohmann::json ConfigJson(const YcsbRunOptions& o, const ycsb::Properties& props,
                          const ycsb::CoreWorkloadConfig& cfg, const DriverOptions& d,
                          bool colocated, const nlohmann::json& server_stats) {
  nlohmann::json c;
  for (auto& [k, v] : props.Explicit()) c["properties"][k] = v;
  c["phase"] = o.load_phase ? "load" : "run";
  c["codec"] = std::string(o.codec->name());
  c["rpc"] = d.transport->name();
  c["threads"] = d.threads;
  c["client_io_threads"] = d.client_io_threads;
  c["connections"] = d.connections;
  c["batch"] = cfg.batch_ops;
  c["pipeline"] = d.pipeline;
  c["thread_model"] = o.thread_model;
  c["target_ops"] = d.target_ops;
  c["warmup_s"] = d.warmup_seconds;
  c["seed"] = cfg.seed;
  c["server"] = d.in_process ? "none (basic binding: YCSB's BasicDB, in-process)"
                : colocated   ? "co-located"
                              : o.server;
  c["server_io_threads"] = o.colocated.io_threads;
  c["handlers"] = o.colocated.handlers;
  c["region"] = std::string(o.colocated.region.entry->name());
  c["null_reads"] = o.colocated.region.settings.Get("--null-reads");
  if (!colocated && !d.in_process) {  // --server: what that server says it runs.
    c["region"] = ServerRegionName(server_stats);
    const nlohmann::json srv = server_stats.is_object() ? server_stats.value("server", nlohmann::json::object()) : nlohmann::json::object();
    c["server_io_threads"] = srv.value("io_threads", 0);
    c["handlers"] = srv.value("handlers", 0);
    const std::string region = c["region"];
    c["null_reads"] = region == "null" && server_stats.contains("region")
                          ? server_stats["region"].value("reads", std::string("unknown"))
                      : region.rfind("unknown", 0) == 0 ? std::string("unknown")
                                                        : std::string("n/a (not the null region)");
  }
  c["fieldcount"] = cfg.field_count;
  c["fieldlength"] = cfg.field_length;
  c["label"] = o.label;
  return c;
}

// hdrhistogram.fileoutput: one HdrHistogram interval log per HdrHistogram
// measurement, as OneMeasurementHdrHistogram writes it: "[Logging for:
// NAME]", the header, then an interval of microsecond latencies per status
// line (-s, every status.interval seconds) or, without -s, one for the run.
Status WriteHdrLogs(const YcsbOutcome& out, const RunSettings& s, bool status) {
  for (const YcsbSeries& series : YcsbHdrSeries(out.result, s.report)) {
    std::ostringstream text;
    hdr::HistogramLogWriter log(&text);
    const int64_t base_ms = series.points.empty() ? 0 : series.points.front().ms;
    WB_RETURN_IF_ERROR(log.WriteComment("[Logging for: " + series.name + "]"));
    WB_RETURN_IF_ERROR(log.WriteHeader(base_ms, base_ms));
    const int64_t step_ms =
        status && s.status_interval_s > 0 ? std::max<int64_t>(1, int64_t(s.status_interval_s * 1000))
                                          : INT64_MAX;
    size_t i = 0;
    for (int64_t from = base_ms; i < series.points.size(); from += step_ms) {
      hdr::Histogram h;
      int64_t last_ms = from;
      for (; i < series.points.size() && series.points[i].ms - from < step_ms; ++i) {
        h.Record(series.points[i].us);
        last_ms = series.points[i].ms;
      }
      const double length_ms = step_ms == INT64_MAX ? double(last_ms - from) : double(step_ms);
      WB_RETURN_IF_ERROR(
          log.WriteInterval("", double(from - base_ms) / 1000.0, length_ms / 1000.0, h));
      if (step_ms == INT64_MAX) break;
    }
    WB_RETURN_IF_ERROR(log.Flush());
    WB_RETURN_IF_ERROR(WriteFileAtomically(s.hdr_output_path + series.name + ".hdr", text.str()));
  }
  return Status::Ok();
}

// measurementtype raw / hdrhistogram+raw: OneMeasurementRaw's notice (on
// stdout, as YCSB prints it) and its data lines, on stdout before the report
// or appended to measurement.raw.output_file.
Status WriteRawData(const YcsbRunOptions& o, const YcsbOutcome& out, const RunSettings& s) {
  const std::vector<std::string> names = YcsbRawMeasurementNames(out.result, s.report);
  if (names.empty()) return Status::Ok();
  const std::string data = YcsbRawData(out.result, s.report);
  if (!s.raw_output_file.empty()) {
    if (!o.quiet)
      for (size_t i = 0; i < names.size(); ++i)
        std::printf("Raw data measurement: will output to result file: %s\n",
                    s.raw_output_file.c_str());
    std::FILE* f = std::fopen(s.raw_output_file.c_str(), "a");  // YCSB appends.
    if (f == nullptr)
      return Status::IoError("measurement.raw.output_file: cannot open '" + s.raw_output_file +
                             "' for appending: " + std::strerror(errno));
    const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
    if (std::fclose(f) != 0 || !ok)
      return Status::IoError("measurement.raw.output_file: cannot write '" + s.raw_output_file +
                             "': " + std::strerror(errno));
    return Status::Ok();
  }
  if (o.quiet) return Status::Ok();
  for (size_t i = 0; i < names.size(); ++i)
    std::fputs("Raw data measurement: will output to stdout.\n", stdout);
  std::fputs(data.c_str(), stdout);
  return Status::Ok();
}

// The JSON exporters write numbers only (as YCSB's exporter interface
// does): the text measurements they leave out ("unavailable (...)") are
// named on stderr with their reasons, once per distinct reason.
void NoteLeftOut(const std::vector<Measurement>& left_out) {
  std::vector<std::pair<std::string, std::string>> by_reason;  // (value, names), in order.
  for (const Measurement& m : left_out) {
    auto it = std::find_if(by_reason.begin(), by_reason.end(),
                           [&](const auto& r) { return r.first == m.value; });
    if (it == by_reason.end()) it = by_reason.insert(by_reason.end(), {m.value, ""});
    // Appended piece by piece: GCC 12's -O3 -Wrestrict false positive on "literal" + string&&.
    if (!it->second.empty()) it->second += ", ";
    it->second.append("[").append(m.section).append("] ").append(m.name);
  }
  std::string text;
  for (const auto& [value, names] : by_reason) {
    if (!text.empty()) text += "; ";
    text.append(names).append(": ").append(value);
  }
  std::fprintf(stderr,
               "wirebench: note: the JSON export holds numbers only, as YCSB's exporters write "
               "them; left out: %s\n",
               text.c_str());
}

// Every file is written atomically, partial results included. As YCSB's
// Client: the exporter's output goes to exportfile when set, else to stdout
// (with a JSON exporter and no exportfile, stdout is the JSON alone).
Status WriteOutputs(const YcsbRunOptions& o, const ycsb::Properties& props, const YcsbOutcome& out,
                    const ReportOptions& report,
                    hdr::HistogramLogWriter* hlog, const std::ostringstream& hlog_text) {
  const std::string exporter =
      props.GetString("exporter").ok() ? *props.GetString("exporter") : std::string();
  auto exportfile = props.GetString("exportfile");
  const bool json = exporter == "site.ycsb.measurements.exporter.JSONMeasurementsExporter" ||
                    exporter == "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter" ||
                    exporter == "com.yahoo.ycsb.measurements.exporter.JSONMeasurementsExporter" ||
                    exporter == "com.yahoo.ycsb.measurements.exporter.JSONArrayMeasurementsExporter";
  if (!json && exporter.find("TextMeasurementsExporter") == std::string::npos && !o.quiet)
    std::fprintf(stderr, "Could not find exporter %s, will use default text reporter.\n",
                 exporter.c_str());
  std::vector<Measurement> left_out;
  const std::string doc =
      json ? YcsbJsonExport(out.result, out.costs, report,
                            exporter.find("JSONArray") != std::string::npos, &left_out)
           : out.text;
  if (!left_out.empty() && !o.quiet) NoteLeftOut(left_out);
  if (exportfile.ok()) {
    if (!o.quiet) std::fputs(out.text.c_str(), stdout);  // wirebench's habit: the text too.
    WB_RETURN_IF_ERROR(WriteFileAtomically(*exportfile, doc));
  } else if (!o.quiet) {
    std::fputs(doc.c_str(), stdout);
  }
  std::fflush(stdout);
  if (!o.json_out.empty()) WB_RETURN_IF_ERROR(WriteFileAtomically(o.json_out, out.json.dump(2)));
  if (hlog) {
    (void)hlog->Flush();
    WB_RETURN_IF_ERROR(WriteFileAtomically(o.hlog_out, hlog_text.str()));
  }
  return Status::Ok();
}

// RunLoad with SIGINT/SIGTERM turned into a stop request. The request is
// left set for the caller to see (compare stops its matrix on it).
// With --instructions, a fixed number of unmeasured operations first.
StatusOr<RunResult> DriveWithSignals(const YcsbRunOptions& o, const DriverOptions& d,
                                     Workload* workload) {
  StopOnSignal stop_on_signal;
  if (o.instructions) {
    std::fprintf(stderr, "instructions: codec %s: %lld warm-up operations, then %lld measured\n",
                 std::string(o.codec->name()).c_str(),
                 static_cast<long long>(o.instruction_warmup_ops),
                 static_cast<long long>(d.operations));
    WB_RETURN_IF_ERROR(RunInstructionWarmup(d, workload, o.instruction_warmup_ops));
    DriverOptions measured = d;
    measured.histograms_up_front = true;  // Its warm-up was the run above.
    return RunLoad(measured, workload);
  }
  return RunLoad(d, workload);
}

// The lines YCSB's Client writes to stderr as a run starts (scripts that
// wait for "Starting test." find it), with wirebench named as the client.
void PrintYcsbStartLines(const DriverOptions& d) {
  std::fprintf(stderr, "YCSB Client wirebench (git %s)\n\nLoading workload...\nStarting test.\n",
               GitRevision());
  if (d.max_seconds > 0)  // YCSB's is whole seconds; wirebench's --seconds may have a fraction.
    std::fprintf(stderr, "Maximum execution time specified as: %s secs\n",
                 std::floor(d.max_seconds) == d.max_seconds
                     ? std::to_string(static_cast<long long>(d.max_seconds)).c_str()
                     : hdr::JavaDoubleToString(d.max_seconds).c_str());
}

// Why the server's scans came back empty, from its closing Stats reply: the
// null region's rows (none unless it cans reads), an empty table, or rows
// that the scans' ranges missed.
std::string WhyScansWereEmpty(const nlohmann::json& server, const std::string& table) {
  if (server.is_null() || !server.is_object())
    return "the server's Stats were not read, so the cause is not known (an empty table, a "
           "range past the last row, or the null region, which answers every Scan with no rows)";
  const nlohmann::json* region = server.contains("region") ? &server["region"] : nullptr;
  if (region != nullptr && region->is_object() && region->value("name", "") == "null")
    return "the server runs the null region, which answers every Scan with no rows: load a "
           "memstore server (wirebench server --region memstore) for scans that return records";
  if (server.contains("memstore") && server["memstore"].is_object()) {
    const nlohmann::json& tables = server["memstore"]["tables"];
    const uint64_t rows = tables.is_object() && tables.contains(table) && tables[table].is_number()
                              ? tables[table].get<uint64_t>()
                              : 0;
    if (rows == 0)
      return "table '" + table + "' on the memstore server holds no rows: load it first "
             "(wirebench load ... with the same -p table and recordcount)";
    return "table '" + table + "' holds " + std::to_string(rows) +
           " rows, and these scans' ranges held none of them: the keys scanned lie past the "
           "rows loaded (check recordcount, insertstart and insertorder against the load)";
  }
  return "the server's region does not say what it holds (an empty table or a range past its "
         "rows)";
}

// SCAN-LATENCY-PER-RECORD has no sample for a scan that returned no
// records (YCSB master divides by zero there and the run dies): say how
// many, and why scans returned none.
void NoteEmptyScans(const RunResult& r, bool in_process, const std::string& table) {
  const uint64_t scans = r.ops[size_t(OpType::kScan)].count();
  const uint64_t per_record =
      uint64_t(r.ops[size_t(OpType::kScanPerRecord)].latency.total_count());
  if (scans <= per_record) return;
  std::fprintf(stderr,
               "wirebench: note: %llu of %llu SCANs returned no records, so "
               "[SCAN-LATENCY-PER-RECORD] has no sample for them (there is no latency per record "
               "of none; YCSB master would stop the run with a division by zero); %s\n",
               static_cast<unsigned long long>(scans - per_record),
               static_cast<unsigned long long>(scans),
               in_process ? "the basic binding's scans return no records, as YCSB's BasicDB's"
                          : WhyScansWereEmpty(r.server_after, table).c_str());
}

}  // namespace

// Where the client runs and which server it drives: none for the basic
// binding, else --server or a co-located child (ChooseServer); then the
// client pinned to --client-cpus.
Status PlaceClientAndServer(const YcsbRunOptions& o, const ycsb::Properties& props,
                            const ycsb::CoreWorkloadConfig& cfg, DriverOptions* d,
                            LocalServers* local) {
  // (--mpi: rank 0 passes its "server" to the other ranks, in-process here.)
  if (d->in_process && !o.server.empty() && o.parts <= 1)
    return Status::InvalidArgument(
        "--server " + o.server +
        ": the basic binding (YCSB's BasicDB, db=" + *props.GetString("db") +
        ") has no server: it answers every call in the client's own process; leave out "
        "--server, or give an HBase binding (e.g. `wirebench run hbase2 ...`) to drive a server");
  if (!d->in_process) WB_RETURN_IF_ERROR(ChooseServer(o, cfg, d, local));
  if (o.on_server) o.on_server(d->in_process ? "in-process" : d->host, d->in_process ? 0 : d->port);
  if (!o.client_cpus.empty()) {
    auto cpus = ParseCpuList(o.client_cpus);
    if (!cpus.ok()) return cpus.status();
    WB_RETURN_IF_ERROR(PinThisThread(*cpus));  // Client threads inherit it.
  }
  return Status::Ok();
}

// The line on stderr that says what runs against what.
void PrintRunLine(const YcsbRunOptions& o, const DriverOptions& d, uint64_t seed, bool colocated) {
  if (o.quiet) return;
  const std::string pipeline =
      d.pipeline > 1 ? " pipeline=" + std::to_string(d.pipeline) : std::string();
  if (d.in_process)
    std::fprintf(stderr,
                 "wirebench %s: threads=%d%s seed=%llu server=none (the basic binding: YCSB's "
                 "BasicDB, every call answered in this process)\n",
                 o.load_phase ? "load" : "run", d.threads, pipeline.c_str(),
                 static_cast<unsigned long long>(seed));
  else
    std::fprintf(stderr, "wirebench %s: codec=%s rpc=%s threads=%d%s seed=%llu server=%s:%u%s\n",
                 o.load_phase ? "load" : "run", std::string(o.codec->name()).c_str(),
                 std::string(d.transport->name()).c_str(), d.threads, pipeline.c_str(),
                 static_cast<unsigned long long>(seed), d.host.c_str(), unsigned(d.port),
                 colocated ? " (co-located child process)" : "");
}

// The basic binding: BasicDB's basicdb.verbose (default true) and
// basicdb.count, on stdout.
void SetUpBasicDbOutput(const YcsbRunOptions& o, const ycsb::Properties& props,
                        const ycsb::CoreWorkloadConfig& cfg, BasicDbOutput* basic) {
  const bool basic_output = IsBasicDb(props) && o.write_outputs && !o.quiet;
  basic->verbose = basic_output && props.GetYcsbBool("basicdb.verbose");
  basic->count = basic_output && props.GetYcsbBool("basicdb.count");
  if (basic->verbose || basic->count) {
    basic->table = cfg.table;
    basic->properties_block = ycsb::BasicDbPropertiesBlock(props.Explicit());
  }
}

// With --instructions: callgrind's dumps of both processes, read and
// attributed (the server's missing when its closing Stats call failed).
void CollectRunInstructions(const LocalServer* local, RunResult* result) {
  std::string server_missing;
  if (result->server_after.is_null())
    server_missing = !result->server_stats_error.empty() ? result->server_stats_error
                     : !result->error.ok()               ? result->error.ToString()
                                                         : "no closing Stats reply";
  result->instructions = CollectInstructions(InstructionsModeDir(), local ? int(local->pid()) : 0,
                                             result->operations, server_missing);
}

// A partial run whose co-located server (or a cluster's) died says which
// and how, before the error the client saw.
void NameDeadServers(const LocalServers& local, RunResult* result) {
  for (size_t k = 0; k < local.size(); ++k) {
    // A cluster server its clients lost: given a second to be seen dead,
    // since its connections close before its process can be reaped.
    const bool lost =
        k < result->cluster_servers.size() && result->cluster_servers[k].client_failures > 0;
    const std::string died =
        local[k]->DeathNote(lost ? std::chrono::milliseconds(1000) : std::chrono::milliseconds(0));
    if (died.empty()) continue;
    const std::string which = local.size() > 1 ? "cluster server " + std::to_string(k) + " (" +
                                                     local[k]->host() + ":" +
                                                     std::to_string(local[k]->port()) + "): "
                                               : std::string();
    result->error = Status::Unavailable(which + died + ": " + result->error.ToString());
  }
}

StatusOr<YcsbOutcome> RunYcsb(const YcsbRunOptions& o) {
  WB_RETURN_IF_ERROR(CheckFlags(o));
  ycsb::Properties props;
  WB_RETURN_IF_ERROR(LoadProperties(o, &props));
  WB_RETURN_IF_ERROR(ShareAmongParts(o, &props));
  auto core = ycsb::CoreWorkload::Create(props);
  if (!core.ok()) return core.status();
  const ycsb::CoreWorkloadConfig& cfg = (*core)->config();
  auto settings = ReadSettings(o, props, cfg);
  if (!settings.ok()) return settings.status();
  if (!o.quiet) PrintNotes(o, props, cfg);
  if (settings->threads_capped && !o.quiet)  // YCSB's words, on stdout as YCSB prints them.
    std::fputs("Warning: the threadcount is bigger than recordcount, the threadcount will be "
               "recordcount!\n",
               stdout);
  DriverOptions& d = settings->driver;
  WB_RETURN_IF_ERROR(ValidateDriverOptions(d));  // Before a child server is started.
  WB_RETURN_IF_ERROR(CheckFloorFlag(o, d.in_process));

  d.fetch_server_stats = o.fetch_server_stats;
  d.on_ready = o.on_ready;
  d.on_start = o.on_start;
  d.on_end = o.on_end;
  LocalServers local;  // Co-located: the server, or a cluster's servers in order.
  WB_RETURN_IF_ERROR(PlaceClientAndServer(o, props, cfg, &d, &local));
  std::ostringstream hlog_text;
  std::unique_ptr<hdr::HistogramLogWriter> hlog;
  WB_RETURN_IF_ERROR(StartHlog(o, &hlog_text, &hlog));
  // -s and -l, or YCSB's status and label properties (-p status=true).
  const bool status = o.status || props.GetYcsbBool("status");
  auto label_property = props.GetString("label");
  const std::string label =
      !o.label.empty() || !label_property.ok() ? o.label : *label_property;
  StatusLine status_line(status && !o.instructions, settings->status_interval_s, label,
                         d.operations, hlog.get(), settings->report.measurement_type);
  d.status_interval_s = status_line.snapshot_interval_s();
  if (d.status_interval_s > 0)
    d.on_status = [&](double elapsed, const StatusSnapshot& s) {
      status_line.OnSnapshot(elapsed, s);
    };
  PrintRunLine(o, d, cfg.seed, !local.empty());
  BasicDbOutput basic;
  SetUpBasicDbOutput(o, props, cfg, &basic);
  YcsbWorkload workload(core->get(), o.load_phase ? YcsbPhase::kLoad : YcsbPhase::kRun,
                        basic.verbose || basic.count ? &basic : nullptr);
  if (!o.quiet) PrintYcsbStartLines(d);
  status_line.Start();
  auto run = DriveWithSignals(o, d, &workload);
  if (!run.ok()) return run.status();
  // YCSB's TerminatorThread says so when maxexecutiontime ends the run.
  if (!o.quiet && d.max_seconds > 0 && !run->partial && run->runtime_s >= 0.99 * d.max_seconds)
    std::fputs("Maximum time elapsed. Requesting stop for the workload.\n"
               "Stop requested for workload. Now Joining!\n",
               stderr);

  YcsbOutcome out;
  out.result = std::move(run).value();
  if (o.instructions) CollectRunInstructions(local.empty() ? nullptr : local[0].get(), &out.result);
  if (out.result.partial) NameDeadServers(local, &out.result);
  if (d.in_process && out.result.server_stats_error.empty())
    out.result.server_stats_error = "no server: the basic binding is YCSB's BasicDB";
  // Before the server stops: the floor runs while the host is as the run left it.
  if (o.floor && !out.result.partial) MeasureRunFloor(o, d, std::max<int64_t>(1, cfg.batch_ops), &out.result);
  out.costs = ComputeCosts(out.result);
  out.text = FormatTextReport(out.result, out.costs, settings->report);
  out.json["wirebench_result_version"] = kResultVersion;
  out.json["config"] = ConfigJson(o, props, cfg, d, !local.empty(), out.result.server_after);
  out.json["environment"] = EnvironmentJson();
  out.json["results"] = ResultToJson(out.result, out.costs, settings->report);
  for (auto& server : local) server->Stop();
  if (!o.write_outputs) return out;
  if (basic.count) basic.Print(basic.Uniques());  // BasicDB's last cleanup, before the export.
  WB_RETURN_IF_ERROR(WriteRawData(o, out, *settings));
  WB_RETURN_IF_ERROR(WriteOutputs(o, props, out, settings->report, hlog.get(), hlog_text));
  if (settings->hdr_file_output) WB_RETURN_IF_ERROR(WriteHdrLogs(out, *settings, status));
  if (!o.quiet) NoteEmptyScans(out.result, d.in_process, cfg.table);
  return out;
}

Status CheckClusterOptions(const YcsbRunOptions& o) { return CheckClusterFlags(o); }

Status CheckFloorOptions(const YcsbRunOptions& o) { return CheckFloorFlag(o, false); }

StatusOr<std::unique_ptr<LocalServer>> StartClusterMember(const YcsbRunOptions& o,
                                                          const ClusterFlags& flags, int index,
                                                          const std::string& bind) {
  ycsb::Properties props;
  WB_RETURN_IF_ERROR(LoadProperties(o, &props));
  auto cfg = ycsb::CoreWorkloadConfig::FromProperties(props);
  if (!cfg.ok()) return cfg.status();
  auto server = ServerOptionsFor(o, *cfg);
  if (!server.ok()) return server.status();
  auto plan = ClusterPlanFromFlags(flags);
  if (!plan.ok()) return plan.status();
  std::vector<std::string> args = ClusterMemberArgs(*server, flags, *plan, index, /*quiet=*/true);
  args.insert(args.end(), {"--bind", bind});
  return LocalServer::Spawn(args, server->cpus, SelfExecutable());
}

}  // namespace wirebench
