#include "bench/loadgen/compare_runner.h"

#include <algorithm>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "bench/loadgen/client_limits.h"
#include "bench/loadgen/floor.h"
#include "bench/loadgen/instructions.h"
#include "bench/loadgen/status_line.h"
#include "bench/loadgen/stop_on_signal.h"
#include "bench/results/host_figures.h"
#include "bench/results/report.h"
#include "bench/results/ycsb_layout.h"
#include "ycsb/standard_workloads.h"
#include "ycsb/workload_config.h"
#include "codecs/codec.h"
#include "transports/transport.h"

namespace wirebench {

namespace {

// "a" or "workloada" or a path: returns (short name, path). A path not found
// from the working directory is YCSB's standard workload of that name,
// installed beside the binary or built into it (ycsb/standard_workloads.h);
// the cells load it the same way.
StatusOr<std::pair<std::string, std::string>> ResolveWorkload(const std::string& w) {
  const std::string spec = ycsb::WorkloadSpecForLetter(w);
  auto found = ycsb::FindWorkload(spec);
  if (!found.ok())
    return Status::NotFound("workload " + std::string(found.status().message()) +
                            "; give a-f or a YCSB workload file");
  ycsb::NoteOnce(found->note);
  return std::make_pair(found->name, found->path.empty() ? spec : found->path);
}

std::string MinSec(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%d:%02d", int(s) / 60, int(s) % 60);
  return buf;
}

std::string DefaultOutDir() {
  char stamp[32];
  time_t now = time(nullptr);
  tm t;
  localtime_r(&now, &t);
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &t);
  return std::string("results/compare-") + stamp;
}

// The matrix, resolved and checked before any cell runs.
struct Matrix {
  std::vector<const CodecInfo*> codecs;  // One per column, with its RPC layer in `rpcs`.
  std::vector<const Transport*> rpcs;
  std::vector<std::string> columns;  // Column labels: "raw", "raw#2" when a codec repeats.
  std::vector<std::pair<std::string, std::string>> workloads;  // (name, path)
  std::vector<int> threads;
  std::vector<std::pair<int, int>> shapes;  // (fieldcount, fieldlength); 0 = the workload's.
  // The per-call sweep (--pipelines or --batches) and its values; null and
  // {0} = the cells' own.
  const CallSweep* sweep = nullptr;
  std::vector<int> depths = {0};
  int total = 0;
};

// codecs x rpcs, RPC layer outer (so a codec's columns sit side by side
// per layer). Pairs a transport does not carry (grpc-native carries pb
// only) are skipped.
Status CrossRpcs(const std::vector<const CodecInfo*>& codecs,
                 const std::vector<const Transport*>& rpcs,
                 std::vector<const CodecInfo*>* out_codecs,
                 std::vector<const Transport*>* out_rpcs) {
  if (rpcs.empty())
    return Status::InvalidArgument("--rpcs is empty: give one or more of " + TransportNames());
  Status first_refusal;
  for (const Transport* r : rpcs) {
    for (const CodecInfo* c : codecs) {
      if (Status carried = r->CheckCodec(*c); !carried.ok()) {
        if (first_refusal.ok()) first_refusal = carried;
        continue;
      }
      out_codecs->push_back(c);
      out_rpcs->push_back(r);
    }
  }
  if (out_codecs->empty())
    return Status::InvalidArgument("no codec in --codecs runs over the transports in --rpcs (" +
                                   std::string(first_refusal.message()) + ")");
  return Status::Ok();
}

// A reused --out: the previous comparison's files (its cells, tables and
// charts) are removed, so that the folder holds one comparison, never old
// cells beside a new table. Only a folder compare wrote (comparison.json or
// cells/ in it) is touched, and only the kinds of file compare writes.
void ClearPreviousComparison(const std::string& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(out + "/comparison.json", ec) && !fs::exists(out + "/cells", ec)) return;
  size_t removed = 0;
  if (fs::is_directory(out + "/cells", ec)) removed += size_t(fs::remove_all(out + "/cells", ec));
  for (const auto& e : fs::directory_iterator(out, ec)) {
    const std::string name = e.path().filename().string();
    const std::string ext = e.path().extension().string();
    if (name.rfind("comparison.", 0) == 0 || name == "charts.gp" || name == "gnuplot.log" ||
        ext == ".dat" || ext == ".png" || ext == ".svg")
      removed += fs::remove(e.path(), ec) ? 1 : 0;
  }
  if (removed > 0)
    std::fprintf(stderr,
                 "wirebench compare: note: --out %s held an earlier comparison: its %zu files "
                 "were removed, so the folder holds this one alone\n",
                 out.c_str(), removed);
}

StatusOr<Matrix> ResolveMatrix(CompareOptions* o) {
  Matrix m;
  auto columns = ResolveColumns(*o);
  if (!columns.ok()) return columns.status();
  m.codecs = columns->codecs;
  m.rpcs = columns->rpcs;
  m.columns = columns->labels;
  if (o->baseline_given &&
      std::find(m.columns.begin(), m.columns.end(), o->baseline) == m.columns.end() &&
      std::none_of(m.codecs.begin(), m.codecs.end(),
                   [&](const CodecInfo* c) { return c->name() == o->baseline; })) {
    std::string list;
    for (const auto& c : m.columns) list += (list.empty() ? "" : ", ") + c;
    return Status::InvalidArgument("--baseline " + o->baseline +
                                   " is not a column of this comparison (" + list +
                                   "): give one of those, or add it to --codecs");
  }
  auto threads = ParseThreadList(o->threads);
  if (!threads.ok()) return threads.status();
  m.threads = *threads;
  auto shapes = ParseRecordShapes(o->fieldcounts, o->fieldlengths);
  if (!shapes.ok()) return shapes.status();
  m.shapes = *shapes;
  const auto list_of = [o](const CallSweep& s) -> const std::string& {
    const std::string key = s.key;
    return key == "batch" ? o->batches : key == "servers" ? o->servers : o->pipelines;
  };
  if (std::count_if(CallSweeps().begin(), CallSweeps().end(),
                    [&](const CallSweep& s) { return !list_of(s).empty(); }) > 1)
    return Status::InvalidArgument(
        "--pipelines, --batches and --servers sweep one at a time: give one of them (each "
        "sweep's cells run with the others' defaults)");
  for (const CallSweep& s : CallSweeps()) {
    const std::string& list = list_of(s);
    if (list.empty()) continue;
    auto depths = ParseDepthList(list, s);
    if (!depths.ok()) return depths.status();
    m.sweep = &s;
    m.depths = *depths;
  }
  if (m.sweep != nullptr && std::string(m.sweep->key) == "batch" &&
      std::any_of(o->cell.properties.begin(), o->cell.properties.end(),
                  [](const std::string& p) { return p.rfind("wirebench.batch=", 0) == 0; }))
    return Status::InvalidArgument(
        "--batches sweeps the batch size: leave out -p wirebench.batch");
  for (const auto& w : o->workloads) {
    auto r = ResolveWorkload(w);
    if (!r.ok()) return r.status();
    m.workloads.push_back(*r);
  }
  if (o->out.empty()) o->out = DefaultOutDir();
  std::error_code ec;
  if (o->report) ClearPreviousComparison(o->out);
  if (o->report) std::filesystem::create_directories(o->out + "/cells", ec);
  if (ec)
    return Status::IoError("cannot create --out " + o->out + ": " + ec.message() +
                           "; pass --out DIR, a folder you can write");
  m.total = int(m.codecs.size() * m.workloads.size() * m.shapes.size() * m.depths.size() *
                m.threads.size()) *
            o->repeat;
  return m;
}

// Where a cell sits in the matrix besides its column: workload, record
// shape, pipeline depth or batch size, logical clients, repeat (0-based).
struct CellAt {
  std::string wl_name, wl_path;
  std::pair<int, int> shape;  // (fieldcount, fieldlength); 0 = the workload's.
  const CallSweep* sweep;     // The matrix's per-call sweep; null = none.
  int depth = 0;              // Its value; 0 = the cell's own (not swept).
  int threads = 0;
  int rep = 0;
};

YcsbRunOptions CellOptions(const CompareOptions& o, const std::string& wl_path, int threads,
                           std::pair<int, int> shape, const CodecInfo* codec, const Transport* rpc,
                           const std::string& base) {
  YcsbRunOptions c = o.cell;
  // A swept record shape overrides the workload's and the cell flags' (-p):
  // the client's records, and the null region's canned read (ChooseServer
  // sizes it from the workload unless --canned-* were given).
  if (shape.first > 0) c.properties.push_back("fieldcount=" + std::to_string(shape.first));
  if (shape.second > 0) c.properties.push_back("fieldlength=" + std::to_string(shape.second));
  c.rpc = rpc;
  c.load_phase = false;
  c.property_files = {wl_path};
  c.properties.insert(c.properties.begin(), "recordcount=" + std::to_string(o.records));
  c.properties.push_back("operationcount=0");
  c.threads = threads;
  c.codec = codec;
  c.seconds = o.seconds;
  c.warmup = o.warmup;
  c.quiet = true;
  c.status = false;
  c.json_out = base + ".json";
  c.hlog_out = base + ".hlog";
  return c;
}

// The cell as the tables know it, with no figures yet: its column,
// workload, record shape and swept depth.
CompareCell CellOf(const CellAt& at, const std::string& codec, const std::string& column) {
  CompareCell cell;
  cell.codec = codec;
  cell.workload = at.wl_name;
  cell.threads = at.threads;
  cell.repeat = at.rep + 1;
  cell.column = column;
  cell.fieldcount = at.shape.first;
  cell.fieldlength = at.shape.second;
  if (at.sweep != nullptr && at.depth > 0) cell.*at.sweep->field = at.depth;
  return cell;
}

// Runs one cell; adds it to `out` (marked partial if cut short). Sets
// out->interrupted when a stop was requested.
void RunCell(const CompareOptions& o, const CellAt& at, const CodecInfo* codec_entry,
             const Transport* rpc_entry, const std::string& column, CompareOutcome* out) {
  const std::string codec(codec_entry->name()), rpc(rpc_entry->name());
  const int threads = at.threads, rep = at.rep;
  const std::pair<int, int> shape = at.shape;
  std::string file_label = column;
  std::replace(file_label.begin(), file_label.end(), '#', '-');
  std::replace(file_label.begin(), file_label.end(), '@', '-');
  CompareCell cell = CellOf(at, codec, column);
  const std::string base = o.out + "/cells/" + CellWorkload(cell) + "-t" +
                           std::to_string(threads) + "-" + file_label + "-r" +
                           std::to_string(rep + 1);
  YcsbRunOptions c = CellOptions(o, at.wl_path, threads, shape, codec_entry, rpc_entry, base);
  if (cell.pipeline > 0) c.pipeline = cell.pipeline;
  if (cell.batch > 0) c.batch = cell.batch;
  if (cell.servers > 0) c.servers = cell.servers;
  HostProbe host(*o.host_env);  // The host around this repeat: load, steal, clock.
  host.Start();
  auto r = o.run_cell ? o.run_cell(std::move(c)) : RunYcsb(std::move(c));
  const nlohmann::json host_figures = host.Finish();
  if (StopRequested()) out->interrupted = true;
  if (const std::string busy = BusyHost(host_figures); o.report && !busy.empty())
    std::fprintf(stderr,
                 "%swirebench compare: warning: %s repeat %d ran on a busy host (%s): its "
                 "wall-clock figures are slower and wider than a quiet host's (the host table "
                 "flags it)\n",
                 ProgressBreak(), column.c_str(), rep + 1, busy.c_str());
  if (!o.report) {
    if (r.ok()) {
      cell.partial = r->result.partial;
      out->cells.push_back(std::move(cell));
    }
    return;
  }
  if (!r.ok() && !o.cell.server.empty())
    r = Status::Unavailable(
               r.status().ToString() + " (every cell runs against --server " +
                   o.cell.server + ": it must serve codec " + codec + " over " + rpc +
                   "; leave that codec out of --codecs, or start the server with it)");
  if (!r.ok()) {
    std::fprintf(stderr, "%swirebench compare: cell %s failed: %s\n", ProgressBreak(), base.c_str(),
                 r.status().ToString().c_str());
    out->failures.push_back("cell " + base + " failed (left out of the tables): " +
                            r.status().ToString());
    return;
  }
  if (r->result.partial)
    std::fprintf(stderr, "%swirebench compare: cell %s stopped early: %s%s\n", ProgressBreak(), base.c_str(),
                 r->result.error.ToString().c_str(),
                 o.cell.server.empty() || r->result.error.ok()
                     ? ""
                     : (" (every cell runs against --server " + o.cell.server +
                        ": it must serve codec " + codec + " over " + rpc + ")")
                           .c_str());
  cell.results = r->json["results"];
  cell.partial = r->result.partial;
  cell.host = host_figures;
  cell.config = r->json.value("config", nlohmann::json());
  out->cells.push_back(std::move(cell));
}

// The cells of one repeat but their columns, in the order they run.
std::vector<CellAt> CellsOfRepeat(const Matrix& m, int rep) {
  std::vector<CellAt> cells;
  for (const auto& [wl_name, wl_path] : m.workloads)
    for (const auto& shape : m.shapes)
      for (int depth : m.depths)
        for (int t : m.threads)
          cells.push_back(CellAt{wl_name, wl_path, shape, m.sweep, depth, t, rep});
  return cells;
}

// Repeats are the outer loop, so drift on a shared machine spreads over
// every codec instead of landing on one; within a repeat the columns run in
// ColumnRunAt's alternating order.
void RunMatrix(const CompareOptions& o, const Matrix& m, CompareOutcome* out) {
  const auto start = o.host_env->MonotonicNow();
  int done = 0;
  for (int rep = 0; rep < o.repeat && !out->interrupted; ++rep) {
    out->repeats_run = rep + 1;
    for (const CellAt& at : CellsOfRepeat(m, rep))
      for (size_t k = 0; k < m.codecs.size(); ++k) {
        const size_t i = ColumnRunAt(m.codecs.size(), rep, k);
        if (out->interrupted) return;
        if (!o.report) {
          RunCell(o, at, m.codecs[i], m.rpcs[i], m.columns[i], out);
          continue;
        }
        // Never negative: a clock that stepped back must not give a negative time left.
        const double elapsed = std::max(
            0.0, std::chrono::duration<double>(o.host_env->MonotonicNow() - start).count());
        const double eta =
            done ? elapsed / done * (m.total - done) : (o.seconds + o.warmup + 1) * m.total;
        char line[512];
        std::snprintf(line, sizeof line,
                      "[%d/%d] %s %s threads=%d repeat %d/%d  elapsed %s  left ~%s", done + 1,
                      m.total, m.columns[i].c_str(), CellWorkload(CellOf(at, "", "")).c_str(), at.threads, rep + 1,
                      o.repeat, MinSec(elapsed).c_str(), MinSec(eta).c_str());
        PrintProgressLine(line);
        RunCell(o, at, m.codecs[i], m.rpcs[i], m.columns[i], out);
        ++done;
      }
  }
}

std::string SetupText(const CompareOptions& o, const CompareOutcome& out) {
  std::ostringstream setup;
  nlohmann::json env = EnvironmentJson();
  const YcsbRunOptions& c = o.cell;
  if (!c.server.empty())
    setup << "Against the server at " << c.server << " (its region and threads are its own); clients on ";
  else
    setup << "Co-located on ";
  setup << env.value("cpu", std::string("?")) << " ("
        << env.value("cpus_online", 0) << " CPUs), " << env.value("kernel", std::string("?"));
  if (c.server.empty())
    setup << "; server: region " << DescribeRegion(c.colocated.region) << ", "
          << c.colocated.io_threads << " I/O thread(s), " << c.colocated.handlers
          << " handlers, separate process";
  setup << "; client: " << c.client_io_threads
        << " event-loop thread(s), " << c.connections << " connection(s); " << o.seconds
        << " s measured after " << o.warmup << " s warm-up per cell, ";
  if (out.interrupted) {
    setup << out.repeats_run << " of " << o.repeat << " repeats run (INTERRUPTED: partial matrix, "
          << "the last cell cut short)";
  } else {
    setup << o.repeat << " repeats requested";
  }
  if (o.mpi_ranks > 0)
    setup << "; clients: " << o.mpi_ranks << " MPI ranks per cell (each with the threads and "
          << "connections above; measured windows aligned, the ranks' results merged, the "
          << "server's Stats taken around the window by rank 0)";
  if (o.rpcs.size() > 1 || o.rpcs.front() != &DefaultTransport()) {
    setup << "; RPC layers: a column 'codec' is " << DefaultTransport().summary();
    for (const Transport* r : o.rpcs) {
      if (r == &DefaultTransport()) continue;
      setup << ", 'codec@" << r->name() << "' " << r->summary();
    }
    setup << "; threads a transport starts on its own are counted in the client's and server's "
             "CPU";
  }
  if (!o.fieldlengths.empty() || !o.fieldcounts.empty())
    setup << "; record sizes swept:" << (o.fieldcounts.empty() ? "" : " fieldcount " + o.fieldcounts)
          << (o.fieldlengths.empty() ? "" : " fieldlength " + o.fieldlengths)
          << " (the client's records and the null region's canned read alike)";
  if (!o.pipelines.empty())
    setup << "; pipeline depths swept: " << o.pipelines
          << " operations in flight per logical client (each a lane of its own on the client's "
             "connection)";
  if (!o.batches.empty())
    setup << "; batch sizes swept: " << o.batches
          << " operations per Multi call (each logical client's reads, inserts and updates "
             "gathered in the order YCSB draws them)";
  if (!o.servers.empty())
    setup << "; cluster sizes swept: " << o.servers
          << " co-located null cluster servers (each table's regions round-robin over them, "
             "every server pinned to the server CPUs; each call to its row's server)";
  setup << "; client pinned to CPUs " << (c.client_cpus.empty() ? "(none)" : c.client_cpus)
        << ", server to " << (c.colocated.cpus.empty() ? "(none)" : c.colocated.cpus);
  if (c.instructions)
    setup << "; instructions: user-space, counted by callgrind over "
          << (c.ops ? *c.ops : kDefaultInstructionOps) << " operations after "
          << c.instruction_warmup_ops
          << " warm-up operations per cell (wall-clock figures are under Valgrind)";
  setup << "; git " << env.value("git_revision", std::string("?")) << ", "
        << env.value("build_type", std::string("?")) << " build.";
  return setup.str();
}

// The machine's floor for each column's median bytes per operation, in each
// group, right after the matrix and pinned as its cells were: a wall-clock
// comparison of co-located cells only (an --instructions matrix counts
// instructions under Valgrind; a --server matrix's server is elsewhere).
constexpr int kFloorRuns = 3;

// The operations each logical client of group `wl` kept in flight
// (sweep "pipeline") or sent in one call ("batch"): the swept value, else
// the one its cells ran with (a batch given as -p wirebench.batch), else 1.
int GroupCallDepth(const std::vector<CompareCell>& cells, const std::string& wl,
                   const CallSweep& s) {
  for (const CompareCell& c : cells) {
    if (CellWorkload(c) != wl) continue;
    if (c.*s.field > 0) return c.*s.field;
    if (c.config.is_object() && c.config.value(s.key, int64_t(0)) > 0)
      return int(c.config.value(s.key, int64_t(0)));
  }
  return 1;
}

void MeasureFloors(const CompareOptions& o, const std::vector<std::string>& columns,
                   CompareOutcome* out) {
  if (!o.floor || o.cell.instructions || !o.cell.server.empty()) return;
  for (const auto& [wl, threads] : CompareGroups(out->cells)) {
    for (const std::string& c : columns) {
      if (StopRequested()) return;
      const double sent = AggregateMetric(out->cells, MetricOf(Metric::kWireOut), c, wl, threads).median;
      const double got = AggregateMetric(out->cells, MetricOf(Metric::kWireIn), c, wl, threads).median;
      if (!(sent >= 4) || !(got >= 4)) continue;
      // A batch of B operations is one frame of B operations' bytes: the
      // floor sends such frames and its cost is shared by B.
      const int batch = GroupCallDepth(out->cells, wl, CallSweeps()[1]);
      FloorOptions f;
      // Requests outstanding.
      f.depth = threads * GroupCallDepth(out->cells, wl, CallSweeps()[0]);
      f.seconds = std::min(1.0, std::max(0.5, o.seconds / 2));
      f.warmup_seconds = std::min(0.5, o.warmup);
      f.request_bytes = size_t(sent * batch + 0.5) - 4;
      f.reply_bytes = size_t(got * batch + 0.5) - 4;
      f.client_cpus = o.cell.client_cpus;
      f.server_cpus = o.cell.colocated.cpus;
      PrintProgressLine("floor: " + wl + " threads=" + std::to_string(threads) + " " + c);
      // The median of three short runs: one run moved by a tenth or more
      // from one column to the next on a quiet host.
      auto floor = MeasureFloor(f, kFloorRuns, batch);
      if (!floor.ok()) {
        if (!StopRequested())
          std::fprintf(stderr, "%swirebench compare: the floor for %s was not measured: %s\n",
                       ProgressBreak(), c.c_str(), std::string(floor.status().message()).c_str());
        continue;
      }
      out->floors[{wl, threads, c}] = *floor;
    }
  }
}

void WriteReports(const CompareOptions& o, const std::vector<std::string>& codecs,
                  CompareOutcome* out) {
  CompareReportOptions ro;
  ro.codecs = codecs;
  ro.floors = out->floors;
  ro.requested_repeats = o.repeat;
  ro.baseline = o.baseline;
  ro.pairwise = o.pairwise;
  ro.title = "wirebench codec comparison";
  ro.setup = SetupText(o, *out);
  auto put = [&](const std::string& name, const std::string& body) {
    Status s = WriteFileAtomically(o.out + "/" + name, body);
    if (!s.ok()) {
      std::fprintf(stderr, "wirebench compare: %s\n", s.ToString().c_str());
      out->failures.push_back(s.ToString());
    } else {
      out->written.push_back(o.out + "/" + name);
    }
  };
  out->markdown = CompareMarkdown(out->cells, ro);
  if (o.print_markdown) {
    std::fputs(out->markdown.c_str(), stdout);
    std::fflush(stdout);
  }
  put("comparison.md", out->markdown);
  put("comparison.csv", CompareCsv(out->cells, ro));
  nlohmann::json doc = CompareJson(out->cells, ro);
  if (o.mpi_ranks > 0) doc["mpi_ranks"] = o.mpi_ranks;
  for (const auto& [key, f] : out->floors)
    doc["floors"].push_back({{"workload", std::get<0>(key)},
                             {"threads", std::get<1>(key)},
                             {"column", std::get<2>(key)},
                             {"depth", f.depth},
                             {"request_bytes", f.request_bytes},
                             {"reply_bytes", f.reply_bytes},
                             {"client_us_per_op", f.client_us},
                             {"server_us_per_op", f.server_us},
                             {"total_us_per_op", f.total_us}});
  put("comparison.json", doc.dump(2));
  // The same cells as YCSB prints its figures, a column per column.
  put("comparison.ycsb.md", YcsbLayoutMarkdown(YcsbColumnsOf(out->cells, codecs),
                                               "The comparison in YCSB's layout", ro.setup));
  auto charts = WriteCharts(out->cells, ro, o.out);
  if (charts.ok()) {
    out->written.insert(out->written.end(), charts->begin(), charts->end());
  } else {
    std::fprintf(stderr, "wirebench compare: %s\n", charts.status().ToString().c_str());
    // No gnuplot is a note (the tables and data are complete); a chart
    // that could not be written is a failure.
    if (charts.status().code() != Status::Code::kUnavailable)
      out->failures.push_back(charts.status().ToString());
  }
}

}  // namespace

StatusOr<CompareColumns> ResolveColumns(const CompareOptions& o) {
  CompareColumns m;
  std::vector<const CodecInfo*> codecs = o.codecs;
  if (codecs.empty()) codecs.assign(Codecs().all().begin(), Codecs().all().end());
  WB_RETURN_IF_ERROR(CrossRpcs(codecs, o.rpcs, &m.codecs, &m.rpcs));
  std::vector<std::string> labels;
  for (size_t i = 0; i < m.codecs.size(); ++i) {
    const std::string codec(m.codecs[i]->name());
    labels.push_back(
        m.rpcs[i] == &DefaultTransport() ? codec : codec + "@" + std::string(m.rpcs[i]->name()));
  }
  m.labels = ColumnLabels(labels);
  return m;
}

StatusOr<std::string> WorkloadName(const std::string& w) {
  auto r = ResolveWorkload(w);
  if (!r.ok()) return r.status();
  return r->first;
}

size_t ColumnRunAt(size_t n, int rep, size_t k) { return rep % 2 == 0 ? k : n - 1 - k; }

namespace {

// How one of compare's list flags is read: its name, range, what its values
// are called, an example, and what to say of a value listed twice.
struct ListFlag {
  std::string flag;
  long lo, hi;
  std::string values;  // "counts", "whole numbers", ...
  std::string example;
  std::string twice;   // After "'): ".
};

// "1,8,64" -> {1, 8, 64}, each value in range and listed once; errors name
// the flag, its range and the list given.
StatusOr<std::vector<int>> ParseList(const std::string& s, const ListFlag& f) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ',')) {
    char* end = nullptr;
    const long v = std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end != 0 || v < f.lo || v > f.hi)
      return Status::InvalidArgument(f.flag + " must be a list of " + f.values + " " +
                                     std::to_string(f.lo) + "-" + std::to_string(f.hi) +
                                     " like " + f.example + ", got '" + s + "'");
    if (std::find(out.begin(), out.end(), int(v)) != out.end())
      return Status::InvalidArgument(f.flag + " lists " + part + " twice ('" + s + "'): " +
                                     f.twice);
    out.push_back(int(v));
  }
  if (out.empty()) return Status::InvalidArgument(f.flag + " is empty");
  return out;
}

}  // namespace

StatusOr<std::vector<int>> ParseThreadList(const std::string& s) {
  return ParseList(s, {"--threads", 1, 100000, "counts", "32 or 1,3,5,10",
                       "its cells would overwrite each other's files; give each count once "
                       "(--repeat runs a cell again)"});
}

StatusOr<std::vector<std::pair<int, int>>> ParseRecordShapes(const std::string& fieldcounts,
                                                           const std::string& fieldlengths) {
  const auto parse = [](const std::string& s, const std::string& flag, long lo,
                        long hi) -> StatusOr<std::vector<int>> {
    if (s.empty()) return std::vector<int>{0};
    return ParseList(s, {flag, lo, hi, "whole numbers", "10,100,1000,10000", "give each size once"});
  };
  auto counts = parse(fieldcounts, "--fieldcounts", 1, 4096);
  if (!counts.ok()) return counts.status();
  auto lengths = parse(fieldlengths, "--fieldlengths", 0, 64L << 20);
  if (!lengths.ok()) return lengths.status();
  std::vector<std::pair<int, int>> shapes;
  for (int c : *counts)
    for (int l : *lengths) shapes.emplace_back(c, l);
  return shapes;
}

StatusOr<std::vector<int>> ParseDepthList(const std::string& list, const CallSweep& sweep) {
  if (list.empty()) return std::vector<int>{0};
  const std::string key = sweep.key;
  if (key == "servers")
    return ParseList(list, {sweep.flag, 1, 64, "cluster sizes", "1,3,5", "give each value once"});
  const bool batch = key == "batch";
  // One client's lanes share a connection; a batch is run's --batch.
  return ParseList(list, {sweep.flag, 1,
                          batch ? long(ycsb::CoreWorkloadConfig::kMaxBatchOps)
                                : long(kMaxClientsPerConnection),
                          batch ? "batch sizes" : "depths", batch ? "1,10,100" : "1,8,64",
                          "give each value once"});
}

// Before the first cell: a second of the host with nothing of ours running.
void WarnIfBusyAtStart(HostEnv& env) {
  const nlohmann::json h = SampleHost(1.0, env);
  std::string busy = BusyHost(h);
  if (h.contains("load1") && h["load1"].get<double>() > h.value("cpus", 1)) {
    char load[96];
    std::snprintf(load, sizeof load, "load average %.2f on %d CPUs", h["load1"].get<double>(),
                  h.value("cpus", 1));
    busy += (busy.empty() ? "" : ", ") + std::string(load);
  }
  if (!busy.empty())
    std::fprintf(stderr,
                 "wirebench compare: warning: the host is busy before the first cell (%s): "
                 "wall-clock figures (CPU, throughput, latency) will be slower and wider than a "
                 "quiet host's; stop other work first, or read the instruction counts "
                 "(--instructions), which the load does not move\n",
                 busy.c_str());
}

// What one cell runs for, as the matrix's announcement says it.
std::string CellLength(const CompareOptions& o) {
  char text[160];
  if (o.cell.instructions && o.cell.ops) {
    std::snprintf(text, sizeof text, "%lld operations under callgrind (after %lld unmeasured)",
                  static_cast<long long>(*o.cell.ops),
                  static_cast<long long>(o.cell.instruction_warmup_ops));
  } else {
    std::snprintf(text, sizeof text, "%.1f s (+%.1f s warm-up)", o.seconds, o.warmup);
  }
  return text;
}

StatusOr<CompareOutcome> RunCompare(CompareOptions o) {
  if (o.pin && o.cell.client_cpus.empty() && o.cell.colocated.cpus.empty() &&
      sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
    o.cell.client_cpus = "0";
    o.cell.colocated.cpus = "1";
  }
  auto m = ResolveMatrix(&o);
  if (!m.ok()) return m.status();
  if (!o.report) {  // An MPI rank other than 0: the same cells, nothing written.
    CompareOutcome out;
    out.out = o.out;
    RunMatrix(o, *m, &out);
    ResetStopRequest();
    return out;
  }
  WarnIfBusyAtStart(*o.host_env);
  const std::string depths =
      m->sweep == nullptr
          ? ""
          : " x " + std::to_string(m->depths.size()) + " " + m->sweep->dimension + "s";
  std::fprintf(stderr,
               "wirebench compare: %zu columns (codec@rpc) x %zu workloads x %zu record sizes%s x "
               "%zu thread counts x %d repeats = %d cells of %s; results in %s\n",
               m->codecs.size(), m->workloads.size(), m->shapes.size(), depths.c_str(),
               m->threads.size(), o.repeat, m->total, CellLength(o).c_str(), o.out.c_str());
  CompareOutcome out;
  out.out = o.out;
  {
    StopOnSignal stop_on_signal;  // Also between cells, while no run watches.
    RunMatrix(o, *m, &out);
    if (!out.interrupted) MeasureFloors(o, m->columns, &out);
  }
  ResetStopRequest();
  std::fputs(ProgressBreak(), stderr);
  WriteReports(o, m->columns, &out);
  return out;
}

}  // namespace wirebench
