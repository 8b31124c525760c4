#include "transports/hbase/hbase_server.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <optional>
#include <thread>
#include <unordered_set>
#include <vector>

#include <boost/asio.hpp>
#include <nlohmann/json.hpp>

#include "rpc/asio_io.h"
#include "rpc/buffer_budget.h"
#include "rpc/log.h"
#include "rpc/stats_json.h"
#include "rpc/write_loop.h"

namespace wirebench::hbaserpc {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

using rpc::kNoThrow;
using rpc::kReadChunk;
uint64_t NowMs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
}
}  // namespace

class Connection;

// A handler thread: runs the calls that evaluate a filter (HBase runs every
// call on its handlers; wirebench runs only those, so the codec path stays
// on the I/O thread that read it).
struct HandlerThread {
  explicit HandlerThread(int index) : index(index) {}
  int index;
  std::thread thread;
  HBaseIoStats stats;  // Written only by this thread.
};
thread_local HBaseIoStats* tls_handler_stats = nullptr;

struct IoThread {
  explicit IoThread(int index) : index(index), ctx(1) {}
  int index;
  asio::io_context ctx;
  std::thread thread;
  HBaseIoStats stats;
  std::unordered_set<Connection*> connections;
};


// One accepted connection: a reader, a writer (rpc/write_loop.h) and an
// idle watchdog on its I/O thread; the protocol is the ConnectionCore's.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(HBaseServer::Impl* server, IoThread* io, tcp::socket socket, std::string peer);
  void Start(std::string refuse_reason);
  void Close();

 private:
  asio::awaitable<void> ReadLoop();
  asio::awaitable<void> WriteLoop();
  asio::awaitable<void> Watchdog();
  bool Backlogged() const;

  friend struct WriteHooks;
  HBaseServer::Impl* server_;
  IoThread* io_;
  tcp::socket socket_;
  std::string peer_;
  ConnectionCore core_;
  rpc::BudgetedInput input_;
  ByteBuffer& in_;  // input_'s buffer.
  rpc::OutputQueue q_;
  asio::steady_timer read_signal_;
  asio::steady_timer watchdog_;
  std::chrono::steady_clock::time_point last_read_;
  bool reader_waiting_ = false;
  bool close_after_flush_ = false;
  bool closed_ = false;
  // A call of this connection runs on a handler thread (core_ is its until
  // it returns; this thread reads only this flag).
  bool in_handler_ = false;
};

class HBaseServer::Impl final : public StatsSource {
 public:
  Impl(const rpc::ServerOptions& options, Region* region, rpc::Service* codec_service,
       std::string advertised_host)
      : options_(options),
        codec_service_(codec_service),
        service_(region, codec_service, ServerIdentity{}),
        advertised_host_(std::move(advertised_host)),
        acceptor_(accept_ctx_) {
    service_.set_regions_per_table(options.regions_per_table);
  }

  const rpc::ServerOptions& options() const { return options_; }
  HBaseService* service() { return &service_; }
  asio::io_context::executor_type handler_executor() { return handler_ctx_.get_executor(); }
  // Handler threads: --handlers, at least one.
  int handler_count() const { return std::max(1, options_.handlers); }
  std::atomic<int64_t> active_connections{0};
  rpc::BufferBudget buffer_budget;  // Its limit set from the options at start.

  Status Start() {
    if (options_.io_threads < 1) return Status::InvalidArgument("--io-threads must be at least 1");
    buffer_budget.set_limit(options_.max_buffered_bytes);
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
      rpc::LogLine("warning: bound to non-loopback address " + options_.bind +
                   "; anyone who can reach it can connect");
    // Who this server is: what the catalog and the registry hand out.
    ServerIdentity* id = service_.mutable_identity();
    id->host = advertised_host_;
    if (id->host.empty()) {
      id->host = options_.bind;
      if (addr.is_unspecified()) {
        char name[256] = {};
        if (gethostname(name, sizeof name - 1) == 0 && name[0] != '\0') id->host = name;
      }
    }
    id->port = port_;
    id->start_code = NowMs();
    id->cluster_id = NewClusterId();
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
    handler_guard_.emplace(asio::make_work_guard(handler_ctx_));
    for (int i = 0; i < handler_count(); ++i) {
      handlers_.push_back(std::make_unique<HandlerThread>(i));
      HandlerThread* h = handlers_.back().get();
      h->thread = std::thread([this, h] {
        std::string name = "server-handler-" + std::to_string(h->index);
        RegisterThisThread(ThreadRole::kServerHandler, name.c_str());
        tls_handler_stats = &h->stats;
        handler_ctx_.run();
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

  void Stop();

  uint16_t port() const { return port_; }

  std::string StatsReply(const CounterTotals& own_at_entry) override {
    nlohmann::json j = StatsJson();
    const int tid = int(gettid());
    for (auto& t : j["threads"]) {
      if (t["tid"].get<int>() != tid) continue;
      t["allocs"] = own_at_entry.allocs;
      t["alloc_bytes"] = own_at_entry.alloc_bytes;
    }
    return j.dump();
  }

  nlohmann::json StatsJson() {
    using nlohmann::json;
    json j;
    j["server"] = {{"io_threads", options_.io_threads},
                   {"handlers", handler_count()},
                   {"bind", options_.bind},
                   {"port", port_},
                   {"rpc", "hbase"},
                   {"uptime_s", std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                              start_time_)
                                    .count()}};
    HBaseIoStats sum;
    for (auto& io : io_) HBaseIoStats::Fields::AddShared(sum, io->stats);
    for (auto& h : handlers_) HBaseIoStats::Fields::AddShared(sum, h->stats);
    json jc = json::object();
    for (int m = 1; m <= kMaxMethod; ++m) jc[std::string(MethodName(Method(m)))] = sum.calls[m];
    j["calls"] = jc;
    j["failed_calls"] = sum.failed_calls;
    j["unknown_method_calls"] = sum.other_calls;
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
    const ServerIdentity& id = service_.identity();
    j["hbase"] = {{"server_name", id.ServerNameString()},
                  {"cluster_id", id.cluster_id},
                  {"meta_calls", sum.meta_calls},
                  {"registry_calls", sum.registry_calls},
                  {"codec_path_calls", sum.fast_calls},
                  {"refused_method_calls", sum.other_calls},
                  {"handler_calls", sum.handler_calls},
                  {"open_scanners", service_.open_scanners()},
                  {"refused_scanners", service_.refused_scanners()}};
    j["threads"] = rpc::ServerThreadsJson();
    rpc::AppendProcessAndServiceStats(codec_service_, &j);
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
        rpc::LogRateLimited("accept failed: " + ec.message() +
                            " (raise the fd limit with ulimit -n?)");
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
        auto c = std::make_shared<Connection>(this, io, std::move(s), std::move(peer));
        c->Start(std::move(refuse));
      });
    }
  }

  rpc::ServerOptions options_;
  rpc::Service* codec_service_;
  HBaseService service_;
  std::string advertised_host_;
  asio::io_context accept_ctx_{1};
  tcp::acceptor acceptor_;
  std::thread accept_thread_;
  std::vector<std::unique_ptr<IoThread>> io_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards_;
  asio::io_context handler_ctx_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> handler_guard_;
  std::vector<std::unique_ptr<HandlerThread>> handlers_;
  uint16_t port_ = 0;
  bool started_ = false;
  bool stopped_ = false;
  std::mutex stop_mu_;
  std::chrono::steady_clock::time_point start_time_;
};

void HBaseServer::Impl::Stop() {
  std::lock_guard<std::mutex> lock(stop_mu_);
  if (stopped_ || !started_) {
    stopped_ = true;
    return;
  }
  asio::post(accept_ctx_, [this] {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
  });
  accept_thread_.join();
  for (auto& io : io_) {
    IoThread* t = io.get();
    asio::post(t->ctx, [t] {
      std::vector<Connection*> all(t->connections.begin(), t->connections.end());
      for (Connection* c : all) c->Close();
    });
  }
  guards_.clear();
  // A connection waiting for its filtered call keeps its I/O thread running
  // until a handler finishes the call: handlers stop after the I/O threads.
  for (auto& io : io_) io->thread.join();
  handler_guard_.reset();
  for (auto& h : handlers_) h->thread.join();
  stopped_ = true;
}

Connection::Connection(HBaseServer::Impl* server, IoThread* io, tcp::socket socket,
                       std::string peer)
    : server_(server),
      io_(io),
      socket_(std::move(socket)),
      peer_(std::move(peer)),
      core_(server->service(), server, &io->stats, server->options().max_frame),
      input_(&server->buffer_budget),
      in_(input_.buf()),
      q_(io->ctx.get_executor(), kReadChunk),
      read_signal_(io->ctx),
      watchdog_(io->ctx),
      last_read_(std::chrono::steady_clock::now()) {
  core_.set_defer_filters(true);
}

void Connection::Start(std::string refuse_reason) {
  io_->connections.insert(this);
  BumpShared(io_->stats.accepted, 1);
  BumpShared(io_->stats.active, 1);
  auto self = shared_from_this();
  asio::co_spawn(io_->ctx, [self]() { return self->WriteLoop(); }, asio::detached);
  if (!refuse_reason.empty()) {
    BumpShared(io_->stats.refused, 1);
    rpc::LogRateLimited("refused connection from " + peer_ + ": " + refuse_reason);
    // HBase's answer to a connection it will not serve: call id -1.
    AppendExceptionReply(kNoCallId, exceptions::kFatalConnection, refuse_reason, true, &q_.out);
    close_after_flush_ = true;
    q_.Wake();
    return;
  }
  asio::co_spawn(io_->ctx, [self]() { return self->ReadLoop(); }, asio::detached);
  if (server_->options().idle_timeout_ms > 0)
    asio::co_spawn(io_->ctx, [self]() { return self->Watchdog(); }, asio::detached);
}

void Connection::Close() {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  q_.Cancel();
  read_signal_.cancel();
  watchdog_.cancel();
  input_.Release();
  io_->connections.erase(this);
  BumpShared(io_->stats.closed, 1);
  BumpShared(io_->stats.active, -1);
  server_->active_connections.fetch_sub(1, std::memory_order_relaxed);
}

bool Connection::Backlogged() const {
  return q_.out.size() >= server_->options().max_queued_bytes;
}

asio::awaitable<void> Connection::ReadLoop() {
  auto self = shared_from_this();
  for (;;) {
    bool close = false;
    const size_t used = core_.Consume(in_.view(), &q_.out, &close);
    in_.Consume(used);
    input_.Trim();
    if (!q_.out.empty()) q_.Wake();
    if (close) {
      if (!closed_) rpc::LogRateLimited("closing HBase connection from " + peer_);
      close_after_flush_ = true;
      q_.Wake();
      co_return;
    }
    if (core_.has_deferred()) {
      // A call that evaluates a filter runs on a handler thread; this
      // connection reads on when it is answered, every other goes on now.
      ByteBuffer reply;
      in_handler_ = true;
      co_await asio::co_spawn(
          server_->handler_executor(),
          [this, &reply]() -> asio::awaitable<void> {
            core_.RunDeferred(tls_handler_stats, &reply);
            co_return;
          },
          asio::use_awaitable);
      in_handler_ = false;
      if (closed_) co_return;
      q_.out.Append(reply.view());
      q_.Wake();
      continue;
    }
    // Room for the whole next unit once its length is known.
    const size_t unit = core_.UnitSize(in_.view());
    const size_t room = unit > in_.size() ? unit : 0;
    if ((room > 0 && !input_.Reserve(room)) ||
        (in_.capacity() - in_.size() < kReadChunk / 4 && !input_.Reserve(in_.size() + kReadChunk))) {
      BumpShared(io_->stats.budget_refused, 1);
      const rpc::BufferBudget& b = server_->buffer_budget;
      const std::string why = "the server holds " + std::to_string(b.used() >> 20) +
                              " MiB for unfinished calls across its connections "
                              "(--max-buffered-bytes " + std::to_string(b.limit()) +
                              "): send again later, or raise it";
      rpc::LogRateLimited("closing HBase connection from " + peer_ + ": " + why);
      AppendExceptionReply(kNoCallId, exceptions::kCallQueueTooBig, why, false, &q_.out);
      close_after_flush_ = true;
      q_.Wake();
      co_return;
    }
    while (Backlogged() && !closed_) {
      reader_waiting_ = true;
      read_signal_.expires_at(std::chrono::steady_clock::time_point::max());
      co_await read_signal_.async_wait(kNoThrow);
      reader_waiting_ = false;
    }
    if (closed_) co_return;
    auto [ec, n] = co_await socket_.async_read_some(
        asio::buffer(in_.data() + in_.size(), in_.capacity() - in_.size()), kNoThrow);
    if (ec) {
      close_after_flush_ = true;
      q_.Wake();
      co_return;
    }
    in_.Resize(in_.size() + n);
    BumpShared(io_->stats.bytes_in, n);
    last_read_ = std::chrono::steady_clock::now();
  }
}

struct WriteHooks {
  Connection* c;
  bool Stopped() const { return c->closed_; }
  bool CanSend() const { return true; }
  bool Finished() const { return c->close_after_flush_; }
  void OnSwapped() {
    if (c->reader_waiting_ && !c->Backlogged()) c->read_signal_.cancel();
  }
  void OnWritten(size_t n) { BumpShared(c->io_->stats.bytes_out, n); }
};

asio::awaitable<void> Connection::WriteLoop() {
  auto self = shared_from_this();
  WriteHooks hooks{this};
  co_await rpc::RunWriteLoop(socket_, q_, hooks);
  Close();
}

asio::awaitable<void> Connection::Watchdog() {
  auto self = shared_from_this();
  const auto timeout = std::chrono::milliseconds(server_->options().idle_timeout_ms);
  while (!closed_) {
    watchdog_.expires_at(last_read_ + timeout);
    co_await watchdog_.async_wait(kNoThrow);
    if (closed_) break;
    // Only a connection part-way through something (no connection header
    // yet, or an incomplete call) is closed for being idle.
    const bool partial = !core_.ready() || !in_.empty();
    if (partial && std::chrono::steady_clock::now() - last_read_ >= timeout) {
      rpc::LogRateLimited("closing HBase connection from " + peer_ + ": idle for " +
                          std::to_string(timeout.count()) + " ms with an incomplete " +
                          (core_.ready() ? "call" : "preamble or connection header"));
      Close();
      break;
    }
    // Past half the connection limit, a connection idle between calls is
    // closed too (HBase reaps idle connections once there are many), so
    // connections that only sit cannot lock every new client out.
    const bool crowded = server_->active_connections.load(std::memory_order_relaxed) * 2 >
                         server_->options().max_connections;
    if (!partial && crowded && !in_handler_ &&
        std::chrono::steady_clock::now() - last_read_ >= timeout) {
      BumpShared(io_->stats.idle_closed, 1);
      rpc::LogRateLimited("closing HBase connection from " + peer_ + ": idle for " +
                          std::to_string(timeout.count()) +
                          " ms while the server holds over half its --max-connections");
      Close();
      break;
    }
    if (!partial) last_read_ = std::chrono::steady_clock::now();
  }
}

HBaseServer::HBaseServer(const rpc::ServerOptions& options, Region* region,
                         rpc::Service* codec_service, std::string advertised_host)
    : impl_(std::make_unique<Impl>(options, region, codec_service, std::move(advertised_host))) {}
HBaseServer::~HBaseServer() { impl_->Stop(); }
Status HBaseServer::Start() { return impl_->Start(); }
uint16_t HBaseServer::port() const { return impl_->port(); }
std::string HBaseServer::address() const {
  return impl_->options().bind + ":" + std::to_string(impl_->port());
}
void HBaseServer::Stop() { impl_->Stop(); }
nlohmann::json HBaseServer::StatsJson() { return impl_->StatsJson(); }
const ServerIdentity& HBaseServer::identity() const { return impl_->service()->identity(); }

}  // namespace wirebench::hbaserpc
