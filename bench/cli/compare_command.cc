#include "bench/cli/compare_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <sstream>

#include "bench/cli/ycsb_command.h"
#include "bench/loadgen/instructions.h"
#include "bench/results/compare_report.h"
#include "bench/results/report.h"
#include "codecs/codec.h"

namespace wirebench {

namespace {

struct CompareOptions {
  std::vector<std::string> codecs;     // Empty = every codec.
  std::vector<std::string> workloads = {"a"};
  std::string threads = "32";
  int repeat = 3;
  std::string baseline = "pb";
  std::string out;
  double seconds = 5;
  double warmup = 1;
  int64_t records = 100000;
  YcsbCommandOptions cell;  // Shared settings of every cell.
};

StatusOr<std::vector<int>> ParseThreadList(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ',')) {
    char* end = nullptr;
    long v = std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end != 0 || v < 1 || v > 100000)
      return Status::InvalidArgument("--threads must be a list like 32 or 1,3,5,10, got '" + s +
                                     "'");
    out.push_back(int(v));
  }
  if (out.empty()) return Status::InvalidArgument("--threads is empty");
  return out;
}

// "a" or "workloada" or a path: returns (short name, path). A relative path
// not found from the working directory is looked for beside the binary's
// checkout (the folders above the executable), so a built tree runs from
// anywhere without the binary embedding its source path.
StatusOr<std::pair<std::string, std::string>> ResolveWorkload(const std::string& w) {
  std::string path = w;
  if (w.size() == 1 && w[0] >= 'a' && w[0] <= 'f') path = "workloads/workload" + w;
  std::vector<std::string> tried = {path};
  if (access(path.c_str(), R_OK) != 0 && !path.empty() && path[0] != '/') {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
    for (int up = 0; up < 5 && !ec && !dir.empty(); ++up, dir = dir.parent_path()) {
      const std::string alt = (dir / path).string();
      tried.push_back(alt);
      if (access(alt.c_str(), R_OK) == 0) {
        path = alt;
        break;
      }
      if (dir == dir.parent_path()) break;
    }
  }
  if (access(path.c_str(), R_OK) != 0) {
    std::string list;
    for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
    return Status::NotFound("workload '" + w + "' not found (tried " + list +
                            "); give a-f or a YCSB workload file");
  }
  return std::make_pair(std::filesystem::path(path).filename().string(), path);
}

std::string Clock(double s) {
  char buf[32];
  int m = int(s) / 60, sec = int(s) % 60;
  std::snprintf(buf, sizeof(buf), "%d:%02d", m, sec);
  return buf;
}

int RunCompare(CompareOptions o) {
  std::vector<std::string> codecs = o.codecs;
  if (codecs.empty())
    for (const CodecInfo& c : AllCodecs()) codecs.push_back(std::string(c.name));
  for (const auto& c : codecs) {
    if (FindCodec(c) == nullptr) {
      std::fprintf(stderr, "wirebench compare: unknown codec '%s'; known codecs: %s\n", c.c_str(),
                   CodecNames().c_str());
      return 2;
    }
  }
  auto threads = ParseThreadList(o.threads);
  if (!threads.ok()) {
    std::fprintf(stderr, "wirebench compare: %s\n", threads.status().ToString().c_str());
    return 2;
  }
  std::vector<std::pair<std::string, std::string>> workloads;
  for (const auto& w : o.workloads) {
    auto r = ResolveWorkload(w);
    if (!r.ok()) {
      std::fprintf(stderr, "wirebench compare: %s\n", r.status().ToString().c_str());
      return 2;
    }
    workloads.push_back(*r);
  }
  if (o.out.empty()) {
    char stamp[32];
    time_t now = time(nullptr);
    tm t;
    localtime_r(&now, &t);
    std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &t);
    o.out = std::string("results/compare-") + stamp;
  }
  std::error_code ec;
  std::filesystem::create_directories(o.out + "/cells", ec);
  if (ec) {
    std::fprintf(stderr, "wirebench compare: cannot create --out %s: %s\n", o.out.c_str(),
                 ec.message().c_str());
    return 2;
  }

  const int total = int(codecs.size() * workloads.size() * threads->size()) * o.repeat;
  std::fprintf(stderr,
               "wirebench compare: %zu codecs x %zu workloads x %zu thread counts x %d repeats = "
               "%d cells of %.1f s (+%.1f s warm-up); results in %s\n",
               codecs.size(), workloads.size(), threads->size(), o.repeat, total, o.seconds,
               o.warmup, o.out.c_str());
  std::vector<CompareCell> cells;
  const auto start = std::chrono::steady_clock::now();
  int done = 0;
  bool interrupted = false;
  // Repeats are the outer loop, so drift on a shared machine spreads over
  // every codec instead of landing on one.
  for (int rep = 0; rep < o.repeat && !interrupted; ++rep) {
    for (const auto& [wl_name, wl_path] : workloads) {
      for (int t : *threads) {
        for (const auto& codec : codecs) {
          const double elapsed =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          const double eta = done ? elapsed / done * (total - done) : (o.seconds + o.warmup + 1) * total;
          std::fprintf(stderr, "\r[%d/%d] %s %s threads=%d repeat %d/%d  elapsed %s  left ~%s   ",
                       done + 1, total, codec.c_str(), wl_name.c_str(), t, rep + 1, o.repeat,
                       Clock(elapsed).c_str(), Clock(eta).c_str());
          YcsbCommandOptions c = o.cell;
          c.load_phase = false;
          c.property_files = {wl_path};
          c.properties.insert(c.properties.begin(), "recordcount=" + std::to_string(o.records));
          c.properties.push_back("operationcount=0");
          c.threads = t;
          c.codec = codec;
          c.seconds = o.seconds;
          c.warmup = o.warmup;
          c.quiet = true;
          c.status = false;
          const std::string base = o.out + "/cells/" + wl_name + "-t" + std::to_string(t) + "-" +
                                   codec + "-r" + std::to_string(rep + 1);
          c.json_out = base + ".json";
          c.hlog_out = base + ".hlog";
          auto r = RunYcsb(c);
          ++done;
          if (!r.ok()) {
            std::fprintf(stderr, "\nwirebench compare: cell %s failed: %s\n", base.c_str(),
                         r.status().ToString().c_str());
            continue;
          }
          if (r->result.partial) {
            std::fprintf(stderr, "\nwirebench compare: cell %s stopped early: %s\n", base.c_str(),
                         r->result.error.ToString().c_str());
            if (r->result.error.code() == Status::Code::kAborted) interrupted = true;
          }
          cells.push_back(CompareCell{codec, wl_name, t, rep + 1, r->json["results"]});
        }
      }
    }
  }
  std::fprintf(stderr, "\n");

  CompareReportOptions ro;
  ro.codecs = codecs;
  ro.baseline = o.baseline;
  ro.title = "wirebench codec comparison";
  std::ostringstream setup;
  nlohmann::json env = EnvironmentJson();
  setup << "Co-located on " << env.value("cpu", std::string("?")) << " (" << env.value("cpus_online", 0)
        << " CPUs), " << env.value("kernel", std::string("?")) << "; server: region "
        << o.cell.region.name << " (reads " << o.cell.region.null_reads << "), "
        << o.cell.server_io_threads << " I/O thread(s), " << o.cell.handlers
        << " handlers, separate process; client: " << o.cell.client_io_threads
        << " event-loop thread(s), " << o.cell.connections << " connection(s); " << o.seconds
        << " s measured after " << o.warmup << " s warm-up per cell, " << o.repeat
        << " repeats; git " << env.value("git_revision", std::string("?")) << ", "
        << env.value("build_type", std::string("?")) << " build."
        << (o.cell.instructions  // Hook (--instructions).
                ? " Instructions: user-space, counted by callgrind over " +
                      std::to_string(o.cell.ops >= 0 ? o.cell.ops : kDefaultInstructionOps) +
                      " operations after " + std::to_string(o.cell.instruction_warmup_ops) +
                      " warm-up operations per cell (wall-clock figures are under Valgrind)."
                : "")
        << (interrupted ? " INTERRUPTED: partial matrix." : "");
  ro.setup = setup.str();
  std::vector<std::string> written;
  auto put = [&](const std::string& name, const std::string& body) {
    Status s = WriteFileAtomically(o.out + "/" + name, body);
    if (!s.ok()) {
      std::fprintf(stderr, "wirebench compare: %s\n", s.ToString().c_str());
    } else {
      written.push_back(o.out + "/" + name);
    }
  };
  const std::string md = CompareMarkdown(cells, ro);
  put("comparison.md", md);
  put("comparison.csv", CompareCsv(cells, ro));
  put("comparison.json", CompareJson(cells, ro).dump(2));
  auto charts = WriteCharts(cells, ro, o.out);
  if (charts.ok()) {
    written.insert(written.end(), charts->begin(), charts->end());
  } else {
    std::fprintf(stderr, "wirebench compare: %s\n", charts.status().ToString().c_str());
  }
  std::fputs(md.c_str(), stdout);
  std::fprintf(stderr, "wirebench compare: wrote");
  for (const auto& f : written) std::fprintf(stderr, " %s", f.c_str());
  std::fprintf(stderr, " and %zu cell results under %s/cells\n", cells.size(), o.out.c_str());
  if (cells.empty()) return 1;
  return interrupted ? 3 : 0;
}

}  // namespace

void AddCompareCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<CompareOptions>();
  o->cell.region.null_reads = "canned";
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Codec comparison: codecs x workloads x thread counts, co-located, repeated; tables, charts "
      "and HdrHistogram logs in --out");
  cmd->add_option("--codecs", o->codecs, "Codecs to compare (default: all: " + CodecNames() + ")")
      ->delimiter(',');
  cmd->add_option("--workloads", o->workloads, "YCSB workloads: a-f or files")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--threads", o->threads,
                  "Logical clients, or a sweep like 1,3,5,10,25,50,100,200")
      ->capture_default_str();
  cmd->add_option("--repeat", o->repeat, "Runs per cell (median and spread reported)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option("--baseline", o->baseline, "Codec the ratios are against")->capture_default_str();
  cmd->add_option("--out", o->out, "Output folder (default results/compare-<time>)");
  cmd->add_option("--seconds", o->seconds, "Measured seconds per cell")->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Warm-up seconds per cell (not measured)")
      ->capture_default_str();
  cmd->add_option("--records", o->records, "recordcount (key space)")->capture_default_str();
  cmd->add_option("-p", o->cell.properties, "key=value YCSB property for every cell");
  cmd->add_option("--connections", o->cell.connections, "Connections per cell")->capture_default_str();
  cmd->add_option("--client-io-threads", o->cell.client_io_threads, "Client event-loop threads")
      ->capture_default_str();
  cmd->add_option("--server-io-threads", o->cell.server_io_threads, "Server I/O threads")
      ->capture_default_str();
  cmd->add_option("--handlers", o->cell.handlers, "Server handler threads (0 = inline)")
      ->capture_default_str();
  cmd->add_option("--client-cpus", o->cell.client_cpus, "Pin the client to these CPUs");
  cmd->add_option("--server-cpus", o->cell.server_cpus, "Pin the server to these CPUs");
  AddRegionOptions(cmd, &o->cell.region);
  cmd->add_flag("--instructions", o->cell.instructions,
                "Count user-space instructions per operation on both sides under Valgrind's "
                "callgrind, by layer (deterministic; one repeat unless --repeat is given)");
  cmd->add_option("--ops", o->cell.ops, "With --instructions: measured operations per cell "
                                        "(default 20000)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--instruction-warmup-ops", o->cell.instruction_warmup_ops,
                  "With --instructions: unmeasured operations before the measured ones")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->callback([o, exit_code, cmd] {
    if (o->cell.instructions && InstructionsModeDir().empty()) {  // Hook: re-run under callgrind.
      *exit_code = RunSelfUnderCallgrind();
      return;
    }
    if (o->cell.instructions && cmd->count("--repeat") == 0) o->repeat = 1;
    *exit_code = RunCompare(*o);
  });
}

}  // namespace wirebench
