#include "bench/loadgen/blocking_channel.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "rpc/frame.h"

namespace wirebench {

namespace {

constexpr size_t kReadChunk = 64 * 1024;

timeval ToTimeval(std::chrono::milliseconds ms) {
  return timeval{time_t(ms.count() / 1000), suseconds_t((ms.count() % 1000) * 1000)};
}

std::string Where(const rpc::ClientOptions& o) { return o.host + ":" + std::to_string(o.port); }

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

}  // namespace

StatusOr<std::unique_ptr<BlockingChannel>> BlockingChannel::Connect(
    const rpc::ClientOptions& options) {
  const std::string where = Where(options);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(options.port);
  if (int rc = ::getaddrinfo(options.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return Status::Unavailable("cannot resolve server " + where + ": " + gai_strerror(rc));
  int fd = -1;
  int last_errno = 0;
  const timeval connect_timeout = ToTimeval(std::chrono::seconds(10));
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last_errno = errno;
      continue;
    }
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &connect_timeout, sizeof(connect_timeout));
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      last_errno = errno;
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0)
    return Status::Unavailable("cannot connect to server " + where + ": " +
                               std::strerror(last_errno) +
                               " (is `wirebench server` running there?)");
  const int one = 1;
  if (options.tcp_nodelay) ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  const timeval poll = ToTimeval(kPollInterval);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &poll, sizeof(poll));
  std::unique_ptr<BlockingChannel> c(new BlockingChannel(fd, options));
  rpc::WritePreamble(options.codec_id, &c->out_);
  if (!WriteAll(fd, c->out_.view()))
    return Status::Unavailable("cannot write to server " + where + ": " + std::strerror(errno));
  c->out_.Clear();
  return c;
}

BlockingChannel::BlockingChannel(int fd, rpc::ClientOptions options)
    : fd_(fd), options_(std::move(options)) {
  out_.Reserve(kReadChunk);
  in_.Reserve(kReadChunk);
}

BlockingChannel::~BlockingChannel() {
  if (fd_ >= 0) ::close(fd_);
}

std::string BlockingChannel::peer() const { return Where(options_); }

ByteBuffer* BlockingChannel::BeginCall(uint8_t method, rpc::PendingCall* pending,
                                       uint32_t* call_id) {
  if (!error_.ok() || pending_ != nullptr) return nullptr;
  call_id_ = call_ids_.Next(0);  // One call at a time: always slot 0.
  pending_ = pending;
  out_.Clear();
  open_frame_ = rpc::BeginFrame(&out_, call_id_, method, 0);
  if (call_id) *call_id = call_id_;
  return &out_;
}

void BlockingChannel::Send() {
  const size_t length = out_.size() - open_frame_ - rpc::kLengthSize;
  if (length > options_.max_request_frame) {
    rpc::PendingCall* p = pending_;
    Abandon();
    p->OnFailure(Status::InvalidArgument(
        "request of " + std::to_string(length) + " bytes exceeds the " +
        rpc::FrameLimitText(options_.max_request_frame) +
        " frame limit (--max-frame on the server); make the request smaller or raise "
        "--max-frame"));
    return;
  }
  rpc::EndFrame(&out_, open_frame_);
  open_frame_ = SIZE_MAX;
  if (!answered_ && stats_.frames_out == 0) first_sent_ = std::chrono::steady_clock::now();
  ++stats_.frames_out;
  ++stats_.writes;
  stats_.bytes_out += out_.size();
  if (!WriteAll(fd_, out_.view()))
    Fail(Status::Unavailable("cannot write to server " + peer() + ": " + std::strerror(errno)));
}

void BlockingChannel::Abandon() {
  out_.Clear();
  open_frame_ = SIZE_MAX;
  pending_ = nullptr;
}

void BlockingChannel::Cancel(uint32_t call_id) {
  if (pending_ != nullptr && call_id == call_id_) pending_ = nullptr;
}

void BlockingChannel::WaitReply() {
  if (pending_ == nullptr || fd_ < 0) return;
  if (in_.capacity() - in_.size() < kReadChunk / 4) in_.Reserve(in_.size() + kReadChunk);
  const ssize_t n = ::recv(fd_, in_.data() + in_.size(), in_.capacity() - in_.size(), 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    const auto waited = std::chrono::steady_clock::now() - first_sent_;
    if (!answered_ && options_.handshake_timeout_ms > 0 &&
        waited >= std::chrono::milliseconds(options_.handshake_timeout_ms))
      Fail(Status::Unavailable(peer() + " did not answer the wirebench preamble within " +
                               std::to_string(options_.handshake_timeout_ms) +
                               " ms: is it a wirebench server?"));
    return;
  }
  if (n <= 0) {
    std::string cause = n == 0 ? "closed by the server" : std::strerror(errno);
    if (!answered_) cause += " before answering the wirebench preamble (is it a wirebench server?)";
    Fail(error_.ok() ? Status::Unavailable("connection to server " + peer() + " lost: " + cause)
                     : error_);
    return;
  }
  answered_ = true;
  ++stats_.reads;
  stats_.bytes_in += uint64_t(n);
  in_.Resize(in_.size() + size_t(n));
  DispatchReplies();
}

void BlockingChannel::DispatchReplies() {
  size_t pos = 0;
  while (fd_ >= 0) {
    rpc::Frame f;
    std::string why;
    ByteView rest(in_.data() + pos, in_.size() - pos);
    const rpc::ParseResult r = rpc::ParseFrame(rest, options_.max_frame, &f, &why);
    if (r == rpc::ParseResult::kNeedMore) {
      if (rest.size() >= rpc::kLengthSize)
        in_.Reserve(pos + rpc::kLengthSize + LoadLE32(rest.data()));
      break;
    }
    if (r == rpc::ParseResult::kBad) {
      const std::string text = rpc::PrintablePrefix(rest);
      Fail(stats_.frames_in > 0 || text.empty()
               ? Status::Corruption("bad reply frame from server " + peer() + ": " + why)
               : Status::Unavailable(peer() + " is not a wirebench server: it answered '" +
                                     text + "'"));
      return;
    }
    ++stats_.frames_in;
    pos += f.total_size;
    const rpc::FrameHeader& h = f.header;
    if (h.call_id == 0 && h.status != uint8_t(CallStatus::kOk)) {
      Fail(Status::Unavailable("server " + peer() + " closed the connection (" +
                               std::string(CallStatusName(CallStatus(h.status))) +
                               "): " + f.payload.ToString()));
      return;
    }
    if (pending_ == nullptr || h.call_id != call_id_) {
      ++stats_.stray_replies;
      continue;
    }
    rpc::PendingCall* p = pending_;
    pending_ = nullptr;
    p->OnReply(h, f.payload);  // May begin and send the next call (out_ only).
  }
  in_.Consume(pos);
}

void BlockingChannel::Fail(const Status& status) {
  if (error_.ok()) error_ = status;
  if (fd_ >= 0) {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    fd_ = -1;
  }
  if (rpc::PendingCall* p = pending_) {
    pending_ = nullptr;
    p->OnFailure(error_);
  }
}

void BlockingChannel::Close() {
  if (fd_ < 0 && pending_ == nullptr) return;
  Fail(Status::Aborted("connection to " + peer() + " closed by the client"));
}

}  // namespace wirebench
