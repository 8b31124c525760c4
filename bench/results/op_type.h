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
  kFlush,  // clientbuffering=true: one Multi call carrying buffered puts.
  kCount,
};
constexpr int kOpTypes = int(OpType::kCount);
// "READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "DELETE", "FLUSH".
std::string_view OpTypeName(OpType t);

// How an operation ended, as YCSB's Status names it.
enum class OpResult : uint8_t { kOk = 0, kNotFound, kError, kCount };
std::string_view OpResultName(OpResult r);  // "OK", "NOT_FOUND", "ERROR".

}  // namespace wirebench
