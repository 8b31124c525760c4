#include "bench/results/cluster_stats.h"

#include <algorithm>

#include "bench/results/costs.h"

namespace wirebench {

namespace {

using json = nlohmann::json;

// Adds `from` into `into`: numbers summed, "threads" arrays joined, the
// rest (and "server", which describes one process) kept as `into` has it.
void AddStats(const json& from, json* into) {
  for (auto it = from.begin(); it != from.end(); ++it) {
    const std::string& key = it.key();
    if (key == "server") continue;
    if (!into->contains(key)) {
      (*into)[key] = *it;
      continue;
    }
    json& mine = (*into)[key];
    if (key == "threads" && mine.is_array() && it->is_array()) {
      for (const json& t : *it) mine.push_back(t);
    } else if (mine.is_number_unsigned() && it->is_number_unsigned()) {
      mine = mine.get<uint64_t>() + it->get<uint64_t>();
    } else if (mine.is_number() && it->is_number() && !mine.is_boolean()) {
      mine = mine.get<double>() + it->get<double>();
    } else if (mine.is_object() && it->is_object()) {
      AddStats(*it, &mine);
    }
  }
}

// Region calls, through the codecs ("calls") and grpc-native's generated
// service ("native_calls").
uint64_t RegionCalls(const json& stats) {
  uint64_t n = 0;
  for (const char* key : {"calls", "native_calls"}) {
    const json calls = stats.value(key, json::object());
    for (const char* m : {"Mutate", "Get", "Scan", "Multi"}) n += calls.value(m, uint64_t(0));
  }
  return n;
}

// hbase:meta lookups a server answered, or -1 when its Stats do not count them.
int64_t MetaCalls(const json& stats) {
  if (!stats.is_object() || !stats.contains("hbase")) return -1;
  return stats.at("hbase").value("meta_calls", int64_t(-1));
}

// ClusterFigures' meta lookups, over the servers whose Stats count them.
void MetaLookups(const RunResult& r, ClusterFigures* out) {
  int64_t before = -1, during = 0;
  for (const RunResult::ClusterServer& s : r.cluster_servers) {
    const int64_t b = MetaCalls(s.before), a = MetaCalls(s.after);
    if (b < 0 || a < 0) continue;
    before = std::max<int64_t>(before, 0) + b;
    during += a - b;
  }
  if (before < 0) return;
  out->meta_lookups_before = before;
  out->meta_lookups_per_op = r.operations > 0 ? double(during) / double(r.operations) : 0;
}

}  // namespace

json CombineClusterStats(const std::vector<json>& each) {
  if (each.empty()) return json();
  json out = each.front();
  for (size_t i = 1; i < each.size(); ++i) AddStats(each[i], &out);
  return out;
}

ClusterFigures ComputeClusterFigures(const RunResult& r) {
  ClusterFigures out;
  double total_calls = 0, max_calls = 0, cpu_s = 0;
  for (const RunResult::ClusterServer& s : r.cluster_servers) {
    ClusterServerFigures f;
    f.address = s.address;
    f.available = s.before.is_object() && s.after.is_object();
    if (f.available) {
      f.calls = double(RegionCalls(s.after) - RegionCalls(s.before));
      RunResult one;
      one.server_before = s.before;
      one.server_after = s.after;
      one.operations = uint64_t(std::max(f.calls, 1.0));
      const SideCosts c = ComputeCosts(one).server;
      f.cpu_us_per_call = c.cpu_us;
      f.cpu_s = c.cpu_us * double(one.operations) / 1e6;
      f.bytes_in_per_call = c.wire_bytes_in;
      f.bytes_out_per_call = c.wire_bytes_out;
      total_calls += f.calls;
      max_calls = std::max(max_calls, f.calls);
      cpu_s += f.cpu_s;
    }
    out.servers.push_back(f);
  }
  if (out.servers.empty()) return out;
  for (ClusterServerFigures& f : out.servers)
    f.share = total_calls > 0 ? f.calls / total_calls : 0;
  // Over the servers whose figures were read (one lost mid-run has none).
  const auto read = std::count_if(out.servers.begin(), out.servers.end(),
                                  [](const ClusterServerFigures& f) { return f.available; });
  const double mean = read > 0 ? total_calls / double(read) : 0;
  out.imbalance = mean > 0 ? max_calls / mean : 0;
  out.ops_per_server_core_s = cpu_s > 0 ? double(r.operations) / cpu_s : 0;
  MetaLookups(r, &out);
  return out;
}

}  // namespace wirebench
