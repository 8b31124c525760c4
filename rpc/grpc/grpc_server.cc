#include "rpc/grpc/grpc_server.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <vector>

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include "common/callgrind_marks.h"
#include "common/thread_stats.h"
#include "rpc/grpc/process_threads.h"
#include "rpc/log.h"
#include "rpc/stats_json.h"

namespace wirebench::rpc {

namespace {

struct CqStats {
  std::atomic<uint64_t> calls[kMaxMethod + 1] = {};
  std::atomic<uint64_t> unknown_method_calls{0};
  std::atomic<uint64_t> failed_calls{0};
  std::atomic<uint64_t> bytes_in{0}, bytes_out{0};  // Payload bytes.
};

// One completion queue and the thread that drains it.
struct CqThread {
  int index = 0;
  std::unique_ptr<grpc::ServerCompletionQueue> cq;
  std::thread thread;
  CqStats stats;
  std::vector<std::unique_ptr<CallHandler>> handlers = std::vector<std::unique_ptr<CallHandler>>(256);
};

int CurrentTid() { return int(syscall(SYS_gettid)); }

}  // namespace

class GrpcServer::Impl final : public GrpcRequestGate {
 public:
  Impl(const GrpcServerOptions& options, Service* service, GrpcExtraService* extra)
      : options_(options), service_(service), extra_(extra) {}

  Status Start();
  void Stop();
  void Wait() {
    std::unique_lock<std::mutex> lock(stop_mu_);
    stop_cv_.wait(lock, [this] { return stopped_; });
  }
  uint16_t port() const { return port_; }
  const GrpcServerOptions& options() const { return options_; }
  nlohmann::json StatsJson();

 private:
  class ServerCall;

  // Requests call objects again after each call, unless stopping.
  bool RequestAgain(GrpcTag* tag) override;
  void Drain(CqThread* t);

  GrpcServerOptions options_;
  Service* service_;
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
  std::condition_variable stop_cv_;
  std::chrono::steady_clock::time_point start_time_;
};

// One gRPC call slot: requested, then read, served and finished, then
// requested again. Its address is the completion-queue tag.
class GrpcServer::Impl::ServerCall final : public GrpcTag {
 public:
  ServerCall(Impl* server, CqThread* t) : server_(server), t_(t) {}

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
        state_ = State::kReading;
        stream_->Read(&request_, this);
        return true;
      case State::kReading:
        state_ = State::kFinishing;
        if (!ok) {
          stream_->Finish(grpc::Status(grpc::StatusCode::CANCELLED, "no request message"), this);
        } else {
          Serve();
        }
        return true;
      case State::kFinishing:
        request_.Clear();
        reply_.Clear();
        return server_->RequestAgain(this);
    }
    return false;
  }

 private:
  enum class State { kRequested, kReading, kFinishing };

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
};

void GrpcServer::Impl::ServerCall::Serve() {
  grpc::Slice slice;
  if (!request_.TrySingleSlice(&slice).ok()) request_.DumpToSingleSlice(&slice);
  const ByteView payload(slice.begin(), slice.size());
  Method m;
  if (!GrpcMethodFromPath(ctx_->method(), &m)) {
    Bump(t_->stats.unknown_method_calls, 1);
    Refuse(CallStatus::kUnknownMethod, "unknown gRPC method '" + ctx_->method() +
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
    // the next one starts once the reply is built (as rpc/server_connection.cc).
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
  std::unique_ptr<CallHandler>& handler = t_->handlers[codec_id];
  if (!handler) {
    auto made = server_->service_->NewCallHandler(codec_id);
    if (!made.ok()) {
      Refuse(CallStatus::kBadPreamble, std::string(made.status().message()));
      return false;
    }
    handler = std::move(made).value();
  }
  FrameHeader h;
  h.length = uint32_t(kFixedHeaderSize + payload.size());
  h.method = uint8_t(m);
  // The handler appends after a frame header, as on the wirebench layer;
  // only the payload after it is sent.
  const size_t off = BeginFrame(&reply_bytes_, 0, uint8_t(m), 0);
  CallOutcome outcome;
  handler->Handle(h, payload, &reply_bytes_, &outcome);
  if (outcome.status != CallStatus::kOk) {
    Refuse(outcome.status, outcome.error);
    return false;
  }
  Reply(off + kFrameHeaderSize);
  return true;
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
  const std::string addr = options_.bind + ":" + std::to_string(options_.port);
  builder.AddListeningPort(addr, grpc::InsecureServerCredentials(), &port_);
  builder.RegisterAsyncGenericService(&generic_);
  if (extra_) builder.RegisterService(extra_->service());
  builder.SetMaxReceiveMessageSize(int(options_.max_message));
  builder.SetMaxSendMessageSize(int(options_.max_message));
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
  if (options_.bind != "127.0.0.1" && options_.bind != "::1" && options_.bind != "localhost")
    LogLine("warning: gRPC server bound to non-loopback address " + options_.bind +
            "; anyone who can reach it can connect");
  for (auto& tp : cqs_) {
    CqThread* t = tp.get();
    for (int i = 0; i < options_.calls_per_cq; ++i) (new ServerCall(this, t))->Request();
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
      for (auto& t : cqs_) t->cq->Shutdown();
    }
    for (auto& t : cqs_) t->thread.join();
    server_.reset();  // Before the queues, which it refers to.
  }
  stopped_ = true;
  stop_cv_.notify_all();
}

nlohmann::json GrpcServer::Impl::StatsJson() {
  using nlohmann::json;
  json j;
  j["server"] = {{"rpc", "grpc"},
                 {"cq_threads", options_.cq_threads},
                 {"calls_per_cq", options_.calls_per_cq},
                 {"io_threads", options_.cq_threads},
                 {"handlers", 0},
                 {"bind", options_.bind},
                 {"port", port_},
                 {"uptime_s", std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                            start_time_)
                                  .count()}};
  uint64_t calls[kMaxMethod + 1] = {};
  uint64_t failed = 0, unknown = 0, bytes_in = 0, bytes_out = 0;
  for (auto& t : cqs_) {
    for (int m = 1; m <= kMaxMethod; ++m) calls[m] += t->stats.calls[m].load(std::memory_order_relaxed);
    failed += t->stats.failed_calls.load(std::memory_order_relaxed);
    unknown += t->stats.unknown_method_calls.load(std::memory_order_relaxed);
    bytes_in += t->stats.bytes_in.load(std::memory_order_relaxed);
    bytes_out += t->stats.bytes_out.load(std::memory_order_relaxed);
  }
  json jc = json::object();
  uint64_t total = 0;
  for (int m = 1; m <= kMaxMethod; ++m) {
    jc[std::string(MethodName(Method(m)))] = calls[m];
    total += calls[m];
  }
  j["calls"] = jc;
  j["failed_calls"] = failed;
  j["unknown_method_calls"] = unknown;
  // One message each way per call; bytes are payload bytes (gRPC's
  // framing and HTTP/2 headers are not counted here; the client reads the
  // socket's wire bytes).
  j["frames_in"] = total + unknown;
  j["frames_out"] = total + unknown;
  j["bytes_in"] = bytes_in;
  j["bytes_out"] = bytes_out;
  json threads = ServerThreadsJson();
  for (const ProcessThread& t : ReadUnregisteredThreads())
    threads.push_back(ThreadJson(ThreadRoleName(ThreadRole::kUnregistered), t.name,
                                 t.tid, t.usage, CounterTotals{}));
  ThreadUsage none;
  threads.push_back(ThreadJson(ThreadRoleName(ThreadRole::kUnregistered),
                               "unregistered-allocations", -1, none, UnregisteredAllocations()));
  j["threads"] = threads;
  AppendProcessAndServiceStats(service_, &j);
  if (extra_) extra_->AppendStats(&j);
  return j;
}

GrpcServer::GrpcServer(const GrpcServerOptions& options, Service* service,
                       GrpcExtraService* extra)
    : impl_(std::make_unique<Impl>(options, service, extra)) {}
GrpcServer::~GrpcServer() { impl_->Stop(); }
Status GrpcServer::Start() { return impl_->Start(); }
uint16_t GrpcServer::port() const { return impl_->port(); }
std::string GrpcServer::address() const {
  return impl_->options().bind + ":" + std::to_string(impl_->port());
}
void GrpcServer::Stop() { impl_->Stop(); }
void GrpcServer::Wait() { impl_->Wait(); }
nlohmann::json GrpcServer::StatsJson() { return impl_->StatsJson(); }

}  // namespace wirebench::rpc
