#include "transports/wirebench/shared_connection.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <system_error>

#include "rpc/asio_io.h"

namespace wirebench::wbrpc {

namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(10);
constexpr uint32_t kGenerationMask = 0xFFFF0000u;

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "a slot's state word must be usable as a futex");

uint32_t* FutexWord(std::atomic<uint32_t>* w) { return reinterpret_cast<uint32_t*>(w); }

// Sleeps while *w == expected, at most `timeout`; returns early when woken.
void FutexWait(std::atomic<uint32_t>* w, uint32_t expected, std::chrono::nanoseconds timeout) {
  timespec ts{time_t(timeout.count() / 1000000000), long(timeout.count() % 1000000000)};
  ::syscall(SYS_futex, FutexWord(w), FUTEX_WAIT_PRIVATE, expected, &ts, nullptr, 0);
}

void FutexWake(std::atomic<uint32_t>* w) {
  ::syscall(SYS_futex, FutexWord(w), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

timeval ToTimeval(std::chrono::milliseconds ms) {
  return timeval{time_t(ms.count() / 1000), suseconds_t((ms.count() % 1000) * 1000)};
}

int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Writes all of `data`; false (errno set) on failure.
bool WriteAll(int fd, ByteView data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

// Connects `fd` (non-blocking) to `a`, waiting in short slices so a stop
// request is seen; 0 or an errno value (ETIMEDOUT, ECANCELED).
int ConnectBounded(int fd, const addrinfo* a, const std::function<bool()>& cancelled) {
  if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) return 0;
  if (errno != EINPROGRESS) return errno;
  const auto deadline = std::chrono::steady_clock::now() + kConnectTimeout;
  for (;;) {
    if (cancelled && cancelled()) return ECANCELED;
    if (std::chrono::steady_clock::now() >= deadline) return ETIMEDOUT;
    pollfd p{fd, POLLOUT, 0};
    const int rc = ::poll(&p, 1, int(WirebenchSharedConnection::kPollInterval.count()));
    if (rc < 0 && errno != EINTR) return errno;
    if (rc > 0) {
      int err = 0;
      socklen_t len = sizeof(err);
      if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
      return err;
    }
  }
}

}  // namespace

// ---- WirebenchSharedConnection ----

StatusOr<std::unique_ptr<WirebenchSharedConnection>> WirebenchSharedConnection::Connect(
    WirebenchSharedConnectionOptions options) {
  const ClientOptions& o = options.client;
  const std::string where = o.host + ":" + std::to_string(o.port);
  if (options.max_channels < 1 || options.max_channels > int(rpc::kMaxCallsInFlight))
    return Status::InvalidArgument("a shared connection carries 1 to " +
                                   std::to_string(rpc::kMaxCallsInFlight) + " channels, not " +
                                   std::to_string(options.max_channels));
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(o.port);
  if (int rc = ::getaddrinfo(o.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return Status::Unavailable("cannot resolve server " + where + ": " + gai_strerror(rc));
  int fd = -1;
  int last_errno = 0;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
      last_errno = errno;
      continue;
    }
    last_errno = ConnectBounded(fd, a, options.cancelled);
    if (last_errno != 0) {
      ::close(fd);
      fd = -1;
      if (last_errno == ECANCELED) break;
    }
  }
  ::freeaddrinfo(found);
  if (last_errno == ECANCELED)
    return Status::Aborted("stopped while connecting to " + where);
  if (fd < 0)
    return Status::Unavailable("cannot connect to server " + where + ": " +
                               std::strerror(last_errno) +
                               " (is `wirebench server` running there?)");
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const int one = 1;
  if (o.tcp_nodelay) ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  const timeval poll = ToTimeval(kPollInterval);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &poll, sizeof(poll));
  // A server that stops reading fails the writer after this long.
  const timeval send_timeout = ToTimeval(kConnectTimeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
  ByteBuffer preamble;
  WritePreamble(o.codec_id, &preamble);
  if (!WriteAll(fd, preamble.view())) {
    const int err = errno;
    ::close(fd);
    return Status::Unavailable("cannot write to server " + where + ": " + std::strerror(err));
  }
  std::unique_ptr<WirebenchSharedConnection> c(
      new WirebenchSharedConnection(fd, std::move(options)));
  WirebenchSharedConnection* raw = c.get();
  try {
    c->reader_ = std::thread([raw] { raw->ReadLoop(); });
  } catch (const std::system_error& e) {
    return Status::ResourceExhausted("cannot start the reader thread of a connection to " +
                                     where + ": " + e.what());
  }
  return c;
}

StatusOr<std::unique_ptr<WirebenchSharedConnection>> WirebenchSharedConnection::Connect(
    const rpc::SharedConnectionOptions& options) {
  WirebenchSharedConnectionOptions o;
  o.client.host = options.host;
  o.client.port = options.port;
  o.client.codec_id = options.codec_id;
  o.max_channels = options.max_channels;
  o.reader_role = options.reader_role;
  o.reader_name = options.reader_name;
  o.cancelled = options.cancelled;
  return Connect(std::move(o));
}

WirebenchSharedConnection::WirebenchSharedConnection(int fd,
                                                     WirebenchSharedConnectionOptions options)
    : fd_(fd),
      options_(std::move(options)),
      peer_(options_.client.host + ":" + std::to_string(options_.client.port)),
      slots_(new Slot[size_t(options_.max_channels)]),
      to_wake_(new uint32_t[size_t(options_.max_channels)]) {
  queued_.Reserve(rpc::kReadChunk);
  writing_.Reserve(rpc::kReadChunk);
  in_.Reserve(rpc::kReadChunk);
}

WirebenchSharedConnection::~WirebenchSharedConnection() {
  Close();
  if (reader_.joinable()) reader_.join();
  ::close(fd_);
}

std::unique_ptr<rpc::SharedChannel> WirebenchSharedConnection::NewChannel() {
  std::lock_guard<std::mutex> lock(mu_);
  const int i = channels_.load(std::memory_order_relaxed);
  if (i >= options_.max_channels) return nullptr;
  std::unique_ptr<WirebenchSharedChannel> c(new WirebenchSharedChannel(this, uint32_t(i)));
  channels_.store(i + 1, std::memory_order_release);
  return c;
}

Status WirebenchSharedConnection::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

size_t WirebenchSharedConnection::inflight() const {
  size_t n = 0;
  const int channels = channels_.load(std::memory_order_acquire);
  for (int i = 0; i < channels; ++i)
    if (slots_[size_t(i)].state.load(std::memory_order_acquire) & kInFlight) ++n;
  return n;
}

rpc::ClientConnectionStats WirebenchSharedConnection::stats() const {
  rpc::ClientConnectionStats s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    s.frames_out = frames_out_;
    s.bytes_out = bytes_out_;
    s.writes = writes_;
  }
  s.frames_in = frames_in_.load(std::memory_order_relaxed);
  s.bytes_in = bytes_in_.load(std::memory_order_relaxed);
  s.reads = reads_.load(std::memory_order_relaxed);
  s.stray_replies = stray_replies_.load(std::memory_order_relaxed);
  return s;
}

std::string WirebenchSharedConnection::peer() const { return peer_; }

void WirebenchSharedConnection::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  Fail(Status::Aborted("connection to " + peer_ + " closed by the client"));
}

void WirebenchSharedConnection::Fail(const Status& status) {
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.ok()) error_ = status;
    first = !failed_.load(std::memory_order_relaxed);
    failed_.store(true, std::memory_order_release);
  }
  // Wakes the reader (recv returns 0) and a writer blocked in send().
  if (first) ::shutdown(fd_, SHUT_RDWR);
  const int channels = channels_.load(std::memory_order_acquire);
  for (int i = 0; i < channels; ++i) {
    Slot& s = slots_[size_t(i)];
    uint32_t st = s.state.load(std::memory_order_acquire);
    while (st & kInFlight) {
      const uint32_t failed = (st & ~(kInFlight | kSleeping)) | kFailed;
      if (s.state.compare_exchange_weak(st, failed, std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
        if (st & kSleeping) FutexWake(&s.state);
        break;
      }
    }
  }
}

bool WirebenchSharedConnection::Queue(ByteView frame, bool handles_reply) {
  std::unique_lock<std::mutex> lock(mu_);
  if (handles_reply) unhandled_replies_.fetch_sub(1, std::memory_order_relaxed);
  if (failed_.load(std::memory_order_relaxed) || closed_) return false;
  queued_.Append(frame.data(), frame.size());
  ++frames_out_;
  bytes_out_ += frame.size();
  if (first_sent_ns_.load(std::memory_order_relaxed) == 0)
    first_sent_ns_.store(SteadyNanos(), std::memory_order_relaxed);
  // Callers still to handle their replies will send too; the last writes
  // (or the one that makes the batch kMaxDeferredFrames long).
  if (unhandled_replies_.load(std::memory_order_relaxed) > 0 &&
      ++deferred_frames_ < kMaxDeferredFrames)
    return true;
  WriteQueued(&lock);
  return true;
}

void WirebenchSharedConnection::ReplyHandled() {
  std::unique_lock<std::mutex> lock(mu_);
  if (unhandled_replies_.fetch_sub(1, std::memory_order_relaxed) == 1) WriteQueued(&lock);
}

void WirebenchSharedConnection::WriteQueued(std::unique_lock<std::mutex>* lock) {
  // An active writer sends what is queued (it loops until nothing is).
  if (writer_active_ || queued_.empty() || failed_.load(std::memory_order_relaxed)) return;
  writer_active_ = true;
  while (!queued_.empty()) {
    queued_.Swap(writing_);
    deferred_frames_ = 0;
    lock->unlock();
    const bool written = WriteAll(fd_, writing_.view());
    const int err = errno;
    writing_.Clear();
    lock->lock();
    ++writes_;
    if (!written) {
      writer_active_ = false;
      lock->unlock();
      // The queued calls fail with the connection: their slots say so.
      Fail(Status::Unavailable("cannot write to server " + peer_ + ": " + std::strerror(err)));
      lock->lock();
      return;
    }
  }
  writer_active_ = false;
}

void WirebenchSharedConnection::ReadLoop() {
  RegisterThisThread(options_.reader_role, options_.reader_name.c_str());
  for (;;) {
    if (in_.capacity() - in_.size() < rpc::kReadChunk / 4) in_.Reserve(in_.size() + rpc::kReadChunk);
    const ssize_t n = ::recv(fd_, in_.data() + in_.size(), in_.capacity() - in_.size(), 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      if (!ok()) return;
      {  // A caller slow to handle its reply holds the others' requests no longer.
        std::unique_lock<std::mutex> lock(mu_);
        WriteQueued(&lock);
      }
      const int64_t first = first_sent_ns_.load(std::memory_order_relaxed);
      const int limit_ms = options_.client.handshake_timeout_ms;
      if (!answered_ && first != 0 && limit_ms > 0 &&
          SteadyNanos() - first >= int64_t(limit_ms) * 1000000) {
        Fail(PreambleUnansweredError(peer_, limit_ms));
        return;
      }
      continue;
    }
    if (n <= 0) {
      if (!ok()) return;  // Closed (or failed) on this side: the socket was shut down.
      Fail(ConnectionLostError(peer_, n == 0 ? "closed by the server" : std::strerror(errno),
                                    !answered_));
      return;
    }
    answered_ = true;
    Bump(reads_, 1);
    Bump(bytes_in_, uint64_t(n));
    in_.Resize(in_.size() + size_t(n));
    if (!DispatchReplies()) return;
  }
}

bool WirebenchSharedConnection::DispatchReplies() {
  size_t pos = 0;
  for (;;) {
    Frame f;
    std::string why;
    ByteView rest(in_.data() + pos, in_.size() - pos);
    const ParseResult r = ParseFrame(rest, options_.client.max_frame, &f, &why);
    if (r == ParseResult::kNeedMore) {
      if (rest.size() >= kLengthSize)
        in_.Reserve(pos + kLengthSize + LoadLE32(rest.data()));
      break;
    }
    if (r == ParseResult::kBad) {
      Fail(BadReplyError(peer_, frames_in_.load(std::memory_order_relaxed) > 0, rest, why));
      return false;
    }
    Bump(frames_in_, 1);
    pos += f.total_size;
    const FrameHeader& h = f.header;
    if (h.call_id == 0 && h.status != uint8_t(CallStatus::kOk)) {
      Fail(ServerClosedError(peer_, h, f.payload));
      return false;
    }
    Deliver(f);
  }
  in_.Consume(pos);
  // Callers are woken once the whole batch is delivered: a woken caller that
  // preempts the reader then no longer holds up the replies behind its own.
  for (size_t i = 0; i < to_wake_count_; ++i) FutexWake(&slots_[to_wake_[i]].state);
  to_wake_count_ = 0;
  return true;
}

void WirebenchSharedConnection::Deliver(const Frame& f) {
  const uint32_t id = f.header.call_id;
  const uint32_t slot = id & 0xFFFF;
  const uint32_t generation = id & kGenerationMask;
  if (slot >= uint32_t(channels_.load(std::memory_order_acquire))) {
    Bump(stray_replies_, 1);
    return;
  }
  Slot& s = slots_[slot];
  uint32_t st = s.state.load(std::memory_order_acquire);
  if ((st & kGenerationMask) != generation || !(st & kInFlight)) {
    Bump(stray_replies_, 1);
    return;
  }
  // The caller reads neither until it sees kReady; a caller that gives the
  // call up meanwhile (Cancel) starts its next call on the other buffer.
  ByteBuffer& b = s.reply[(st & kBuffer1) ? 1 : 0];
  b.Clear();
  b.Append(f.payload.data(), f.payload.size());
  s.header = f.header;
  // Counted before the caller can see it (and lower the count).
  unhandled_replies_.fetch_add(1, std::memory_order_relaxed);
  for (;;) {
    const uint32_t ready = (st & ~(kInFlight | kSleeping)) | kReady;
    if (s.state.compare_exchange_weak(st, ready, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
      if (st & kSleeping) to_wake_[to_wake_count_++] = slot;
      return;
    }
    if ((st & kGenerationMask) != generation || !(st & kInFlight)) {
      Bump(stray_replies_, 1);  // Cancelled while it was being copied.
      ReplyHandled();
      return;
    }
  }
}

// ---- WirebenchSharedChannel ----

WirebenchSharedChannel::WirebenchSharedChannel(WirebenchSharedConnection* conn, uint32_t slot)
    : conn_(conn), slot_(&conn->slots_[slot]), slot_index_(slot) {
  out_.Reserve(4096);
}

WirebenchSharedChannel::~WirebenchSharedChannel() {
  if (pending_ != nullptr) Cancel(call_id_);
}

ByteBuffer* WirebenchSharedChannel::BeginCall(uint8_t method, rpc::PendingCall* pending,
                                              uint32_t* call_id) {
  if (pending_ != nullptr || !ok()) return nullptr;
  call_id_ = call_ids_.Next(slot_index_);
  pending_ = pending;
  sent_ = false;
  out_.Clear();
  open_frame_ = BeginFrame(&out_, call_id_, method, 0);
  if (call_id) *call_id = call_id_;
  return &out_;
}

void WirebenchSharedChannel::Send() {
  const ClientOptions& o = conn_->options_.client;
  const size_t length = out_.size() - open_frame_ - kLengthSize;
  if (length > o.max_request_frame) {
    rpc::PendingCall* p = pending_;
    Abandon();
    p->OnFailure(RequestTooLargeError(length, o.max_request_frame));
    return;
  }
  EndFrame(&out_, open_frame_);
  open_frame_ = SIZE_MAX;
  buffer1_ = !buffer1_;
  // In flight before the frame can leave, so the reader can match its reply.
  slot_->state.store((call_id_ & kGenerationMask) | WirebenchSharedConnection::kInFlight |
                         (buffer1_ ? WirebenchSharedConnection::kBuffer1 : 0),
                     std::memory_order_release);
  sent_ = true;
  const bool handles_reply = in_reply_;
  in_reply_ = false;
  if (!conn_->Queue(out_.view(), handles_reply)) {
    slot_->state.store(0, std::memory_order_release);
    rpc::PendingCall* p = pending_;
    pending_ = nullptr;
    sent_ = false;
    p->OnFailure(error());
  }
}

void WirebenchSharedChannel::Abandon() {
  out_.Clear();
  open_frame_ = SIZE_MAX;
  pending_ = nullptr;
  sent_ = false;
}

void WirebenchSharedChannel::Cancel(uint32_t call_id) {
  if (pending_ == nullptr || call_id != call_id_) return;
  if (sent_ &&
      (slot_->state.exchange(0, std::memory_order_acq_rel) & WirebenchSharedConnection::kReady))
    conn_->ReplyHandled();  // Its reply came in meanwhile: dropped.
  Abandon();
}

void WirebenchSharedChannel::WaitReply(std::chrono::nanoseconds timeout) {
  if (!waiting()) return;
  uint32_t st = slot_->state.load(std::memory_order_acquire);
  if (st & (WirebenchSharedConnection::kReady | WirebenchSharedConnection::kFailed)) {
    Finish(st);
    return;
  }
  if (woken_.load(std::memory_order_relaxed)) return;
  if (!(st & WirebenchSharedConnection::kSleeping)) {
    // Tell the reader to wake us; if the word changed, the outcome is in.
    if (!slot_->state.compare_exchange_strong(st, st | WirebenchSharedConnection::kSleeping,
                                              std::memory_order_acq_rel,
                                              std::memory_order_acquire)) {
      if (st & (WirebenchSharedConnection::kReady | WirebenchSharedConnection::kFailed)) Finish(st);
      return;
    }
    st |= WirebenchSharedConnection::kSleeping;
  }
  FutexWait(&slot_->state, st,
            std::min<std::chrono::nanoseconds>(timeout, WirebenchSharedConnection::kPollInterval));
  st = slot_->state.load(std::memory_order_acquire);
  if (st & (WirebenchSharedConnection::kReady | WirebenchSharedConnection::kFailed)) Finish(st);
}

void WirebenchSharedChannel::Finish(uint32_t st) {
  rpc::PendingCall* p = pending_;
  pending_ = nullptr;
  sent_ = false;
  // Idle: the reader leaves the slot alone until the next call.
  slot_->state.store(0, std::memory_order_relaxed);
  if (st & WirebenchSharedConnection::kReady) {
    const FrameHeader h = slot_->header;
    in_reply_ = true;  // A Send() from OnReply accounts for the reply (Queue).
    p->OnReply(h, slot_->reply[(st & WirebenchSharedConnection::kBuffer1) ? 1 : 0].view());
    if (in_reply_) {
      in_reply_ = false;
      conn_->ReplyHandled();
    }
  } else {
    p->OnFailure(error());
  }
}

void WirebenchSharedChannel::Wake() {
  woken_.store(true, std::memory_order_release);
  FutexWake(&slot_->state);
}

const Status& WirebenchSharedChannel::error() const {
  if (error_.ok() && !conn_->ok()) error_ = conn_->error();
  return error_;
}

const rpc::ClientConnectionStats& WirebenchSharedChannel::stats() const {
  stats_ = conn_->stats();
  return stats_;
}

void WirebenchSharedChannel::Close() {
  if (error_.ok())
    error_ = conn_->ok() ? Status::Aborted("connection to " + peer() + " closed by the client")
                         : conn_->error();
  if (pending_ == nullptr) return;
  const bool sent = sent_;
  rpc::PendingCall* p = pending_;
  Cancel(call_id_);
  if (sent) p->OnFailure(error_);
}

}  // namespace wirebench::wbrpc
