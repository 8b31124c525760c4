#include "nullregion/cluster.h"

#include <algorithm>
#include <cstdio>

namespace wirebench {

StatusOr<SplitAlgorithm> ParseSplitAlgorithm(std::string_view name) {
  if (name == "hex") return SplitAlgorithm::kHexString;
  if (name == "ycsb") return SplitAlgorithm::kYcsb;
  return Status::InvalidArgument(
      "--cluster-split " + std::string(name) +
      ": valid are hex (HBase's HexStringSplit) and ycsb (YCSB's user1000..user9999)");
}

std::string_view SplitAlgorithmName(SplitAlgorithm a) {
  return a == SplitAlgorithm::kYcsb ? "ycsb" : "hex";
}

RegionLayout::RegionLayout(uint32_t regions, SplitAlgorithm split) : split_(split) {
  const uint32_t n = std::max<uint32_t>(regions, 1);
  starts_.reserve(n);
  starts_.emplace_back();
  for (uint32_t i = 1; i < n; ++i) {
    char buf[24];
    if (split == SplitAlgorithm::kHexString)
      std::snprintf(buf, sizeof(buf), "%08llx",
                    static_cast<unsigned long long>((uint64_t{1} << 32) * i / n));
    else
      std::snprintf(buf, sizeof(buf), "user%u", unsigned(1000 + uint64_t{9000} * i / n));
    starts_.emplace_back(buf);
  }
}

uint32_t RegionLayout::RegionOfRow(std::string_view row) const {
  // The last start key at or before the row (the first is "", before all).
  auto it = std::upper_bound(starts_.begin() + 1, starts_.end(), row,
                             [](std::string_view r, const std::string& s) { return r < s; });
  return uint32_t(it - starts_.begin()) - 1;
}

int RegionLayout::RegionStartingAt(std::string_view start) const {
  auto it = std::lower_bound(starts_.begin(), starts_.end(), start,
                             [](const std::string& s, std::string_view k) { return s < k; });
  return it != starts_.end() && *it == start ? int(it - starts_.begin()) : -1;
}

StatusOr<ClusterPlan> MakeClusterPlan(std::vector<rpc::Endpoint> servers, uint32_t regions,
                                      SplitAlgorithm split, uint64_t start_code_base) {
  constexpr size_t kMaxServers = 256;
  if (servers.size() > kMaxServers)
    return Status::InvalidArgument("--cluster names " + std::to_string(servers.size()) +
                                   " servers; at most " + std::to_string(kMaxServers));
  const uint32_t n = std::max<uint32_t>(uint32_t(servers.size()), 1);
  if (regions == 0) regions = n * kDefaultRegionsPerServer;
  if (regions > 4096)
    return Status::InvalidArgument("--cluster-regions " + std::to_string(regions) +
                                   ": at most 4096");
  if (regions < n)
    return Status::InvalidArgument(
        "--cluster-regions " + std::to_string(regions) + " leaves some of the " +
        std::to_string(n) + " servers without a region: give at least one per server");
  for (size_t i = 0; i < servers.size(); ++i) {
    if (servers.size() > 1 && servers[i].port == 0)
      return Status::InvalidArgument("--cluster names " + servers[i].host +
                                     ":0: every server of a cluster needs its port");
    for (size_t j = 0; j < i; ++j)
      if (servers[i].host == servers[j].host && servers[i].port == servers[j].port)
        return Status::InvalidArgument("--cluster names " + servers[i].host + ":" +
                                       std::to_string(servers[i].port) +
                                       " twice: each server needs a port of its own");
  }
  ClusterPlan plan;
  plan.servers = std::move(servers);
  plan.layout = RegionLayout(regions, split);
  if (start_code_base == 0) {
    // FNV-1a of the list: the same on every host given it, and in the range
    // of a millisecond clock of this century, as HBase's start codes are.
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : ClusterServersText(plan)) h = (h ^ c) * 1099511628211ull;
    start_code_base = 1600000000000ull + (h % 100000000000ull) * 10;
  }
  plan.start_code_base = start_code_base;
  return plan;
}

std::string ClusterServersText(const ClusterPlan& plan) {
  std::string out;
  for (const rpc::Endpoint& e : plan.servers) {
    if (!out.empty()) out += ',';
    const bool v6 = e.host.find(':') != std::string::npos;
    out += (v6 ? "[" + e.host + "]" : e.host) + ":" + std::to_string(e.port);
  }
  return out;
}

}  // namespace wirebench
