#include "bench/loadgen/logical_client.h"

#include <boost/asio.hpp>

#include "bench/loadgen/stop_request.h"
#include "codecs/codec.h"

namespace wirebench {

namespace asio = boost::asio;

namespace {

constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);

int64_t Nanos(LoadClock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

}  // namespace

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
      wake_(thread->ctx) {}

void LogicalClient::OnReply(const rpc::FrameHeader& h, ByteView payload) {
  done_ = true;
  wake_.cancel();
  if (h.status != uint8_t(CallStatus::kOk)) {
    read_result_ = OpResult::kError;
    return;
  }
  Status s;
  switch (call_->method) {
    case Method::kMutate: {
      MutateResponse r;
      s = codec_->DecodeResponse(payload, &r);
      break;
    }
    case Method::kGet: {
      GetResponse r;
      s = codec_->DecodeResponse(payload, &r);
      if (s.ok()) read_result_ = stream_->OnRead(op_, r);
      break;
    }
    case Method::kScan: {
      ScanResponse r;
      s = codec_->DecodeResponse(payload, &r);
      break;
    }
    case Method::kMulti: {
      MultiResponse r;
      s = codec_->DecodeResponse(payload, &r);
      if (s.ok())
        for (const ActionResult& ar : r.results)
          if (!ar.ok) read_result_ = OpResult::kError;
      break;
    }
    default:
      break;
  }
  if (!s.ok()) read_result_ = OpResult::kError;
}

void LogicalClient::OnFailure(const Status& status) {
  done_ = true;
  failed_ = true;
  thread_->SetError(status);
  wake_.cancel();
}

asio::awaitable<bool> LogicalClient::DoCall(const PlannedCall& call) {
  call_ = &call;
  uint32_t call_id = 0;
  ByteBuffer* out = conn_->BeginCall(uint8_t(call.method), this, &call_id);
  if (out == nullptr) {
    failed_ = true;
    // The driver keeps clients per connection under the call-slot limit, so
    // a refusal on a healthy connection means that limit was missed.
    thread_->SetError(conn_->ok() ? Status::Internal("connection to " + conn_->peer() +
                                                     " has no free call slot (65535 calls in "
                                                     "flight)")
                                  : conn_->error());
    co_return false;
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
    co_return true;
  }
  done_ = false;
  conn_->Send();
  while (!done_) {
    wake_.expires_at(LoadClock::time_point::max());
    co_await wake_.async_wait(kNoThrow);
  }
  co_return !failed_;
}

void LogicalClient::Record(OpType type, OpResult result, LoadClock::time_point intended,
                           LoadClock::time_point start, LoadClock::time_point end, bool measured) {
  if (!measured) return;
  const size_t t = size_t(type);
  const int64_t latency = Nanos(end - start);
  OpStats& s = thread_->stats[t];
  OpStats& iv = thread_->interval[t];
  if (result == OpResult::kError) {
    s.failed_latency.Record(latency);
    iv.failed_latency.Record(latency);
  } else {
    s.latency.Record(latency);
    iv.latency.Record(latency);
  }
  if (interval_ns_ > 0 && result != OpResult::kError) {
    const int64_t intended_latency = Nanos(end - intended);
    s.intended_latency.Record(intended_latency);
    iv.intended_latency.Record(intended_latency);
  }
  ++s.results[size_t(result)];
  ++iv.results[size_t(result)];
  ++thread_->measured_ops;
  state_->last_end_ns.store(Nanos(end.time_since_epoch()), std::memory_order_relaxed);
}

void LogicalClient::RecordLateness(LoadClock::time_point intended, LoadClock::time_point start,
                                   bool waited) {
  thread_->lateness.Record(Nanos(start - intended));
  if (waited) {
    thread_->timer_lateness.Record(Nanos(start - intended));
  } else {
    ++thread_->behind_schedule;
  }
}

asio::awaitable<void> LogicalClient::Run() {
  const DriverOptions& o = *state_->options;
  LoadClock::time_point next_intended =
      state_->open_loop_start + std::chrono::nanoseconds(int64_t(stagger_ns_));
  bool flushed = false;
  for (;;) {
    const int phase = state_->phase.load(std::memory_order_relaxed);
    bool have_op = false;
    if (phase != kStopping && !StopRequested() &&
        !(phase == kMeasure && o.operations > 0 && quota_ <= 0)) {
      have_op = stream_->Next(&op_);
    }
    if (!have_op) {
      if (flushed || failed_ || !stream_->Flush(&op_)) break;
      flushed = true;
    }
    const bool measured = phase == kMeasure;
    LoadClock::time_point intended = LoadClock::now();
    bool waited = false;
    if (interval_ns_ > 0 && !flushed) {
      intended = next_intended;
      next_intended += std::chrono::nanoseconds(int64_t(interval_ns_));
      if (intended > LoadClock::now()) {
        waited = true;
        wake_.expires_at(intended);
        co_await wake_.async_wait(kNoThrow);
        if (state_->phase.load() == kStopping || StopRequested()) continue;  // Interrupted.
      }
    }
    const LoadClock::time_point start = LoadClock::now();
    if (interval_ns_ > 0 && measured && !flushed) RecordLateness(intended, start, waited);
    read_result_ = OpResult::kOk;
    for (int i = 0; i < op_.ncalls; ++i) {
      if (!co_await DoCall(op_.calls[i])) break;
      if (read_result_ == OpResult::kError) break;
    }
    if (failed_) break;
    const LoadClock::time_point end = LoadClock::now();
    stream_->Finish(op_, read_result_);
    Record(op_.type, read_result_, intended, start, end, measured);
    if (measured) --quota_;
  }
  if (failed_) state_->Fail();
  state_->ClientDone();
}

}  // namespace wirebench
