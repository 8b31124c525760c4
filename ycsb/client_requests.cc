// ClientWorkload: building message views for operations, client-side put
// buffering, and dataintegrity verification.
#include <cstring>
#include <string>

#include "ycsb/client_buffer.h"
#include "ycsb/client_workload.h"
#include "ycsb/key_name.h"
#include "ycsb/value_pool.h"

namespace wirebench::ycsb {

void ClientWorkload::SetKey(int64_t keynum) {
  key_ = workload_->KeyName(keynum, key_buffer_.get());
}

ByteView ClientWorkload::FieldValue(int32_t field, size_t length, const uint8_t* key,
                                    size_t key_len, uint8_t* integrity_out) {
  if (integrity_out != nullptr) {
    BuildDeterministicValue(std::string_view(reinterpret_cast<const char*>(key), key_len),
                            workload_->field_names()[size_t(field)], length, integrity_out);
    return ByteView(integrity_out, length);
  }
  const ValuePool& pool = workload_->value_pool();
  const ByteView value = pool.Slice(value_cursor_++, length);
  pool.Prefetch(value_cursor_, length);  // This client's next value, most likely this long.
  return value;
}

size_t ClientWorkload::FillPut(const Operation& op, ByteView row, Cell* cells,
                               uint8_t* integrity_values) {
  const CoreWorkloadConfig& c = workload_->config();
  const ByteView family(c.column_family);
  const size_t flen = size_t(c.field_length);
  // Deterministic values go to integrity_values in cell order, flen apart.
  auto one = [&](int32_t f, Cell* cell, size_t k) {
    const size_t len = size_t(field_length_.Next(rng_));
    uint8_t* out = integrity_values ? integrity_values + k * flen : nullptr;
    *cell = Cell{row, family,         ByteView(workload_->field_names()[size_t(f)]),
                 0,   CellType::kPut, FieldValue(f, len, row.data(), row.size(), out)};
  };
  const bool all = op.type == OpType::kInsert || op.write_field == kAllFields;
  if (!all) {
    one(op.write_field, &cells[0], 0);
    return 1;
  }
  for (int32_t f = 0; f < int32_t(c.field_count); ++f) one(f, &cells[f], size_t(f));
  return size_t(c.field_count);
}

const MutateRequest& ClientWorkload::BuildInsert(const Operation& op) {
  SetKey(op.keynum);
  Operation all = op;
  all.write_field = kAllFields;
  const size_t n = FillPut(all, key(), cells_.get(), integrity_values_.get());
  mutate_.mutation = Mutation{key(), MutationType::kPut, 0, std::span<const Cell>(cells_.get(), n)};
  return mutate_;
}

const MutateRequest& ClientWorkload::BuildUpdate(const Operation& op) {
  SetKey(op.keynum);
  Operation put = op;
  if (put.type == OpType::kInsert) put.write_field = kAllFields;
  const size_t n = FillPut(put, key(), cells_.get(), integrity_values_.get());
  mutate_.mutation = Mutation{key(), MutationType::kPut, 0, std::span<const Cell>(cells_.get(), n)};
  return mutate_;
}

std::span<const Column> ClientWorkload::ReadColumns(const Operation& op) {
  if (op.read_field != kAllFields)
    return std::span<const Column>(&all_columns_[size_t(op.read_field)], 1);
  // YCSB names every field when it will verify them.
  if (workload_->config().data_integrity)
    return std::span<const Column>(all_columns_.get(), size_t(config().field_count));
  return std::span<const Column>(&family_column_, 1);
}

const GetRequest& ClientWorkload::BuildRead(const Operation& op) {
  SetKey(op.keynum);
  get_.row = key();
  get_.columns = ReadColumns(op);
  return get_;
}

const ScanRequest& ClientWorkload::BuildScan(const Operation& op) {
  SetKey(op.keynum);
  scan_.start_row = key();
  scan_.stop_row = ByteView();
  scan_.number_of_rows = op.scan_length;
  if (op.read_field != kAllFields) {
    one_column_ = all_columns_[size_t(op.read_field)];
    scan_.columns = std::span<const Column>(&one_column_, 1);
  } else {
    scan_.columns = std::span<const Column>(&family_column_, 1);
  }
  return scan_;
}

Status ClientWorkload::VerifyRead(ByteView row_key, const Result& result) {
  if (result.cells.empty()) {
    return Status::NotFound("dataintegrity: no data returned for row '" + row_key.ToString() +
                            "'");
  }
  const std::string_view row = row_key.str();
  for (const Cell& cell : result.cells) {
    const size_t len = cell.value.size();
    bool ok = false;
    if (verify_scratch_ != nullptr && len <= size_t(config().field_length)) {
      BuildDeterministicValue(row, cell.qualifier.str(), len, verify_scratch_.get());
      ok = std::memcmp(verify_scratch_.get(), cell.value.data(), len) == 0;
    } else {
      ok = VerifyDeterministicValue(row, cell.qualifier.str(), cell.value);
    }
    if (!ok) {
      return Status::Corruption("dataintegrity: unexpected value of field '" +
                                cell.qualifier.ToString() + "' in row '" + row_key.ToString() + "'");
    }
  }
  return Status::Ok();
}

bool ClientWorkload::BufferPut(const Operation& op) {
  Buffer& b = *buffer_;
  const uint32_t i = buffered_ops_;
  const ByteView row = workload_->KeyName(op.keynum, b.keys.get() + size_t(i) * b.key_stride);
  uint8_t* values =
      b.values ? b.values.get() + b.cells_used * size_t(config().field_length) : nullptr;
  Operation put = op;
  if (put.type == OpType::kInsert) put.write_field = kAllFields;
  Cell* cells = b.cells.get() + b.cells_used;
  const size_t n = FillPut(put, row, cells, values);
  Action& a = b.actions[i];
  a.index = i;
  a.kind = ActionKind::kMutation;
  a.mutation = Mutation{row, MutationType::kPut, 0, std::span<const Cell>(cells, n)};
  b.cells_used += n;
  for (size_t k = 0; k < n; ++k) {
    buffered_bytes_ += row.size() + cells[k].family.size() + cells[k].qualifier.size() +
                       cells[k].value.size() + Buffer::kCellOverheadBytes;
  }
  if (op.needs_ack) b.ack_keys[b.num_acks++] = op.keynum;
  buffered_ops_ = i + 1;
  if (config().batch_ops > 0) return buffered_ops_ == b.max_ops;  // Counted, not sized.
  return buffered_bytes_ >= uint64_t(config().write_buffer_size) || buffered_ops_ == b.max_ops ||
         b.cells_used + size_t(config().field_count) > b.max_cells;
}

bool ClientWorkload::BufferRead(const Operation& op) {
  Buffer& b = *buffer_;
  const uint32_t i = buffered_ops_;
  Action& a = b.actions[i];
  a.index = i;
  a.kind = ActionKind::kGet;
  a.get = GetRequest{};
  a.get.row = workload_->KeyName(op.keynum, b.keys.get() + size_t(i) * b.key_stride);
  a.get.columns = ReadColumns(op);
  buffered_ops_ = i + 1;
  return buffered_ops_ == b.max_ops;
}

const MultiRequest& ClientWorkload::BufferedMulti() {
  buffer_->multi.actions = std::span<const Action>(buffer_->actions.get(), buffered_ops_);
  return buffer_->multi;
}

Status ClientWorkload::FinishFlush() {
  Buffer& b = *buffer_;
  Status first;
  for (uint32_t i = 0; i < b.num_acks; ++i) {
    Status s = workload_->insert_sequence_.Acknowledge(b.ack_keys[i]);
    if (!s.ok() && first.ok()) first = std::move(s);
  }
  b.num_acks = 0;
  b.cells_used = 0;
  buffered_ops_ = 0;
  buffered_bytes_ = 0;
  b.multi.actions = {};
  return first;
}

}  // namespace wirebench::ycsb
