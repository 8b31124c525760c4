// ClientWorkload: the per-logical-client half of CoreWorkload. It chooses the
// next operation (load phase: inserts in key order; run phase: read, update,
// insert, scan or read-modify-write by the configured proportions and request
// distribution) and builds the matching request views of codecs/message.h in
// scratch sized at construction:
//   read   -> GetRequest of the whole family (readallfields) or one field
//   update -> MutateRequest putting one random field (all with writeallfields)
//   insert -> MutateRequest putting the full record
//   scan   -> ScanRequest from the start key for scan_length rows
//   read-modify-write -> BuildRead, then BuildUpdate
//   clientbuffering -> BufferPut() collects puts into one MultiRequest
// Views point into this object's scratch (the key, cells, columns), the
// workload's field names and its value pool; a built request stays valid
// until the next Build*/BufferPut call of the same kind on this client.
// Per operation: no heap allocation, no virtual call, a few Rng draws
// (one per field whose length is drawn, with a non-constant field length).
// Thread-safety: single owner; the shared counters it touches are atomic.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "ycsb/core_workload.h"
#include "ycsb/generators.h"
#include "ycsb/rng.h"
#include "ycsb/zipfian_generator.h"
#include "codecs/message.h"
#include "common/bytes.h"
#include "common/status.h"

namespace wirebench::ycsb {

struct ClientWorkloadOptions {
  // Most puts one client-side buffer (clientbuffering=true) holds; a flush is
  // requested when it is full even if writebuffersize is not reached.
  uint32_t max_buffered_puts = 4096;
};

class ClientWorkload {
 public:
  // Prefer CoreWorkload::NewClient. `workload` must outlive this object.
  ClientWorkload(CoreWorkload* workload, uint32_t client_index,
                 const ClientWorkloadOptions& options = {});
  ClientWorkload(const ClientWorkload&) = delete;
  ClientWorkload& operator=(const ClientWorkload&) = delete;
  ~ClientWorkload();

  // Load phase: an insert of the next key in insert order; false when the
  // workload's insertcount keys are all taken.
  bool NextLoadOperation(Operation* op);
  // Run phase: the next operation (YCSB's doTransaction choice).
  Operation NextOperation();
  // YCSB's nextKeynum(): a key number no greater than the last acknowledged
  // insert, drawn from the request distribution (drawn again while it is
  // greater). Unlike YCSB, key numbers are not truncated to Java int.
  int64_t NextKeynum();
  // Marks a run-phase insert done (no-op unless op.needs_ack).
  [[nodiscard]] Status Acknowledge(const Operation& op);

  // Request building. Each also sets key() to the operation's row key.
  const MutateRequest& BuildInsert(const Operation& op);
  const MutateRequest& BuildUpdate(const Operation& op);
  const GetRequest& BuildRead(const Operation& op);
  const ScanRequest& BuildScan(const Operation& op);
  // The row key of the last built request.
  ByteView key() const { return key_; }

  // dataintegrity=true: OK when every cell of `result` carries the value YCSB
  // would have written for (key(), qualifier); Corruption naming the first bad
  // field otherwise; NotFound for an empty result (YCSB's "null data").
  [[nodiscard]] Status VerifyRead(const Result& result) { return VerifyRead(key(), result); }
  // The same for the read of `row` (a batched read's own row).
  [[nodiscard]] Status VerifyRead(ByteView row, const Result& result);

  // Client-side buffering (BufferedMutator). BufferPut adds the put of an
  // insert or update and returns true when the buffer should be flushed now
  // (writebuffersize reached, or the scratch full): send BufferedMulti(), then
  // call FinishFlush(), which acknowledges the run-phase inserts it held.
  // REQUIRES: config().client_buffering; op is an insert or update
  bool BufferPut(const Operation& op);
  // wirebench.batch: adds the get of a read to the same buffer, as one more
  // of the batch's operations; true when the batch is full. The get's views
  // stay valid until FinishFlush.
  // REQUIRES: config().batch_ops > 0; op is a read
  bool BufferRead(const Operation& op);
  const MultiRequest& BufferedMulti();
  [[nodiscard]] Status FinishFlush();
  // Operations in the buffer (puts, and reads under wirebench.batch).
  uint32_t buffered_ops() const { return buffered_ops_; }
  uint64_t buffered_bytes() const { return buffered_bytes_; }

  Rng& rng() { return rng_; }
  uint32_t client_index() const { return client_index_; }
  const CoreWorkloadConfig& config() const { return workload_->config(); }

 private:
  struct Buffer;

  void SetKey(int64_t keynum);
  ByteView FieldValue(int32_t field, size_t length, const uint8_t* key, size_t key_len,
                      uint8_t* integrity_out);
  // Fills cells for one put of `op` into `cells`; returns the number written.
  size_t FillPut(const Operation& op, ByteView row, Cell* cells, uint8_t* integrity_values);
  int32_t NextField() { return int32_t(field_chooser_.Next(rng_)); }
  // The columns a read of `op` names, in storage that outlives the request.
  std::span<const Column> ReadColumns(const Operation& op);

  CoreWorkload* workload_;
  const uint32_t client_index_;
  const ClientWorkloadOptions options_;
  Rng rng_;

  // Generators (copies of the workload's prototypes).
  RequestDistribution distribution_;
  std::optional<UniformLongGenerator> uniform_;
  std::optional<ScrambledZipfianGenerator> scrambled_;
  std::optional<SkewedLatestGenerator> latest_;
  std::optional<HotspotIntegerGenerator> hotspot_;
  std::optional<ExponentialGenerator> exponential_;
  SequentialGenerator* sequential_ = nullptr;
  UniformLongGenerator field_chooser_;
  FieldLengthGenerator field_length_;
  FieldLengthGenerator scan_length_;
  uint64_t value_cursor_;

  // Scratch for the single-operation requests.
  ByteView key_;  // Into the workload's key table or key_buffer_.
  std::unique_ptr<char[]> key_buffer_;
  std::unique_ptr<Cell[]> cells_;
  std::unique_ptr<Column[]> all_columns_;  // One per field (dataintegrity reads).
  Column family_column_;
  Column one_column_;
  std::unique_ptr<uint8_t[]> integrity_values_;  // fieldcount * fieldlength, dataintegrity only.
  std::unique_ptr<uint8_t[]> verify_scratch_;    // fieldlength, dataintegrity only.
  MutateRequest mutate_;
  GetRequest get_;
  ScanRequest scan_;

  std::unique_ptr<Buffer> buffer_;  // clientbuffering only.
  uint32_t buffered_ops_ = 0;
  uint64_t buffered_bytes_ = 0;
};

}  // namespace wirebench::ycsb
