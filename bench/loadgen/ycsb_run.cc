#include "bench/loadgen/ycsb_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

#include "bench/hdr/histogram_log.h"
#include "bench/hdr/ycsb_summary.h"
#include "bench/loadgen/host_port.h"
#include "bench/loadgen/instructions.h"
#include "bench/loadgen/local_server.h"
#include "bench/loadgen/status_line.h"
#include "bench/loadgen/stop_on_signal.h"
#include "bench/loadgen/ycsb_stream.h"
#include "bench/ycsb/core_workload.h"
#include "bench/ycsb/properties.h"

namespace wirebench {

namespace {

// Checks what only the command line can get wrong: a flag value that the
// property it sets would read with another meaning (target=0 is YCSB's
// "unthrottled", so -target 0 would silently run closed loop). Every other
// range is checked once, by ValidateDriverOptions.
Status CheckFlags(const YcsbRunOptions& o) {
  if (o.target && !(std::isfinite(*o.target) && *o.target > 0))
    return Status::InvalidArgument(
        "-target must be a positive number of operations per second (omit it for closed loop), "
        "got " +
        hdr::JavaDoubleToString(*o.target));
  if (o.thread_model != "coroutines" && o.thread_model != "os")
    return Status::InvalidArgument("--thread-model must be 'coroutines' or 'os', got '" +
                                   o.thread_model + "'");
  return Status::Ok();
}

Status LoadProperties(const YcsbRunOptions& o, ycsb::Properties* props) {
  props->RegisterKey({"wirebench.codec", std::nullopt, "codec used by this run (set by --codec)"});
  WB_RETURN_IF_ERROR(props->Load(o.property_files, o.properties));
  if (o.threads) props->Set("threadcount", std::to_string(*o.threads), "-threads");
  if (o.target) props->Set("target", hdr::JavaDoubleToString(*o.target), "-target");
  if (o.ops) props->Set("operationcount", std::to_string(*o.ops), "--ops");
  if (o.seconds) props->Set("maxexecutiontime", hdr::JavaDoubleToString(*o.seconds), "--seconds");
  // "--seconds 10" means a 10 s run: the workload file's operationcount (1000
  // in YCSB's files) does not cut it short unless -p operationcount or --ops says so.
  const bool ops_given = o.ops || std::any_of(o.properties.begin(), o.properties.end(),
                                              [](const std::string& p) {
                                                return p.rfind("operationcount=", 0) == 0;
                                              });
  if (o.seconds && !ops_given && !o.load_phase)
    props->Set("operationcount", "0", "--seconds without --ops");
  props->Set("wirebench.codec", o.codec, "--codec");
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

// What the properties and flags say about the run, read once.
struct RunSettings {
  DriverOptions driver;
  double status_interval_s = 10;
  ReportOptions report;
};

StatusOr<RunSettings> ReadSettings(const YcsbRunOptions& o, const ycsb::Properties& props,
                                   const ycsb::CoreWorkloadConfig& cfg) {
  RunSettings r;
  auto threads = props.GetInt("threadcount");
  if (!threads.ok()) return threads.status();
  auto target = props.GetDouble("target");
  if (!target.ok()) return target.status();
  auto max_time = props.GetDouble("maxexecutiontime");
  if (!max_time.ok()) return max_time.status();
  auto status_interval = props.GetDouble("status.interval");
  if (!status_interval.ok()) return status_interval.status();
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
  r.status_interval_s = *status_interval;
  r.report.percentiles = *percentiles;
  r.report.measurement_interval = *interval_kind;
  DriverOptions& d = r.driver;
  d.codec = o.codec;
  auto rpc = ParseRpcKind(o.rpc);
  if (!rpc.ok()) return rpc.status();
  d.rpc = *rpc;
  d.grpc_cq_threads = o.grpc_cq_threads;
  d.threads = int(std::clamp<int64_t>(*threads, INT32_MIN, INT32_MAX));
  d.client_io_threads = o.client_io_threads;
  d.connections = o.connections;
  d.thread_model = o.thread_model == "os" ? ThreadModel::kOs : ThreadModel::kCoroutines;
  d.operations = o.load_phase ? cfg.insert_count : cfg.operation_count;
  d.max_seconds = *max_time;
  d.warmup_seconds = o.instructions ? 0 : o.warmup;  // --instructions: a fixed warm-up instead.
  d.target_ops = *target;
  d.stall_timeout_s = o.stall_timeout;
  return r;
}

// Points `d` at --server, or starts the co-located server and points `d` at it.
Status ChooseServer(const YcsbRunOptions& o, DriverOptions* d,
                    std::unique_ptr<LocalServer>* local) {
  if (!o.server.empty()) return ParseHostPort(o.server, &d->host, &d->port);
  // SelfExecutable(): under Valgrind /proc/self/exe is Valgrind's own binary.
  ColocatedServerOptions server = o.colocated;
  server.rpc = std::string(RpcKindName(d->rpc));  // The same RPC layer as the client.
  auto spawned =
      LocalServer::Spawn(ChildServerArgs(server, o.quiet), server.cpus, SelfExecutable());
  if (!spawned.ok()) return spawned.status();
  *local = std::move(spawned).value();
  d->host = (*local)->host();
  d->port = (*local)->port();
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
  WB_RETURN_IF_ERROR((*hlog)->WriteComment(
      "[wirebench " + std::string(o.load_phase ? "load" : "run") + ", codec " + o.codec + "]"));
  return (*hlog)->WriteHeader(now_ms, now_ms);
}

nlohmann::json ConfigJson(const YcsbRunOptions& o, const ycsb::Properties& props,
                          const DriverOptions& d, uint64_t seed, bool colocated) {
  nlohmann::json c;
  for (auto& [k, v] : props.Explicit()) c["properties"][k] = v;
  c["phase"] = o.load_phase ? "load" : "run";
  c["codec"] = o.codec;
  c["rpc"] = RpcKindName(d.rpc);
  c["threads"] = d.threads;
  c["client_io_threads"] = d.client_io_threads;
  c["connections"] = d.connections;
  c["thread_model"] = o.thread_model;
  c["target_ops"] = d.target_ops;
  c["warmup_s"] = d.warmup_seconds;
  c["seed"] = seed;
  c["server"] = colocated ? "co-located" : o.server;
  c["server_io_threads"] = o.colocated.io_threads;
  c["handlers"] = o.colocated.handlers;
  c["region"] = o.colocated.region.name;
  c["null_reads"] = o.colocated.region.null_reads;
  c["label"] = o.label;
  return c;
}

// Every file is written atomically, partial results included.
Status WriteOutputs(const YcsbRunOptions& o, const ycsb::Properties& props, const YcsbOutcome& out,
                    const ReportOptions& report,
                    hdr::HistogramLogWriter* hlog, const std::ostringstream& hlog_text) {
  if (!o.quiet) std::fputs(out.text.c_str(), stdout);
  std::fflush(stdout);
  auto exporter = props.GetString("exporter");
  auto exportfile = props.GetString("exportfile");
  if (exporter.ok() && exporter->find("JSON") != std::string::npos) {
    std::string doc = YcsbJsonExport(out.result, out.costs, report,
                                     exporter->find("Array") != std::string::npos);
    if (exportfile.ok()) {
      WB_RETURN_IF_ERROR(WriteFileAtomically(*exportfile, doc));
    } else {
      std::fputs(doc.c_str(), stdout);
    }
  } else if (exportfile.ok()) {
    WB_RETURN_IF_ERROR(WriteFileAtomically(*exportfile, out.text));
  }
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
                 o.codec.c_str(), static_cast<long long>(o.instruction_warmup_ops),
                 static_cast<long long>(d.operations));
    WB_RETURN_IF_ERROR(RunInstructionWarmup(d, workload, o.instruction_warmup_ops));
  }
  return RunLoad(d, workload);
}

}  // namespace

StatusOr<YcsbOutcome> RunYcsb(const YcsbRunOptions& o) {
  WB_RETURN_IF_ERROR(CheckFlags(o));
  ycsb::Properties props;
  WB_RETURN_IF_ERROR(LoadProperties(o, &props));
  auto core = ycsb::CoreWorkload::Create(props);
  if (!core.ok()) return core.status();
  const ycsb::CoreWorkloadConfig& cfg = (*core)->config();
  auto settings = ReadSettings(o, props, cfg);
  if (!settings.ok()) return settings.status();
  DriverOptions& d = settings->driver;
  WB_RETURN_IF_ERROR(ValidateDriverOptions(d));  // Before a child server is started.

  std::unique_ptr<LocalServer> local;
  WB_RETURN_IF_ERROR(ChooseServer(o, &d, &local));
  if (!o.client_cpus.empty()) {
    auto cpus = ParseCpuList(o.client_cpus);
    if (!cpus.ok()) return cpus.status();
    WB_RETURN_IF_ERROR(PinThisThread(*cpus));  // Client threads inherit it.
  }
  std::ostringstream hlog_text;
  std::unique_ptr<hdr::HistogramLogWriter> hlog;
  WB_RETURN_IF_ERROR(StartHlog(o, &hlog_text, &hlog));
  StatusLine status_line(o.status && !o.instructions, settings->status_interval_s, o.label, hlog.get());
  d.status_interval_s = status_line.snapshot_interval_s();
  if (d.status_interval_s > 0)
    d.on_status = [&](double elapsed, const StatusSnapshot& s) {
      status_line.OnSnapshot(elapsed, s);
    };
  if (!o.quiet)
    std::fprintf(stderr, "wirebench %s: codec=%s rpc=%s threads=%d seed=%llu server=%s:%u%s\n",
                 o.load_phase ? "load" : "run", o.codec.c_str(),
                 std::string(RpcKindName(d.rpc)).c_str(), d.threads,
                 static_cast<unsigned long long>(cfg.seed), d.host.c_str(), unsigned(d.port),
                 local ? " (co-located child process)" : "");

  YcsbWorkload workload(core->get(), o.load_phase ? YcsbPhase::kLoad : YcsbPhase::kRun);
  auto run = DriveWithSignals(o, d, &workload);
  if (!run.ok()) return run.status();

  YcsbOutcome out;
  out.result = std::move(run).value();
  if (o.instructions) {  // Read and attribute callgrind's dumps of both processes.
    std::string server_missing;
    if (out.result.server_after.is_null())
      server_missing = !out.result.server_stats_error.empty() ? out.result.server_stats_error
                       : !out.result.error.ok()               ? out.result.error.ToString()
                                                              : "no closing Stats reply";
    out.result.instructions =
        CollectInstructions(InstructionsModeDir(), local ? int(local->pid()) : 0,
                            out.result.operations, server_missing);
  }
  if (out.result.partial && local && !local->Alive())
    out.result.error =
        Status::Unavailable("the co-located server process died: " + out.result.error.ToString());
  out.costs = ComputeCosts(out.result);
  out.text = FormatTextReport(out.result, out.costs, settings->report);
  out.json["wirebench_result_version"] = kResultVersion;
  out.json["config"] = ConfigJson(o, props, d, cfg.seed, local != nullptr);
  out.json["environment"] = EnvironmentJson();
  out.json["results"] = ResultToJson(out.result, out.costs, settings->report);
  if (local) local->Stop();
  WB_RETURN_IF_ERROR(WriteOutputs(o, props, out, settings->report, hlog.get(), hlog_text));
  return out;
}

}  // namespace wirebench
