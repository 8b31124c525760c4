// ClientWorkload: construction and the choice of operations. Request
// building lives in client_requests.cc.
#include "ycsb/client_workload.h"

#include <climits>

#include "ycsb/client_buffer.h"

namespace wirebench::ycsb {

ClientWorkload::ClientWorkload(CoreWorkload* workload, uint32_t client_index,
                               const ClientWorkloadOptions& options)
    : workload_(workload),
      client_index_(client_index),
      options_(options),
      rng_(Rng::ForClient(workload->config().seed, client_index)),
      distribution_(workload->config().request_distribution),
      field_chooser_(0, workload->config().field_count - 1),
      field_length_(workload->field_length_),
      scan_length_(workload->scan_length_),
      value_cursor_(uint64_t(client_index) << 40) {
  const CoreWorkloadConfig& c = workload->config();
  const int64_t lo = c.insert_start;
  const int64_t hi = c.insert_start + c.insert_count - 1;
  switch (distribution_) {
    case RequestDistribution::kUniform:
      uniform_.emplace(lo, hi < lo ? lo : hi);
      break;
    case RequestDistribution::kZipfian:
      scrambled_.emplace(*workload->scrambled_);
      break;
    case RequestDistribution::kLatest:
      latest_.emplace(&workload->insert_sequence_, *workload->latest_zipfian_);
      break;
    case RequestDistribution::kHotspot:
      hotspot_.emplace(lo, hi < lo ? lo : hi, c.hotspot_data_fraction, c.hotspot_opn_fraction);
      break;
    case RequestDistribution::kSequential:
      sequential_ = workload->sequential_.get();
      break;
    case RequestDistribution::kExponential:
      exponential_.emplace(ExponentialGenerator::FromPercentile(
          c.exponential_percentile, double(c.record_count) * c.exponential_frac));
      break;
  }

  const size_t fields = size_t(c.field_count);
  key_buffer_.reset(new char[workload->max_key_length()]);
  cells_.reset(new Cell[fields]);
  all_columns_.reset(new Column[fields]);
  const ByteView family(workload->config().column_family);
  for (size_t i = 0; i < fields; ++i) {
    all_columns_[i] = Column{family, ByteView(workload->field_names()[i])};
  }
  family_column_ = Column{family, ByteView()};
  if (c.data_integrity) {
    integrity_values_.reset(new uint8_t[fields * size_t(c.field_length)]);
    verify_scratch_.reset(new uint8_t[size_t(c.field_length)]);
  }
  if (c.client_buffering) buffer_ = std::make_unique<Buffer>(*workload, options_);
}

ClientWorkload::~ClientWorkload() = default;

bool ClientWorkload::NextLoadOperation(Operation* op) {
  int64_t keynum;
  if (!workload_->NextLoadKeynum(&keynum)) return false;
  *op = Operation{};
  op->type = OpType::kInsert;
  op->keynum = keynum;
  return true;
}

int64_t ClientWorkload::NextKeynum() {
  const AcknowledgedCounterGenerator& acked = workload_->insert_sequence_;
  // YCSB loops until the key is acceptable. The bound only guards against a
  // configuration where that never happens; it is not reached in practice.
  constexpr int kMaxDraws = 1 << 20;
  int64_t keynum = 0;
  if (distribution_ == RequestDistribution::kExponential) {
    for (int i = 0; i < kMaxDraws; ++i) {
      const double x = exponential_->Next(rng_);
      // Java's (int) cast of the double saturates.
      const int64_t back = x >= double(INT_MAX) ? INT_MAX : int64_t(x);
      keynum = acked.Last() - back;
      if (keynum >= 0) return keynum;
    }
    return 0;
  }
  for (int i = 0; i < kMaxDraws; ++i) {
    switch (distribution_) {
      case RequestDistribution::kUniform:
        keynum = uniform_->Next(rng_);
        break;
      case RequestDistribution::kZipfian:
        keynum = scrambled_->Next(rng_);
        break;
      case RequestDistribution::kLatest:
        keynum = latest_->Next(rng_);
        break;
      case RequestDistribution::kHotspot:
        keynum = hotspot_->Next(rng_);
        break;
      case RequestDistribution::kSequential:
        keynum = sequential_->Next();
        break;
      case RequestDistribution::kExponential:
        break;  // Handled above.
    }
    if (keynum <= acked.Last()) return keynum;
  }
  return acked.Last();
}

Operation ClientWorkload::NextOperation() {
  const CoreWorkloadConfig& c = workload_->config();
  Operation op;
  op.type = OpType(workload_->operation_chooser_.Next(rng_));
  switch (op.type) {
    case OpType::kRead:
      op.keynum = NextKeynum();
      if (!c.read_all_fields) op.read_field = NextField();
      break;
    case OpType::kUpdate:
      op.keynum = NextKeynum();
      if (!c.write_all_fields) op.write_field = NextField();
      break;
    case OpType::kInsert:
      op.keynum = workload_->insert_sequence_.Next();
      op.needs_ack = true;
      break;
    case OpType::kScan:
      op.keynum = NextKeynum();
      op.scan_length = uint32_t(scan_length_.Next(rng_));
      if (!c.read_all_fields) op.read_field = NextField();
      break;
    case OpType::kReadModifyWrite:
      op.keynum = NextKeynum();
      if (!c.read_all_fields) op.read_field = NextField();
      if (!c.write_all_fields) op.write_field = NextField();
      break;
  }
  return op;
}

Status ClientWorkload::Acknowledge(const Operation& op) {
  if (!op.needs_ack) return Status::Ok();
  return workload_->insert_sequence_.Acknowledge(op.keynum);
}

}  // namespace wirebench::ycsb
