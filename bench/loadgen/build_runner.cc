#include "bench/loadgen/build_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "bench/loadgen/status_line.h"
#include "bench/loadgen/stop_on_signal.h"
#include "bench/loadgen/stop_request.h"
#include "bench/results/build_compare.h"
#include "bench/results/host_figures.h"
#include "bench/results/compare_report.h"
#include "bench/results/report.h"
#include "bench/results/result_json.h"
#include "bench/results/ycsb_layout.h"


namespace wirebench {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The last `n` lines of `text`, for a failed child's log.
std::string Tail(std::string text, int n) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  size_t pos = text.size();
  while (n-- > 0 && pos > 0) {
    pos = text.rfind('\n', pos - 1);
    if (pos == std::string::npos) return text;
  }
  return pos < text.size() ? text.substr(pos + 1) : text;
}

// Bounds on a child RunChild waits for (0 = none).
struct ChildLimits {
  double timeout_s = 0;       // Killed (SIGKILL) past this.
  uint64_t max_out_bytes = 0; // Killed once its stdout file holds more.
};
constexpr int kChildOverLimit = -2;  // RunChild's return when a limit killed it.

// Runs argv[0] with argv, stdout to `out` and stderr to `err` (files,
// truncated), with the default signal mask and dispositions (this thread
// blocks SIGINT/SIGTERM for StopOnSignal). A stop requested while it runs
// is passed on as one SIGINT, so the child reports what it measured. The
// child gets SIGTERM when this thread ends, however (PR_SET_PDEATHSIG): a
// compare killed with SIGKILL leaves no cell running (a cell's co-located
// server goes with its client the same way).
// Returns its exit code (128 + signal when killed), kChildOverLimit when
// `limits` killed it, or -1 when it could not be started (errno_out set).
int RunChild(const std::vector<std::string>& argv, const std::string& out, const std::string& err,
             int* errno_out, ChildLimits limits = {}) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int pipe_fds[2] = {-1, -1};  // The child's exec failure, as errno.
  if (out_fd < 0 || err_fd < 0 || pipe2(pipe_fds, O_CLOEXEC) != 0) {
    *errno_out = errno;
    if (out_fd >= 0) close(out_fd);
    if (err_fd >= 0) close(err_fd);
    return -1;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls until exec.
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(126);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction dfl{};
    dfl.sa_handler = SIG_DFL;
    for (int sig : {SIGINT, SIGTERM, SIGPIPE}) sigaction(sig, &dfl, nullptr);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    execv(args[0], args.data());
    const int e = errno;
    (void)!write(pipe_fds[1], &e, sizeof e);
    _exit(127);
  }
  const int fork_errno = errno;
  close(out_fd);
  close(err_fd);
  close(pipe_fds[1]);
  if (pid < 0) {
    close(pipe_fds[0]);
    *errno_out = fork_errno;
    return -1;
  }
  int exec_errno = 0;
  const bool exec_failed = read(pipe_fds[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  close(pipe_fds[0]);
  const auto start = std::chrono::steady_clock::now();
  bool passed_on = false, over_limit = false;
  int status = 0;
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return -1;
    if (StopRequested() && !passed_on) {
      kill(pid, SIGINT);
      passed_on = true;
    }
    struct stat st{};
    const bool too_long =
        limits.timeout_s > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
            limits.timeout_s;
    const bool too_much = limits.max_out_bytes > 0 && stat(out.c_str(), &st) == 0 &&
                          uint64_t(st.st_size) > limits.max_out_bytes;
    if (!over_limit && (too_long || too_much)) {
      kill(pid, SIGKILL);
      over_limit = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (exec_failed) {
    *errno_out = exec_errno;
    return -1;
  }
  if (over_limit) return kChildOverLimit;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

bool ValidLabel(const std::string& l) {
  if (l.empty() || l == "cells" || l == "." || l == "..") return false;
  return std::all_of(l.begin(), l.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

constexpr double kProbeTimeoutS = 10;  // What `PATH version` may take.

// What a build is, from `PATH version` (one JSON object: its
// wirebench_result_version and environment block). A wirebench older than
// that subcommand is recognised by its --help and learnt from its first
// cell. Anything else is refused.
Status ProbeBuild(const BuildSpec& b, const std::string& scratch, BuildSide* side) {
  side->label = b.label;
  side->source = b.path;
  struct stat st{};
  if (stat(b.path.c_str(), &st) != 0)
    return Status::NotFound("--builds " + b.label + "=" + b.path + ": no such file; give the " +
                            "path of a built wirebench binary (build/bench/wirebench)");
  if (!S_ISREG(st.st_mode) || access(b.path.c_str(), X_OK) != 0)
    return Status::InvalidArgument("--builds " + b.label + "=" + b.path +
                                   " is not an executable file; give the path of a built "
                                   "wirebench binary (build/bench/wirebench)");
  const std::string out = scratch + "/probe-" + b.label + ".out";
  const std::string err = scratch + "/probe-" + b.label + ".err";
  int spawn_errno = 0;
  // A wirebench answers at once; anything else may never stop (`yes`).
  const ChildLimits probe{kProbeTimeoutS, uint64_t{1} << 20};
  const int rc = RunChild({b.path, "version"}, out, err, &spawn_errno, probe);
  const std::string text = ReadAll(out);
  fs::remove(out);
  fs::remove(err);
  if (rc == 0) {
    const json j = json::parse(text, nullptr, false);
    if (j.is_object() && j.contains("wirebench_result_version") &&
        j["wirebench_result_version"].is_number_integer()) {
      side->result_version = j["wirebench_result_version"].get<int>();
      side->environment = j.value("environment", json());
      return Status::Ok();
    }
  }
  const int help_rc =
      rc == kChildOverLimit ? rc : RunChild({b.path, "--help"}, out, err, &spawn_errno, probe);
  const std::string help = ReadAll(out);
  fs::remove(out);
  fs::remove(err);
  if (help_rc == 0 && help.find("wirebench") != std::string::npos &&
      help.find("compare") != std::string::npos)
    return Status::Ok();  // An older wirebench: its first cell says what it is.
  return Status::InvalidArgument(
      "--builds " + b.label + "=" + b.path + " is not a wirebench binary (" +
      (rc == kChildOverLimit || help_rc == kChildOverLimit
           ? "`" + b.path + " version` did not finish within " +
                 std::to_string(int(kProbeTimeoutS)) + " s with at most 1 MiB of output; it was killed"
       : rc == -1 ? "it could not be started: " + std::string(std::strerror(spawn_errno))
                  : "neither `version` nor `--help` describes wirebench") +
      "); give the path of a built wirebench binary (build/bench/wirebench)");
}

// What each cell's child is given for the cluster size and the target rate:
// --servers N (one size: compare_command refuses a sweep with --builds) and
// the target as YCSB's property, which every build reads (a build from
// before compare's --target has -p).
std::vector<std::string> ClusterAndTargetArgs(const CompareOptions& c) {
  std::vector<std::string> args;
  if (!c.servers.empty()) args.insert(args.end(), {"--servers", c.servers});
  if (c.cell.target)
    args.insert(args.end(), {"-p", "target=" + std::to_string(int64_t(*c.cell.target))});
  return args;
}

// A build whose compare has no --servers (from before the null cluster) is
// refused before any cell runs: each of its cells would fail on the flag.
Status ProbeClusterFlag(const BuildSpec& b, const std::string& scratch) {
  const std::string out = scratch + "/probe-" + b.label + ".out";
  const std::string err = scratch + "/probe-" + b.label + ".err";
  int spawn_errno = 0;
  const int rc = RunChild({b.path, "compare", "--help"}, out, err, &spawn_errno,
                          ChildLimits{kProbeTimeoutS, uint64_t{1} << 20});
  const std::string help = ReadAll(out) + ReadAll(err);
  fs::remove(out);
  fs::remove(err);
  if (rc == 0 && help.find("--servers") != std::string::npos) return Status::Ok();
  return Status::InvalidArgument(
      "--builds " + b.label + "=" + b.path +
      ": that wirebench's compare has no --servers (`" + b.path +
      " compare --help` does not list it; it was built before the null cluster), so it cannot "
      "run its cells against a cluster; give a build of a revision that has `compare "
      "--servers`, or leave out --servers");
}

struct CellPlan {
  std::string workload_spec, workload;
  int threads = 0;
  size_t column = 0;
};

// Runs one cell with one build's binary; moves its result and .hlog into
// OUT/<label>/cells and adds it to `side`.
void RunBuildCell(const BuildsCompareOptions& o, const CompareColumns& cols, const BuildSpec& b,
                  const CellPlan& p, int rep, BuildSide* side, BuildsOutcome* out) {
  std::string file_label = cols.labels[p.column];
  std::replace(file_label.begin(), file_label.end(), '#', '-');
  std::replace(file_label.begin(), file_label.end(), '@', '-');
  const std::string stem =
      p.workload + "-t" + std::to_string(p.threads) + "-" + file_label + "-r" + std::to_string(rep + 1);
  const std::string build_dir = o.compare.out + "/" + b.label;
  const std::string run_dir = build_dir + "/runs/" + stem;
  std::error_code ec;
  fs::remove_all(run_dir, ec);
  fs::create_directories(run_dir, ec);
  std::vector<std::string> argv = {b.path, "compare"};
  argv.insert(argv.end(), o.forwarded.begin(), o.forwarded.end());
  for (const std::string& a :
       {std::string("--codecs"), std::string(cols.codecs[p.column]->name()), std::string("--rpcs"),
        std::string(cols.rpcs[p.column]->name()), std::string("--workloads"), p.workload_spec,
        std::string("--threads"), std::to_string(p.threads), std::string("--repeat"),
        std::string("1"), std::string("--out"), run_dir})
    argv.push_back(a);
  for (const std::string& a : ClusterAndTargetArgs(o.compare)) argv.push_back(a);
  const std::string log = run_dir + ".log";
  int spawn_errno = 0;
  HostProbe host;  // The host around this repeat: load, steal, clock.
  host.Start();
  const int rc = RunChild(argv, "/dev/null", log, &spawn_errno);
  const json host_figures = host.Finish();
  if (StopRequested()) out->interrupted = true;
  if (const std::string busy = BusyHost(host_figures); !busy.empty())
    std::fprintf(stderr,
                 "%swirebench compare: warning: %s cell %s ran on a busy host (%s): its "
                 "wall-clock figures are slower and wider than a quiet host's\n",
                 ProgressBreak(), b.label.c_str(), stem.c_str(), busy.c_str());
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "%swirebench compare: %s cell %s failed: %s\n", ProgressBreak(), b.label.c_str(),
                 stem.c_str(), why.c_str());
    out->failures.push_back(b.label + " cell " + stem + " failed (left out of the tables): " + why);
  };
  if (rc < 0) return fail("could not start " + b.path + ": " + std::strerror(spawn_errno));
  // Its one cell's result (compare names it <workload>-t<threads>-<column>-r1).
  std::string result;
  for (const auto& e : fs::directory_iterator(run_dir + "/cells", ec))
    if (e.path().extension() == ".json") result = e.path().string();
  if (result.empty())
    return fail("exit code " + std::to_string(rc) + ", no result; its log " + log + " ends:\n" +
                Tail(ReadAll(log), 5));
  const json doc = json::parse(ReadAll(result), nullptr, false);
  if (!doc.is_object() || !doc.contains("results"))
    return fail(result + " is not a result document; its log is " + log);
  const std::string dest = build_dir + "/cells/" + stem;
  fs::rename(result, dest + ".json", ec);
  if (ec) return fail("cannot move " + result + " to " + dest + ".json: " + ec.message());
  const std::string hlog = result.substr(0, result.size() - 5) + ".hlog";
  if (fs::exists(hlog)) fs::rename(hlog, dest + ".hlog", ec);
  if (side->result_version == 0 || side->environment.is_null()) {
    side->result_version = doc.value("wirebench_result_version", 0);
    side->environment = doc.value("environment", json());
  } else if (doc.value("wirebench_result_version", 0) != side->result_version) {
    return fail("its result is at wirebench_result_version " +
                std::to_string(doc.value("wirebench_result_version", 0)) + ", the build said " +
                std::to_string(side->result_version));
  }
  const json& results = doc["results"];
  CompareCell cell{std::string(cols.codecs[p.column]->name()),
                   p.workload,
                   p.threads,
                   rep + 1,
                   results,
                   results.value("partial", false),
                   cols.labels[p.column]};
  cell.host = host_figures;
  cell.config = doc.value("config", json());
  // Grouped as the child's own compare named it ("workloada-s5").
  if (!o.compare.servers.empty()) cell.servers = std::atoi(o.compare.servers.c_str());
  side->cells.push_back(std::move(cell));
  ++out->cells;
  fs::remove_all(run_dir, ec);
  fs::remove(log, ec);
}

std::string SetupText(const BuildsCompareOptions& o, const BuildsOutcome& out) {
  std::ostringstream s;
  const CompareOptions& c = o.compare;
  s << "Each cell ran by its build's own binary (`PATH compare` over that cell: its client and "
       "its co-located server)";
  if (!o.forwarded.empty()) {
    s << " with";
    for (const std::string& a : o.forwarded) s << " " << a;
  }
  if (!c.servers.empty())
    s << "; every cell against a co-located null cluster of " << c.servers
      << " servers (--servers " << c.servers << ")";
  if (c.cell.target)
    s << "; open loop at " << int64_t(*c.cell.target)
      << " operations per second in all (-p target=" << int64_t(*c.cell.target) << ")";
  s << "; " << c.repeat << " repeats requested, the builds' order reversed on every other "
    << "repeat (ABBA)";
  if (out.interrupted) s << " (INTERRUPTED: partial matrix)";
  nlohmann::json env = EnvironmentJson();
  s << "; on " << env.value("cpu", std::string("?")) << " (" << env.value("cpus_online", 0)
    << " CPUs), " << env.value("kernel", std::string("?")) << ".";
  return s.str();
}

void Put(const std::string& path, const std::string& body, BuildsOutcome* out) {
  Status s = WriteFileAtomically(path, body);
  if (!s.ok()) {
    std::fprintf(stderr, "wirebench compare: %s\n", s.ToString().c_str());
    out->failures.push_back(s.ToString());
  } else {
    out->written.push_back(path);
  }
}

}  // namespace

StatusOr<std::vector<BuildSpec>> ParseBuilds(const std::string& spec) {
  std::vector<BuildSpec> out;
  std::stringstream ss(spec);
  std::string part;
  while (std::getline(ss, part, ',')) {
    const size_t eq = part.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == part.size())
      return Status::InvalidArgument("--builds takes LABEL=PATH pairs like "
                                     "before=../main/build/bench/wirebench,after=build/bench/"
                                     "wirebench; got '" + part + "'");
    BuildSpec b{part.substr(0, eq), part.substr(eq + 1)};
    if (!ValidLabel(b.label))
      return Status::InvalidArgument("--builds label '" + b.label +
                                     "' must be letters, digits, '.', '_' or '-' (it names a "
                                     "folder of the output)");
    for (const BuildSpec& seen : out)
      if (seen.label == b.label)
        return Status::InvalidArgument("--builds names '" + b.label +
                                       "' twice: give each build its own label (x=PATH,y=PATH "
                                       "for the same binary twice)");
    out.push_back(std::move(b));
  }
  if (out.size() < 2)
    return Status::InvalidArgument("--builds needs two or more LABEL=PATH builds (the first is "
                                   "the one the others are compared against)");
  return out;
}

std::vector<std::string> ForwardedCompareArgs(const std::vector<std::string>& args) {
  // --servers and --target are given to each child by RunBuildCell in a form
  // every build reads; -threads and -target are YCSB's spellings of the
  // flags (the command line as typed, before main's translation).
  static const std::vector<std::string> kOwn = {
      "--builds", "--codecs",   "--rpcs",  "--workloads", "--threads", "-threads", "--repeat",
      "--baseline", "--out", "--servers", "--target", "-target"};
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::string name = a.substr(0, a.find('='));
    if (std::find(kOwn.begin(), kOwn.end(), name) == kOwn.end()) {
      out.push_back(a);
      continue;
    }
    if (name != a) continue;  // --flag=value.
    // --flag value [value...]: the values run to the next flag.
    while (i + 1 < args.size() && (args[i + 1].empty() || args[i + 1][0] != '-')) ++i;
  }
  return out;
}

namespace {

// Every cell of one repeat of one build: workloads x thread counts x columns.
StatusOr<std::vector<CellPlan>> PlanCells(const CompareOptions& c, size_t columns,
                                          const std::vector<int>& threads) {
  std::vector<CellPlan> plans;
  for (const std::string& w : c.workloads) {
    auto name = WorkloadName(w);
    if (!name.ok()) return name.status();
    for (int t : threads)
      for (size_t k = 0; k < columns; ++k) plans.push_back({w, *name, t, k});
  }
  return plans;
}

std::string DefaultBuildsOut() {
  char stamp[32];
  const time_t now = time(nullptr);
  tm t;
  localtime_r(&now, &t);
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &t);
  return std::string("results/compare-builds-") + stamp;
}

// A folder per build under `out`, each build's path made absolute (it reads
// better in the report) and probed for what it is.
Status PrepareBuilds(const std::string& out, bool cluster, std::vector<BuildSpec>* builds,
                     std::vector<BuildSide>* sides) {
  std::error_code ec;
  for (const BuildSpec& b : *builds) {
    fs::create_directories(out + "/" + b.label + "/cells", ec);
    if (ec)
      return Status::IoError("cannot create --out " + out + ": " + ec.message() +
                             "; pass --out DIR, a folder you can write");
  }
  sides->resize(builds->size());
  for (size_t i = 0; i < builds->size(); ++i) {
    (*builds)[i].path = fs::absolute((*builds)[i].path, ec).string();
    WB_RETURN_IF_ERROR(ProbeBuild((*builds)[i], out, &(*sides)[i]));
    if (cluster) WB_RETURN_IF_ERROR(ProbeClusterFlag((*builds)[i], out));
  }
  return CheckComparable(*sides);
}

// Runs every cell, repeat after repeat, the builds interleaved within each
// cell (ColumnRunAt), until done or a stop signal.
void RunAllCells(const BuildsCompareOptions& o, const CompareColumns& cols,
                 const std::vector<CellPlan>& plans, std::vector<BuildSide>* sides,
                 BuildsOutcome* out) {
  const CompareOptions& c = o.compare;
  const int total = int(plans.size() * o.builds.size()) * c.repeat;
  const auto start = std::chrono::steady_clock::now();
  int done = 0;
  StopOnSignal stop_on_signal;
  for (int rep = 0; rep < c.repeat && !out->interrupted; ++rep) {
    for (const CellPlan& p : plans) {
      for (size_t k = 0; k < o.builds.size() && !out->interrupted; ++k) {
        const size_t i = ColumnRunAt(o.builds.size(), rep, k);
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        char line[512];
        std::snprintf(line, sizeof line, "[%d/%d] %s %s %s threads=%d repeat %d/%d  elapsed %.0f s",
                      done + 1, total, o.builds[i].label.c_str(), cols.labels[p.column].c_str(),
                      p.workload.c_str(), p.threads, rep + 1, c.repeat, elapsed);
        PrintProgressLine(line);
        RunBuildCell(o, cols, o.builds[i], p, rep, &(*sides)[i], out);
        ++done;
      }
      if (out->interrupted) break;
    }
  }
}

// Each build's folder is a compare folder of its own (diff reads it).
void WriteBuildFolders(const CompareOptions& c, const CompareColumns& cols,
                       const std::vector<BuildSide>& sides, BuildsOutcome* out) {
  for (const BuildSide& s : sides) {
    CompareReportOptions ro;
    ro.codecs = cols.labels;
    ro.requested_repeats = c.repeat;
    ro.baseline = c.baseline;
    ro.title = "wirebench codec comparison, build " + s.label;
    ro.setup = "Build " + s.label + " (" + s.source + "), git " +
               s.environment.value("git_revision", std::string("?")) + "; cells of `compare "
               "--builds`, see ../comparison.md.";
    const std::string dir = c.out + "/" + s.label;
    Put(dir + "/comparison.md", CompareMarkdown(s.cells, ro), out);
    Put(dir + "/comparison.csv", CompareCsv(s.cells, ro), out);
    Put(dir + "/comparison.json", CompareJson(s.cells, ro).dump(2), out);
  }
}

// The comparison in the layout of the HBase release comparisons, a column
// per build (per build and codec column when the matrix has several).
std::string BuildsYcsbLayout(const CompareColumns& cols, const std::vector<BuildSide>& sides,
                             const std::string& setup) {
  std::vector<YcsbLayoutColumn> columns;
  for (const BuildSide& side : sides)
    for (const std::string& column : cols.labels)
      columns.push_back({cols.labels.size() == 1 ? side.label : side.label + " " + column, column,
                         side.cells});
  return YcsbLayoutMarkdown(columns, "The builds in YCSB's layout", setup);
}

}  // namespace

StatusOr<BuildsOutcome> RunBuildsCompare(BuildsCompareOptions o) {
  CompareOptions& c = o.compare;
  auto cols = ResolveColumns(c);
  if (!cols.ok()) return cols.status();
  auto threads = ParseThreadList(c.threads);
  if (!threads.ok()) return threads.status();
  auto plans = PlanCells(c, cols->codecs.size(), *threads);
  if (!plans.ok()) return plans.status();
  if (c.out.empty()) c.out = DefaultBuildsOut();
  std::vector<BuildSide> sides;
  WB_RETURN_IF_ERROR(PrepareBuilds(c.out, !c.servers.empty(), &o.builds, &sides));

  BuildsOutcome out;
  out.out = c.out;
  std::fprintf(stderr,
               "wirebench compare: %zu builds x %zu columns (codec@rpc) x %zu workloads x %zu "
               "thread counts x %d repeats = %d cells, each run by its build's binary; results "
               "in %s\n",
               o.builds.size(), cols->codecs.size(), c.workloads.size(), threads->size(), c.repeat,
               int(plans->size() * o.builds.size()) * c.repeat, c.out.c_str());
  RunAllCells(o, *cols, *plans, &sides, &out);
  ResetStopRequest();
  std::fputs(ProgressBreak(), stderr);
  std::error_code ec;
  for (const BuildSpec& b : o.builds) fs::remove(c.out + "/" + b.label + "/runs", ec);
  // A build whose cells report another schema than its probe did.
  WB_RETURN_IF_ERROR(CheckComparable(sides));
  // Builds that measured the same cell differently (another default region,
  // null-reads mode, record shape...): no verdict over them.
  for (const std::string& m : MeasurementMismatches(sides))
    out.failures.push_back("measured differently (" + c.out + "/" + sides[0].label + " and " +
                           c.out + "/<other build>): " + m +
                           "; the builds' defaults differ: give those settings explicitly");
  WriteBuildFolders(c, *cols, sides, &out);
  BuildTableOptions to;
  to.setup = SetupText(o, out);
  to.paired = true;
  out.warnings = EnvironmentWarnings(sides);
  out.markdown = BuildsMarkdown(sides, to);
  Put(c.out + "/comparison.md", out.markdown, &out);
  Put(c.out + "/builds.json", BuildsJson(sides, to).dump(2), &out);
  Put(c.out + "/comparison.ycsb.md", BuildsYcsbLayout(*cols, sides, to.setup), &out);
  return out;
}

}  // namespace wirebench
