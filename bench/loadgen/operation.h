// One planned operation of a logical client, in the message model: the
// YCSB operation type it counts as and the one or two RPC calls it makes
// (read-modify-write is a Get then a put). Built by a workload into storage
// the workload owns, and valid until that client's next Next() call.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string_view>

#include "codecs/message.h"
#include "common/calls.h"
#include "bench/results/op_type.h"

namespace wirebench {

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
  // With a batch (wirebench.batch), a read that went into the buffer: its
  // result and latency come with the Multi call that carries it, made by
  // this operation (ncalls == 1) or a later one.
  bool batched_read = false;
};

}  // namespace wirebench
