#include "bench/results/host_figures.h"
#include "bench/results/ratio_interval.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace wirebench {

namespace {

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

// Other processes' CPUs over a span: the machine's busy jiffies less this
// process's own ticks (both in USER_HZ), over the span's wall time in jiffies
// per CPU. In doubles: /proc/stat's idle (with iowait) can step back, and a
// difference of unsigned counters would then wrap to an enormous "busy".
std::optional<double> OtherCpus(const CpuJiffies& a, const CpuJiffies& b, uint64_t own_a,
                                uint64_t own_b, int cpus) {
  if (b.total <= a.total || own_b < own_a || cpus <= 0) return std::nullopt;
  const double busy = (double(b.total) - double(b.idle)) - (double(a.total) - double(a.idle));
  const double own = double(own_b - own_a);
  const double span = double(b.total - a.total) / cpus;  // Jiffies of wall time.
  return std::max(0.0, (busy - own) / span);
}

// The steal share of a span; nullopt when the jiffies did not move on or the
// steal counter went back (no figure rather than a wrapped one).
std::optional<double> StealPercent(const CpuJiffies& a, const CpuJiffies& b) {
  if (b.total <= a.total || b.steal < a.steal) return std::nullopt;
  return 100.0 * double(b.steal - a.steal) / double(b.total - a.total);
}

// "other_cpus" and "steal_percent" of the span from (a, own_a) to (b, own_b)
// into `j`, those that can be read.
void AddSpanFigures(const std::optional<CpuJiffies>& a, const std::optional<CpuJiffies>& b,
                    const std::optional<uint64_t>& own_a, const std::optional<uint64_t>& own_b,
                    int cpus, nlohmann::json* j) {
  if (!a || !b) return;
  if (own_a && own_b)
    if (auto other = OtherCpus(*a, *b, *own_a, *own_b, cpus)) (*j)["other_cpus"] = *other;
  if (auto steal = StealPercent(*a, *b)) (*j)["steal_percent"] = *steal;
}

}  // namespace

void HostProbe::Start() {
  start_ = env_->CpuTimes();
  load_start_ = env_->LoadAverage();
  own_start_ = env_->OwnCpuTicks();
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

nlohmann::json SampleHost(double seconds, HostEnv& env) {
  nlohmann::json j = nlohmann::json::object();
  const auto a = env.CpuTimes();
  const auto own_a = env.OwnCpuTicks();
  env.SleepFor(std::chrono::duration_cast<HostEnv::Clock::duration>(
      std::chrono::duration<double>(seconds)));
  const auto b = env.CpuTimes();
  const auto own_b = env.OwnCpuTicks();
  j["cpus"] = env.OnlineCpus();
  AddSpanFigures(a, b, own_a, own_b, env.OnlineCpus(), &j);
  if (auto load = env.LoadAverage()) j["load1"] = *load;
  return j;
}

nlohmann::json HostProbe::Finish() const {
  nlohmann::json j = nlohmann::json::object();
  std::vector<std::string> unreadable;
  const auto load = env_->LoadAverage();
  if (load) {
    j["load1"] = load_start_ ? std::max(*load, *load_start_) : *load;
  } else {
    unreadable.push_back("load average (/proc/loadavg)");
  }
  AddSpanFigures(start_, env_->CpuTimes(), own_start_, env_->OwnCpuTicks(), env_->OnlineCpus(),
                 &j);
  if (!j.contains("steal_percent")) unreadable.push_back("steal (/proc/stat)");
  if (auto mhz = env_->CpuMhz()) {
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
