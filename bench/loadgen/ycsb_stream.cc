#include "bench/loadgen/ycsb_stream.h"

#include <chrono>

#include "ycsb/basic_db.h"
#include "ycsb/client_workload.h"

namespace wirebench {

namespace {

OpType ToOpType(ycsb::OpType t) {
  switch (t) {
    case ycsb::OpType::kRead: return OpType::kRead;
    case ycsb::OpType::kUpdate: return OpType::kUpdate;
    case ycsb::OpType::kInsert: return OpType::kInsert;
    case ycsb::OpType::kScan: return OpType::kScan;
    case ycsb::OpType::kReadModifyWrite: return OpType::kReadModifyWrite;
  }
  return OpType::kRead;
}

class YcsbStream final : public OpStream {
 public:
  YcsbStream(ycsb::CoreWorkload* core, YcsbPhase phase, int client_index, BasicDbOutput* verbose)
      : phase_(phase), client_(core->NewClient(uint32_t(client_index))), verbose_(verbose) {
    if (verbose_ && verbose_->verbose) verbose_->Print(verbose_->properties_block);
  }

  bool Next(PlannedOp* p) override {
    ycsb::Operation& op = op_;
    if (phase_ == YcsbPhase::kLoad) {
      if (!client_->NextLoadOperation(&op)) return false;
    } else {
      op = client_->NextOperation();
    }
    p->type = ToOpType(op.type);
    p->key_number = uint64_t(op.keynum);
    p->ncalls = 1;
    p->batched_read = false;
    flushing_ = false;
    const bool buffering = client_->config().client_buffering;
    switch (op.type) {
      case ycsb::OpType::kRead:
        if (client_->config().batch_ops > 0) {
          p->batched_read = true;
          if (client_->BufferRead(op)) {
            Multi(&p->calls[0]);
            flushing_ = true;
          } else {
            p->ncalls = 0;
          }
          break;
        }
        Get(&p->calls[0], client_->BuildRead(op));
        if (verbose_) [[unlikely]] PrintRead(p->calls[0].get);
        break;
      case ycsb::OpType::kScan:
        p->calls[0].method = Method::kScan;
        p->calls[0].scan = client_->BuildScan(op);
        if (verbose_) [[unlikely]] {
          const ScanRequest& scan = p->calls[0].scan;
          if (verbose_->verbose) verbose_->Print(ycsb::BasicDbScanLine(verbose_->table, scan) + "\n");
          if (verbose_->count)
            verbose_->Count(&verbose_->scans,
                            ycsb::BasicDbReadHash(verbose_->table, scan.start_row, scan.columns));
        }
        break;
      case ycsb::OpType::kUpdate:
      case ycsb::OpType::kInsert:
        if (buffering) {
          // BufferedMutator: the put only goes into the buffer, unless the
          // buffer is full, in which case this operation pays for the flush.
          if (client_->BufferPut(op)) {
            Multi(&p->calls[0]);
            flushing_ = true;
          } else {
            p->ncalls = 0;
          }
        } else {
          Put(&p->calls[0], op.type == ycsb::OpType::kInsert ? client_->BuildInsert(op)
                                                             : client_->BuildUpdate(op));
          if (verbose_) [[unlikely]]
            PrintWrite(p->calls[0].mutate, op.type == ycsb::OpType::kInsert ? "INSERT" : "UPDATE");
        }
        break;
      case ycsb::OpType::kReadModifyWrite:
        Get(&p->calls[0], client_->BuildRead(op));
        if (verbose_) [[unlikely]] PrintRead(p->calls[0].get);
        if (buffering) {
          if (client_->BufferPut(op)) {
            Multi(&p->calls[1]);
            flushing_ = true;
            p->ncalls = 2;
          }
        } else {
          Put(&p->calls[1], client_->BuildUpdate(op));
          if (verbose_) [[unlikely]] PrintWrite(p->calls[1].mutate, "UPDATE");
          p->ncalls = 2;
        }
        break;
    }
    return true;
  }

  OpResult OnRead(const PlannedOp& p, const GetResponse& read) override {
    const OpResult result =
        read.result.exists || !read.result.cells.empty() ? OpResult::kOk : OpResult::kNotFound;
    if (client_->config().data_integrity) [[unlikely]] {
      // YCSB verifies after every read (its status aside): UNEXPECTED_STATE
      // for a wrong value, ERROR for no data.
      const auto start = std::chrono::steady_clock::now();
      const Status s = client_->VerifyRead(read.result);
      SetVerification(s, start);
    }
    return result;
  }

  OpResult OnBatchedRead(const GetRequest& get, const Result& result) override {
    const OpResult found = OpStream::OnBatchedRead(get, result);
    if (client_->config().data_integrity) [[unlikely]] {
      const auto start = std::chrono::steady_clock::now();
      const Status s = client_->VerifyRead(get.row, result);
      SetVerification(s, start);
    }
    return found;
  }

  uint32_t max_batched_reads() const override {
    return uint32_t(client_->config().batch_ops);
  }

  void Finish(const PlannedOp& p, OpResult result) override {
    if (flushing_) {
      (void)client_->FinishFlush();
      flushing_ = false;
    }
    // Buffered inserts are acknowledged by FinishFlush, when they are sent.
    if (!client_->config().client_buffering) (void)client_->Acknowledge(op_);
  }

  bool Flush(PlannedOp* p) override {
    if (!client_->config().client_buffering || client_->buffered_ops() == 0) return false;
    // YCSB's HBase binding measures the final flush (in cleanup()) as an UPDATE.
    p->type = OpType::kUpdate;
    p->ncalls = 1;
    p->batched_read = false;
    Multi(&p->calls[0]);
    flushing_ = true;
    return true;
  }

 private:
  void SetVerification(const Status& s, std::chrono::steady_clock::time_point start) {
    verify.ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    verify.result = s.ok()                                 ? OpResult::kOk
                    : s.code() == Status::Code::kNotFound ? OpResult::kError
                                                           : OpResult::kUnexpectedState;
  }
  void PrintRead(const GetRequest& g) {
    if (verbose_->verbose)
      verbose_->Print(ycsb::BasicDbReadLine(verbose_->table, g.row, g.columns) + "\n");
    if (verbose_->count)
      verbose_->Count(&verbose_->reads, ycsb::BasicDbReadHash(verbose_->table, g.row, g.columns));
  }
  void PrintWrite(const MutateRequest& m, std::string_view verb) {
    if (verbose_->verbose)
      verbose_->Print(ycsb::BasicDbWriteLine(verb, verbose_->table, m.mutation) + "\n");
    if (verbose_->count)
      verbose_->Count(verb == "INSERT" ? &verbose_->inserts : &verbose_->updates,
                      ycsb::BasicDbWriteHash(verbose_->table, m.mutation));
  }
  static void Get(PlannedCall* c, const GetRequest& g) {
    c->method = Method::kGet;
    c->get = g;
  }
  static void Put(PlannedCall* c, const MutateRequest& m) {
    c->method = Method::kMutate;
    c->mutate = m;
  }
  void Multi(PlannedCall* c) {
    c->method = Method::kMulti;
    c->multi = client_->BufferedMulti();
  }

  YcsbPhase phase_;
  std::unique_ptr<ycsb::ClientWorkload> client_;
  ycsb::Operation op_;
  bool flushing_ = false;
  BasicDbOutput* verbose_;
};

}  // namespace

void BasicDbOutput::Print(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu);
  std::fwrite(text.data(), 1, text.size(), out);
}

void BasicDbOutput::Count(std::unordered_set<int32_t>* set, int32_t hash) {
  std::lock_guard<std::mutex> lock(mu);
  set->insert(hash);
}

std::string BasicDbOutput::Uniques() {
  std::lock_guard<std::mutex> lock(mu);
  std::string out;
  const std::pair<const char*, size_t> lines[] = {{"READS", reads.size()},
                                                  {"SCANS", scans.size()},
                                                  {"UPDATES", updates.size()},
                                                  {"INSERTS", inserts.size()},
                                                  {"DELETES", 0}};
  for (const auto& [name, n] : lines) {
    out += '[';
    out += name;
    out += "], Uniques, ";
    out += std::to_string(n);
    out += '\n';
  }
  return out;
}

std::unique_ptr<OpStream> YcsbWorkload::NewStream(int client_index, int) {
  return std::make_unique<YcsbStream>(core_, phase_, client_index, verbose_);
}

}  // namespace wirebench
