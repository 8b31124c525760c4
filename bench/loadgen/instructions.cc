#include "bench/loadgen/instructions.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <utility>

#include "codecs/codec.h"
#include "common/callgrind_marks.h"
#include "regions/registry.h"
#include "rpc/symbol_prefixes.h"
#include "transports/transport.h"

namespace wirebench {

namespace fs = std::filesystem;

uint64_t CallgrindProfile::SelfSum() const {
  uint64_t sum = 0;
  for (const auto& [name, f] : functions) sum += f.self;
  return sum;
}

namespace {

// The first event of a cost line "<position> <Ir> ...", 0 when absent.
uint64_t CostOf(std::string_view line) {
  size_t sp = line.find(' ');
  if (sp == std::string_view::npos) return 0;
  return std::strtoull(std::string(line.substr(sp + 1)).c_str(), nullptr, 10);
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// "void a::(anonymous namespace)::B<T>::f(int) const" -> "a::B::f": the
// qualified name without return type, anonymous namespaces, template
// arguments, parameters and callgrind's recursion suffix ('2).
std::string QualifiedName(std::string_view name) {
  std::string out;
  int angle = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (StartsWith(name.substr(i), "(anonymous namespace)::")) {
      i += std::strlen("(anonymous namespace)::") - 1;
      continue;
    }
    const char c = name[i];
    if (c == '<') {
      ++angle;
    } else if (c == '>') {
      if (angle > 0) --angle;
    } else if (angle == 0) {
      if (c == '(' || c == '\'') break;
      if (c == ' ') {  // What came before was a return type.
        out.clear();
        continue;
      }
      out += c;
    }
  }
  return out;
}

bool StartsWithAny(std::string_view q, std::span<const std::string_view> prefixes) {
  for (std::string_view prefix : prefixes)
    if (StartsWith(q, prefix)) return true;
  return false;
}

// A function of an entry's code: its name starts with one of the entry's
// symbol prefixes (common/registry.h).
template <class Entry>
bool InEntries(std::string_view q, const Registry<Entry>& registry) {
  for (const Entry* e : registry.all())
    if (StartsWithAny(q, e->symbol_prefixes())) return true;
  return false;
}

// The load generator's own code (ycsb/, hdr/, bench/): key and record building, the
// logical clients' scheduling, latency recording.
constexpr std::string_view kHarnessPrefixes[] = {
    "wirebench::ycsb::",     "wirebench::hdr::",        "wirebench::LogicalClient",
    "wirebench::YcsbStream", "wirebench::YcsbWorkload", "wirebench::LoadRun",
};

std::optional<Layer> LayerByName(const std::string& q) {
  const size_t last = q.rfind("::");
  const std::string_view scope = last == std::string::npos ? "" : std::string_view(q).substr(0, last);
  const std::string_view method = last == std::string::npos ? q : std::string_view(q).substr(last + 2);
  // The seams' own interfaces (a Codec's Encode*/Decode*, the Region base
  // class) belong to their layers, whichever entry implements them.
  if (method == "EncodeRequest" || method == "DecodeRequest" || method == "EncodeResponse" ||
      method == "DecodeResponse" || EndsWith(scope, "Codec") || InEntries(q, Codecs()))
    return Layer::kCodec;
  if (scope == "wirebench::Region" || InEntries(q, Regions())) return Layer::kRegion;
  if (StartsWithAny(q, rpc::kCoreSymbolPrefixes)) return Layer::kRpcCore;
  if (InEntries(q, Transports())) return Layer::kRpcTransport;
  if (StartsWithAny(q, kHarnessPrefixes)) return Layer::kHarness;
  return std::nullopt;
}

// Shares of each layer in a function's instructions.
using Shares = std::array<double, kLayers>;

Shares OneHot(Layer l) {
  Shares s{};
  s[size_t(l)] = 1.0;
  return s;
}

// Each function's layer shares: its own layer, or its callers' shares
// weighted by their calls' inclusive cost (iterated to a fixed point, since
// calls form cycles); `other` for a function nobody calls.
std::vector<Shares> PropagateShares(const std::vector<std::optional<Layer>>& own,
                                    const std::vector<std::vector<std::pair<size_t, double>>>& in) {
  std::vector<Shares> shares(own.size());
  for (size_t f = 0; f < own.size(); ++f) shares[f] = OneHot(own[f].value_or(Layer::kOther));
  for (int iteration = 0; iteration < 500; ++iteration) {
    double change = 0;
    for (size_t f = 0; f < own.size(); ++f) {
      if (own[f] || in[f].empty()) continue;
      Shares next{};
      double weight = 0;
      for (const auto& [caller, w] : in[f]) {
        for (int l = 0; l < kLayers; ++l) next[size_t(l)] += w * shares[caller][size_t(l)];
        weight += w;
      }
      if (weight <= 0) continue;
      for (int l = 0; l < kLayers; ++l) {
        next[size_t(l)] /= weight;
        change = std::max(change, std::fabs(next[size_t(l)] - shares[f][size_t(l)]));
      }
      shares[f] = next;
    }
    if (change < 1e-12) break;
  }
  return shares;
}

}  // namespace

std::optional<Layer> LayerOfFunction(std::string_view name) {
  return LayerByName(QualifiedName(name));
}

StatusOr<CallgrindProfile> ParseCallgrindOutput(std::istream& in) {
  CallgrindProfile p;
  std::map<std::pair<std::string, std::string>, uint64_t> calls;
  std::string line, file, fn, callee;
  bool call_cost_next = false;
  bool saw_events = false;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const char c = line[0];
    if (c >= '0' && c <= '9') {  // A cost line.
      if (fn.empty()) return Status::Corruption("callgrind output: a cost line before any fn=");
      if (call_cost_next) {
        calls[{fn, callee}] += CostOf(line);
        call_cost_next = false;
      } else {
        p.functions[fn].self += CostOf(line);
      }
    } else if (line.size() > 5 && line.find("=(") != std::string::npos &&
               line[line.find("=(") + 2] >= '0' && line[line.find("=(") + 2] <= '9') {
      return Status::InvalidArgument(
          "compressed callgrind output: run callgrind with --compress-strings=no "
          "--compress-pos=no");
    } else if (StartsWith(line, "fl=")) {
      file = line.substr(3);
    } else if (StartsWith(line, "fn=")) {
      fn = line.substr(3);
      CallgrindProfile::Function& f = p.functions[fn];
      if (f.file.empty()) f.file = file;
    } else if (StartsWith(line, "cfn=")) {
      callee = line.substr(4);
    } else if (StartsWith(line, "calls=")) {
      call_cost_next = true;
    } else if (StartsWith(line, "totals:")) {
      p.totals = std::strtoull(line.c_str() + 7, nullptr, 10);
    } else if (StartsWith(line, "events:")) {
      saw_events = true;
    } else if (StartsWith(line, "desc: Trigger: ")) {
      p.trigger = line.substr(15);
    } else if (StartsWith(line, "positions:") && line != "positions: line") {
      return Status::InvalidArgument("callgrind output with '" + line +
                                     "': run callgrind with --dump-instr=no");
    } else if (c == '+' || c == '-' || c == '*') {
      return Status::InvalidArgument(
          "compressed callgrind output: run callgrind with --compress-strings=no "
          "--compress-pos=no");
    }
  }
  if (!saw_events) return Status::Corruption("not a callgrind output file (no events: line)");
  for (auto& [pair, cost] : calls) p.calls.push_back({pair.first, pair.second, cost});
  return p;
}

StatusOr<CallgrindProfile> ReadCallgrindFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IoError("cannot read callgrind output " + path);
  return ParseCallgrindOutput(in);
}

LayerInstructions AttributeLayers(const CallgrindProfile& p, uint64_t operations) {
  std::unordered_map<std::string_view, size_t> index;
  std::vector<std::optional<Layer>> own;
  std::vector<uint64_t> self;
  for (const auto& [name, f] : p.functions) {
    index.emplace(name, own.size());
    own.push_back(LayerOfFunction(name));
    self.push_back(f.self);
  }
  std::vector<std::vector<std::pair<size_t, double>>> callers(own.size());
  for (const CallgrindProfile::Call& c : p.calls) {
    auto from = index.find(c.caller), to = index.find(c.callee);
    if (from == index.end() || to == index.end() || from->second == to->second) continue;
    callers[to->second].push_back({from->second, double(c.inclusive)});
  }
  const std::vector<Shares> shares = PropagateShares(own, callers);
  Shares sum{};
  for (size_t f = 0; f < own.size(); ++f)
    for (int l = 0; l < kLayers; ++l) sum[size_t(l)] += double(self[f]) * shares[f][size_t(l)];
  const double ops = operations > 0 ? double(operations) : 1.0;
  LayerInstructions out;
  out.available = true;
  out.total = double(p.SelfSum()) / ops;
  out.codec = sum[size_t(Layer::kCodec)] / ops;
  out.rpc_core = sum[size_t(Layer::kRpcCore)] / ops;
  out.rpc_transport = sum[size_t(Layer::kRpcTransport)] / ops;
  out.rpc = out.rpc_core + out.rpc_transport;
  out.region = sum[size_t(Layer::kRegion)] / ops;
  out.harness = sum[size_t(Layer::kHarness)] / ops;
  out.other = sum[size_t(Layer::kOther)] / ops;
  return out;
}

std::string InstructionsModeDir() {
  const char* dir = std::getenv(kCallgrindDirEnv);
  return dir != nullptr && callgrind::UnderValgrind() ? std::string(dir) : std::string();
}

std::string SelfExecutable() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("/proc/self/exe") : p.string();
}

Status RunInstructionWarmup(const DriverOptions& options, Workload* workload, int64_t ops) {
  if (ops <= 0) return Status::Ok();
  DriverOptions w = options;
  w.operations = ops;
  w.max_seconds = 0;
  w.warmup_seconds = 0;
  w.status_interval_s = 0;
  w.on_status = nullptr;
  w.fetch_server_stats = false;
  auto r = RunLoad(w, workload);
  if (!r.ok()) return r.status();
  if (r->partial) return Status::Aborted("warm-up stopped early: " + r->error.ToString());
  return Status::Ok();
}

namespace {

// WIREBENCH_KEEP_CALLGRIND=1 keeps the dumps for callgrind_annotate.
bool KeepDumps() { return std::getenv(kKeepCallgrindEnv) != nullptr; }

// The newest dump of `pid` in `dir` whose trigger names `label`, and every
// dump file of that pid (to delete once read).
StatusOr<std::string> NewestDump(const std::string& dir, int pid, const std::string& label,
                                 std::vector<std::string>* all) {
  const std::string prefix = "callgrind.out." + std::to_string(pid) + ".";
  std::vector<std::pair<long, std::string>> dumps;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!StartsWith(name, prefix)) continue;
    all->push_back(e.path().string());
    dumps.push_back({std::strtol(name.c_str() + prefix.size(), nullptr, 10), e.path().string()});
  }
  if (ec) return Status::IoError("cannot list " + dir + ": " + ec.message());
  std::sort(dumps.rbegin(), dumps.rend());
  for (const auto& [n, path] : dumps) {
    std::ifstream in(path);
    std::string line;
    for (int i = 0; i < 40 && std::getline(in, line); ++i)
      if (StartsWith(line, "desc: Trigger: ") && line.find(label) != std::string::npos)
        return path;
  }
  return Status::NotFound("no callgrind dump labelled '" + label + "' from process " +
                          std::to_string(pid) + " in " + dir);
}

LayerInstructions SideFigures(const std::string& dir, int pid, const std::string& label,
                              uint64_t operations) {
  LayerInstructions side;
  std::vector<std::string> files;
  auto path = NewestDump(dir, pid, label, &files);
  StatusOr<CallgrindProfile> profile =
      path.ok() ? ReadCallgrindFile(*path) : StatusOr<CallgrindProfile>(path.status());
  if (profile.ok()) {
    side = AttributeLayers(*profile, operations);
  } else {
    side.unavailable_reason = profile.status().ToString();
  }
  std::error_code ec;
  if (!KeepDumps())
    for (const std::string& f : files) fs::remove(f, ec);
  return side;
}

// This process's arguments, from /proc/self/cmdline.
std::vector<std::string> OwnArguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  return args;
}

std::string FindInPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t pos = 0;
  while (pos <= dirs.size()) {
    size_t colon = dirs.find(':', pos);
    std::string d = dirs.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
    std::string candidate = (d.empty() ? "." : d) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  return "";
}

}  // namespace

std::string NoSymbolsWarning(const InstructionFigures& f) {
  std::string sides;
  for (auto [side, l] : {std::pair{"client", &f.client}, std::pair{"server", &f.server}})
    if (l->available && l->total > 0 && l->codec + l->rpc + l->region + l->harness == 0)
      sides += std::string(sides.empty() ? "" : " and ") + side;
  if (sides.empty()) return "";
  return "wirebench: every " + sides +
         " instruction fell in the 'other' layer: the binary has no symbols to split them by (a "
         "stripped binary, as the Debian package's is): install the wirebench-dbgsym package, or "
         "use a binary from a build tree; the totals are right, the layers are not";
}

InstructionFigures CollectInstructions(const std::string& dir, int server_pid,
                                       uint64_t operations, const std::string& server_missing) {
  InstructionFigures f;
  f.operations = operations;
  f.client = SideFigures(dir, int(getpid()), callgrind::kClientPhaseLabel, operations);
  if (server_pid > 0 && !server_missing.empty()) {
    // Its dumps are read (and deleted) all the same; none is the measured phase.
    (void)SideFigures(dir, server_pid, callgrind::kServerStatsLabel, operations);
    f.server = LayerInstructions{};
    f.server.unavailable_reason =
        "the server's closing Stats call, whose dump counts the measured phase, did not happen (" +
        server_missing + ")";
  } else if (server_pid > 0) {
    f.server = SideFigures(dir, server_pid, callgrind::kServerStatsLabel, operations);
  } else {
    f.server.unavailable_reason =
        "the server is not co-located (--server): only a co-located server runs under callgrind";
  }
  if (const std::string w = NoSymbolsWarning(f); !w.empty()) std::fprintf(stderr, "%s\n", w.c_str());
  return f;
}

namespace {

// This process's own command line, run by valgrind's callgrind writing into `dir`.
std::vector<std::string> CallgrindCommand(const std::string& valgrind, const std::string& dir) {
  std::vector<std::string> args = {
      valgrind, "--tool=callgrind", "--trace-children=yes",
      // Charts are drawn by gnuplot through the shell: not worth counting.
      "--trace-children-skip=*/sh,*/bash,*/dash,*/gnuplot", "--compress-strings=no",
      "--compress-pos=no", "--callgrind-out-file=" + dir + "/callgrind.out.%p",
      "--log-file=" + dir + "/valgrind.%p.log", SelfExecutable()};
  std::vector<std::string> own = OwnArguments();
  args.insert(args.end(), own.begin() + (own.empty() ? 0 : 1), own.end());
  return args;
}

// How the run under callgrind ended: its wait status and the first stop
// signal this process passed on (0: none).
struct CallgrindEnd {
  int status = 0;
  int stop_signal = 0;
};

// Waits for the run under callgrind (process group `pid`), with `watched`
// blocked: a SIGINT, SIGTERM or SIGHUP is passed on to it (the run stops and
// reports what it measured) and, if it has not ended kStopGrace later or a
// second signal comes, the whole group is killed.
CallgrindEnd WaitForCallgrindRun(pid_t pid, const sigset_t& watched) {
  constexpr auto kStopGrace = std::chrono::seconds(5);
  // Started with SIGINT ignored (a background job), the run under callgrind
  // ignores it too: it is told with SIGTERM instead.
  struct sigaction sigint {};
  const bool sigint_ignored = sigaction(SIGINT, nullptr, &sigint) == 0 && sigint.sa_handler == SIG_IGN;
  CallgrindEnd end;
  std::chrono::steady_clock::time_point give_up;
  for (;;) {
    // Not reaped yet (WNOWAIT): while it is a zombie its group id cannot
    // be reused, so the group kill below cannot reach another process.
    siginfo_t info{};
    if (waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 && errno != EINTR) break;
    if (info.si_pid == pid) break;
    int sig;
    if (end.stop_signal == 0) {
      sig = sigwaitinfo(&watched, nullptr);
    } else {
      const auto left = give_up - std::chrono::steady_clock::now();
      if (left <= std::chrono::steady_clock::duration::zero()) {
        kill(-pid, SIGKILL);
        sig = sigwaitinfo(&watched, nullptr);
      } else {
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
        const timespec t{time_t(ns / 1000000000), long(ns % 1000000000)};
        sig = sigtimedwait(&watched, nullptr, &t);
      }
    }
    if (sig <= 0 || sig == SIGCHLD) continue;
    if (end.stop_signal == 0) {
      end.stop_signal = sig;
      give_up = std::chrono::steady_clock::now() + kStopGrace;
      std::fprintf(stderr,
                   "wirebench: %s: stopping the run under callgrind (again to end it at once)\n",
                   sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP");
      kill(pid, sig == SIGHUP || (sig == SIGINT && sigint_ignored) ? SIGTERM : sig);
    } else {
      kill(-pid, SIGKILL);
    }
  }
  kill(-pid, SIGKILL);  // Whatever of the run is left (nothing, normally).
  if (waitpid(pid, &end.status, 0) != pid) end.status = W_EXITCODE(2, 0);
  return end;
}

// Callgrind's output folder: removed, or kept (and said so) when the run
// failed or WIREBENCH_KEEP_CALLGRIND asks for it.
void CleanUpCallgrindDir(const std::string& dir, int code, int stop_signal) {
  if (stop_signal != 0 && !KeepDumps()) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  } else if (code != 0) {
    std::fprintf(stderr, "wirebench: the run under callgrind failed (exit %d); Valgrind's logs "
                 "are kept in %s\n", code, dir.c_str());
  } else if (KeepDumps()) {
    std::fprintf(stderr, "wirebench: callgrind's dumps are kept in %s\n", dir.c_str());
  } else {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
}

}  // namespace

int RunSelfUnderCallgrind() {
  const std::string valgrind = FindInPath("valgrind");
  if (valgrind.empty()) {
    std::fprintf(stderr,
                 "wirebench: --instructions needs Valgrind (callgrind), which is not on PATH: "
                 "install it (apt-get install valgrind, or scripts/install-deps)\n");
    return 2;
  }
  char dir_template[] = "/tmp/wirebench-callgrind-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) {
    std::fprintf(stderr, "wirebench: cannot create a directory for callgrind's output: %s\n",
                 std::strerror(errno));
    return 2;
  }
  const std::string dir = dir_template;
  std::vector<std::string> args = CallgrindCommand(valgrind, dir);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fprintf(stderr,
               "wirebench: --instructions: running under callgrind (about 50x slower than "
               "native; a 20,000-operation cell takes some 10-30 s)\n");
  std::fflush(stderr);
  // The run under callgrind (its client and the server that client starts)
  // is a process group of its own that never outlives this process: it
  // gets SIGKILL when this process dies, however (PR_SET_PDEATHSIG); the
  // stop signals are passed on to it (WaitForCallgrindRun).
  sigset_t watched, old_mask;
  sigemptyset(&watched);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&watched, s);
  pthread_sigmask(SIG_BLOCK, &watched, &old_mask);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(126);
    pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
    setenv(kCallgrindDirEnv, dir.c_str(), 1);
    execv(valgrind.c_str(), argv.data());
    _exit(127);
  }
  if (pid < 0) {
    pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
    std::fprintf(stderr, "wirebench: cannot run valgrind: %s\n", std::strerror(errno));
    return 2;
  }
  setpgid(pid, pid);  // Also here, so the group exists before any kill below.
  const CallgrindEnd end = WaitForCallgrindRun(pid, watched);
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  const int code = WIFEXITED(end.status) ? WEXITSTATUS(end.status) : 128 + WTERMSIG(end.status);
  CleanUpCallgrindDir(dir, code, end.stop_signal);
  return code;
}

}  // namespace wirebench
