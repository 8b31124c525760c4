#include "bench/results/host_figures.h"
#include "bench/results/ratio_interval.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace wirebench {

namespace {

std::string ReadText(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Fixed(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

// The reason `figure` of one repeat is an outlier against `median`, or "".
std::string Outlier(const char* figure, const char* unit, double v, double median) {
  if (std::isnan(v) || !(median > 0) || !(v > 0)) return "";
  const double r = v / median;
  if (r <= kOutlierFactor && r >= 1.0 / kOutlierFactor) return "";
  return std::string(figure) + " " + Fixed("%.2f", r) + "x the median (" + Fixed("%.6g", v) +
         " against " + Fixed("%.6g", median) + " " + unit + ")";
}

}  // namespace

std::optional<CpuJiffies> ParseProcStat(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu ", 0) != 0) continue;
    std::istringstream f(line.substr(4));
    uint64_t v[8] = {};
    int n = 0;
    while (n < 8 && f >> v[n]) ++n;
    if (n < 4) return std::nullopt;
    CpuJiffies j;
    for (int i = 0; i < n; ++i) j.total += v[i];
    j.steal = n >= 8 ? v[7] : 0;
    j.idle = v[3] + (n >= 5 ? v[4] : 0);
    return j;
  }
  return std::nullopt;
}

std::optional<double> ParseLoadAverage(const std::string& text) {
  double load = 0;
  if (std::sscanf(text.c_str(), "%lf", &load) != 1 || !(load >= 0)) return std::nullopt;
  return load;
}

std::optional<double> ParseCpuInfoMhz(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  double sum = 0;
  int n = 0;
  while (std::getline(in, line)) {
    if (line.rfind("cpu MHz", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    double mhz = 0;
    if (std::sscanf(line.c_str() + colon + 1, "%lf", &mhz) == 1 && mhz > 0) {
      sum += mhz;
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

std::optional<uint64_t> ParseOwnTicks(const std::string& stat_text) {
  // Fields after the command name's closing parenthesis (which may hold spaces).
  const size_t close = stat_text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream in(stat_text.substr(close + 1));
  std::string field;
  uint64_t sum = 0;
  // Field 3 (state) is the first after ')'; utime..cstime are fields 14-17.
  for (int f = 3; f <= 17 && in >> field; ++f) {
    if (f < 14) continue;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(field.c_str(), &end, 10);
    if (end == field.c_str() || *end != '\0') return std::nullopt;
    sum += v;
    if (f == 17) return sum;
  }
  return std::nullopt;
}

namespace {

std::optional<uint64_t> OwnTicks() { return ParseOwnTicks(ReadText("/proc/self/stat")); }

// Other processes' CPUs over a span: the machine's busy jiffies less this
// process's own ticks (both in USER_HZ), over the span's wall time in jiffies
// per CPU.
std::optional<double> OtherCpus(const CpuJiffies& a, const CpuJiffies& b, uint64_t own_a,
                                uint64_t own_b, int cpus) {
  if (b.total <= a.total || cpus <= 0) return std::nullopt;
  const double busy = double((b.total - b.idle) - (a.total - a.idle));
  const double own = double(own_b - own_a);
  const double span = double(b.total - a.total) / cpus;  // Jiffies of wall time.
  return std::max(0.0, (busy - own) / span);
}

int OnlineCpus() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? int(n) : 1;
}

}  // namespace

void HostProbe::Start() {
  start_ = ParseProcStat(ReadText("/proc/stat"));
  load_start_ = ParseLoadAverage(ReadText("/proc/loadavg"));
  own_start_ = OwnTicks();
}

std::string BusyHost(const nlohmann::json& host) {
  if (!host.is_object()) return "";
  std::string why;
  if (host.contains("other_cpus") && host["other_cpus"].is_number() &&
      host["other_cpus"].get<double>() > kBusyOtherCpus)
    why = "other processes used " + Fixed("%.2f", host["other_cpus"].get<double>()) + " CPUs";
  if (host.contains("steal_percent") && host["steal_percent"].is_number() &&
      host["steal_percent"].get<double>() > kBusyStealPercent)
    why += (why.empty() ? "" : ", ") + std::string("steal ") +
           Fixed("%.1f", host["steal_percent"].get<double>()) + "%";
  return why;
}

nlohmann::json SampleHost(double seconds) {
  nlohmann::json j = nlohmann::json::object();
  const auto a = ParseProcStat(ReadText("/proc/stat"));
  const auto own_a = OwnTicks();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const auto b = ParseProcStat(ReadText("/proc/stat"));
  const auto own_b = OwnTicks();
  j["cpus"] = OnlineCpus();
  if (a && b && own_a && own_b) {
    if (auto other = OtherCpus(*a, *b, *own_a, *own_b, OnlineCpus())) j["other_cpus"] = *other;
    if (b->total > a->total)
      j["steal_percent"] = 100.0 * double(b->steal - a->steal) / double(b->total - a->total);
  }
  if (auto load = ParseLoadAverage(ReadText("/proc/loadavg"))) j["load1"] = *load;
  return j;
}

nlohmann::json HostProbe::Finish() const {
  nlohmann::json j = nlohmann::json::object();
  std::vector<std::string> unreadable;
  const auto load = ParseLoadAverage(ReadText("/proc/loadavg"));
  if (load) {
    j["load1"] = load_start_ ? std::max(*load, *load_start_) : *load;
  } else {
    unreadable.push_back("load average (/proc/loadavg)");
  }
  const auto end = ParseProcStat(ReadText("/proc/stat"));
  const auto own_end = OwnTicks();
  if (start_ && end && own_start_ && own_end)
    if (auto other = OtherCpus(*start_, *end, *own_start_, *own_end, OnlineCpus()))
      j["other_cpus"] = *other;
  if (start_ && end && end->total > start_->total) {
    j["steal_percent"] =
        100.0 * double(end->steal - start_->steal) / double(end->total - start_->total);
  } else {
    unreadable.push_back("steal (/proc/stat)");
  }
  // The scaling driver's current clock where there is one, else cpuinfo's.
  std::optional<double> mhz;
  const std::string khz = ReadText("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq");
  if (double k = 0; std::sscanf(khz.c_str(), "%lf", &k) == 1 && k > 0) mhz = k / 1000.0;
  if (!mhz) mhz = ParseCpuInfoMhz(ReadText("/proc/cpuinfo"));
  if (mhz) {
    j["cpu_mhz"] = *mhz;
  } else {
    unreadable.push_back("CPU MHz (no cpufreq, no 'cpu MHz' in /proc/cpuinfo)");
  }
  if (!unreadable.empty()) j["unreadable"] = unreadable;
  return j;
}

std::vector<std::string> RepeatOutliers(const std::vector<RepeatFigures>& repeats) {
  std::vector<std::string> out(repeats.size());
  const auto median_of = [&](double RepeatFigures::*f) {
    std::vector<double> v;
    for (const RepeatFigures& r : repeats)
      if (!std::isnan(r.*f)) v.push_back(r.*f);
    return v.size() >= 3 ? Median(v) : std::nan("");
  };
  const double tput = median_of(&RepeatFigures::throughput);
  const double cpu = median_of(&RepeatFigures::cpu_per_op);
  for (size_t i = 0; i < repeats.size(); ++i) {
    std::string why = Outlier("throughput", "ops/s", repeats[i].throughput, tput);
    const std::string c = Outlier("CPU/op", "us/op", repeats[i].cpu_per_op, cpu);
    if (!c.empty()) why += (why.empty() ? "" : "; ") + c;
    out[i] = why;
  }
  return out;
}

std::string HostText(const nlohmann::json& host) {
  if (!host.is_object() || host.empty()) return "host not recorded";
  std::string s;
  const auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  if (host.contains("load1") && host["load1"].is_number())
    add("load " + Fixed("%.2f", host["load1"].get<double>()));
  if (host.contains("steal_percent") && host["steal_percent"].is_number())
    add("steal " + Fixed("%.1f", host["steal_percent"].get<double>()) + "%");
  if (host.contains("other_cpus") && host["other_cpus"].is_number())
    add("other processes " + Fixed("%.2f", host["other_cpus"].get<double>()) + " CPUs");
  if (host.contains("cpu_mhz") && host["cpu_mhz"].is_number())
    add(Fixed("%.0f", host["cpu_mhz"].get<double>()) + " MHz");
  return s.empty() ? "host not readable" : s;
}

}  // namespace wirebench
