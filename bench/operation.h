// One planned operation of a logical client, in the message model: the
// YCSB operation type it counts as and the one or two RPC calls it makes
// (read-modify-write is a Get then a put). Built by a workload into storage
// the workload owns, and valid until that client's next Next() call.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string_view>

#include "codecs/message.h"
#include "common/protocol.h"

namespace wirebench {

// YCSB's operation names, in the order its output lists them.
enum class OpType : uint8_t {
  kRead = 0,
  kUpdate,
  kInsert,
  kScan,
  kReadModifyWrite,
  kDelete,
  kFlush,  // clientbuffering=true: one Multi call carrying buffered puts.
  kCount,
};
constexpr int kOpTypes = int(OpType::kCount);
// "READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "DELETE", "FLUSH".
std::string_view OpTypeName(OpType t);

// One RPC call of an operation.
struct PlannedCall {
  Method method = Method::kMutate;
  MutateRequest mutate;
  GetRequest get;
  ScanRequest scan;
  MultiRequest multi;
};

struct PlannedOp {
  OpType type = OpType::kRead;
  int ncalls = 1;
  PlannedCall calls[2];
  uint64_t key_number = 0;  // For acknowledgement of inserts.
  // With clientbuffering, an update/insert that only went into the buffer
  // makes no call: ncalls == 0.
};

// How an operation ended, as YCSB's Status names it.
enum class OpResult : uint8_t { kOk = 0, kNotFound, kError, kCount };
std::string_view OpResultName(OpResult r);  // "OK", "NOT_FOUND", "ERROR".

}  // namespace wirebench
