#include "rpc/net_server.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>
#include <vector>

#include <boost/asio.hpp>
#include <nlohmann/json.hpp>

#include "common/thread_stats.h"
#include "rpc/asio_io.h"
#include "rpc/buffer_budget.h"
#include "rpc/log.h"
#include "rpc/stats_json.h"
#include "rpc/write_loop.h"

namespace wirebench::rpc {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

// An incomplete call has a deadline of its own, so a peer that sends a byte
// now and then cannot hold its call (and the room made for it) for ever:
// any byte resets the idle timeout. After a grace of --idle-timeout-ms from
// its first byte, a unit must have arrived at this average rate since the
// grace ended (a 16 MiB call: within the grace and 256 s more). 64 KiB/s is
// half a megabit a second, far below any link a benchmark runs over.
constexpr uint64_t kMinCallBytesPerSecond = 64u << 10;

// The core's counters of one I/O thread: written only by it (BumpShared),
// summed by Stats on another thread (common/counters.h).
struct CoreStats {
  uint64_t bytes_in = 0, bytes_out = 0;
  uint64_t accepted = 0, closed = 0, refused = 0;
  uint64_t idle_closed = 0;     // Closed for sitting idle while the server was crowded.
  uint64_t budget_refused = 0;  // Closed for want of room in --max-buffered-bytes.
  int64_t active = 0;
  using Fields = FieldList<&CoreStats::bytes_in, &CoreStats::bytes_out, &CoreStats::accepted,
                           &CoreStats::closed, &CoreStats::refused, &CoreStats::idle_closed,
                           &CoreStats::budget_refused, &CoreStats::active>;
};

thread_local int tls_handler_index = -1;

// The tag of this file's own copy of Asio's read and timer code (see
// TaggedHandler in rpc/write_loop.h): every transport's server reads
// through it, whatever else the program links.
struct ConnectionIo {};

std::string BudgetRefusal(const BufferBudget& b) {
  return "the server holds " + std::to_string(b.used() >> 20) +
         " MiB for unfinished calls across its connections (--max-buffered-bytes " +
         std::to_string(b.limit()) + "): send again later, or raise it";
}

}  // namespace

class Connection;

struct IoThread {
  explicit IoThread(int index) : index(index), ctx(1), reaper(ctx) {}
  int index;
  asio::io_context ctx;
  std::thread thread;
  CoreStats stats;
  std::unordered_set<Connection*> connections;
  asio::steady_timer reaper;  // Paces IdleReaper; cancelled by Stop.
  bool stopping = false;
};

class NetServer::Impl {
 public:
  Impl(NetServer* owner, const ServerOptions& options, ServerProtocol* protocol, Service* service)
      : owner_(owner), options_(options), protocol_(protocol), service_(service),
        acceptor_(accept_ctx_) {}

  Status Start();
  void Stop();
  nlohmann::json StatsJson();

  const ServerOptions& options() const { return options_; }
  ServerProtocol* protocol() { return protocol_; }
  uint16_t port() const { return port_; }
  int io_threads() const { return int(io_.size()); }
  asio::any_io_executor handler_executor() { return handler_ctx_.get_executor(); }

  std::atomic<int64_t> active_connections{0};
  BufferBudget buffer_budget;

 private:
  asio::awaitable<void> AcceptLoop();
  asio::awaitable<void> IdleReaper(IoThread* io);
  void ReapIdle(IoThread* io);

  NetServer* owner_;
  ServerOptions options_;
  ServerProtocol* protocol_;
  Service* service_;
  asio::io_context accept_ctx_{1};
  tcp::acceptor acceptor_;
  std::thread accept_thread_;
  std::vector<std::unique_ptr<IoThread>> io_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards_;
  asio::io_context handler_ctx_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> handler_guard_;
  std::vector<std::thread> handlers_;
  uint16_t port_ = 0;
  bool started_ = false;
  bool stopped_ = false;
  std::mutex stop_mu_;
  std::chrono::steady_clock::time_point start_time_;
};

// One accepted connection: a reader, a writer and an idle watchdog on its
// I/O thread around the protocol's connection state.
class Connection final : public std::enable_shared_from_this<Connection>, public ConnectionHost {
 public:
  Connection(NetServer::Impl* server, IoThread* io, tcp::socket socket, std::string peer)
      : server_(server),
        io_(io),
        socket_(std::move(socket)),
        peer_(std::move(peer)),
        input_(&server->buffer_budget),
        in_(input_.buf()),
        q_(io->ctx.get_executor(), kReadChunk),
        read_signal_(io->ctx),
        watchdog_(io->ctx),
        last_read_(Clock::now()) {}

  void Start(std::string refuse_reason);
  void Close();

  // ConnectionHost.
  ByteBuffer& out() override { return q_.out; }
  void Flush() override { q_.Wake(); }
  void ResumeReading() override {
    if (reader_waiting_ && !Backlogged()) read_signal_.cancel();
  }
  void FinishAfterFlush() override {
    close_after_flush_ = true;
    q_.Wake();
  }
  // The replies queued count those being written too: a peer that reads
  // nothing leaves a whole write stuck in `writing`, and counting `out`
  // alone let it hold twice the limit.
  bool Backlogged() const override { return QueueRoom() == 0 || protocol_->Holding(); }
  size_t QueueRoom() const override {
    const size_t queued = q_.out.size() + q_.writing.size();
    const size_t limit = server_->options().max_queued_bytes;
    return queued >= limit ? 0 : limit - queued;
  }
  bool closed() const override { return closed_; }
  asio::any_io_executor executor() override { return io_->ctx.get_executor(); }
  // For the idle reaper: between calls, with nothing outstanding, and
  // nothing read for `timeout`.
  bool IdleBetweenCalls(Clock::time_point now, Clock::duration timeout) const {
    return !closed_ && !in_handler_ && now - last_read_ >= timeout &&
           protocol_->PartialState(in_.size()) == nullptr && protocol_->Outstanding() == 0;
  }
  Clock::time_point last_read() const { return last_read_; }
  void CloseIdle(int timeout_ms);
  std::shared_ptr<void> KeepAlive() override { return shared_from_this(); }
  const std::string& peer() const override { return peer_; }
  int io_index() const override { return io_->index; }

 private:
  asio::awaitable<void> ReadLoop();
  asio::awaitable<void> WriteLoop();
  asio::awaitable<void> Watchdog();
  asio::awaitable<void> RunDeferred(std::function<void(ByteBuffer*)> work);
  // Makes room for the next read of a unit of `unit` bytes (0: not known);
  // false after refusing. ReadLoop calls it only when the buffer lacks room.
  bool MakeRoom(size_t unit);

  friend struct CoreWriteHooks;
  NetServer::Impl* server_;
  IoThread* io_;
  tcp::socket socket_;
  std::string peer_;
  std::unique_ptr<ProtocolConnection> protocol_;
  BudgetedInput input_;
  ByteBuffer& in_;  // input_'s buffer.
  OutputQueue q_;
  // An incomplete unit that came on too slowly (see kMinCallBytesPerSecond).
  bool CallTooSlow(Clock::time_point now) const;

  asio::steady_timer read_signal_;
  asio::steady_timer watchdog_;
  Clock::time_point last_read_;
  // When the first bytes of the incomplete unit in in_ arrived (unit_open_).
  Clock::time_point unit_start_;
  bool unit_open_ = false;
  bool reader_waiting_ = false;
  bool close_after_flush_ = false;
  bool closed_ = false;
  bool in_handler_ = false;  // A deferred call of this connection runs on a handler thread.
};

void Connection::Start(std::string refuse_reason) {
  protocol_ = server_->protocol()->NewConnection(this);
  io_->connections.insert(this);
  BumpShared(io_->stats.accepted, 1);
  BumpShared(io_->stats.active, 1);
  auto self = shared_from_this();
  asio::co_spawn(io_->ctx, [self]() { return self->WriteLoop(); }, asio::detached);
  if (!refuse_reason.empty()) {
    BumpShared(io_->stats.refused, 1);
    LogRateLimited("refused connection from " + peer_ + ": " + refuse_reason);
    protocol_->AppendRefusal(Refusal::kConnectionLimit, refuse_reason, {}, &q_.out);
    FinishAfterFlush();
    return;
  }
  asio::co_spawn(io_->ctx, [self]() { return self->ReadLoop(); }, asio::detached);
  if (server_->options().idle_timeout_ms > 0)
    asio::co_spawn(io_->ctx, [self]() { return self->Watchdog(); }, asio::detached);
}

void Connection::Close() {
  if (closed_) return;
  closed_ = true;
  CloseSocket(socket_, q_);
  read_signal_.cancel();
  watchdog_.cancel();
  input_.Release();
  io_->connections.erase(this);
  BumpShared(io_->stats.closed, 1);
  BumpShared(io_->stats.active, -1);
  server_->active_connections.fetch_sub(1, std::memory_order_relaxed);
}

bool Connection::MakeRoom(size_t unit) {
  if (input_.GrowFor(unit)) return true;
  BumpShared(io_->stats.budget_refused, 1);
  const std::string why = BudgetRefusal(server_->buffer_budget);
  LogRateLimited("closing " + std::string(server_->protocol()->name()) + " connection from " +
                 peer_ + ": " + why);
  protocol_->AppendRefusal(Refusal::kBufferBudget, why, in_.view(), &q_.out);
  FinishAfterFlush();
  return false;
}

asio::awaitable<void> Connection::RunDeferred(std::function<void(ByteBuffer*)> work) {
  // The call runs on a handler thread; this connection reads on when it is
  // answered, every other connection goes on now.
  ByteBuffer reply;
  in_handler_ = true;
  co_await asio::co_spawn(
      server_->handler_executor(),
      [&work, &reply]() -> asio::awaitable<void> {
        work(&reply);
        co_return;
      },
      asio::use_awaitable);
  in_handler_ = false;
  // The call was busy work, not idling: the idle clocks start again.
  last_read_ = Clock::now();
  if (closed_) co_return;
  q_.out.Append(reply.view());
  q_.Wake();
}

asio::awaitable<void> Connection::ReadLoop() {
  auto self = shared_from_this();
  std::function<void(ByteBuffer*)> work;
  for (;;) {
    const size_t used = protocol_->Consume(in_.view());
    in_.Consume(used);
    input_.Trim();
    // What is left begins a unit whose own deadline runs from its first byte.
    if (used > 0 || in_.empty()) unit_open_ = false;
    if (!in_.empty() && !unit_open_) {
      unit_open_ = true;
      unit_start_ = last_read_;
    }
    if (!q_.out.empty()) q_.Wake();
    if (closed_ || close_after_flush_) co_return;
    if (protocol_->TakeDeferred(&work)) {
      co_await RunDeferred(std::move(work));
      work = nullptr;
      if (closed_) co_return;
      continue;
    }
    if (Backlogged()) {
      while (Backlogged() && !closed_) {
        reader_waiting_ = true;
        read_signal_.expires_at(std::chrono::steady_clock::time_point::max());
        co_await AsyncWaitTimer<ConnectionIo>(read_signal_);
        reader_waiting_ = false;
      }
      // Calls already received but held back are handled before reading
      // more: the client may be waiting for their replies and have nothing
      // more to send.
      if (!closed_ && !close_after_flush_) continue;
      co_return;
    }
    // A quarter chunk at least for the next read, unless the rest of the
    // unit (its length known) fits; room grows as the unit's bytes arrive.
    if (in_.capacity() - in_.size() < kReadChunk / 4) {
      const size_t unit = protocol_->UnitSize(in_.view());
      if (!(unit > in_.size() && unit <= in_.capacity()) && !MakeRoom(unit)) co_return;
    }
    auto [ec, n] = co_await AsyncReadSome<ConnectionIo>(
        socket_, asio::buffer(in_.data() + in_.size(), in_.capacity() - in_.size()));
    if (ec) {
      // EOF or error: let queued replies go out, then close.
      FinishAfterFlush();
      co_return;
    }
    in_.Resize(in_.size() + n);
    BumpShared(io_->stats.bytes_in, n);
    last_read_ = Clock::now();
  }
}

// What RunWriteLoop needs from a connection.
struct CoreWriteHooks {
  Connection* c;
  bool Stopped() const { return c->closed_; }
  bool CanSend() const { return true; }
  // After a fatal error or EOF, once every call still being answered is out.
  bool Finished() const { return c->close_after_flush_ && c->protocol_->Outstanding() == 0; }
  // A write done (the peer drained it) may unblock a reader held back by
  // --max-queued-bytes.
  void OnSwapped() {}
  void OnWritten(size_t n) {
    BumpShared(c->io_->stats.bytes_out, n);
    c->ResumeReading();
  }
};

asio::awaitable<void> Connection::WriteLoop() {
  auto self = shared_from_this();
  CoreWriteHooks hooks{this};
  co_await RunWriteLoop(socket_, q_, hooks);
  Close();
}

bool Connection::CallTooSlow(Clock::time_point now) const {
  if (!unit_open_) return false;
  const auto grace = std::chrono::milliseconds(server_->options().idle_timeout_ms);
  const auto late = now - unit_start_ - grace;
  if (late <= Clock::duration::zero()) return false;
  const double due = std::chrono::duration<double>(late).count() * kMinCallBytesPerSecond;
  return double(in_.size()) < due;
}

void Connection::CloseIdle(int timeout_ms) {
  BumpShared(io_->stats.idle_closed, 1);
  LogRateLimited("closing " + std::string(server_->protocol()->name()) + " connection from " +
                 peer_ + ": idle for " + std::to_string(timeout_ms) +
                 " ms, the longest-idle while the server holds over half its --max-connections");
  Close();
}

// Closes a connection part-way through something (a handshake, an
// incomplete call) that sends nothing for --idle-timeout-ms, or whose call
// comes on slower than kMinCallBytesPerSecond. One idle between calls is
// left to the I/O thread's IdleReaper.
asio::awaitable<void> Connection::Watchdog() {
  auto self = shared_from_this();
  const ServerOptions& o = server_->options();
  const auto timeout = std::chrono::milliseconds(o.idle_timeout_ms);
  const std::string who =
      std::string(server_->protocol()->name()) + " connection from " + peer_;
  Clock::time_point wake = last_read_ + timeout;
  while (!closed_) {
    watchdog_.expires_at(wake);
    co_await watchdog_.async_wait(kNoThrow);
    if (closed_) break;
    const auto now = Clock::now();
    wake = last_read_ + timeout > now ? last_read_ + timeout : now + timeout;
    // A call of this connection running on a handler thread owns the
    // protocol's state until it returns: the connection is busy, not idle.
    if (in_handler_) continue;
    const char* partial = protocol_->PartialState(in_.size());
    if (partial == nullptr) continue;
    if (now - last_read_ >= timeout) {
      LogRateLimited("closing " + who + ": idle for " + std::to_string(timeout.count()) +
                     " ms " + partial + " (--idle-timeout-ms)");
      Close();
      break;
    }
    // Calls held back by --max-queued-bytes wait on the server, not the peer.
    if (!Backlogged() && CallTooSlow(now)) {
      LogRateLimited("closing " + who + " " + partial + ": " + std::to_string(in_.size()) +
                     " bytes of it came in " +
                     std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        now - unit_start_)
                                        .count()) +
                     " ms, under " + std::to_string(kMinCallBytesPerSecond >> 10) +
                     " KiB/s after a grace of --idle-timeout-ms; send a call at once");
      Close();
      break;
    }
  }
}

// Past half the connection limit, connections idle between calls are closed
// (HBase's rule: idle connections are reaped once there are many), so
// connections that only sit cannot lock every new client out. Only as many
// as bring the server back to half its limit, the longest-idle first: a
// client that pauses a little longer than the timeout is not closed while
// others have sat longer, and no more clients are closed than the limit
// needs. This thread closes its share, in proportion to its connections.
asio::awaitable<void> NetServer::Impl::IdleReaper(IoThread* io) {
  const auto period =
      std::max(std::chrono::milliseconds(options_.idle_timeout_ms / 4), std::chrono::milliseconds(5));
  while (!io->stopping) {
    io->reaper.expires_after(period);
    co_await io->reaper.async_wait(kNoThrow);
    if (io->stopping) break;
    ReapIdle(io);
  }
}

void NetServer::Impl::ReapIdle(IoThread* io) {
  const int64_t active = active_connections.load(std::memory_order_relaxed);
  const int64_t keep = options_.max_connections / 2;
  if (active <= keep || io->connections.empty()) return;
  const int64_t here = int64_t(io->connections.size());
  const size_t share = size_t(((active - keep) * here + active - 1) / active);
  const auto now = Clock::now();
  const auto timeout = std::chrono::milliseconds(options_.idle_timeout_ms);
  std::vector<Connection*> idle;
  for (Connection* c : io->connections)
    if (c->IdleBetweenCalls(now, timeout)) idle.push_back(c);
  const size_t n = std::min(share, idle.size());
  std::partial_sort(idle.begin(), idle.begin() + ptrdiff_t(n), idle.end(),
                    [](Connection* a, Connection* b) { return a->last_read() < b->last_read(); });
  for (size_t i = 0; i < n; ++i) idle[i]->CloseIdle(options_.idle_timeout_ms);
}

Status NetServer::Impl::Start() {
  if (options_.io_threads < 1) return Status::InvalidArgument("--io-threads must be at least 1");
  if (options_.handlers < 0) return Status::InvalidArgument("--handlers must be 0 or more");
  buffer_budget.set_limit(options_.max_buffered_bytes);
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(options_.host, ec);
  if (ec)
    return Status::InvalidArgument("--bind '" + options_.host +
                                   "' is not an IP address (use e.g. 127.0.0.1 or 0.0.0.0)");
  tcp::endpoint ep(addr, options_.port);
  acceptor_.open(ep.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(ep, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return Status::Unavailable("cannot listen on " + options_.host + ":" +
                               std::to_string(options_.port) + ": " + ec.message());
  port_ = acceptor_.local_endpoint().port();
  if (!addr.is_loopback())
    LogLine("warning: bound to non-loopback address " + options_.host +
            "; anyone who can reach it can connect");
  for (int i = 0; i < options_.io_threads; ++i) io_.push_back(std::make_unique<IoThread>(i));
  WB_RETURN_IF_ERROR(protocol_->Start(owner_));
  for (auto& io : io_) {
    guards_.emplace_back(asio::make_work_guard(io->ctx));
    IoThread* t = io.get();
    if (options_.idle_timeout_ms > 0)
      asio::co_spawn(t->ctx, IdleReaper(t), asio::detached);
    t->thread = std::thread([t] {
      std::string name = "server-io-" + std::to_string(t->index);
      RegisterThisThread(ThreadRole::kServerIo, name.c_str());
      t->ctx.run();
    });
  }
  handler_guard_.emplace(asio::make_work_guard(handler_ctx_));
  for (int i = 0; i < protocol_->HandlerThreads(); ++i) {
    handlers_.emplace_back([this, i] {
      std::string name = "server-handler-" + std::to_string(i);
      RegisterThisThread(ThreadRole::kServerHandler, name.c_str());
      tls_handler_index = i;
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

void NetServer::Impl::Stop() {
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
      t->stopping = true;
      t->reaper.cancel();
      std::vector<Connection*> all(t->connections.begin(), t->connections.end());
      for (Connection* c : all) c->Close();
    });
  }
  guards_.clear();
  // A connection waiting for a deferred call keeps its I/O thread running
  // until a handler finishes the call: handlers stop after the I/O threads.
  for (auto& io : io_) io->thread.join();
  handler_guard_.reset();
  for (auto& h : handlers_) h.join();
  protocol_->Stop();
  stopped_ = true;
}

asio::awaitable<void> NetServer::Impl::AcceptLoop() {
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
      auto c = std::make_shared<Connection>(this, io, std::move(s), std::move(peer));
      c->Start(std::move(refuse));
    });
  }
}

nlohmann::json NetServer::Impl::StatsJson() {
  using nlohmann::json;
  json j;
  j["server"] = {{"io_threads", options_.io_threads},
                 {"handlers", std::max(options_.handlers, protocol_->HandlerThreads())},
                 {"bind", options_.host},
                 {"port", port_},
                 {"rpc", std::string(protocol_->name())},
                 {"uptime_s", std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                            start_time_)
                                  .count()}};
  CoreStats sum;
  for (auto& io : io_) CoreStats::Fields::AddShared(sum, io->stats);
  j["bytes_in"] = sum.bytes_in;
  j["bytes_out"] = sum.bytes_out;
  j["connections"] = {{"accepted", sum.accepted},
                      {"closed", sum.closed},
                      {"refused", sum.refused},
                      {"idle_closed", sum.idle_closed},
                      {"budget_refused", sum.budget_refused},
                      {"buffered_bytes", buffer_budget.used()},
                      {"active", sum.active}};
  protocol_->AppendStats(&j);
  j["threads"] = ServerThreadsJson();
  AppendProcessAndServiceStats(service_, &j);
  return j;
}

NetServer::NetServer(const ServerOptions& options, ServerProtocol* protocol, Service* service)
    : impl_(std::make_unique<Impl>(this, options, protocol, service)) {}
NetServer::~NetServer() { impl_->Stop(); }
Status NetServer::Start() { return impl_->Start(); }
uint16_t NetServer::port() const { return impl_->port(); }
std::string NetServer::address() const {
  return impl_->options().host + ":" + std::to_string(impl_->port());
}
void NetServer::Stop() { impl_->Stop(); }
nlohmann::json NetServer::StatsJson() { return impl_->StatsJson(); }
const ServerOptions& NetServer::options() const { return impl_->options(); }
int NetServer::io_threads() const { return impl_->io_threads(); }
asio::any_io_executor NetServer::handler_executor() { return impl_->handler_executor(); }
int NetServer::CurrentHandlerIndex() { return tls_handler_index; }

std::string NetServer::StatsReply(const CounterTotals& own_at_entry) {
  nlohmann::json j = StatsJson();
  // This thread's counters as they were when the Stats call arrived.
  const int tid = int(gettid());
  for (auto& t : j["threads"]) {
    if (t["tid"].get<int>() != tid) continue;
    t["allocs"] = own_at_entry.allocs;
    t["alloc_bytes"] = own_at_entry.alloc_bytes;
  }
  return j.dump();
}

}  // namespace wirebench::rpc
