#include "rpc/client.h"

#include <boost/asio.hpp>
#include <chrono>

namespace wirebench::rpc {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {
constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);
constexpr size_t kReadChunk = 64 * 1024;
constexpr uint32_t kMaxSlots = 65535;
}  // namespace

asio::awaitable<StatusOr<std::shared_ptr<ClientConnection>>> ClientConnection::Connect(
    asio::io_context& ctx, ClientOptions options) {
  const std::string where = options.host + ":" + std::to_string(options.port);
  tcp::resolver resolver(ctx);
  auto [rec, endpoints] =
      co_await resolver.async_resolve(options.host, std::to_string(options.port), kNoThrow);
  if (rec)
    co_return Status::Unavailable("cannot resolve server " + where + ": " + rec.message());
  tcp::socket socket(ctx);
  auto [cec, ep] = co_await asio::async_connect(socket, endpoints, kNoThrow);
  if (cec)
    co_return Status::Unavailable("cannot connect to server " + where + ": " + cec.message() +
                                  " (is `wirebench server` running there?)");
  boost::system::error_code ignored;
  if (options.tcp_nodelay) socket.set_option(tcp::no_delay(true), ignored);
  auto conn = std::make_shared<ClientConnection>(ctx, std::move(socket), std::move(options));
  conn->StartLoops();
  co_return conn;
}

ClientConnection::ClientConnection(asio::io_context& ctx, tcp::socket socket,
                                   ClientOptions options)
    : ctx_(ctx), socket_(std::move(socket)), options_(std::move(options)), write_signal_(ctx) {
  in_.Reserve(kReadChunk);
  out_.Reserve(kReadChunk);
  writing_.Reserve(kReadChunk);
  WritePreamble(options_.codec_id, &out_);
}

ClientConnection::~ClientConnection() = default;

std::string ClientConnection::peer() const {
  return options_.host + ":" + std::to_string(options_.port);
}

void ClientConnection::StartLoops() {
  auto self = shared_from_this();
  asio::co_spawn(ctx_, [self]() { return self->ReadLoop(); }, asio::detached);
  asio::co_spawn(ctx_, [self]() { return self->WriteLoop(); }, asio::detached);
}

ByteBuffer* ClientConnection::BeginCall(uint8_t method, PendingCall* pending, uint32_t* call_id) {
  if (!error_.ok() || closed_) return nullptr;
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    if (slots_.size() >= kMaxSlots) return nullptr;
    slot = uint32_t(slots_.size());
    slots_.emplace_back();
    // Every slot can be free at once: size the free list with the table, so
    // freeing a slot in the reply path never grows (allocates) it later.
    free_slots_.reserve(slots_.capacity());
  }
  generation_ = (generation_ + 1) & 0xFFFF;
  if (generation_ == 0) generation_ = 1;  // Call id 0 is reserved for connection errors.
  const uint32_t id = (generation_ << 16) | slot;
  slots_[slot] = Slot{pending, id};
  open_slot_ = slot;
  open_frame_ = BeginFrame(&out_, id, method, 0);
  if (call_id) *call_id = id;
  return &out_;
}

void ClientConnection::Send() {
  EndFrame(&out_, open_frame_);
  open_frame_ = SIZE_MAX;
  ++inflight_;
  ++stats_.frames_out;
  if (writer_waiting_) write_signal_.cancel();
}

void ClientConnection::Abandon() {
  out_.Resize(open_frame_);
  open_frame_ = SIZE_MAX;
  slots_[open_slot_] = Slot{};
  free_slots_.push_back(open_slot_);
}

void ClientConnection::Cancel(uint32_t call_id) {
  uint32_t slot = call_id & 0xFFFF;
  if (slot < slots_.size() && slots_[slot].call_id == call_id && slots_[slot].pending) {
    slots_[slot] = Slot{};
    free_slots_.push_back(slot);
    --inflight_;
  }
}

void ClientConnection::Close() {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  write_signal_.cancel();
  FailAll(error_.ok() ? Status::Aborted("connection to " + peer() + " closed by the client")
                      : error_);
}

void ClientConnection::FailAll(const Status& status) {
  if (error_.ok()) error_ = status;
  // Collect first: OnFailure may start new calls (which fail at once).
  std::vector<PendingCall*> failed;
  for (Slot& s : slots_) {
    if (s.pending) failed.push_back(s.pending);
    s = Slot{};
  }
  free_slots_.clear();
  for (uint32_t i = 0; i < slots_.size(); ++i) free_slots_.push_back(uint32_t(slots_.size() - 1 - i));
  inflight_ = 0;
  for (PendingCall* p : failed) p->OnFailure(error_);
}

void ClientConnection::DispatchFrame(const Frame& f) {
  ++stats_.frames_in;
  const FrameHeader& h = f.header;
  if (h.call_id == 0 && h.status != uint8_t(CallStatus::kOk)) {
    // A connection-level refusal (bad preamble, unknown codec, limits).
    error_ = Status::Unavailable("server " + peer() + " refused the connection (" +
                                 std::string(CallStatusName(CallStatus(h.status))) +
                                 "): " + f.payload.ToString());
    return;
  }
  const uint32_t slot = h.call_id & 0xFFFF;
  if (slot >= slots_.size() || slots_[slot].call_id != h.call_id || !slots_[slot].pending) {
    ++stats_.stray_replies;
    return;
  }
  PendingCall* p = slots_[slot].pending;
  slots_[slot] = Slot{};
  free_slots_.push_back(slot);
  --inflight_;
  p->OnReply(h, f.payload);
}

asio::awaitable<void> ClientConnection::ReadLoop() {
  auto self = shared_from_this();
  for (;;) {
    if (in_.capacity() - in_.size() < kReadChunk / 4) in_.Reserve(in_.size() + kReadChunk);
    auto [ec, n] = co_await socket_.async_read_some(
        asio::buffer(in_.data() + in_.size(), in_.capacity() - in_.size()), kNoThrow);
    if (ec) {
      if (!closed_) {
        std::string cause = ec == asio::error::eof ? "closed by the server" : ec.message();
        FailAll(error_.ok() ? Status::Unavailable("connection to server " + peer() + " lost: " +
                                                  cause)
                            : error_);
        closed_ = true;
        boost::system::error_code ignored;
        socket_.close(ignored);
        write_signal_.cancel();
      }
      co_return;
    }
    ++stats_.reads;
    stats_.bytes_in += n;
    in_.Resize(in_.size() + n);
    size_t pos = 0;
    for (;;) {
      Frame f;
      std::string why;
      ByteView rest(in_.data() + pos, in_.size() - pos);
      ParseResult r = ParseFrame(rest, options_.max_frame, &f, &why);
      if (r == ParseResult::kNeedMore) {
        if (rest.size() >= kLengthSize) in_.Reserve(pos + kLengthSize + LoadLE32(rest.data()));
        break;
      }
      if (r == ParseResult::kBad) {
        FailAll(Status::Corruption("bad reply frame from server " + peer() + ": " + why));
        Close();
        co_return;
      }
      DispatchFrame(f);
      pos += f.total_size;
    }
    in_.Consume(pos);
  }
}

asio::awaitable<void> ClientConnection::WriteLoop() {
  auto self = shared_from_this();
  while (!closed_) {
    if (out_.empty() || open_frame_ != SIZE_MAX) {
      writer_waiting_ = true;
      write_signal_.expires_at(std::chrono::steady_clock::time_point::max());
      co_await write_signal_.async_wait(kNoThrow);
      writer_waiting_ = false;
      continue;
    }
    writing_.Swap(out_);
    out_.Clear();
    auto [ec, n] =
        co_await asio::async_write(socket_, asio::buffer(writing_.data(), writing_.size()), kNoThrow);
    if (ec) {
      if (!closed_)
        FailAll(Status::Unavailable("cannot write to server " + peer() + ": " + ec.message()));
      Close();
      co_return;
    }
    ++stats_.writes;
    stats_.bytes_out += n;
    writing_.Clear();
  }
}

StatusOr<std::string> CallOnce(const ClientOptions& options, Method method, ByteView payload,
                               int timeout_ms) {
  struct Waiter final : PendingCall {
    bool done = false;
    Status status;
    std::string reply;
    void OnReply(const FrameHeader& h, ByteView p) override {
      done = true;
      if (h.status != uint8_t(CallStatus::kOk)) {
        status = Status::Unavailable(std::string(CallStatusName(CallStatus(h.status))) + ": " +
                                     p.ToString());
      } else {
        reply = p.ToString();
      }
    }
    void OnFailure(const Status& s) override {
      done = true;
      status = s;
    }
  } waiter;
  asio::io_context ctx(1);
  Status result = Status::Unavailable("no reply from server " + options.host + ":" +
                                      std::to_string(options.port) + " within " +
                                      std::to_string(timeout_ms) + " ms");
  std::shared_ptr<ClientConnection> conn;
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        auto c = co_await ClientConnection::Connect(ctx, options);
        if (!c.ok()) {
          result = c.status();
          ctx.stop();
          co_return;
        }
        conn = *c;
        ByteBuffer* out = conn->BeginCall(uint8_t(method), &waiter);
        if (out == nullptr) {
          result = conn->error();
          ctx.stop();
          co_return;
        }
        out->Append(payload);
        conn->Send();
      },
      asio::detached);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!waiter.done && !ctx.stopped() && std::chrono::steady_clock::now() < deadline)
    ctx.run_one_for(std::chrono::milliseconds(50));
  if (conn) conn->Close();
  ctx.restart();
  ctx.poll();
  if (waiter.done) {
    if (!waiter.status.ok()) return waiter.status;
    return waiter.reply;
  }
  return result;
}

}  // namespace wirebench::rpc
