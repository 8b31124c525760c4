// A null cluster's shape: which region of a table holds a row and which
// server holds a region. Every server and every client of one cluster is
// given the same plan (the servers in order, the regions per table, where
// they split) and computes the same answers from it, so no server has to
// ask another anything: region i is held by server i mod N, hbase:meta by
// server 0, and each server's start code (HBase's ServerName) is derived
// from the plan, so the catalog on server 0 names its peers exactly as they
// name themselves.
// Thread-safety: immutable once built; every method may be called from any
// thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "rpc/endpoint.h"

namespace wirebench {

// Where a table's regions split.
enum class SplitAlgorithm : uint8_t {
  // HBase's HexStringSplit: 8 lowercase hex digits, the 32-bit space in equal
  // parts. HBase's default for a pre-split table; every YCSB key ("user...")
  // sorts after "ffffffff", so a YCSB table split this way has every row in
  // its last region.
  kHexString,
  // The split points YCSB's HBase recipe creates usertable with ("user1000"
  // to "user9999" in equal steps of the first four digits), so YCSB's keys
  // spread over every region.
  kYcsb,
};
// "hex" or "ycsb"; an error names the valid spellings.
StatusOr<SplitAlgorithm> ParseSplitAlgorithm(std::string_view name);
std::string_view SplitAlgorithmName(SplitAlgorithm a);

// A table's regions: their start keys, computed once.
class RegionLayout {
 public:
  RegionLayout() : RegionLayout(1) {}
  explicit RegionLayout(uint32_t regions, SplitAlgorithm split = SplitAlgorithm::kHexString);
  uint32_t regions() const { return uint32_t(starts_.size()); }
  SplitAlgorithm split() const { return split_; }
  // Region i's start key: "" for the first.
  const std::string& StartKey(uint32_t i) const { return starts_[i]; }
  // Region i's end key: "" for the last.
  const std::string& EndKey(uint32_t i) const {
    return i + 1 < starts_.size() ? starts_[i + 1] : starts_[0];
  }
  // The region holding `row` (binary search over the start keys).
  uint32_t RegionOfRow(std::string_view row) const;
  // The region whose start key is `start`, -1 when none is.
  int RegionStartingAt(std::string_view start) const;

 private:
  SplitAlgorithm split_;
  std::vector<std::string> starts_;
};

// Regions per table a cluster gets when the plan names none: HBase's advice
// for pre-splitting is about ten per region server; four keep a small
// co-located cluster's catalog short while every server still holds several.
inline constexpr uint32_t kDefaultRegionsPerServer = 4;

struct ClusterPlan {
  // Every server of the cluster, in order; one (or none) is not a cluster.
  std::vector<rpc::Endpoint> servers;
  RegionLayout layout;
  // Server k's start code is start_code_base + k (milliseconds, as HBase's).
  uint64_t start_code_base = 0;

  bool clustered() const { return servers.size() > 1; }
  uint32_t size() const { return servers.empty() ? 1 : uint32_t(servers.size()); }
  uint32_t ServerOfRegion(uint32_t region) const { return region % size(); }
  uint32_t ServerOfRow(std::string_view row) const {
    return ServerOfRegion(layout.RegionOfRow(row));
  }
  uint64_t StartCode(uint32_t server) const { return start_code_base + server; }
};

// A plan from its parts: `regions` 0 takes kDefaultRegionsPerServer per
// server, `start_code_base` 0 one derived from the servers (the same on
// every host given the same list). Errors name the flag at fault.
StatusOr<ClusterPlan> MakeClusterPlan(std::vector<rpc::Endpoint> servers, uint32_t regions,
                                      SplitAlgorithm split, uint64_t start_code_base = 0);
// "HOST:PORT,HOST:PORT,..." as given to --cluster, for a child's command line.
std::string ClusterServersText(const ClusterPlan& plan);

// What one server of a cluster is: the plan and its own place in it.
struct ClusterMember {
  ClusterPlan plan;
  uint32_t self = 0;
  bool Holds(uint32_t region) const { return plan.ServerOfRegion(region) == self; }
  bool ServesMeta() const { return self == 0; }
};

}  // namespace wirebench
