#include "bench/cli/ycsb_command.h"

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "bench/hdr/histogram_log.h"
#include "bench/hdr/ycsb_summary.h"
#include "bench/loadgen/instructions.h"
#include "bench/loadgen/local_server.h"
#include "bench/ycsb/core_workload.h"
#include "bench/ycsb/properties.h"
#include "bench/loadgen/ycsb_stream.h"
#include "codecs/codec.h"

namespace wirebench {

namespace {

// Watches SIGINT/SIGTERM for the duration of a run and asks the driver to
// stop, so what was measured is still reported (marked partial).
class StopOnSignal {
 public:
  StopOnSignal() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
    thread_ = std::thread([this] {
      timespec tick{0, 100 * 1000 * 1000};
      while (!done_.load()) {
        int sig = sigtimedwait(&set_, nullptr, &tick);
        if (sig == SIGINT || sig == SIGTERM) {
          std::fprintf(stderr, "wirebench: %s: stopping, reporting what was measured so far\n",
                       sig == SIGINT ? "SIGINT" : "SIGTERM");
          RequestStop();
        }
      }
    });
  }
  ~StopOnSignal() {
    done_.store(true);
    thread_.join();
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t set_, old_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

std::string YcsbTimestamp() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  tm t;
  localtime_r(&ts.tv_sec, &t);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &t);
  char out[80];
  std::snprintf(out, sizeof(out), "%s:%03ld", buf, ts.tv_nsec / 1000000);
  return out;
}

Status ParseHostPort(const std::string& s, std::string* host, uint16_t* port) {
  size_t colon = s.rfind(':');
  if (colon == std::string::npos || colon + 1 >= s.size())
    return Status::InvalidArgument("--server must be HOST:PORT, got '" + s + "'");
  *host = s.substr(0, colon);
  try {
    int p = std::stoi(s.substr(colon + 1));
    if (p <= 0 || p > 65535) throw std::out_of_range("port");
    *port = uint16_t(p);
  } catch (...) {
    return Status::InvalidArgument("--server port must be 1-65535, got '" + s + "'");
  }
  return Status::Ok();
}

// YCSB's JSON exporters, from the text report's `[SECTION], name, value` lines.
std::string ExportJson(const std::string& text, bool array) {
  std::istringstream in(text);
  std::string line;
  std::vector<nlohmann::json> items;
  while (std::getline(in, line)) {
    if (line.size() < 3 || line[0] != '[') continue;
    size_t close = line.find("], ");
    size_t comma = line.find(", ", close + 3);
    if (close == std::string::npos || comma == std::string::npos) continue;
    nlohmann::json j;
    j["metric"] = line.substr(1, close - 1);
    j["measurement"] = line.substr(close + 3, comma - close - 3);
    std::string v = line.substr(comma + 2);
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (end && *end == 0 && !v.empty()) {
      j["value"] = d;
    } else {
      j["value"] = v;
    }
    items.push_back(j);
  }
  std::string out;
  if (array) return nlohmann::json(items).dump(2) + "\n";
  for (auto& j : items) out += j.dump() + "\n";
  return out;
}

}  // namespace

std::vector<std::string> TranslateYcsbArgs(int argc, char** argv) {
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-threads" || a == "-target" || a == "-load" || a == "-db") a = "-" + a;
    out.push_back(a);
  }
  return out;
}

StatusOr<YcsbOutcome> RunYcsb(const YcsbCommandOptions& o) {
  ycsb::Properties props;
  props.RegisterKey({"wirebench.codec", std::nullopt, "codec used by this run (set by --codec)"});
  WB_RETURN_IF_ERROR(props.Load(o.property_files, o.properties));
  if (o.threads > 0) props.Set("threadcount", std::to_string(o.threads), "-threads");
  if (o.target >= 0) props.Set("target", std::to_string(o.target), "-target");
  if (o.ops >= 0) props.Set("operationcount", std::to_string(o.ops), "--ops");
  if (o.seconds >= 0) props.Set("maxexecutiontime", std::to_string(o.seconds), "--seconds");
  props.Set("wirebench.codec", o.codec, "--codec");
  // Hook (--instructions): a fixed operation count, no time limit, run under callgrind.
  const std::string callgrind_dir = o.instructions ? InstructionsModeDir() : "";
  if (o.instructions && callgrind_dir.empty())
    return Status::InvalidArgument("--instructions: this process is not the one re-run under "
                                   "callgrind (use the run or compare command's --instructions)");
  if (o.instructions && o.ops < 0)
    props.Set("operationcount", std::to_string(kDefaultInstructionOps), "--instructions");
  if (o.instructions) props.Set("maxexecutiontime", "0", "--instructions");

  auto core = ycsb::CoreWorkload::Create(props);
  if (!core.ok()) return core.status();
  const ycsb::CoreWorkloadConfig& cfg = (*core)->config();

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
    return Status::InvalidArgument("property 'measurement.interval' must be op, intended or both, "
                                   "got '" + *interval_kind + "'");
  auto pct = props.GetString("hdrhistogram.percentiles");
  if (!pct.ok()) return pct.status();
  auto percentiles = hdr::ParseYcsbPercentiles(*pct);
  if (!percentiles.ok()) return percentiles.status();
  if (*threads < 1) return Status::InvalidArgument("-threads must be at least 1");
  if (o.thread_model != "coroutines" && o.thread_model != "os")
    return Status::InvalidArgument("--thread-model must be 'coroutines' or 'os', got '" +
                                   o.thread_model + "'");
  if (FindCodec(o.codec) == nullptr)
    return Status::InvalidArgument("unknown codec '" + o.codec + "'; known codecs: " +
                                   CodecNames());

  DriverOptions d;
  d.codec = o.codec;
  d.threads = int(*threads);
  d.client_io_threads = o.client_io_threads;
  d.connections = o.connections;
  d.thread_model = o.thread_model == "os" ? ThreadModel::kOs : ThreadModel::kCoroutines;
  d.operations = o.load_phase ? cfg.insert_count : cfg.operation_count;
  d.max_seconds = *max_time;
  d.warmup_seconds = o.instructions ? 0 : o.warmup;
  d.target_ops = *target;

  std::unique_ptr<LocalServer> local;
  if (o.server.empty()) {
    std::vector<std::string> args = {"--io-threads", std::to_string(o.server_io_threads),
                                     "--handlers", std::to_string(o.handlers),
                                     "--region", o.region.name,
                                     "--null-reads", o.region.null_reads,
                                     "--spin-us", std::to_string(o.region.spin_us),
                                     "--delay-us", std::to_string(o.region.delay_us),
                                     "--spin-instructions",
                                     std::to_string(o.region.spin_instructions)};
    if (!o.region.wal_dir.empty()) {
      args.insert(args.end(), {"--wal-dir", o.region.wal_dir, "--wal-sync", o.region.wal_sync,
                               "--wal-sync-interval", std::to_string(o.region.wal_sync_interval)});
    }
    if (o.quiet) args.push_back("--quiet");
    auto spawned = LocalServer::Spawn(args, o.server_cpus, SelfExecutable());
    if (!spawned.ok()) return spawned.status();
    local = std::move(spawned).value();
    d.host = local->host();
    d.port = local->port();
  } else {
    WB_RETURN_IF_ERROR(ParseHostPort(o.server, &d.host, &d.port));
  }
  if (!o.client_cpus.empty()) {
    auto cpus = ParseCpuList(o.client_cpus);
    if (!cpus.ok()) return cpus.status();
    WB_RETURN_IF_ERROR(PinThisThread(*cpus));  // Client threads inherit it.
  }

  const std::string label = o.label.empty() ? "" : o.label + " ";
  // Interval snapshots feed the -s status line (every status.interval s)
  // and the .hlog file (one interval per second, one tag per operation).
  std::ostringstream hlog_text;
  std::unique_ptr<hdr::HistogramLogWriter> hlog;
  // Hook (--instructions): no interval snapshots, whose count depends on time.
  if (!o.hlog_out.empty() && !o.instructions) {
    hlog = std::make_unique<hdr::HistogramLogWriter>(&hlog_text);
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    WB_RETURN_IF_ERROR(hlog->WriteComment("[wirebench " + std::string(o.load_phase ? "load" : "run") +
                                          ", codec " + o.codec + "]"));
    WB_RETURN_IF_ERROR(hlog->WriteHeader(now_ms, now_ms));
  }
  if ((o.status || hlog) && !o.instructions) {
    d.status_interval_s = hlog ? std::min(1.0, *status_interval) : *status_interval;
    d.on_status = [&, last_ops = uint64_t(0), last_t = 0.0, last_hlog_t = 0.0,
                   pending = std::array<OpStats, kOpTypes>()](
                      double elapsed, const StatusSnapshot& s) mutable {
      if (hlog) {
        for (int t = 0; t < kOpTypes; ++t) {
          const hdr::Histogram& h = s.interval[size_t(t)].latency;
          if (h.total_count() == 0) continue;
          (void)hlog->WriteInterval(OpTypeName(OpType(t)), last_hlog_t, elapsed - last_hlog_t, h);
        }
        last_hlog_t = elapsed;
      }
      if (!o.status) return;
      for (int t = 0; t < kOpTypes; ++t) pending[size_t(t)].Add(s.interval[size_t(t)]);
      if (!s.final && elapsed - last_t + 1e-3 < *status_interval) return;
      const double rate = elapsed > last_t ? double(s.operations - last_ops) / (elapsed - last_t) : 0;
      std::string line = label + YcsbTimestamp() + " " + std::to_string(int64_t(elapsed)) +
                         " sec: " + std::to_string(s.operations) + " operations; " +
                         hdr::JavaDoubleToString(rate) + " current ops/sec;";
      for (int t = 0; t < kOpTypes; ++t) {
        if (pending[size_t(t)].latency.total_count() == 0) continue;
        line += " " + hdr::FormatYcsbStatusSummary(OpTypeName(OpType(t)),
                                                   pending[size_t(t)].latency);
      }
      std::fprintf(stderr, "%s\n", line.c_str());
      pending = {};
      last_ops = s.operations;
      last_t = elapsed;
    };
  }
  if (!o.quiet)
    std::fprintf(stderr, "wirebench %s: codec=%s threads=%d seed=%llu server=%s:%u%s\n",
               o.load_phase ? "load" : "run", o.codec.c_str(), d.threads,
               static_cast<unsigned long long>(cfg.seed), d.host.c_str(), unsigned(d.port),
               local ? " (co-located child process)" : "");

  YcsbWorkload workload(core->get(), o.load_phase ? YcsbPhase::kLoad : YcsbPhase::kRun);
  StatusOr<RunResult> run = Status::Internal("not run");
  {
    StopOnSignal stop_on_signal;
    if (o.instructions) {  // Hook (--instructions): a fixed, unmeasured warm-up.
      std::fprintf(stderr, "instructions: codec %s: %lld warm-up operations, then %lld measured\n",
                   o.codec.c_str(), static_cast<long long>(o.instruction_warmup_ops),
                   static_cast<long long>(d.operations));
      Status warm = RunInstructionWarmup(d, &workload, o.instruction_warmup_ops);
      run = warm.ok() ? RunLoad(d, &workload) : StatusOr<RunResult>(warm);
    } else {
      run = RunLoad(d, &workload);
    }
  }
  ResetStopRequest();
  if (!run.ok()) return run.status();

  YcsbOutcome out;
  out.result = std::move(run).value();
  if (o.instructions)  // Hook (--instructions): read and attribute callgrind's dumps.
    out.result.instructions =
        CollectInstructions(callgrind_dir, local ? int(local->pid()) : 0, out.result.operations);
  if (out.result.partial && local && !local->Alive())
    out.result.error = Status::Unavailable("the co-located server process died: " +
                                           out.result.error.ToString());
  out.costs = ComputeCosts(out.result);
  ReportOptions ro;
  ro.percentiles = *percentiles;
  ro.measurement_interval = *interval_kind;
  out.text = FormatTextReport(out.result, out.costs, ro);
  nlohmann::json cfg_json;
  for (auto& [k, v] : props.Explicit()) cfg_json["properties"][k] = v;
  cfg_json["phase"] = o.load_phase ? "load" : "run";
  cfg_json["codec"] = o.codec;
  cfg_json["threads"] = d.threads;
  cfg_json["client_io_threads"] = d.client_io_threads;
  cfg_json["connections"] = d.connections;
  cfg_json["thread_model"] = o.thread_model;
  cfg_json["target_ops"] = d.target_ops;
  cfg_json["warmup_s"] = d.warmup_seconds;
  cfg_json["seed"] = cfg.seed;
  cfg_json["server"] = local ? "co-located" : o.server;
  cfg_json["server_io_threads"] = o.server_io_threads;
  cfg_json["handlers"] = o.handlers;
  cfg_json["region"] = o.region.name;
  cfg_json["null_reads"] = o.region.null_reads;
  cfg_json["label"] = o.label;
  out.json["wirebench_result_version"] = 1;
  out.json["config"] = cfg_json;
  out.json["environment"] = EnvironmentJson();
  out.json["results"] = ResultToJson(out.result, out.costs, ro);
  if (local) local->Stop();

  // Outputs. Every file is written atomically, partial results included.
  if (!o.quiet) std::fputs(out.text.c_str(), stdout);
  std::fflush(stdout);
  auto exporter = props.GetString("exporter");
  auto exportfile = props.GetString("exportfile");
  if (exporter.ok() && exporter->find("JSON") != std::string::npos) {
    std::string doc = ExportJson(out.text, exporter->find("Array") != std::string::npos);
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
  return out;
}

namespace {

void AddCommand(CLI::App& app, bool load, int* exit_code) {
  auto o = std::make_shared<YcsbCommandOptions>();
  o->load_phase = load;
  CLI::App* cmd = app.add_subcommand(
      load ? "load" : "run",
      load ? "YCSB load phase: insert the records (1 KB puts with the defaults)"
           : "YCSB run phase: the workload's operation mix (YCSB's command line works as is)");
  cmd->add_option("-P", o->property_files, "YCSB workload/property file (repeatable, in order)");
  cmd->add_option("-p", o->properties, "key=value property override (repeatable)");
  cmd->add_option("--threads", o->threads, "Logical clients (YCSB -threads), one op in flight each");
  cmd->add_option("--target", o->target, "Target ops/sec in all: open loop (YCSB -target)");
  cmd->add_flag("-s", o->status, "Print a status line every status.interval seconds to stderr");
  cmd->add_option("-l", o->label, "Label prefixed to status lines");
  cmd->add_flag("--load", o->load_phase, "YCSB's -load (same as the load subcommand)");
  cmd->add_flag("-t", o->run_flag, "YCSB's -t (the run phase; accepted for compatibility)");
  cmd->add_option("--db", o->db, "YCSB's -db binding class (ignored: wirebench is the binding)");
  cmd->add_option("--server", o->server, "HOST:PORT of a running `wirebench server` (default: "
                                         "start one co-located)");
  cmd->add_option("--codec", o->codec, "Codec: " + CodecNames())->capture_default_str();
  cmd->add_option("--connections", o->connections, "Connections in all")->capture_default_str();
  cmd->add_option("--client-io-threads", o->client_io_threads,
                  "Client event-loop threads the logical clients run on")
      ->capture_default_str();
  cmd->add_option("--thread-model", o->thread_model,
                  "coroutines, or os (one OS thread per client, as YCSB's Java client)")
      ->capture_default_str();
  cmd->add_option("--ops", o->ops, "Operations to run (operationcount)");
  cmd->add_option("--seconds", o->seconds, "Stop after this many seconds (maxexecutiontime)");
  cmd->add_option("--warmup", o->warmup, "Seconds of unmeasured warm-up before measuring")
      ->capture_default_str();
  cmd->add_option("--json", o->json_out, "Write the self-describing JSON result here");
  cmd->add_option("--hlog", o->hlog_out,
                  "Write an HdrHistogram interval log (1 s intervals, one tag per operation)");
  cmd->add_option("--client-cpus", o->client_cpus, "Pin the client to these CPUs (e.g. 0)");
  cmd->add_option("--server-io-threads", o->server_io_threads,
                  "Co-located server: I/O threads")
      ->capture_default_str();
  cmd->add_option("--handlers", o->handlers, "Co-located server: handler threads (0 = inline)")
      ->capture_default_str();
  cmd->add_option("--server-cpus", o->server_cpus, "Co-located server: pin to these CPUs");
  AddRegionOptions(cmd, &o->region);
  cmd->add_flag("--instructions", o->instructions,
                "Count user-space instructions per operation on both sides under Valgrind's "
                "callgrind, by layer (--ops operations, default 20000; deterministic)");
  cmd->add_option("--instruction-warmup-ops", o->instruction_warmup_ops,
                  "With --instructions: unmeasured operations before the measured ones")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->callback([o, exit_code] {
    if (o->instructions && InstructionsModeDir().empty()) {  // Hook: re-run under callgrind.
      *exit_code = RunSelfUnderCallgrind();
      return;
    }
    auto r = RunYcsb(*o);
    if (!r.ok()) {
      std::fprintf(stderr, "wirebench: %s\n", r.status().ToString().c_str());
      *exit_code = 2;
      return;
    }
    if (r->result.partial) {
      std::fprintf(stderr, "wirebench: run stopped early: %s (results above are partial)\n",
                   r->result.error.ToString().c_str());
      *exit_code = 3;
    }
  });
}

}  // namespace

void AddYcsbCommands(CLI::App& app, int* exit_code) {
  AddCommand(app, /*load=*/true, exit_code);
  AddCommand(app, /*load=*/false, exit_code);
}

}  // namespace wirebench
