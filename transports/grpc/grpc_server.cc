#include "transports/grpc/grpc_server.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <list>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <vector>

#include <grpcpp/alarm.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include "codecs/codec.h"
#include "common/callgrind_marks.h"
#include "common/thread_stats.h"
#include "transports/grpc/process_threads.h"
#include "rpc/log.h"
#include "rpc/stats_json.h"

namespace wirebench::grpcrpc {

namespace {

using Clock = std::chrono::steady_clock;

struct CqStats {
  std::atomic<uint64_t> calls[kMaxMethod + 1] = {};
  std::atomic<uint64_t> unknown_method_calls{0};
  std::atomic<uint64_t> failed_calls{0};
  std::atomic<uint64_t> bytes_in{0}, bytes_out{0};  // Payload bytes.
  std::atomic<int64_t> waiting_calls{0};  // Accepted, no request message yet.
  std::atomic<uint64_t> idle_calls_cancelled{0};
  std::atomic<uint64_t> calls_cancelled_over_limit{0};
  // Accepted, then ended with no request message (reset by the client, or
  // cancelled by the server above).
  std::atomic<uint64_t> calls_ended_without_request{0};
};

// A call accepted and waiting for its request message (see
// GrpcServer::Impl::SweepIdle).
struct WaitingCall {
  Clock::time_point accepted;
  grpc::ServerContextBase* ctx = nullptr;
  bool* listed = nullptr;  // The call's flag: cleared when the sweep drops it.
};

// One completion queue and the thread that drains it.
struct CqThread {
  int index = 0;
  std::unique_ptr<grpc::ServerCompletionQueue> cq;
  std::thread thread;
  CqStats stats;
  std::vector<std::unique_ptr<rpc::CallHandler>> handlers = std::vector<std::unique_ptr<rpc::CallHandler>>(256);
  // The rest is touched by this queue's thread only (and by Stop under the
  // exclusive lock).
  int slots = 0;  // Calls requested, waiting to be accepted.
  // Calls accepted and waiting for their request message, oldest first;
  // those cancelled are taken off at once.
  std::list<WaitingCall> waiting_list;
  // Finished calls kept for the next accept (no allocation per call).
  std::vector<std::unique_ptr<GrpcTag>> spare_calls;
  bool over_limit_logged = false;
  GrpcTag* sweep = nullptr;  // The idle sweep's alarm, while one is set.
};

int CurrentTid() { return int(syscall(SYS_gettid)); }

}  // namespace

class GrpcServer::Impl final : public rpc::TransportServer, public GrpcRequestGate {
 public:
  Impl(const GrpcServerOptions& options, rpc::Service* service, GrpcExtraService* extra)
      : options_(options), service_(service), extra_(extra) {}

  Status Start() override;
  void Stop() override;
  uint16_t port() const override { return port_; }
  std::string address() const override { return options_.host + ":" + std::to_string(port_); }
  nlohmann::json StatsJson() override;

 private:
  class ServerCall;
  class IdleSweep;

  // Requests call objects again after each call, unless stopping.
  bool RequestAgain(GrpcTag* tag) override;
  void Drain(CqThread* t);
  // Calls accepted and waiting for their message on one queue, at most
  // (the server's max_waiting_calls shared among the queues).
  size_t WaitingCap() const {
    return size_t(std::max(1, options_.max_waiting_calls / options_.cq_threads));
  }
  // Keeps calls_per_cq calls requested on `t`.
  void RefillSlots(CqThread* t);
  // A call was accepted on `t` and waits for its message: beyond
  // WaitingCap() the oldest waiting call is cancelled (TrimOverLimit).
  void Accepted(CqThread* t);
  // Cancels the oldest waiting calls of `t` while more than WaitingCap()
  // wait, sparing those accepted less than kGrace ago unless more than
  // twice WaitingCap() wait.
  void TrimOverLimit(CqThread* t, Clock::time_point now);
  // Cancels the oldest waiting call of `t` and takes it off the list.
  void CancelWaiting(CqThread* t);
  static constexpr auto kGrace = std::chrono::milliseconds(100);
  // A finished call: kept as a spare (true), or false (delete it).
  bool Recycle(CqThread* t, std::unique_ptr<GrpcTag> call);
  // Cancels the calls of `t` that have waited idle_timeout_ms for their message.
  void SweepIdle(CqThread* t);

  GrpcServerOptions options_;
  rpc::Service* service_;
  GrpcExtraService* extra_;
  grpc::AsyncGenericService generic_;
  std::unique_ptr<grpc::Server> server_;
  std::vector<std::unique_ptr<CqThread>> cqs_;
  int port_ = 0;
  // Every completion is handled under a shared lock of queues_mu_, and the
  // queues are shut down under the exclusive lock: so no operation starts
  // on a queue after its shutdown (gRPC asserts on that). Once
  // queues_closed_, completions only delete their calls.
  std::shared_mutex queues_mu_;
  bool queues_closed_ = false;
  std::atomic<bool> stopping_{false};
  bool started_ = false;
  bool stopped_ = false;
  std::mutex stop_mu_;
  std::chrono::steady_clock::time_point start_time_;
};

// One gRPC call slot: requested, then read, served and finished, then
// requested again. Its address is the completion-queue tag.
class GrpcServer::Impl::ServerCall final : public GrpcTag {
 public:
  ServerCall(Impl* server, CqThread* t) : server_(server), t_(t) {}
  ~ServerCall() override { StopWaiting(); }

  void Request() override {
    ctx_.emplace();
    stream_.emplace(&*ctx_);
    state_ = State::kRequested;
    server_->generic_.RequestCall(&*ctx_, &*stream_, t_->cq.get(), t_->cq.get(), this);
  }

  // One completion of this call's pending operation. False: delete it.
  bool Proceed(bool ok) override {
    switch (state_) {
      case State::kRequested:
        if (!ok) return false;  // Shutting down.
        // Accepted: from here until its message arrives the call waits,
        // outside the accept slots (which are refilled), for at most the
        // idle timeout.
        --t_->slots;
        t_->waiting_list.push_back(WaitingCall{Clock::now(), &*ctx_, &listed_});
        waiting_it_ = std::prev(t_->waiting_list.end());
        listed_ = waiting_ = true;
        t_->stats.waiting_calls.fetch_add(1, std::memory_order_relaxed);
        server_->Accepted(t_);
        server_->RefillSlots(t_);
        state_ = State::kReading;
        stream_->Read(&request_, this);
        return true;
      case State::kReading:
        StopWaiting();
        state_ = State::kFinishing;
        if (!ok) {
          Bump(t_->stats.calls_ended_without_request, 1);
          stream_->Finish(grpc::Status(grpc::StatusCode::CANCELLED, "no request message"), this);
        } else {
          Serve();
        }
        return true;
      case State::kFinishing:
        request_.Clear();
        reply_.Clear();
        stream_.reset();
        ctx_.reset();
        return server_->Recycle(t_, std::unique_ptr<GrpcTag>(this));
    }
    return false;
  }

 private:
  enum class State { kRequested, kReading, kFinishing };

  void StopWaiting() {
    if (!waiting_) return;
    waiting_ = false;
    t_->stats.waiting_calls.fetch_sub(1, std::memory_order_relaxed);
    if (listed_) t_->waiting_list.erase(waiting_it_);
    listed_ = false;
  }

  void Serve();
  bool ServeRegion(Method m, ByteView payload);
  void Refuse(CallStatus status, const std::string& why) {
    Bump(t_->stats.failed_calls, 1);
    ctx_->AddTrailingMetadata(kGrpcStatusKey, std::to_string(int(status)));
    stream_->Finish(grpc::Status(GrpcCodeOf(status), why), this);
  }
  void Reply(size_t offset) {
    const size_t n = reply_bytes_.size() - offset;
    Bump(t_->stats.bytes_out, n);
    // The slice points into reply_bytes_, which lives until the finish
    // completes (gRPC takes no copy of a static slice).
    grpc::Slice slice(reply_bytes_.data() + offset, n, grpc::Slice::STATIC_SLICE);
    reply_ = grpc::ByteBuffer(&slice, 1);
    stream_->WriteAndFinish(reply_, grpc::WriteOptions(), grpc::Status::OK, this);
  }

  Impl* server_;
  CqThread* t_;
  State state_ = State::kRequested;
  std::optional<grpc::GenericServerContext> ctx_;
  std::optional<grpc::GenericServerAsyncReaderWriter> stream_;
  grpc::ByteBuffer request_, reply_;
  ByteBuffer reply_bytes_;
  bool waiting_ = false;  // Counted in t_->stats.waiting_calls.
  bool listed_ = false;   // In t_->waiting_list, at waiting_it_.
  std::list<WaitingCall>::iterator waiting_it_;
};

// Wakes a queue's thread every so often to cancel the calls there that
// have waited too long for their request message.
class GrpcServer::Impl::IdleSweep final : public GrpcTag {
 public:
  IdleSweep(Impl* server, CqThread* t) : server_(server), t_(t) {}
  void Request() override {
    // Also trims calls over the waiting limit once their grace is over.
    const int idle_ms = server_->options_.idle_timeout_ms;
    const int period_ms = idle_ms > 0 ? std::clamp(idle_ms / 4, 10, 1000) : 1000;
    alarm_.Set(t_->cq.get(), std::chrono::system_clock::now() + std::chrono::milliseconds(period_ms),
               this);
    t_->sweep = this;
  }
  bool Proceed(bool ok) override {
    t_->sweep = nullptr;
    if (!ok) return false;  // Cancelled: stopping.
    server_->SweepIdle(t_);
    return server_->RequestAgain(this);
  }
  void Cancel() { alarm_.Cancel(); }

 private:
  Impl* server_;
  CqThread* t_;
  grpc::Alarm alarm_;
};

void GrpcServer::Impl::ServerCall::Serve() {
  grpc::Slice slice;
  if (!request_.TrySingleSlice(&slice).ok()) request_.DumpToSingleSlice(&slice);
  const ByteView payload(slice.begin(), slice.size());
  Method m;
  if (!GrpcMethodFromPath(ctx_->method(), &m)) {
    Bump(t_->stats.unknown_method_calls, 1);
    Refuse(CallStatus::kUnknownMethod, std::string(kUnknownGrpcMethod) + " '" + ctx_->method() +
                                           "'; wirebench serves /wirebench.Region/{Mutate, Get, "
                                           "Scan, Multi, Stats, Ping}");
    return;
  }
  Bump(t_->stats.calls[uint8_t(m)], 1);
  Bump(t_->stats.bytes_in, payload.size());
  reply_bytes_.Clear();
  if (m == Method::kPing) {
    reply_bytes_.Append(payload);
    Reply(0);
    return;
  }
  if (m == Method::kStats) {
    // The instrument's own work: excluded from this thread's allocations.
    const CounterTotals at_entry = ThisThreadTotals();
    // --instructions: the phase since the last Stats call is dumped here, and
    // the next one starts once the reply is built (as transports/wirebench/server_connection.cc).
    callgrind::EndPhase(callgrind::kServerStatsLabel);
    nlohmann::json j = server_->StatsJson();
    const int tid = CurrentTid();
    for (auto& th : j["threads"]) {
      if (th["tid"].get<int>() != tid) continue;
      th["allocs"] = at_entry.allocs;
      th["alloc_bytes"] = at_entry.alloc_bytes;
    }
    reply_bytes_.Append(ByteView(j.dump()));
    callgrind::StartPhase();
    ExcludeFromThisThread(ThisThreadTotals() - at_entry);
    Reply(0);
    return;
  }
  ServeRegion(m, payload);
}

bool GrpcServer::Impl::ServerCall::ServeRegion(Method m, ByteView payload) {
  uint8_t codec_id = 0;
  const auto& md = ctx_->client_metadata();
  auto it = md.find(kGrpcCodecKey);
  if (it == md.end() ||
      !ParseSmallDecimal(std::string_view(it->second.data(), it->second.size()), &codec_id)) {
    Refuse(CallStatus::kBadPreamble,
           std::string("missing or bad '") + kGrpcCodecKey + "' metadata (the codec id, 1-255)");
    return false;
  }
  std::unique_ptr<rpc::CallHandler>& handler = t_->handlers[codec_id];
  if (!handler) {
    // The metadata's codec byte, resolved through the registry once per
    // completion-queue thread.
    const CodecInfo* codec = FindCodec(codec_id);
    if (codec == nullptr) {
      Refuse(CallStatus::kBadPreamble, "unknown codec id " + std::to_string(codec_id) +
                                           "; known codecs: " + CodecNames());
      return false;
    }
    auto made = server_->service_->NewCallHandler(*codec);
    if (!made.ok()) {
      Refuse(CallStatus::kBadPreamble, std::string(made.status().message()));
      return false;
    }
    handler = std::move(made).value();
  }
  rpc::CallHeader h;
  h.method = uint8_t(m);
  // The handler appends the reply payload; gRPC frames it.
  const size_t off = reply_bytes_.size();
  rpc::CallOutcome outcome;
  handler->Handle(h, payload, &reply_bytes_, &outcome);
  if (outcome.status != CallStatus::kOk) {
    Refuse(outcome.status, outcome.error);
    return false;
  }
  Reply(off);
  return true;
}

void GrpcServer::Impl::RefillSlots(CqThread* t) {
  // Runs under queues_mu_ (shared), on t's thread.
  if (stopping_.load(std::memory_order_acquire)) return;
  while (t->slots < options_.calls_per_cq) {
    GrpcTag* call;
    if (t->spare_calls.empty()) {
      call = new ServerCall(this, t);
    } else {
      call = t->spare_calls.back().release();
      t->spare_calls.pop_back();
    }
    call->Request();
    ++t->slots;
  }
}

void GrpcServer::Impl::Accepted(CqThread* t) { TrimOverLimit(t, Clock::now()); }

void GrpcServer::Impl::CancelWaiting(CqThread* t) {
  WaitingCall& w = t->waiting_list.front();
  *w.listed = false;
  w.ctx->TryCancel();  // Its Read completes, not ok; the call then ends.
  t->waiting_list.pop_front();
}

void GrpcServer::Impl::TrimOverLimit(CqThread* t, Clock::time_point now) {
  // A call just accepted is spared for a moment: a good client's message
  // is usually on its way (its Read completion may sit behind a burst of
  // accepts in the queue). Past twice the limit none is spared.
  const size_t cap = WaitingCap();
  uint64_t n = 0;
  while (t->waiting_list.size() > cap &&
         (t->waiting_list.size() > 2 * cap || now - t->waiting_list.front().accepted >= kGrace)) {
    CancelWaiting(t);
    ++n;
  }
  if (n == 0) return;
  Bump(t->stats.calls_cancelled_over_limit, n);
  if (!t->over_limit_logged) {
    t->over_limit_logged = true;
    rpc::LogLine("gRPC: more than " + std::to_string(cap) +
            " calls waiting for their request message on completion queue " +
            std::to_string(t->index) +
            " (its share of --max-connections): the oldest are cancelled (logged once; Stats "
            "counts them as calls_cancelled_over_limit)");
  }
}

bool GrpcServer::Impl::Recycle(CqThread* t, std::unique_ptr<GrpcTag> call) {
  // Runs under queues_mu_ (shared), on t's thread; a call not kept is
  // deleted by Drain (false).
  if (stopping_.load(std::memory_order_acquire)) {
    call.release();
    return false;
  }
  if (t->slots < options_.calls_per_cq) {
    call->Request();
    ++t->slots;
    call.release();
    return true;
  }
  if (t->spare_calls.size() < size_t(options_.calls_per_cq)) {
    t->spare_calls.push_back(std::move(call));
    return true;
  }
  call.release();
  return false;
}

void GrpcServer::Impl::SweepIdle(CqThread* t) {
  const auto now = Clock::now();
  TrimOverLimit(t, now);
  if (options_.idle_timeout_ms <= 0) return;
  const auto limit = std::chrono::milliseconds(options_.idle_timeout_ms);
  uint64_t n = 0;
  while (!t->waiting_list.empty() && now - t->waiting_list.front().accepted >= limit) {
    CancelWaiting(t);
    ++n;
  }
  if (n == 0) return;
  Bump(t->stats.idle_calls_cancelled, n);
  rpc::LogLine("gRPC: cancelled " + std::to_string(n) +
          " call(s) that sent no request message within " +
          std::to_string(options_.idle_timeout_ms) + " ms of being accepted (--idle-timeout-ms)");
}

bool GrpcServer::Impl::RequestAgain(GrpcTag* tag) {
  // Runs under queues_mu_ (shared), from Drain.
  if (stopping_.load(std::memory_order_acquire)) return false;
  tag->Request();
  return true;
}

void GrpcServer::Impl::Drain(CqThread* t) {
  void* tag = nullptr;
  bool ok = false;
  while (t->cq->Next(&tag, &ok)) {
    auto* call = static_cast<GrpcTag*>(tag);
    std::shared_lock<std::shared_mutex> lock(queues_mu_);
    if (queues_closed_ || !call->Proceed(ok)) delete call;
  }
}

Status GrpcServer::Impl::Start() {
  if (options_.cq_threads < 1)
    return Status::InvalidArgument("--grpc-cq-threads must be at least 1");
  if (options_.calls_per_cq < 1)
    return Status::InvalidArgument("gRPC calls per completion queue must be at least 1");
  grpc::ServerBuilder builder;
  const std::string addr = options_.host + ":" + std::to_string(options_.port);
  builder.AddListeningPort(addr, grpc::InsecureServerCredentials(), &port_);
  builder.RegisterAsyncGenericService(&generic_);
  if (extra_) builder.RegisterService(extra_->service());
  builder.SetMaxReceiveMessageSize(int(options_.max_message));
  builder.SetMaxSendMessageSize(int(options_.max_message));
  if (options_.max_streams_per_connection < 1)
    return Status::InvalidArgument("--max-inflight (gRPC streams per connection) must be at least 1");
  if (options_.max_waiting_calls < 1)
    return Status::InvalidArgument(
        "--max-connections (gRPC calls waiting for their message) must be at least 1");
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, options_.max_streams_per_connection);
  for (int i = 0; i < options_.cq_threads; ++i) {
    cqs_.push_back(std::make_unique<CqThread>());
    cqs_.back()->index = i;
    cqs_.back()->cq = builder.AddCompletionQueue();
  }
  server_ = builder.BuildAndStart();
  if (!server_ || port_ == 0) {
    for (auto& t : cqs_) t->cq->Shutdown();
    cqs_.clear();
    server_.reset();
    return Status::Unavailable("cannot listen on " + addr +
                               " with gRPC (port in use, or --bind is not an IP address?)");
  }
  if (options_.host != "127.0.0.1" && options_.host != "::1" && options_.host != "localhost")
    rpc::LogLine("warning: gRPC server bound to non-loopback address " + options_.host +
            "; anyone who can reach it can connect");
  for (auto& tp : cqs_) {
    CqThread* t = tp.get();
    for (int i = 0; i < options_.calls_per_cq; ++i) (new ServerCall(this, t))->Request();
    t->slots = options_.calls_per_cq;
    (new IdleSweep(this, t))->Request();
    if (extra_) extra_->StartQueue(t->index, t->cq.get(), this, options_.calls_per_cq);
    t->thread = std::thread([this, t] {
      const std::string name = "grpc-cq-" + std::to_string(t->index);
      RegisterThisThread(ThreadRole::kServerIo, name.c_str());
      Drain(t);
    });
  }
  started_ = true;
  start_time_ = std::chrono::steady_clock::now();
  return Status::Ok();
}

void GrpcServer::Impl::Stop() {
  std::lock_guard<std::mutex> lock(stop_mu_);
  if (!stopped_ && started_) {
    stopping_.store(true, std::memory_order_release);
    // Cancels calls in flight at once (no grace period).
    server_->Shutdown(std::chrono::system_clock::now());
    {
      std::unique_lock<std::shared_mutex> lock(queues_mu_);
      queues_closed_ = true;
      // A set alarm would hold its queue open: cancelled, its event comes
      // back and is deleted by Drain.
      for (auto& t : cqs_)
        if (t->sweep) static_cast<IdleSweep*>(t->sweep)->Cancel();
      for (auto& t : cqs_) t->cq->Shutdown();
    }
    for (auto& t : cqs_) t->thread.join();
    for (auto& t : cqs_) t->spare_calls.clear();
    server_.reset();  // Before the queues, which it refers to.
  }
  stopped_ = true;
}

nlohmann::json GrpcServer::Impl::StatsJson() {
  using nlohmann::json;
  json j;
  j["server"] = {{"rpc", "grpc"},
                 {"cq_threads", options_.cq_threads},
                 {"calls_per_cq", options_.calls_per_cq},
                 {"max_streams_per_connection", options_.max_streams_per_connection},
                 {"max_waiting_calls", options_.max_waiting_calls},
                 {"idle_timeout_ms", options_.idle_timeout_ms},
                 {"io_threads", options_.cq_threads},
                 {"handlers", 0},
                 {"bind", options_.host},
                 {"port", port_},
                 {"uptime_s", std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                            start_time_)
                                  .count()}};
  uint64_t calls[kMaxMethod + 1] = {};
  uint64_t failed = 0, unknown = 0, bytes_in = 0, bytes_out = 0, idle_cancelled = 0,
           over_limit = 0, ended_without_request = 0;
  int64_t waiting = 0;
  for (auto& t : cqs_) {
    for (int m = 1; m <= kMaxMethod; ++m) calls[m] += t->stats.calls[m].load(std::memory_order_relaxed);
    failed += t->stats.failed_calls.load(std::memory_order_relaxed);
    unknown += t->stats.unknown_method_calls.load(std::memory_order_relaxed);
    bytes_in += t->stats.bytes_in.load(std::memory_order_relaxed);
    bytes_out += t->stats.bytes_out.load(std::memory_order_relaxed);
    waiting += t->stats.waiting_calls.load(std::memory_order_relaxed);
    idle_cancelled += t->stats.idle_calls_cancelled.load(std::memory_order_relaxed);
    over_limit += t->stats.calls_cancelled_over_limit.load(std::memory_order_relaxed);
    ended_without_request += t->stats.calls_ended_without_request.load(std::memory_order_relaxed);
  }
  uint64_t total = 0;
  for (int m = 1; m <= kMaxMethod; ++m) total += calls[m];
  // One message each way per call; bytes are payload bytes (gRPC's
  // framing and HTTP/2 headers are not counted here; the client reads the
  // socket's wire bytes).
  rpc::AppendCallCounts(calls, failed, unknown, total + unknown, total + unknown, &j);
  // Accepted calls whose request message has not arrived (idle streams
  // among them), those cancelled after --idle-timeout-ms, and those
  // cancelled because more than max_waiting_calls waited.
  j["calls_waiting_for_request"] = waiting;
  j["idle_calls_cancelled"] = idle_cancelled;
  j["calls_cancelled_over_limit"] = over_limit;
  // Accepted calls that ended before their request message came: streams
  // the client reset (an HTTP/2 "rapid reset" shows here) or that the
  // server cancelled for the two reasons above.
  j["calls_ended_without_request"] = ended_without_request;
  j["bytes_in"] = bytes_in;
  j["bytes_out"] = bytes_out;
  json threads = rpc::ServerThreadsJson();
  for (const ProcessThread& t : ReadUnregisteredThreads())
    threads.push_back(rpc::ThreadJson(ThreadRoleName(ThreadRole::kUnregistered), t.name,
                                 t.tid, t.usage, CounterTotals{}));
  ThreadUsage none;
  threads.push_back(rpc::ThreadJson(ThreadRoleName(ThreadRole::kUnregistered),
                               "unregistered-allocations", -1, none, UnregisteredAllocations()));
  j["threads"] = threads;
  rpc::AppendProcessAndServiceStats(service_, &j);
  if (extra_) extra_->AppendStats(&j);
  return j;
}

GrpcServer::GrpcServer(const GrpcServerOptions& options, rpc::Service* service,
                       GrpcExtraService* extra)
    : impl_(std::make_unique<Impl>(options, service, extra)) {
  Wrap(impl_.get());
}
GrpcServer::~GrpcServer() { impl_->Stop(); }

}  // namespace wirebench::grpcrpc
