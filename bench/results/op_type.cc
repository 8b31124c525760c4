#include "bench/results/op_type.h"

namespace wirebench {

std::string_view OpTypeName(OpType t) {
  switch (t) {
    case OpType::kRead: return "READ";
    case OpType::kUpdate: return "UPDATE";
    case OpType::kInsert: return "INSERT";
    case OpType::kScan: return "SCAN";
    case OpType::kReadModifyWrite: return "READ-MODIFY-WRITE";
    case OpType::kDelete: return "DELETE";
    case OpType::kFlush: return "FLUSH";
    case OpType::kVerify: return "VERIFY";
    case OpType::kCleanup: return "CLEANUP";
    case OpType::kScanPerRecord: return "SCAN-LATENCY-PER-RECORD";
    case OpType::kCount: break;
  }
  return "UNKNOWN";
}

std::string_view OpResultName(OpResult r) {
  switch (r) {
    case OpResult::kOk: return "OK";
    case OpResult::kNotFound: return "NOT_FOUND";
    case OpResult::kError: return "ERROR";
    case OpResult::kUnexpectedState: return "UNEXPECTED_STATE";
    case OpResult::kCount: break;
  }
  return "UNKNOWN";
}

}  // namespace wirebench
