#include "rpc/server.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <nlohmann/json.hpp>

#include "common/perf_counters.h"
#include "rpc/asio_io.h"
#include "rpc/log.h"
#include "rpc/server_internal.h"
#include "rpc/stats_json.h"

namespace wirebench::rpc {

namespace {
constexpr size_t kMaxPooledCalls = 4096;
int CurrentTid() { return int(syscall(SYS_gettid)); }
}  // namespace

std::unique_ptr<PooledCall> IoThread::AcquireCall() {
  if (free_calls.empty()) return std::make_unique<PooledCall>();
  std::unique_ptr<PooledCall> c = std::move(free_calls.back());
  free_calls.pop_back();
  return c;
}

void IoThread::ReleaseCall(std::unique_ptr<PooledCall> call) {
  call->conn.reset();
  call->reply_delay_us = 0;
  if (free_calls.size() < kMaxPooledCalls) free_calls.push_back(std::move(call));
}

HandlerPool::HandlerPool(int threads, Service* service) : service_(service) {
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
  std::vector<std::unique_ptr<CallHandler>> handlers(256);
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
    std::unique_ptr<CallHandler>& handler = handlers[call->codec_id];
    const FrameHeader& h = call->header;
    call->reply.Clear();
    const size_t off = BeginFrame(&call->reply, h.call_id, h.method, 0);
    CallOutcome outcome;
    if (!handler) {
      auto made = service_->NewCallHandler(call->codec_id);
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
    std::shared_ptr<ServerConnection> conn = call->conn;
    ServerConnection* raw_conn = conn.get();
    PooledCall* raw = call.release();
    // The connection (held by raw->conn) outlives this post.
    asio::post(raw_conn->executor(),
               [raw]() { raw->conn->OnHandled(std::unique_ptr<PooledCall>(raw)); });
  }
}

class Server::Impl final : public ServerImplBase {
 public:
  Impl(const ServerOptions& options, Service* service)
      : options_(options), service_(service), acceptor_(accept_ctx_) {}

  const ServerOptions& options() const override { return options_; }
  Service* service() override { return service_; }
  HandlerPool* pool() override { return pool_.get(); }

  Status Start() {
    if (options_.io_threads < 1) return Status::InvalidArgument("--io-threads must be at least 1");
    buffer_budget.set_limit(options_.max_buffered_bytes);
    if (options_.handlers < 0) return Status::InvalidArgument("--handlers must be 0 or more");
    boost::system::error_code ec;
    auto addr = asio::ip::make_address(options_.bind, ec);
    if (ec)
      return Status::InvalidArgument("--bind '" + options_.bind +
                                     "' is not an IP address (use e.g. 127.0.0.1 or 0.0.0.0)");
    tcp::endpoint ep(addr, options_.port);
    acceptor_.open(ep.protocol(), ec);
    if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(ep, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
      return Status::Unavailable("cannot listen on " + options_.bind + ":" +
                                 std::to_string(options_.port) + ": " + ec.message());
    port_ = acceptor_.local_endpoint().port();
    if (!addr.is_loopback())
      LogLine("warning: bound to non-loopback address " + options_.bind +
              "; anyone who can reach it can connect");
    if (options_.handlers > 0) pool_ = std::make_unique<HandlerPool>(options_.handlers, service_);
    for (int i = 0; i < options_.io_threads; ++i) io_.push_back(std::make_unique<IoThread>(i));
    for (auto& io : io_) {
      guards_.emplace_back(asio::make_work_guard(io->ctx));
      IoThread* t = io.get();
      t->thread = std::thread([t] {
        std::string name = "server-io-" + std::to_string(t->index);
        RegisterThisThread(ThreadRole::kServerIo, name.c_str());
        t->ctx.run();
      });
    }
    asio::co_spawn(accept_ctx_, AcceptLoop(), asio::detached);
    accept_thread_ = std::thread([this] {
      RegisterThisThread(ThreadRole::kServerOther, "server-accept");
      accept_ctx_.run();
    });
    started_ = true;
    start_time_ = std::chrono::steady_clock::now();
    return Status::Ok();
  }

  void Stop() {
    std::lock_guard<std::mutex> lock(stop_mu_);
    if (stopped_ || !started_) {
      stopped_ = true;
      stop_cv_.notify_all();
      return;
    }
    asio::post(accept_ctx_, [this] {
      boost::system::error_code ignored;
      acceptor_.close(ignored);
    });
    accept_thread_.join();
    if (pool_) pool_->Stop();
    for (auto& io : io_) {
      IoThread* t = io.get();
      asio::post(t->ctx, [t] {
        std::vector<ServerConnection*> all(t->connections.begin(), t->connections.end());
        for (ServerConnection* c : all) c->Close();
      });
    }
    guards_.clear();
    for (auto& io : io_) io->thread.join();
    stopped_ = true;
    stop_cv_.notify_all();
  }

  void Wait() {
    std::unique_lock<std::mutex> lock(stop_mu_);
    stop_cv_.wait(lock, [this] { return stopped_; });
  }

  uint16_t port() const { return port_; }

  std::string StatsReply(const CounterTotals& own_at_entry) override {
    nlohmann::json j = StatsJsonExcluding();
    // This thread's counters as they were when the Stats call arrived: the
    // reply's own allocations are excluded (see ExcludeFromThisThread).
    const int tid = CurrentTid();
    for (auto& t : j["threads"]) {
      if (t["tid"].get<int>() != tid) continue;
      t["allocs"] = own_at_entry.allocs;
      t["alloc_bytes"] = own_at_entry.alloc_bytes;
    }
    return j.dump();
  }

  nlohmann::json StatsJsonExcluding() {
    using nlohmann::json;
    json j;
    j["server"] = {{"io_threads", options_.io_threads},
                   {"handlers", options_.handlers},
                   {"bind", options_.bind},
                   {"port", port_},
                   {"uptime_s", std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                              start_time_)
                                    .count()}};
    IoStats sum;
    for (auto& io : io_) IoStats::Fields::AddShared(sum, io->stats);
    json jc = json::object();
    for (int m = 1; m <= kMaxMethod; ++m) jc[std::string(MethodName(Method(m)))] = sum.calls[m];
    j["calls"] = jc;
    j["failed_calls"] = sum.failed_calls;
    j["unknown_method_calls"] = sum.unknown_method_calls;
    j["frames_in"] = sum.frames_in;
    j["frames_out"] = sum.frames_out;
    j["bytes_in"] = sum.bytes_in;
    j["bytes_out"] = sum.bytes_out;
    j["connections"] = {{"accepted", sum.accepted},
                        {"closed", sum.closed},
                        {"refused", sum.refused},
                        {"idle_closed", sum.idle_closed},
                        {"budget_refused", sum.budget_refused},
                        {"buffered_bytes", buffer_budget.used()},
                        {"active", sum.active}};
    j["threads"] = ServerThreadsJson();
    AppendProcessAndServiceStats(service_, &j);
    return j;
  }

 private:
  asio::awaitable<void> AcceptLoop() {
    size_t next = 0;
    for (;;) {
      IoThread* io = io_[next++ % io_.size()].get();
      auto [ec, socket] = co_await acceptor_.async_accept(io->ctx, kNoThrow);
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
        LogRateLimited("accept failed: " + ec.message() + " (raise the fd limit with ulimit -n?)");
        asio::steady_timer pause(accept_ctx_, std::chrono::milliseconds(20));
        co_await pause.async_wait(kNoThrow);
        continue;
      }
      boost::system::error_code opt_ec;
      if (options_.tcp_nodelay) socket.set_option(tcp::no_delay(true), opt_ec);
      std::string peer = "?";
      auto remote = socket.remote_endpoint(opt_ec);
      if (!opt_ec) peer = remote.address().to_string() + ":" + std::to_string(remote.port());
      std::string refuse;
      if (active_connections.fetch_add(1, std::memory_order_relaxed) >= options_.max_connections)
        refuse = "server is at its connection limit (" + std::to_string(options_.max_connections) +
                 "); raise --max-connections";
      asio::post(io->ctx, [this, io, s = std::move(socket), peer = std::move(peer),
                           refuse = std::move(refuse)]() mutable {
        auto c = std::make_shared<ServerConnection>(this, io, std::move(s), std::move(peer));
        c->Start(std::move(refuse));
      });
    }
  }

  ServerOptions options_;
  Service* service_;
  asio::io_context accept_ctx_{1};
  tcp::acceptor acceptor_;
  std::thread accept_thread_;
  std::vector<std::unique_ptr<IoThread>> io_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards_;
  std::unique_ptr<HandlerPool> pool_;
  uint16_t port_ = 0;
  bool started_ = false;
  bool stopped_ = false;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  std::chrono::steady_clock::time_point start_time_;
};

Server::Server(const ServerOptions& options, Service* service)
    : impl_(std::make_unique<Impl>(options, service)) {}
Server::~Server() { impl_->Stop(); }
Status Server::Start() { return impl_->Start(); }
uint16_t Server::port() const { return impl_->port(); }
std::string Server::address() const {
  return impl_->options().bind + ":" + std::to_string(impl_->port());
}
void Server::Stop() { impl_->Stop(); }
void Server::Wait() { impl_->Wait(); }
nlohmann::json Server::StatsJson() { return impl_->StatsJsonExcluding(); }

}  // namespace wirebench::rpc
