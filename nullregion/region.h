// The Region interface (docs/design.md, "Regions"): what the server does with a decoded
// call. The null region discards writes and answers reads empty (HBASE-10001);
// later regions (memstore, wal under regions/) plug in behind the same
// interface without any change to rpc/ or codecs/.
//
// A Region is shared by every connection and handler thread of a server, so
// implementations must be thread-safe. Responses are views: a region builds
// them in the caller's RegionScratch (one per connection or handler thread,
// reused call after call) or points them at memory it keeps immutable for
// its lifetime; they stay valid until the caller's next call with the same
// scratch.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "codecs/message.h"
#include "common/bytes.h"
#include "common/status.h"

namespace wirebench {

// Per-caller scratch for building responses. Regions may use any member; the
// caller clears nothing, so a region resets what it uses at the start of a call.
struct RegionScratch {
  std::vector<Cell> cells;
  std::vector<Result> results;
  std::vector<ActionResult> action_results;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;  // Index ranges, for building nested spans.
  ByteBuffer bytes;  // Copied cell bytes; views into it are made after it stops growing.
};

class Region {
 public:
  virtual ~Region() = default;

  // "null", "memstore", "wal".
  virtual std::string_view name() const = 0;

  // Applies one put or delete.
  virtual Status Mutate(const Mutation& m, MutateResponse* resp) = 0;
  virtual Status Get(const GetRequest& req, RegionScratch* scratch, GetResponse* resp) = 0;
  virtual Status Scan(const ScanRequest& req, RegionScratch* scratch, ScanResponse* resp) = 0;
  // Applies every action. The default runs Mutate and Get one by one; a
  // region that can batch (a log with group commit) overrides it.
  virtual Status Multi(const MultiRequest& req, RegionScratch* scratch, MultiResponse* resp);

  // Microseconds by which the server should hold every reply without using
  // CPU (the null region's calibration knob); 0 for real regions.
  virtual uint32_t reply_delay_us() const { return 0; }

  // Adds the region's counters to the server's Stats reply under "region".
  virtual void AppendStats(nlohmann::json* out) const = 0;
};

}  // namespace wirebench
