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

// HBase's CompareOperator (and CompareType) numbering.
enum class CompareOp : uint8_t {
  kLess = 0,
  kLessOrEqual = 1,
  kEqual = 2,
  kNotEqual = 3,
  kGreaterOrEqual = 4,
  kGreater = 5,
  kNoOp = 6,
};

// A checkAndMutate condition on one column of one row, as HBase 2.x
// evaluates it: with value_is_null, "the column has no cell (or an empty
// one)" (NOT_EQUAL: "it has a non-empty one"); else the newest cell in
// time_range must exist and `value OP newest` must hold, comparing bytes as
// HBase's BinaryComparator does (so LESS means value < the stored value).
struct Condition {
  ByteView row;
  ByteView family;
  ByteView qualifier;
  CompareOp op = CompareOp::kEqual;
  ByteView value;
  bool value_is_null = false;
  TimeRange time_range;
  ByteView table = {};  // As Mutation::table; the mutations it guards are applied in this table.
};
// Whether `c` holds when `newest` is the column's newest cell in its time
// range (nullptr when there is none).
bool ConditionHolds(const Condition& c, const Cell* newest);

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

  // HBase's checkAndMutate: applies `mutations` (puts and deletes of c.row)
  // in order when the condition holds; *processed says whether it did. The
  // default reads with Get and writes with Mutate (not atomic between the
  // two); a region that stores rows overrides it with one atomic step.
  virtual Status CheckAndMutate(const Condition& c, std::span<const Mutation> mutations,
                                RegionScratch* scratch, bool* processed);
  // HBase's Increment (m.type kIncrement: every cell's value an 8-byte
  // big-endian amount; a missing counter counts from 0) and Append (kAppend:
  // values appended to the current ones). Answers the new cells in *out,
  // built in `scratch`. The default reads with Get and writes with Mutate
  // (not atomic); a region that stores rows overrides it.
  virtual Status ReadModifyWrite(const Mutation& m, RegionScratch* scratch, Result* out);

  // Microseconds by which the server should hold every reply without using
  // CPU (the null region's calibration knob); 0 for real regions. Fixed for
  // the region's life: a handler may read it once.
  virtual uint32_t reply_delay_us() const { return 0; }

  // Adds the region's counters to the server's Stats reply under "region".
  virtual void AppendStats(nlohmann::json* out) const = 0;
};

}  // namespace wirebench
