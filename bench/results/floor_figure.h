// The machine's floor for a run's or a column's bytes (`wirebench floor`,
// measured in the same sitting): a framing-only loop's CPU per operation,
// which `compare`'s "Total CPU vs floor" rows and `run --floor` divide by.
// Thread-safety: a plain value.
#pragma once

#include <cstddef>

namespace wirebench {

struct FloorFigure {
  double total_us = 0;
  double client_us = 0;
  double server_us = 0;
  size_t request_bytes = 0;  // Payload after the 4-byte length.
  size_t reply_bytes = 0;
  int depth = 0;
  int ops_per_request = 1;  // A batch's operations: the figures above are per operation.
};

}  // namespace wirebench
