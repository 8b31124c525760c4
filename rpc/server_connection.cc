// The server side of one connection. Reader: preamble, then frames parsed in
// place and dispatched; writer: swaps the output buffer and writes it whole,
// so every reply produced while the previous write was in flight leaves in
// the next single write.
#include <chrono>

#include "common/callgrind_marks.h"
#include "rpc/asio_io.h"
#include "rpc/log.h"
#include "rpc/server_internal.h"

namespace wirebench::rpc {

ServerConnection::ServerConnection(ServerImplBase* server, IoThread* io, tcp::socket socket,
                                   std::string peer)
    : server_(server),
      io_(io),
      socket_(std::move(socket)),
      peer_(std::move(peer)),
      input_(&server->buffer_budget),
      in_(input_.buf()),
      q_(io->ctx.get_executor(), kReadChunk),
      read_signal_(io->ctx),
      watchdog_(io->ctx),
      last_read_(std::chrono::steady_clock::now()) {}

ServerConnection::~ServerConnection() = default;

void ServerConnection::Start(std::string refuse_reason) {
  io_->connections.insert(this);
  BumpShared(io_->stats.accepted, 1);
  BumpShared(io_->stats.active, 1);
  auto self = shared_from_this();
  asio::co_spawn(io_->ctx, [self]() { return self->WriteLoop(); }, asio::detached);
  if (!refuse_reason.empty()) {
    BumpShared(io_->stats.refused, 1);
    LogRateLimited("refused connection from " + peer_ + ": " + refuse_reason);
    AppendErrorFrame(&q_.out, 0, 0, CallStatus::kOverloaded, refuse_reason);
    close_after_flush_ = true;
    WakeWriter();
    return;
  }
  asio::co_spawn(io_->ctx, [self]() { return self->ReadLoop(); }, asio::detached);
  if (server_->options().idle_timeout_ms > 0)
    asio::co_spawn(io_->ctx, [self]() { return self->Watchdog(); }, asio::detached);
}

void ServerConnection::Close() {
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

bool ServerConnection::Backlogged() const {
  return inflight_ >= server_->options().max_inflight_per_connection ||
         q_.out.size() >= server_->options().max_queued_bytes;
}

void ServerConnection::WakeWriter() { q_.Wake(); }

void ServerConnection::WakeReader() {
  if (reader_waiting_ && !Backlogged()) read_signal_.cancel();
}

void ServerConnection::Fatal(CallStatus status, uint32_t call_id, const std::string& why) {
  LogRateLimited("closing connection from " + peer_ + ": " + why);
  AppendErrorFrame(&q_.out, call_id, 0, status, why);
  BumpShared(io_->stats.frames_out, 1);
  close_after_flush_ = true;
  WakeWriter();
}

namespace {
// What a connection refused room for its call is told.
std::string BudgetRefusal(const BufferBudget& b) {
  return "the server holds " + std::to_string(b.used() >> 20) +
         " MiB for unfinished calls across its connections (--max-buffered-bytes " +
         std::to_string(b.limit()) + "): send again later, or raise it";
}
}  // namespace

asio::awaitable<bool> ServerConnection::ReadMore() {
  if (in_.capacity() - in_.size() < kReadChunk / 4 && !input_.Reserve(in_.size() + kReadChunk)) {
    BumpShared(io_->stats.budget_refused, 1);
    Fatal(CallStatus::kOverloaded, 0, BudgetRefusal(server_->buffer_budget));
    co_return false;
  }
  auto [ec, n] = co_await socket_.async_read_some(
      asio::buffer(in_.data() + in_.size(), in_.capacity() - in_.size()), kNoThrow);
  if (ec) co_return false;
  in_.Resize(in_.size() + n);
  BumpShared(io_->stats.bytes_in, n);
  last_read_ = std::chrono::steady_clock::now();
  co_return true;
}

asio::awaitable<void> ServerConnection::ReadLoop() {
  auto self = shared_from_this();
  // Preamble: magic, version, codec.
  for (;;) {
    Preamble p;
    std::string why;
    ParseResult r = ParsePreamble(in_.view(), &p, &why);
    if (r == ParseResult::kBad) {
      Fatal(CallStatus::kBadPreamble, 0, why);
      co_return;
    }
    if (r == ParseResult::kComplete) {
      if (p.version != kProtocolVersion) {
        Fatal(CallStatus::kBadPreamble, 0,
              "unsupported protocol version " + std::to_string(p.version) +
                  "; this server speaks version " + std::to_string(kProtocolVersion));
        co_return;
      }
      auto handler = server_->service()->NewCallHandler(p.codec_id);
      if (!handler.ok()) {
        Fatal(CallStatus::kBadPreamble, 0, std::string(handler.status().message()));
        co_return;
      }
      codec_id_ = p.codec_id;
      if (server_->pool() == nullptr) handler_ = std::move(handler).value();
      in_.Consume(kPreambleSize);
      preamble_done_ = true;
      break;
    }
    if (!co_await ReadMore()) {
      Close();
      co_return;
    }
  }
  for (;;) {
    if (!ProcessFrames()) co_return;
    if (Backlogged()) {
      while (Backlogged() && !closed_) {
        reader_waiting_ = true;
        read_signal_.expires_at(std::chrono::steady_clock::time_point::max());
        co_await read_signal_.async_wait(kNoThrow);
        reader_waiting_ = false;
      }
      // Frames already received but held back by the limit are handled
      // before reading more: the client may be waiting for their replies
      // and have nothing more to send.
      if (!closed_ && !close_after_flush_) continue;
    }
    if (closed_ || close_after_flush_) co_return;
    if (!co_await ReadMore()) {
      // EOF or error: let queued replies go out, then close.
      close_after_flush_ = true;
      WakeWriter();
      co_return;
    }
  }
}

bool ServerConnection::ProcessFrames() {
  const uint32_t max_frame = server_->options().max_frame;
  size_t pos = 0;
  bool ok = true;
  while (!Backlogged()) {
    Frame f;
    std::string why;
    ByteView rest(in_.data() + pos, in_.size() - pos);
    ParseResult r = ParseFrame(rest, max_frame, &f, &why);
    if (r == ParseResult::kNeedMore) {
      // Make room for the whole frame once its length is known.
      if (rest.size() >= kLengthSize && LoadLE32(rest.data()) <= max_frame &&
          !input_.Reserve(pos + kLengthSize + LoadLE32(rest.data()))) {
        BumpShared(io_->stats.budget_refused, 1);
        Fatal(CallStatus::kOverloaded, rest.size() >= 8 ? LoadLE32(rest.data() + 4) : 0,
              BudgetRefusal(server_->buffer_budget));
        ok = false;
      }
      break;
    }
    if (r == ParseResult::kBad) {
      uint32_t call_id = rest.size() >= 8 ? LoadLE32(rest.data() + 4) : 0;
      uint32_t length = LoadLE32(rest.data());
      Fatal(length > max_frame ? CallStatus::kFrameTooLarge : CallStatus::kBadRequest, call_id,
            why);
      ok = false;
      break;
    }
    BumpShared(io_->stats.frames_in, 1);
    frame_seen_ = true;
    Dispatch(f);
    pos += f.total_size;
  }
  in_.Consume(pos);
  input_.Trim();
  if (!q_.out.empty()) WakeWriter();
  return ok;
}

void ServerConnection::QueueReply(ByteView frame) {
  q_.out.Append(frame);
  BumpShared(io_->stats.frames_out, 1);
  if (frame.size() >= kFrameHeaderSize && frame[kLengthSize + 5] != uint8_t(CallStatus::kOk))
    BumpShared(io_->stats.failed_calls, 1);
}

void ServerConnection::Dispatch(const Frame& f) {
  const FrameHeader& h = f.header;
  if (!IsKnownMethod(h.method)) {
    BumpShared(io_->stats.unknown_method_calls, 1);
    BumpShared(io_->stats.failed_calls, 1);
    BumpShared(io_->stats.frames_out, 1);
    AppendErrorFrame(&q_.out, h.call_id, h.method, CallStatus::kUnknownMethod,
                     "unknown method " + std::to_string(h.method) + "; known methods are 1-" +
                         std::to_string(kMaxMethod));
    return;
  }
  BumpShared(io_->stats.calls[h.method], 1);
  switch (Method(h.method)) {
    case Method::kPing: {
      size_t off = BeginFrame(&q_.out, h.call_id, h.method, 0);
      q_.out.Append(f.payload);
      EndFrame(&q_.out, off);
      BumpShared(io_->stats.frames_out, 1);
      return;
    }
    case Method::kStats: {
      // The instrument's own work: excluded from this thread's allocation
      // counts so they show only the calls being measured.
      const CounterTotals at_entry = ThisThreadTotals();
      // Hook (--instructions): under callgrind, the phase since the last
      // Stats call is dumped here and the next starts once the reply is built.
      callgrind::EndPhase(callgrind::kServerStatsLabel);
      {
        std::string json = server_->StatsReply(at_entry);
        size_t off = BeginFrame(&q_.out, h.call_id, h.method, 0);
        q_.out.Append(ByteView(json));
        EndFrame(&q_.out, off);
      }
      callgrind::StartPhase();
      ExcludeFromThisThread(ThisThreadTotals() - at_entry);
      BumpShared(io_->stats.frames_out, 1);
      return;
    }
    default:
      break;
  }
  if (server_->pool() == nullptr) {
    HandleInline(f);
    return;
  }
  std::unique_ptr<PooledCall> call = io_->AcquireCall();
  call->conn = shared_from_this();
  call->codec_id = codec_id_;
  call->header = h;
  call->request.Clear();
  call->request.Append(f.payload);
  ++inflight_;
  server_->pool()->Submit(std::move(call));
}

void ServerConnection::HandleInline(const Frame& f) {
  const FrameHeader& h = f.header;
  const size_t off = BeginFrame(&q_.out, h.call_id, h.method, 0);
  CallOutcome outcome;
  handler_->Handle(h, f.payload, &q_.out, &outcome);
  if (outcome.status != CallStatus::kOk) {
    q_.out.Resize(off + kFrameHeaderSize);
    SetFrameStatus(&q_.out, off, uint8_t(outcome.status));
    q_.out.Append(ByteView(outcome.error));
    BumpShared(io_->stats.failed_calls, 1);
  }
  EndFrame(&q_.out, off);
  if (outcome.reply_delay_us > 0) {
    ByteView frame(q_.out.data() + off, q_.out.size() - off);
    DelayReply(frame, outcome.reply_delay_us);
    q_.out.Resize(off);
    return;
  }
  BumpShared(io_->stats.frames_out, 1);
}

void ServerConnection::DelayReply(ByteView frame, uint32_t delay_us) {
  // Calibration path only: one timer per held reply.
  std::unique_ptr<PooledCall> call = io_->AcquireCall();
  call->reply.Clear();
  call->reply.Append(frame);
  ++inflight_;
  auto timer = std::make_shared<asio::steady_timer>(io_->ctx, std::chrono::microseconds(delay_us));
  auto self = shared_from_this();
  PooledCall* raw = call.release();
  timer->async_wait([self, timer, raw](const boost::system::error_code&) {
    std::unique_ptr<PooledCall> c(raw);
    --self->inflight_;
    if (!self->closed_) {
      self->QueueReply(c->reply.view());
      self->WakeWriter();
      self->WakeReader();
    }
    self->io_->ReleaseCall(std::move(c));
  });
}

void ServerConnection::OnHandled(std::unique_ptr<PooledCall> call) {
  call->conn.reset();
  if (closed_) {
    io_->ReleaseCall(std::move(call));
    return;
  }
  if (call->reply_delay_us > 0) {
    DelayReply(call->reply.view(), call->reply_delay_us);
    --inflight_;
  } else {
    --inflight_;
    QueueReply(call->reply.view());
    WakeWriter();
  }
  io_->ReleaseCall(std::move(call));
  WakeReader();
}

// What RunWriteLoop needs from a server connection.
struct ServerWriteHooks {
  ServerConnection* c;
  bool Stopped() const { return c->closed_; }
  bool CanSend() const { return true; }
  // After a fatal error or EOF, once every reply still being handled is out.
  bool Finished() const { return c->close_after_flush_ && c->inflight_ == 0; }
  // Room in the output buffer may unblock a reader held back by the limit.
  void OnSwapped() { c->WakeReader(); }
  void OnWritten(size_t n) { BumpShared(c->io_->stats.bytes_out, n); }
};

asio::awaitable<void> ServerConnection::WriteLoop() {
  auto self = shared_from_this();
  ServerWriteHooks hooks{this};
  co_await RunWriteLoop(socket_, q_, hooks);
  Close();
}

asio::awaitable<void> ServerConnection::Watchdog() {
  auto self = shared_from_this();
  const auto timeout = std::chrono::milliseconds(server_->options().idle_timeout_ms);
  while (!closed_) {
    watchdog_.expires_at(last_read_ + timeout);
    co_await watchdog_.async_wait(kNoThrow);
    if (closed_) break;
    // Only a connection that is part-way through something (no preamble yet,
    // an incomplete frame, or a preamble and no call yet: the handshake is
    // done only with the first frame) is closed for being idle. A
    // connection between calls is not: a client may pause as long as it
    // likes once it has made one.
    const bool partial = !preamble_done_ || !in_.empty() || !frame_seen_;
    if (partial && std::chrono::steady_clock::now() - last_read_ >= timeout) {
      LogRateLimited("closing connection from " + peer_ + ": idle for " +
                     std::to_string(timeout.count()) + " ms " +
                     (!preamble_done_  ? "with an incomplete preamble"
                      : !in_.empty()   ? "with an incomplete frame"
                                       : "after its preamble without making a call") +
                     " (--idle-timeout-ms)");
      Close();
      break;
    }
    // Past half the connection limit, a connection idle between calls is
    // closed too (HBase's rule: idle connections are reaped once there are
    // many), so connections that only sit cannot lock every new client out.
    const bool crowded = server_->active_connections.load(std::memory_order_relaxed) * 2 >
                         server_->options().max_connections;
    if (!partial && crowded && inflight_ == 0 &&
        std::chrono::steady_clock::now() - last_read_ >= timeout) {
      BumpShared(io_->stats.idle_closed, 1);
      LogRateLimited("closing connection from " + peer_ + ": idle for " +
                     std::to_string(timeout.count()) +
                     " ms while the server holds over half its --max-connections");
      Close();
      break;
    }
    if (!partial) last_read_ = std::chrono::steady_clock::now();
  }
}

}  // namespace wirebench::rpc
