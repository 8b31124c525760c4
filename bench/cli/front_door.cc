#include "bench/cli/front_door.h"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "bench/cli/ycsb_command.h"
#include "bench/loadgen/local_server.h"

namespace wirebench {

namespace {

// YCSB's own single-dash flags (site.ycsb.Client), for load and run.
struct YcsbFlag {
  const char* name;
  bool takes_value;
};
constexpr YcsbFlag kYcsbFlags[] = {{"-P", true},        {"-p", true},       {"-s", false},
                                   {"-t", false},       {"-load", false},   {"-db", true},
                                   {"-threads", true},  {"-target", true},  {"-l", true}};
constexpr const char* kYcsbFlagList = "-P -p -s -t -load -db -threads -target -l";

bool IsYcsbFlag(const std::string& word) {
  for (const YcsbFlag& f : kYcsbFlags)
    if (word == f.name) return true;
  return false;
}

bool IsYcsbBindingName(const std::string& word) {
  const auto& names = YcsbBindingList();
  return std::find(names.begin(), names.end(), word) != names.end();
}

bool IsYcsbCommand(const CLI::App* sub) {
  return sub->get_name() == "run" || sub->get_name() == "load";
}

const CLI::App* FindSubcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    if (s->get_name() == name) return s;
  return nullptr;
}

const CLI::Option* FindOption(const CLI::App* sub, const std::string& name) {
  for (const CLI::Option* o : sub->get_options())
    if (o->nonpositional() && o->check_name(name)) return o;
  return nullptr;
}

bool TakesValue(const CLI::Option* o) {
  return o != nullptr && o->get_type_size_max() > 0 && o->get_expected_max() > 0;
}

// Levenshtein distance, for "did you mean" on a mistyped command.
size_t Distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The flag of `sub` nearest to the mistyped `word` ("--second" -> "--seconds",
// "-thread" -> "-threads"), within a third of its length in edits (at least
// two); "" when none is that near. YCSB's single-dash flags count for run and
// load.
std::string NearestFlag(const CLI::App* sub, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::Option* o : sub->get_options()) {
    if (!o->nonpositional()) continue;
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
  }
  if (IsYcsbCommand(sub))
    for (const YcsbFlag& f : kYcsbFlags) names.emplace_back(f.name);
  std::string best;
  size_t best_distance = std::max<size_t>(3, word.size() / 3 + 1);
  for (const std::string& n : names)
    if (const size_t d = Distance(word, n); d < best_distance) {
      best_distance = d;
      best = n;
    }
  return best;
}

std::string See(const CLI::App* sub) {
  return " (wirebench " + sub->get_name() + " --help lists the options)";
}

// The error for single-dash word `word` (no '=' part) on `sub`'s command line.
std::string RefuseSingleDash(const CLI::App* sub, const std::string& word,
                             const std::string& whole) {
  const std::string bare = word.substr(1);
  std::string why = "wirebench " + sub->get_name() + ": '" + whole + "': ";
  why += IsYcsbCommand(sub)
             ? "the single-dash flags are YCSB's own (" + std::string(kYcsbFlagList) +
                   "), every other flag has two dashes"
             : "flags have two dashes (single-dash ones have one letter)";
  if (FindOption(sub, "--" + bare) != nullptr) return why + ": did you mean --" + bare + "?";
  if (const std::string near = NearestFlag(sub, word); !near.empty())
    return why + ": did you mean " + near + "?" + See(sub);
  if (FindOption(sub, "-p") != nullptr)
    return why + ", and " + sub->get_name() + " has no --" + bare +
           ": if it is a YCSB property, give it as -p " + bare + "=VALUE" + See(sub);
  return why + ", and " + sub->get_name() + " has no --" + bare + See(sub);
}

// run, load and diff check their numbers themselves, naming the YCSB property.
bool ChecksItsOwnNumbers(const CLI::App* sub) {
  return IsYcsbCommand(sub) || sub->get_name() == "diff";
}

// nan and inf for a FLOAT option (CLI11's ranges let NaN through, and say
// inf is "not in range" with a 300-digit bound).
std::optional<std::string> RefuseNonFinite(const CLI::App* sub, const CLI::Option* o,
                                           const std::string& flag, const std::string& value) {
  if (ChecksItsOwnNumbers(sub) || o->get_type_name().rfind("FLOAT", 0) != 0) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(value.c_str(), &end);
  if (end == value.c_str() || *end != '\0' || std::isfinite(d)) return std::nullopt;
  return "wirebench " + sub->get_name() + ": " + flag + " " + value +
         ": must be a finite number" + See(sub);
}

std::string RefuseEmpty(const CLI::App* sub, const std::string& flag) {
  return "wirebench " + sub->get_name() + ": " + flag + " was given an empty value: give it a " +
         "value, or leave " + flag + " out" + See(sub);
}

}  // namespace

std::string ExitStatusHelp() {
  return "Exit status: 0 done; 1 the run failed (it ended, but calls failed or nothing ran); 2 a "
         "usage or configuration error (bad option, unreachable or wrong server, output not "
         "written), said in one line on stderr; 3 partial results (stopped early by a signal, a "
         "stall or a lost server: what was measured is reported).\n";
}

std::string SubcommandNames(const CLI::App& app) {
  std::string out;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    out += (out.empty() ? "" : ", ") + s->get_name();
  return out;
}

namespace {

// A first word that names no command: the commands, and the nearest when
// it is at most two edits away.
std::string UnknownCommand(const CLI::App& app, const std::string& first,
                           const std::string& commands) {
  std::string closest;
  size_t best = 3;  // At most two edits away.
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    if (const size_t d = Distance(first, s->get_name()); d < best) {
      best = d;
      closest = s->get_name();
    }
  return "wirebench: unknown command '" + first + "'" +
         (closest.empty() ? "" : " (did you mean " + closest + "?)") + "; the commands are " +
         commands + " (wirebench --help describes them)";
}

// args[*i], a --flag or --flag=value of `sub`: an unknown flag or an empty
// or non-finite value refused; *i moved past a value given as the next word.
std::optional<std::string> CheckDoubleDash(const CLI::App* sub, bool ycsb,
                                           const std::vector<std::string>& args, size_t* i) {
  const std::string& a = args[*i];
  const size_t eq = a.find('=');
  const std::string word = a.substr(0, eq);
  const CLI::Option* o = FindOption(sub, word);
  if (o == nullptr && word != "--help" && word != "--help-all" &&
      !(ycsb && IsYcsbFlag(word.substr(1)))) {  // --threads is YCSB's -threads.
    // Named here, before CLI11 takes the mistyped flag's value for a
    // positional ("unknown binding '1'") or lists it among leftovers.
    const std::string near = NearestFlag(sub, word);
    return "wirebench " + sub->get_name() + ": unknown option " + word +
           (near.empty() ? "" : ": did you mean " + near + "?") + See(sub);
  }
  if (!TakesValue(o)) return std::nullopt;
  if (eq != std::string::npos) {
    if (eq + 1 == a.size()) return RefuseEmpty(sub, word);
    return RefuseNonFinite(sub, o, word, a.substr(eq + 1));
  }
  if (*i + 1 < args.size()) {
    if (args[*i + 1].empty()) return RefuseEmpty(sub, word);
    if (auto why = RefuseNonFinite(sub, o, word, args[*i + 1])) return why;
    ++*i;  // Its value, whatever it looks like (--seconds -1 is refused later).
  }
  return std::nullopt;
}

// args[*i], a single-dash word: YCSB's flags for load and run, a short
// option of `sub` otherwise (a negative number is a value, not a flag);
// *i moved past its value.
std::optional<std::string> CheckSingleDash(const CLI::App* sub, bool ycsb,
                                           const std::vector<std::string>& args, size_t* i) {
  const std::string& a = args[*i];
  if (std::isdigit(static_cast<unsigned char>(a[1])) || a[1] == '.') return std::nullopt;
  const size_t eq = a.find('=');
  const std::string word = a.substr(0, eq);
  bool takes_value = false;
  bool allowed = false;
  if (ycsb) {
    for (const YcsbFlag& f : kYcsbFlags)
      if (word == f.name) {
        allowed = true;
        takes_value = f.takes_value;
      }
  } else if (sub->get_name() == "compare" && (word == "-threads" || word == "-target")) {
    // YCSB's spellings of compare's --threads and --target (main translates
    // them), so a YCSB command line's -threads 32 -target N carries over.
    allowed = takes_value = true;
  } else {
    const CLI::Option* o = word.size() == 2 ? FindOption(sub, word) : nullptr;
    allowed = o != nullptr;
    takes_value = TakesValue(o);
  }
  if (word == "-h") allowed = true;
  if (allowed && eq != std::string::npos)
    return "wirebench " + sub->get_name() + ": '" + a + "': " + word +
           " takes its value as the next word: " + word + " " + a.substr(eq + 1) +
           (word.size() > 2 ? " (or --" + word.substr(1) + "=" + a.substr(eq + 1) + ")" : "");
  if (!allowed) return RefuseSingleDash(sub, word, a);
  if (takes_value && *i + 1 < args.size()) {
    if (args[*i + 1].empty()) return RefuseEmpty(sub, word);
    ++*i;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> CheckCommandLine(const CLI::App& app,
                                            const std::vector<std::string>& args) {
  const std::string commands = SubcommandNames(app);
  if (args.empty())
    return "wirebench: give a command: " + commands + " (wirebench --help describes them)";
  const std::string& first = args[0];
  if (first == "-h" || first == "--help" || first == "--help-all") return std::nullopt;
  if (first.rfind('-', 0) == 0)
    return "wirebench: unknown option '" + first + "' before the command: give a command first (" +
           commands + "), its options after it (wirebench COMMAND --help)";
  const CLI::App* sub = FindSubcommand(app, first);
  if (sub == nullptr) return UnknownCommand(app, first, commands);
  const bool ycsb = IsYcsbCommand(sub);
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;  // The rest is measure's command.
    if (ycsb && i > 1 && !a.empty() && a[0] != '-' && !IsYcsbBindingName(a))
      return "wirebench " + sub->get_name() + ": '" + a +
             "': an argument value without corresponding argument specifier (e.g. -p, -s) was "
             "found, as YCSB says: it expected a flag there. Give properties as -p key=value, "
             "one -P per file, and the binding (" + YcsbBindingNames() +
             ") right after the command" + See(sub);
    if (a.size() < 2 || a[0] != '-') continue;  // A value, a positional or "-".
    auto why = a[1] == '-' ? CheckDoubleDash(sub, ycsb, args, &i)
                           : CheckSingleDash(sub, ycsb, args, &i);
    if (why) return why;
  }
  return std::nullopt;
}

std::string DescribeParseError(const CLI::App& app, const CLI::App* sub,
                               const CLI::ParseError& e) {
  std::string what = e.what();
  const std::string who = sub == nullptr ? "wirebench" : "wirebench " + sub->get_name();
  const std::string see = sub == nullptr
                              ? " (wirebench --help lists the commands)"
                              : " (wirebench " + sub->get_name() + " --help lists the options)";
  // "Could not convert: --port = 70000": say what the option takes.
  const std::string convert = "Could not convert: ";
  if (what.rfind(convert, 0) == 0) {
    const size_t eq = what.find(" = ", convert.size());
    const std::string name = what.substr(convert.size(), eq - convert.size());
    const std::string value = eq == std::string::npos ? "" : what.substr(eq + 3);
    std::string takes;
    if (sub != nullptr)
      if (const CLI::Option* o = FindOption(sub, name)) takes = o->get_type_name();
    return who + ": " + name + " " + value + " is not " +
           (takes.empty() ? "a valid value" : "a valid " + takes) + see;
  }
  // "--port: At Most 1 required but received 2": the flag was given twice.
  if (const size_t at = what.find(": At Most 1 required but received "); at != std::string::npos)
    return who + ": " + what.substr(0, at) + " was given " +
           what.substr(at + std::string(": At Most 1 required but received ").size()) +
           " values or times: give it once, with one value" + see;
  if (sub != nullptr && sub->get_name() == "measure" && what == "command is required")
    return who + ": no command to measure: give it after --, e.g. wirebench measure -- node "
                 "client.js {server}" + see;
  if (what.rfind("The following argument", 0) == 0)
    return who + ": " + what + ": not an option or value of " + who + see;
  (void)app;
  return who + ": " + what + see;
}

std::string AvailableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return "unknown";
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    out += (out.empty() ? "" : ",") + std::to_string(c) +
           (last > c ? "-" + std::to_string(last) : "");
    c = last;
  }
  return out;
}

void CheckCpuListFlags(CLI::App& app) {
  CLI::Validator available(
      [](std::string& value) -> std::string {
        auto cpus = ParseCpuList(value);
        if (!cpus.ok()) return std::string(cpus.status().message());
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof(set), &set) != 0) return std::string();
        for (int c : *cpus)
          if (c >= CPU_SETSIZE || !CPU_ISSET(c, &set))
            return "CPU " + std::to_string(c) + " is not one this process may run on; the CPUs " +
                   "available are " + AvailableCpus();
        return std::string();
      },
      "");
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* o : sub->get_options())
      if (o->check_name("--cpus") || o->check_name("--client-cpus") ||
          o->check_name("--server-cpus"))
        o->check(available)->type_name("CPUS");
}

}  // namespace wirebench
