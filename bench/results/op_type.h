// The operation types a run counts (YCSB's READ, UPDATE, ... names) and how
// an operation ended. Shared by the load generator, which plans and counts
// operations, and the result model, which reports them.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string_view>

namespace wirebench {

// YCSB's operation names, in the order its output lists them.
enum class OpType : uint8_t {
  kRead = 0,
  kUpdate,
  kInsert,
  kScan,
  kReadModifyWrite,
  kDelete,
  kFlush,   // clientbuffering=true: one Multi call carrying buffered puts.
  kVerify,  // dataintegrity=true: CoreWorkload's check of a read's values.
  // Each logical client's cleanup (the binding's close, with clientbuffering
  // the final flush), as YCSB's DBWrapper and HBaseClient2 time it: latency
  // only, no result counts, not an operation.
  kCleanup,
  // YCSB master's CoreWorkload (SCAN-LATENCY-PER-RECORD): each SCAN's whole microseconds
  // divided by the records it returned; latency only, not an operation. A
  // scan that returned no records has no sample.
  kScanPerRecord,
  kCount,
};
constexpr int kOpTypes = int(OpType::kCount);
// "READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "DELETE", "FLUSH",
// "VERIFY", "CLEANUP", "SCAN-LATENCY-PER-RECORD".
std::string_view OpTypeName(OpType t);

// How an operation ended, as YCSB's Status names it.
enum class OpResult : uint8_t { kOk = 0, kNotFound, kError, kUnexpectedState, kCount };
// "OK", "NOT_FOUND", "ERROR", "UNEXPECTED_STATE".
std::string_view OpResultName(OpResult r);

}  // namespace wirebench
