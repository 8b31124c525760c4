#include "bench/loadgen/logical_client.h"

#include <boost/asio.hpp>

#include "bench/loadgen/stop_request.h"
#include "codecs/codec.h"

namespace wirebench {

namespace asio = boost::asio;

namespace {

int64_t Nanos(LoadClock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

}  // namespace

void AllocateAndRecord(std::unique_ptr<hdr::Histogram>* h, int64_t value) {
  *h = std::make_unique<hdr::Histogram>();
  (*h)->Record(value);
}

void ThreadOpStats::AddTo(OpStats* out) const {
  if (latency) out->latency.Add(*latency);
  if (not_found_latency) {
    out->latency.Add(*not_found_latency);
    out->not_found_latency.Add(*not_found_latency);
  }
  if (intended_latency) out->intended_latency.Add(*intended_latency);
  if (failed_latency) out->failed_latency.Add(*failed_latency);
  for (size_t r = 0; r < results.size(); ++r) out->results[r] += results[r];
}

void ThreadOpStats::Reset() {
  for (auto* h : {&latency, &not_found_latency, &intended_latency, &failed_latency})
    if (*h) (*h)->Reset();
  results = {};
}

void ClientThread::RunOsLoop() {
  constexpr auto kLoopPoll = std::chrono::milliseconds(1);
  LoadClock::time_point next_poll = LoadClock::now() + kLoopPoll;
  while (!ctx.stopped()) {
    if (os_channel != nullptr && os_channel->waiting()) {
      os_channel->WaitReply();
      const bool woken = os_channel->TakeWake();
      const LoadClock::time_point now = LoadClock::now();
      if (woken || now >= next_poll) {
        ctx.poll();
        next_poll = now + kLoopPoll;
      }
    } else if (ctx.run_one() == 0) {
      return;
    }
  }
}

void RunState::ClientDone() {
  if (clients_left.fetch_sub(1) == 1) {
    std::lock_guard<std::mutex> lock(mu);
    cv.notify_all();
  }
}

void RunState::Fail() {
  failed.store(true);
  phase.store(kStopping);
  std::lock_guard<std::mutex> lock(mu);
  cv.notify_all();
}

bool RunState::ShouldEnd() const {
  return clients_left.load() == 0 || failed.load() || StopRequested();
}

void RunState::WaitUntil(LoadClock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu);
  while (!ShouldEnd()) {
    const auto now = LoadClock::now();
    if (now >= deadline) return;
    cv.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(20)));
  }
}

LogicalClient::LogicalClient(RunState* state, ClientThread* thread, rpc::CallChannel* conn,
                             Codec* codec, std::unique_ptr<OpStream> stream, int64_t quota,
                             double interval_ns, double stagger_ns)
    : state_(state),
      thread_(thread),
      conn_(conn),
      codec_(codec),
      stream_(std::move(stream)),
      quota_(quota),
      interval_ns_(interval_ns),
      stagger_ns_(stagger_ns),
      wake_(thread->ctx) {
  delay_rng_ = uint64_t(reinterpret_cast<uintptr_t>(this));  // Each client its own draws.
  batched_reads_.reserve(stream_->max_batched_reads());
  read_slot_.reserve(stream_->max_batched_reads());
}

int64_t LogicalClient::CallDelayMs() {
  const DriverOptions& o = *state_->options;
  if (o.call_delay_ms <= 0 || flushed_) return 0;
  if (!o.call_delay_random) return o.call_delay_ms;
  uint64_t z = (delay_rng_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return int64_t(z % uint64_t(o.call_delay_ms));
}

void LogicalClient::Start() {
  next_intended_ = state_->open_loop_start + std::chrono::nanoseconds(int64_t(stagger_ns_));
  Step();
}

void LogicalClient::Step() {
  for (;;) {
    if (!PlanNext()) {
      End();
      return;
    }
    const LoadClock::time_point now = LoadClock::now();
    intended_ = now;
    waited_ = false;
    if (interval_ns_ > 0 && !flushed_) {
      intended_ = next_intended_;
      next_intended_ += std::chrono::nanoseconds(int64_t(interval_ns_));
      if (intended_ > now) {
        waited_ = true;
        wake_.expires_at(intended_);
        wake_.async_wait([this](const boost::system::error_code& ec) { OnTimer(ec); });
        return;
      }
    }
    if (StartOp(now)) return;
    if (failed_) {
      End();
      return;
    }
    if (conn_ == nullptr) {
      // In-process (YCSB's BasicDB): the operation finished without a
      // wait; the thread's other clients take their turn, as YCSB's client
      // threads run side by side.
      asio::post(thread_->ctx, [this] { Step(); });
      return;
    }
  }
}

bool LogicalClient::PlanNext() {
  const DriverOptions& o = *state_->options;
  const int phase = state_->phase.load(std::memory_order_relaxed);
  bool have_op = false;
  if (phase != kStopping && !StopRequested() &&
      !(phase == kMeasure && o.operations > 0 && quota_ <= 0)) {
    have_op = stream_->Next(&op_);
  }
  if (!have_op) {
    if (!cleanup_started_) {
      cleanup_started_ = true;
      cleanup_start_ = LoadClock::now();
    }
    if (flushed_ || failed_ || !stream_->Flush(&op_)) return false;
    flushed_ = true;
    rare_ = true;  // FinishOp: the flush is part of the cleanup, not an operation.
  }
  measured_ = phase == kMeasure;
  return true;
}

void LogicalClient::OnTimer(const boost::system::error_code&) {
  // Interrupted (or woken as the run stops): plan again, which ends the
  // client or sends its final flush, instead of this operation.
  const bool stopping = state_->phase.load() == kStopping || StopRequested();
  if (!stopping) {
    if (StartOp(LoadClock::now())) return;
    if (failed_) {
      End();
      return;
    }
  }
  Step();
}

bool LogicalClient::StartOp(LoadClock::time_point now) {
  start_ = now;
  if (interval_ns_ > 0 && measured_ && !flushed_) RecordLateness(intended_, start_, waited_);
  read_result_ = OpResult::kOk;
  scanned_rows_ = 0;
  call_index_ = 0;
  delayed_call_ = -1;
  if (op_.batched_read) batched_reads_.push_back(BatchedRead{intended_, start_, measured_, OpResult::kError, {}});
  return ContinueOp();
}

bool LogicalClient::ContinueOp() {
  for (; call_index_ < op_.ncalls && read_result_ != OpResult::kError; ++call_index_) {
    if (state_->options->call_delay_ms > 0 && delayed_call_ != call_index_) [[unlikely]] {
      delayed_call_ = call_index_;
      if (WaitCallDelay()) return true;
    }
    if (IssueCall()) return true;
    if (failed_) return false;
  }
  FinishOp();
  return false;
}

bool LogicalClient::WaitCallDelay() {
  const int64_t delay_ms = CallDelayMs();
  if (delay_ms <= 0) return false;
  wake_.expires_after(std::chrono::milliseconds(delay_ms));
  wake_.async_wait([this](const boost::system::error_code&) {
    if (ContinueOp()) return;
    if (failed_) {
      End();
    } else {
      Step();
    }
  });
  return true;
}

void LogicalClient::FinishOp() {
  const LoadClock::time_point end = LoadClock::now();
  stream_->Finish(op_, read_result_);
  OpResult result = read_result_;
  if (!batched_reads_.empty()) {
    // The stream empties its batch when an operation that sends it finishes
    // (Finish above), whether the call went out or not.
    for (int i = 0; i < op_.ncalls; ++i)
      if (op_.calls[i].method == Method::kMulti) RecordBatchedReads(end);
    if (op_.batched_read) {
      // Recorded with its batch; it counts towards the quota as it is drawn.
      if (measured_) --quota_;
      return;
    }
  }
  if (rare_) [[unlikely]] {
    if (flushed_) {
      // The final flush is timed with the cleanup (End). A failed one is
      // counted, so it is seen, as a failed UPDATE; YCSB's cleanup would
      // throw and time nothing.
      rare_ = false;
      flush_failed_ = result != OpResult::kOk;
      if (flush_failed_) Record(op_.type, result, intended_, start_, end, measured_);
      return;
    }
    result = FinishRareOp(end);
  }
  Record(op_.type, result, intended_, start_, end, measured_);
  if (op_.type == OpType::kScan && scanned_rows_ > 0) {
    // YCSB master: the scan's whole microseconds over the records it
    // returned (one with none has no per-record latency).
    const auto per_record = (end - start_) / int64_t(scanned_rows_);
    RecordLatency(OpType::kScanPerRecord, OpResult::kOk, end - per_record, end - per_record, end,
                  measured_);
  }
  if (measured_) --quota_;
}

OpResult LogicalClient::FinishRareOp(LoadClock::time_point end) {
  rare_ = false;
  OpResult result = read_result_;
  if (verify_.result != OpResult::kCount) {
    // dataintegrity: YCSB's verifyRow, timed under VERIFY.
    const LoadClock::time_point check_start = end - std::chrono::nanoseconds(verify_.ns);
    RecordLatency(OpType::kVerify, verify_.result, check_start, check_start, end, measured_);
    verify_.result = OpResult::kCount;
  }
  if (rmw_read_recorded_) {
    // YCSB times the update half of a read-modify-write as an UPDATE (a
    // buffered one too), and the whole under READ-MODIFY-WRITE whatever its
    // halves returned. (A read-modify-write whose read never went out counts
    // as a failed one, with no READ.)
    RecordLatency(OpType::kUpdate, read_result_, intended_, rmw_update_start_, end, measured_);
    rmw_read_recorded_ = false;
    result = OpResult::kOk;
  }
  return result;
}

void LogicalClient::End() {
  if (ended_) return;
  ended_ = true;
  end_time_ = LoadClock::now();
  if (cleanup_started_ && !failed_ && !flush_failed_) {
    cleanup_ns_ = Nanos(end_time_ - cleanup_start_);
    cleanup_flushed_ = flushed_;
  }
  if (failed_) state_->Fail();
  state_->ClientDone();
}

void LogicalClient::OnReply(const rpc::CallHeader& h, ByteView payload) {
  in_flight_ = false;
  if (h.status != uint8_t(CallStatus::kOk)) {
    read_result_ = OpResult::kError;
    thread_->CountErrorReply(h.method, h.status, payload);
  } else {
    DecodeReply(payload);
  }
  // A cluster's batch split by region: its next part, until the last.
  if (split_.active()) [[unlikely]] {
    if (NextPart()) return;
    if (failed_) {
      End();
      return;
    }
  }
  if (op_.type == OpType::kReadModifyWrite && call_index_ == 0) [[unlikely]] OnRmwReadReply();
  ++call_index_;
  if (ContinueOp()) return;
  if (failed_) {
    End();
  } else {
    Step();
  }
}

void LogicalClient::DecodeReply(ByteView payload) {
  const PlannedCall& call = op_.calls[call_index_];
  Status s;
  switch (call.method) {
    case Method::kMutate: {
      MutateResponse r;
      s = codec_->DecodeResponse(payload, &r);
      break;
    }
    case Method::kGet: {
      GetResponse r;
      s = codec_->DecodeResponse(payload, &r);
      if (s.ok()) TakeRead(r);
      break;
    }
    case Method::kScan: {
      ScanResponse r;
      s = codec_->DecodeResponse(payload, &r);
      if (s.ok()) scanned_rows_ += r.results.size();
      break;
    }
    case Method::kMulti: {
      MultiResponse r;
      s = codec_->DecodeResponse(payload, &r);
      if (s.ok()) TakeMulti(call.multi, r);
      break;
    }
    default:
      break;
  }
  if (!s.ok()) read_result_ = OpResult::kError;
}

void LogicalClient::TakeRead(const GetResponse& read) {
  read_result_ = stream_->OnRead(op_, read);
  if (stream_->verify.result != OpResult::kCount) [[unlikely]] {
    verify_ = stream_->verify;  // Recorded when the operation finishes.
    stream_->verify.result = OpResult::kCount;
    rare_ = true;
  }
}

void LogicalClient::TakeMulti(const MultiRequest& request, const MultiResponse& reply) {
  if (batched_reads_.empty()) {
    for (const ActionResult& ar : reply.results)
      if (!ar.ok) read_result_ = OpResult::kError;
    return;
  }
  // Each action's read in batched_reads_: a split batch's part's were kept
  // when it was split.
  std::span<const uint32_t> read_slot;
  if (split_.active()) {
    const SplitPart& part = split_.parts[split_.next];
    read_slot = std::span<const uint32_t>(split_.slots.data() + part.begin, part.count);
  } else {
    read_slot_.clear();
    uint32_t reads = 0;
    for (const Action& a : request.actions)
      read_slot_.push_back(a.kind == ActionKind::kGet ? reads++ : UINT32_MAX);
    read_slot = read_slot_;
  }
  for (size_t i = 0; i < reply.results.size(); ++i) {
    const ActionResult& ar = reply.results[i];
    const size_t at = ar.index < request.actions.size() ? size_t(ar.index) : i;
    const uint32_t slot = at < read_slot.size() ? read_slot[at] : UINT32_MAX;
    if (slot == UINT32_MAX || slot >= batched_reads_.size()) {
      // A put's failure is counted against the operation that sent the
      // batch, as a BufferedMutator's surfaces at the put that flushes it.
      if (!ar.ok) read_result_ = OpResult::kError;
      continue;
    }
    BatchedRead& br = batched_reads_[slot];
    if (!ar.ok) {
      br.result = OpResult::kError;
      continue;
    }
    br.result = stream_->OnBatchedRead(request.actions[at].get, ar.result);
    br.verify = stream_->verify;
    stream_->verify.result = OpResult::kCount;
  }
}

void LogicalClient::RecordBatchedReads(LoadClock::time_point end) {
  for (const BatchedRead& br : batched_reads_) {
    if (br.verify.result != OpResult::kCount) [[unlikely]] {
      const LoadClock::time_point check_start = end - std::chrono::nanoseconds(br.verify.ns);
      RecordLatency(OpType::kVerify, br.verify.result, check_start, check_start, end,
                    br.measured);
    }
    Record(OpType::kRead, br.result, br.intended, br.start, end, br.measured);
  }
  batched_reads_.clear();
}

void LogicalClient::AnswerInProcess() {
  if (op_.calls[call_index_].method == Method::kGet) {
    // BasicDB.read returns Status.OK and leaves the result empty (so
    // dataintegrity's check finds no data, as YCSB's verifyRow does).
    GetResponse read;
    read.result.exists = true;
    TakeRead(read);
  }
  // Mutate, Scan (no records) and Multi: BasicDB answers Status.OK.
  if (op_.type == OpType::kReadModifyWrite && call_index_ == 0) [[unlikely]] OnRmwReadReply();
}

void LogicalClient::OnFailure(const Status& status) {
  failed_ = true;
  thread_->SetError(status);
  if (routes_.plan != nullptr) thread_->CountServerFailure(server_);
  // A failure inside Send() is seen by IssueCall; one of a call in flight
  // (the connection failed or was closed) ends the client here.
  if (in_flight_) {
    in_flight_ = false;
    End();
  }
}

bool LogicalClient::IssueCall() {
  if (conn_ == nullptr) {  // In-process: answered here, no call goes out.
    AnswerInProcess();
    return false;
  }
  if (routes_.plan != nullptr && !Route()) return false;
  const PlannedCall& call = op_.calls[call_index_];
  uint32_t call_id = 0;
  ByteBuffer* out = conn_->BeginCall(uint8_t(call.method), this, &call_id);
  if (out == nullptr) {
    failed_ = true;
    // A cluster's server lost while none of this client's calls was in
    // flight to it fails here, at the next call: counted against it too.
    if (routes_.plan != nullptr) thread_->CountServerFailure(server_);
    // The driver keeps clients per connection under the call-slot limit, so
    // a refusal on a healthy connection means that limit was missed.
    thread_->SetError(conn_->ok() ? Status::Internal("connection to " + conn_->peer() +
                                                     " has no free call slot (65535 calls in "
                                                     "flight)")
                                  : conn_->error());
    return false;
  }
  Status s;
  switch (call.method) {
    case Method::kMutate:
      s = codec_->EncodeRequest(call_id, call.mutate, out);
      break;
    case Method::kGet:
      s = codec_->EncodeRequest(call_id, call.get, out);
      break;
    case Method::kScan:
      s = codec_->EncodeRequest(call_id, call.scan, out);
      break;
    case Method::kMulti:
      s = codec_->EncodeRequest(call_id, call.multi, out);
      break;
    default:
      s = Status::InvalidArgument("not a region method");
      break;
  }
  if (!s.ok()) {
    conn_->Abandon();
    read_result_ = OpResult::kError;
    return false;
  }
  conn_->Send();
  if (failed_) return false;  // Send() refused it (OnFailure ran).
  in_flight_ = true;
  return true;
}

namespace {

ByteView ActionRow(const Action& a) {
  return a.kind == ActionKind::kGet ? a.get.row : a.mutation.row;
}

}  // namespace

bool LogicalClient::Route() {
  PlannedCall& call = op_.calls[call_index_];
  const RegionLayout& layout = routes_.plan->layout;
  ByteView row;
  ByteView* region = nullptr;
  switch (call.method) {
    case Method::kMutate:
      row = call.mutate.mutation.row;
      region = &call.mutate.region;
      break;
    case Method::kGet:
      row = call.get.row;
      region = &call.get.region;
      break;
    case Method::kScan:
      row = call.scan.start_row;
      region = &call.scan.region;
      break;
    case Method::kMulti: {
      region = &call.multi.region;
      if (call.multi.actions.empty()) break;
      if (!split_.active()) {
        const uint32_t first = layout.RegionOfRow(ActionRow(call.multi.actions[0]).str());
        for (const Action& a : call.multi.actions)
          if (layout.RegionOfRow(ActionRow(a).str()) != first) {
            SplitMulti(&call.multi);
            break;
          }
      }
      row = ActionRow(call.multi.actions[0]);
      break;
    }
    default:
      break;
  }
  const uint32_t index = layout.RegionOfRow(row.str());
  server_ = routes_.plan->ServerOfRegion(index);
  const auto& [conn, codec] = routes_.servers[server_];
  conn_ = conn;
  codec_ = codec;
  if (region != nullptr) *region = ByteView((*routes_.region_names)[index]);
  return true;
}

void LogicalClient::SplitMulti(MultiRequest* multi) {
  const ClusterPlan& plan = *routes_.plan;
  const std::span<const Action> all = multi->actions;
  // Each action's region (in read_slot_, unused until a split's reply) and
  // its read's slot in the whole batch.
  std::vector<uint32_t>& region_of = read_slot_;
  region_of.clear();
  split_.batch_slots.clear();
  uint32_t reads = 0;
  for (const Action& a : all) {
    region_of.push_back(plan.layout.RegionOfRow(ActionRow(a).str()));
    split_.batch_slots.push_back(a.kind == ActionKind::kGet ? reads++ : UINT32_MAX);
  }
  // The actions by server, then region, each part keeping the batch's order.
  split_.actions.clear();
  split_.slots.clear();
  split_.parts.clear();
  for (uint32_t server = 0; server < plan.size(); ++server)
    for (uint32_t r = 0; r < plan.layout.regions(); ++r) {
      if (plan.ServerOfRegion(r) != server) continue;
      const uint32_t begin = uint32_t(split_.actions.size());
      for (size_t i = 0; i < all.size(); ++i) {
        if (region_of[i] != r) continue;
        split_.actions.push_back(all[i]);
        split_.actions.back().index = uint32_t(split_.actions.size()) - 1 - begin;
        split_.slots.push_back(split_.batch_slots[i]);
      }
      const uint32_t count = uint32_t(split_.actions.size()) - begin;
      if (count > 0) split_.parts.push_back({r, begin, count});
    }
  split_.next = 0;
  TakePart(multi);
}

void LogicalClient::TakePart(MultiRequest* multi) {
  const SplitPart& part = split_.parts[split_.next];
  multi->actions = std::span<const Action>(split_.actions.data() + part.begin, part.count);
}

bool LogicalClient::NextPart() {
  if (++split_.next >= split_.parts.size()) {
    split_.parts.clear();
    return false;
  }
  TakePart(&op_.calls[call_index_].multi);
  if (IssueCall()) return true;
  split_.parts.clear();
  return false;
}

void LogicalClient::OnRmwReadReply() {
  const LoadClock::time_point now = LoadClock::now();
  RecordLatency(OpType::kRead, read_result_, intended_, start_, now, measured_);
  rmw_read_recorded_ = true;
  rare_ = true;
  rmw_update_start_ = now;
  read_result_ = OpResult::kOk;  // From here, the update's result (YCSB updates after a failed read too).
}

namespace {

std::unique_ptr<hdr::Histogram>& LatencyFor(ThreadOpStats& s, OpResult result) {
  return result == OpResult::kOk         ? s.latency
         : result == OpResult::kNotFound ? s.not_found_latency
                                         : s.failed_latency;
}

}  // namespace

void LogicalClient::Record(OpType type, OpResult result, LoadClock::time_point intended,
                           LoadClock::time_point start, LoadClock::time_point end, bool measured) {
  RecordLatency(type, result, intended, start, end, measured);
  if (!measured) {
    ++thread_->unmeasured_ops;
    return;
  }
  ++thread_->measured_ops;
  state_->last_end_ns.store(Nanos(end.time_since_epoch()), std::memory_order_relaxed);
}

void LogicalClient::RecordLatency(OpType type, OpResult result, LoadClock::time_point intended,
                                  LoadClock::time_point start, LoadClock::time_point end,
                                  bool measured) {
  const size_t t = size_t(type);
  const bool with_interval = state_->options->status_interval_s > 0;
  ThreadOpStats& s = thread_->stats[t];
  ThreadOpStats& iv = thread_->interval[t];
  if (!measured) {
    // Warm-up: allocate what this operation type will record with this
    // result, so the measured phase allocates nothing.
    std::unique_ptr<hdr::Histogram>& h = LatencyFor(s, result);
    if (h == nullptr) [[unlikely]] {
      h = std::make_unique<hdr::Histogram>();
      if (with_interval) LatencyFor(iv, result) = std::make_unique<hdr::Histogram>();
      if (interval_ns_ > 0 && s.intended_latency == nullptr)
        s.intended_latency = std::make_unique<hdr::Histogram>();
      if (interval_ns_ > 0 && with_interval && iv.intended_latency == nullptr)
        iv.intended_latency = std::make_unique<hdr::Histogram>();
    }
    return;
  }
  const int64_t latency = Nanos(end - start);
  if (result == OpResult::kOk) {
    RecordLazily(&s.latency, latency);
    if (with_interval) RecordLazily(&iv.latency, latency);
  } else {
    RecordLazily(&LatencyFor(s, result), latency);
    if (with_interval) RecordLazily(&LatencyFor(iv, result), latency);
  }
  int64_t intended_latency = -1;
  if (interval_ns_ > 0 && result != OpResult::kError) {
    intended_latency = Nanos(end - intended);
    RecordLazily(&s.intended_latency, intended_latency);
    if (with_interval) RecordLazily(&iv.intended_latency, intended_latency);
  }
  ++s.results[size_t(result)];
  ++iv.results[size_t(result)];
  if (thread_->keep_samples) [[unlikely]] KeepSample(type, result, end, latency, intended_latency);
}

void LogicalClient::KeepSample(OpType type, OpResult result, LoadClock::time_point end,
                               int64_t latency_ns, int64_t intended_ns) {
  thread_->samples.push_back(
      LatencySample{Nanos(end.time_since_epoch()), latency_ns, intended_ns, type, result});
}

void LogicalClient::RecordLateness(LoadClock::time_point intended, LoadClock::time_point start,
                                   bool waited) {
  RecordLazily(&thread_->lateness, Nanos(start - intended));
  if (waited) {
    RecordLazily(&thread_->timer_lateness, Nanos(start - intended));
  } else {
    ++thread_->behind_schedule;
  }
}

}  // namespace wirebench
