#include "common/proc_text.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace wirebench {

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

}  // namespace wirebench
