// CoreWorkload: YCSB's CoreWorkload semantics over wirebench's message model.
//
// A CoreWorkload is built once per run from a validated CoreWorkloadConfig:
// it holds what every logical client shares (field names, the value pool, the
// load-phase key counter, the acknowledged insert counter of the run phase,
// the shared sequential counter and zeta sum) and the generator prototypes
// whose setup is costly (zeta sums). NewClient() makes a ClientWorkload per
// logical client with its own Rng (from the seed and the client index) and
// cheap copies of the generators (client_workload.h).
// Thread-safety: after Create(), every method is safe to call from any thread;
// ClientWorkload objects are single-owner.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ycsb/acknowledged_counter.h"
#include "ycsb/generators.h"
#include "ycsb/huge_page_buffer.h"
#include "ycsb/value_pool.h"
#include "ycsb/workload_config.h"
#include "ycsb/zipfian_generator.h"
#include "common/status.h"

namespace wirebench::ycsb {

class ClientWorkload;

enum class OpType : uint8_t {
  kRead = 0,
  kUpdate = 1,
  kInsert = 2,
  kScan = 3,
  kReadModifyWrite = 4
};
inline constexpr int kNumOpTypes = 5;
// YCSB's measurement names: READ, UPDATE, INSERT, SCAN, READ-MODIFY-WRITE.
const char* OpTypeName(OpType t);

// Sentinel field index: the operation covers every field.
inline constexpr int32_t kAllFields = -1;

// One YCSB operation, as CoreWorkload's doInsert/doTransaction* choose it.
struct Operation {
  OpType type = OpType::kRead;
  int64_t keynum = 0;
  // Read, scan and the read half of read-modify-write: one field, or all.
  int32_t read_field = kAllFields;
  // Update and the write half of read-modify-write: one field, or all.
  // Inserts always write all fields.
  int32_t write_field = kAllFields;
  uint32_t scan_length = 0;  // Scans only.
  // True for run-phase inserts: the client must Acknowledge() the key when
  // the insert completes (successfully or not), as YCSB's finally block does.
  bool needs_ack = false;
};

class CoreWorkload {
 public:
  [[nodiscard]] static StatusOr<std::unique_ptr<CoreWorkload>> Create(CoreWorkloadConfig config);
  [[nodiscard]] static StatusOr<std::unique_ptr<CoreWorkload>> Create(const Properties& props);
  CoreWorkload(const CoreWorkload&) = delete;
  CoreWorkload& operator=(const CoreWorkload&) = delete;
  ~CoreWorkload();

  const CoreWorkloadConfig& config() const { return config_; }

  // The state of logical client `client_index` (0-based); its Rng is derived
  // from config().seed and the index. `this` must outlive the client.
  std::unique_ptr<ClientWorkload> NewClient(uint32_t client_index);

  // Load phase: the next key number to insert (insertstart, insertstart+1, ...
  // shared by all clients); false once config().load_count keys were handed out.
  bool NextLoadKeynum(int64_t* keynum);
  // Run phase: the acknowledged insert counter (starts at recordcount).
  AcknowledgedCounterGenerator& insert_sequence() { return insert_sequence_; }
  // The highest key number reads may pick (YCSB's transactioninsertkeysequence.lastValue()).
  int64_t LastAcknowledgedInsert() const { return insert_sequence_.Last(); }

  // Builds the row key of `keynum` into buf; returns its length.
  // REQUIRES: cap >= max_key_length()
  size_t BuildKeyName(int64_t keynum, char* buf, size_t cap) const;
  size_t max_key_length() const { return max_key_length_; }
  // The row key of `keynum`, the same bytes BuildKeyName writes: a view of
  // the key table when keynum is one of the records loaded before the run
  // (built once here, kMaxKeyTableBytes at most), else built into buf. The
  // view stays valid while this workload and buf do.
  // REQUIRES: buf holds max_key_length() bytes
  ByteView KeyName(int64_t keynum, char* buf) const {
    const uint64_t i = uint64_t(keynum) - uint64_t(key_table_first_);
    if (i < key_table_count_) [[likely]] {
      const uint8_t* entry = key_table_.data() + i * key_table_stride_;
      uint16_t length;
      std::memcpy(&length, entry, sizeof length);
      return ByteView(entry + sizeof length, length);
    }
    return ByteView(buf, BuildKeyName(keynum, buf, max_key_length_));
  }
  // Keys in the table: all of insertcount, or as many of the first ones as
  // kMaxKeyTableBytes holds (0 only for an empty load or an absurd zeropadding).
  uint64_t key_table_count() const { return key_table_count_; }
  // Bytes per table entry: a power of two that holds the length and the
  // longest name (a multiple of 64 past 64), so no entry straddles a line.
  size_t key_table_stride() const { return key_table_stride_; }
  static constexpr size_t kMaxKeyTableBytes = 32 << 20;

  const std::vector<std::string>& field_names() const { return field_names_; }
  const ValuePool& value_pool() const { return *value_pool_; }
  const DiscreteGenerator& operation_chooser() const { return operation_chooser_; }

 private:
  friend class ClientWorkload;
  explicit CoreWorkload(CoreWorkloadConfig config);

  void BuildKeyTable();

  CoreWorkloadConfig config_;
  size_t max_key_length_;
  // Key names of key numbers [key_table_first_, +key_table_count_): entry i
  // at i * key_table_stride_ holds the name's length (uint16_t, host order)
  // and then its bytes. The stride is a power of two up to 64 bytes, so a
  // lookup reads one cache line (keys are drawn at random: most lookups in a
  // table larger than L2 miss, and a second array of lengths missed too).
  int64_t key_table_first_ = 0;
  uint64_t key_table_count_ = 0;
  size_t key_table_stride_ = 0;
  HugePageBuffer key_table_;
  std::vector<std::string> field_names_;
  std::unique_ptr<ValuePool> value_pool_;
  CounterGenerator load_sequence_;
  AcknowledgedCounterGenerator insert_sequence_;
  DiscreteGenerator operation_chooser_;
  FieldLengthGenerator field_length_;
  FieldLengthGenerator scan_length_;
  // Request-distribution prototypes; only the configured one is set.
  std::optional<ScrambledZipfianGenerator> scrambled_;
  std::optional<ZipfianGenerator> latest_zipfian_;
  std::unique_ptr<SharedZeta> latest_zeta_;
  std::unique_ptr<SequentialGenerator> sequential_;
};

}  // namespace wirebench::ycsb
