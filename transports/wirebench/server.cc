#include "transports/wirebench/server.h"

#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include "codecs/codec.h"
#include "rpc/stats_json.h"
#include "transports/wirebench/server_internal.h"

namespace wirebench::wbrpc {

namespace {
constexpr size_t kMaxPooledCalls = 4096;
}  // namespace

std::unique_ptr<PooledCall> IoState::AcquireCall() {
  if (free_calls.empty()) return std::make_unique<PooledCall>();
  std::unique_ptr<PooledCall> c = std::move(free_calls.back());
  free_calls.pop_back();
  return c;
}

void IoState::ReleaseCall(std::unique_ptr<PooledCall> call) {
  call->keep_alive.reset();
  call->conn = nullptr;
  call->reply_delay_us = 0;
  if (free_calls.size() < kMaxPooledCalls) free_calls.push_back(std::move(call));
}

HandlerPool::HandlerPool(int threads, rpc::Service* service) : service_(service) {
  ring_.resize(1024);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this, i] { Run(i); });
}

HandlerPool::~HandlerPool() { Stop(); }

void HandlerPool::Submit(std::unique_ptr<PooledCall> call) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (count_ == ring_.size()) {  // Grow: unroll the circle into a larger vector.
      std::vector<std::unique_ptr<PooledCall>> bigger(ring_.size() * 2);
      for (size_t i = 0; i < count_; ++i) bigger[i] = std::move(ring_[(head_ + i) % ring_.size()]);
      ring_ = std::move(bigger);
      head_ = 0;
    }
    ring_[(head_ + count_) % ring_.size()] = std::move(call);
    ++count_;
  }
  cv_.notify_one();
}

void HandlerPool::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& c : ring_) c.reset();
  count_ = 0;
}

void HandlerPool::Run(int index) {
  std::string name = "handler-" + std::to_string(index);
  RegisterThisThread(ThreadRole::kServerHandler, name.c_str());
  std::vector<std::unique_ptr<rpc::CallHandler>> handlers(256);
  for (;;) {
    std::unique_ptr<PooledCall> call;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || count_ > 0; });
      if (stopping_) return;
      call = std::move(ring_[head_]);
      head_ = (head_ + 1) % ring_.size();
      --count_;
    }
    std::unique_ptr<rpc::CallHandler>& handler = handlers[uint8_t(call->codec->id)];
    const FrameHeader& h = call->header;
    call->reply.Clear();
    const size_t off = BeginFrame(&call->reply, h.call_id, h.method, 0);
    rpc::CallOutcome outcome;
    if (!handler) {
      auto made = service_->NewCallHandler(*call->codec);
      if (made.ok()) {
        handler = std::move(made).value();
      } else {
        outcome.status = CallStatus::kServerError;
        outcome.error = std::string(made.status().message());
      }
    }
    if (handler) handler->Handle(h, call->request.view(), &call->reply, &outcome);
    if (outcome.status != CallStatus::kOk) {
      call->reply.Resize(off + kFrameHeaderSize);
      SetFrameStatus(&call->reply, off, uint8_t(outcome.status));
      call->reply.Append(ByteView(outcome.error));
    }
    EndFrame(&call->reply, off);
    call->reply_delay_us = outcome.reply_delay_us;
    WirebenchConnection* conn = call->conn;
    PooledCall* raw = call.release();
    // The connection (kept alive by raw->keep_alive) outlives this post.
    boost::asio::post(raw->executor,
                      [conn, raw]() { conn->OnHandled(std::unique_ptr<PooledCall>(raw)); });
  }
}

Status WirebenchProtocol::Start(rpc::NetServer* server) {
  server_ = server;
  if (options_.handlers < 0) return Status::InvalidArgument("--handlers must be 0 or more");
  for (int i = 0; i < server->io_threads(); ++i) io_.push_back(std::make_unique<IoState>());
  if (options_.handlers > 0) pool_ = std::make_unique<HandlerPool>(options_.handlers, service_);
  return Status::Ok();
}

void WirebenchProtocol::Stop() {
  if (pool_) pool_->Stop();
}

std::unique_ptr<rpc::ProtocolConnection> WirebenchProtocol::NewConnection(rpc::ConnectionHost* host) {
  return std::make_unique<WirebenchConnection>(this, host);
}

void WirebenchProtocol::AppendStats(nlohmann::json* j) {
  IoStats sum;
  for (auto& io : io_) IoStats::Fields::AddShared(sum, io->stats);
  rpc::AppendCallCounts(sum.calls, sum.failed_calls, sum.unknown_method_calls, sum.frames_in,
                        sum.frames_out, j);
}

class Server::Impl {
 public:
  Impl(const rpc::ServerOptions& options, rpc::Service* service)
      : protocol(options, service), net(options, &protocol, service) {}
  WirebenchProtocol protocol;
  rpc::NetServer net;
};

Server::Server(const rpc::ServerOptions& options, rpc::Service* service)
    : impl_(std::make_unique<Impl>(options, service)) {
  Wrap(&impl_->net);
}
Server::~Server() { impl_->net.Stop(); }

}  // namespace wirebench::wbrpc
