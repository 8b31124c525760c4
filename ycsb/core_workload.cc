#include "ycsb/core_workload.h"

#include <algorithm>
#include <cstring>

#include "ycsb/client_workload.h"
#include "ycsb/key_name.h"

namespace wirebench::ycsb {

const char* OpTypeName(OpType t) {
  switch (t) {
    case OpType::kRead:
      return "READ";
    case OpType::kUpdate:
      return "UPDATE";
    case OpType::kInsert:
      return "INSERT";
    case OpType::kScan:
      return "SCAN";
    case OpType::kReadModifyWrite:
      return "READ-MODIFY-WRITE";
  }
  return "?";
}

StatusOr<std::unique_ptr<CoreWorkload>> CoreWorkload::Create(const Properties& props) {
  StatusOr<CoreWorkloadConfig> config = CoreWorkloadConfig::FromProperties(props);
  if (!config.ok()) return config.status();
  return Create(std::move(config).value());
}

StatusOr<std::unique_ptr<CoreWorkload>> CoreWorkload::Create(CoreWorkloadConfig config) {
  WB_RETURN_IF_ERROR(config.Validate());
  return std::unique_ptr<CoreWorkload>(new CoreWorkload(std::move(config)));
}

CoreWorkload::CoreWorkload(CoreWorkloadConfig config)
    : config_(std::move(config)),
      max_key_length_(MaxKeyNameLength(config_.zero_padding)),
      load_sequence_(config_.insert_start),
      insert_sequence_(config_.record_count),
      field_length_(config_.field_length_distribution, config_.min_field_length,
                    config_.field_length),
      scan_length_(config_.scan_length_distribution, config_.min_scan_length,
                   config_.max_scan_length) {
  const CoreWorkloadConfig& c = config_;
  field_names_.reserve(size_t(c.field_count));
  for (int64_t i = 0; i < c.field_count; ++i) {
    field_names_.push_back(c.field_name_prefix + std::to_string(i));
  }
  value_pool_ = std::make_unique<ValuePool>(c.seed, size_t(c.field_length));
  BuildKeyTable();

  // createOperationGenerator: only positive proportions, in this order.
  operation_chooser_.Add(int(OpType::kRead), c.read_proportion);
  operation_chooser_.Add(int(OpType::kUpdate), c.update_proportion);
  operation_chooser_.Add(int(OpType::kInsert), c.insert_proportion);
  operation_chooser_.Add(int(OpType::kScan), c.scan_proportion);
  operation_chooser_.Add(int(OpType::kReadModifyWrite), c.read_modify_write_proportion);

  const int64_t lo = c.insert_start;
  switch (c.request_distribution) {
    case RequestDistribution::kZipfian: {
      // YCSB sizes the scrambled zipfian for the keys expected to exist by the
      // end of the run (2 is its fudge factor), so popularity does not shift
      // as inserts grow the table; keys not yet inserted are drawn again.
      const int64_t expected_new_keys =
          int64_t(double(c.operation_count) * c.insert_proportion * 2.0);
      scrambled_.emplace(lo, lo + c.insert_count + expected_new_keys);
      break;
    }
    case RequestDistribution::kLatest: {
      // SkewedLatestGenerator: zipfian over lastValue() items, zeta computed
      // once here and extended through latest_zeta_ as inserts land.
      const int64_t items = insert_sequence_.Last();
      latest_zipfian_.emplace(0, items - 1);
      latest_zeta_ = std::make_unique<SharedZeta>(latest_zipfian_->count_for_zeta(),
                                                  latest_zipfian_->zetan(), kZipfianConstant);
      latest_zipfian_->set_shared_zeta(latest_zeta_.get());
      break;
    }
    case RequestDistribution::kSequential:
      sequential_ = std::make_unique<SequentialGenerator>(lo, lo + c.insert_count - 1);
      break;
    default:
      break;
  }
}

CoreWorkload::~CoreWorkload() = default;

std::unique_ptr<ClientWorkload> CoreWorkload::NewClient(uint32_t client_index) {
  return std::make_unique<ClientWorkload>(this, client_index);
}

bool CoreWorkload::NextLoadKeynum(int64_t* keynum) {
  const int64_t k = load_sequence_.Next();
  if (k >= config_.insert_start + config_.load_count) return false;
  *keynum = k;
  return true;
}

// Formatting a key (FNV hash, then up to 19 decimal digits) was the largest
// single cost of choosing an operation; the records that exist before the
// run are the keys reads and updates pick, so they are formatted once.
void CoreWorkload::BuildKeyTable() {
  const int64_t count = config_.insert_count;
  if (count <= 0 || max_key_length_ > UINT16_MAX) return;
  const size_t entry = sizeof(uint16_t) + max_key_length_;
  size_t stride = 8;
  while (stride < entry && stride < 64) stride *= 2;
  if (stride < entry) stride = (entry + 63) / 64 * 64;
  const uint64_t n = std::min<uint64_t>(uint64_t(count), kMaxKeyTableBytes / stride);
  key_table_ = HugePageBuffer(n * stride);
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t* e = key_table_.data() + i * stride;
    const uint16_t length = uint16_t(BuildKeyName(config_.insert_start + int64_t(i),
                                                  reinterpret_cast<char*>(e + sizeof length),
                                                  max_key_length_));
    std::memcpy(e, &length, sizeof length);
  }
  key_table_first_ = config_.insert_start;
  key_table_count_ = n;
  key_table_stride_ = stride;
}

size_t CoreWorkload::BuildKeyName(int64_t keynum, char* buf, size_t cap) const {
  return ycsb::BuildKeyName(keynum, config_.zero_padding, config_.ordered_inserts, buf, cap);
}

}  // namespace wirebench::ycsb
