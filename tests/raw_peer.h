// A misbehaving (or merely hand-driven) peer for end-to-end tests of the
// server: one blocking POSIX socket on loopback with a receive timeout, so a
// server that fails to answer makes a test fail instead of hang; plus the
// bytes such a peer sends (preambles, frames, bare length words). And
// RawListener, a hand-driven "server" for tests of the client.
// Thread-safety: one RawPeer per thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>
#include <string_view>

#include "common/bytes.h"
#include "common/calls.h"
#include "transports/wirebench/frame.h"

namespace wirebench::testing {

inline std::string PreambleBytes(uint8_t codec_id, uint8_t version = wbrpc::kProtocolVersion) {
  ByteBuffer b;
  wbrpc::WritePreamble(codec_id, &b);
  b.data()[4] = version;
  return b.view().ToString();
}

inline std::string FrameBytes(uint32_t call_id, uint8_t method, std::string_view payload) {
  ByteBuffer b;
  size_t off = wbrpc::BeginFrame(&b, call_id, method, 0);
  b.Append(ByteView(payload));
  wbrpc::EndFrame(&b, off);
  return b.view().ToString();
}

// A length word alone (what an oversized or malformed frame starts with).
inline std::string LengthWord(uint32_t length) {
  uint8_t len[4];
  StoreLE32(len, length);
  return std::string(reinterpret_cast<const char*>(len), 4);
}

class RawPeer {
 public:
  enum class Read { kOk, kClosed, kTimeout, kError };

  explicit RawPeer(uint16_t port, int recv_timeout_ms = 10000)
      : RawPeer("127.0.0.1", port, recv_timeout_ms) {}
  // To `host`, an IPv4 address in dotted-quad form.
  RawPeer(const std::string& host, uint16_t port, int recv_timeout_ms) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{recv_timeout_ms / 1000, (recv_timeout_ms % 1000) * 1000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    connected_ = fd_ >= 0 && inet_pton(AF_INET, host.c_str(), &a.sin_addr) == 1 &&
                 connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  }
  // Wraps a connection accepted by RawListener.
  RawPeer(int accepted_fd, int recv_timeout_ms) : fd_(accepted_fd), connected_(fd_ >= 0) {
    timeval tv{recv_timeout_ms / 1000, (recv_timeout_ms % 1000) * 1000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  ~RawPeer() { Close(); }
  RawPeer(const RawPeer&) = delete;
  RawPeer& operator=(const RawPeer&) = delete;

  bool connected() const { return connected_; }
  int fd() const { return fd_; }
  // Sends give up after `seconds` when the socket stays full, which turns
  // "the server stopped reading" into a short send; true when set.
  bool SetSendTimeout(int seconds) {
    timeval tv{seconds, 0};
    return setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == 0;
  }

  // Writes as much of `bytes` as the socket takes; returns the count.
  size_t SendSome(std::string_view bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += size_t(n);
    }
    return done;
  }
  // Writes all of `bytes`; false when the socket failed (or timed out).
  bool Send(std::string_view bytes) { return SendSome(bytes) == bytes.size(); }

  // Reads exactly `n` bytes into `out`.
  Read ReadExactly(size_t n, std::string* out) {
    out->resize(n);
    size_t done = 0;
    while (done < n) {
      ssize_t r = recv(fd_, out->data() + done, n - done, 0);
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) return Read::kClosed;
      if (r < 0) return Error();
      done += size_t(r);
    }
    return Read::kOk;
  }

  // Reads one whole frame.
  Read ReadFrame(wbrpc::FrameHeader* h, std::string* payload) {
    std::string head;
    Read r = ReadExactly(wbrpc::kFrameHeaderSize, &head);
    if (r != Read::kOk) return r;
    const auto* p = reinterpret_cast<const uint8_t*>(head.data());
    h->length = LoadLE32(p);
    h->call_id = LoadLE32(p + 4);
    h->method = p[8];
    h->status = p[9];
    h->flags = LoadLE16(p + 10);
    if (h->length < wbrpc::kFixedHeaderSize) return Read::kError;
    return ReadExactly(h->length - wbrpc::kFixedHeaderSize, payload);
  }

  // Reads (and discards) until the server closes the connection: kClosed,
  // or kTimeout when it is still open after the receive timeout.
  Read ReadUntilClosed() {
    char buf[65536];
    for (;;) {
      ssize_t r = recv(fd_, buf, sizeof(buf), 0);
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) return Read::kClosed;
      if (r < 0) return Error();
    }
  }

  // A ping that must come back intact.
  ::testing::AssertionResult Ping(uint32_t call_id) {
    if (!Send(FrameBytes(call_id, uint8_t(Method::kPing), "ping")))
      return ::testing::AssertionFailure() << "send failed";
    wbrpc::FrameHeader h;
    std::string payload;
    if (Read r = ReadFrame(&h, &payload); r != Read::kOk)
      return ::testing::AssertionFailure() << "no reply (" << int(r) << ")";
    if (h.status != 0 || payload != "ping" || h.call_id != call_id)
      return ::testing::AssertionFailure() << "bad reply: status " << int(h.status) << " " << payload;
    return ::testing::AssertionSuccess();
  }

  // Closes with a TCP reset instead of a FIN.
  void Reset() {
    linger l{1, 0};
    setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
    Close();
  }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  static Read Error() {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Read::kTimeout;
    if (errno == ECONNRESET) return Read::kClosed;
    return Read::kError;
  }
  int fd_ = -1;
  bool connected_ = false;
};

// A listening socket on 127.0.0.1 (free port) whose connections the test
// drives by hand: accept and never answer, answer HTTP, answer frames late.
class RawListener {
 public:
  RawListener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = 0;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
        listen(fd_, 16) != 0 || getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      ADD_FAILURE() << "cannot listen on loopback: errno " << errno;
      return;
    }
    port_ = ntohs(a.sin_port);
  }
  ~RawListener() {
    if (fd_ >= 0) close(fd_);
  }
  RawListener(const RawListener&) = delete;
  RawListener& operator=(const RawListener&) = delete;

  uint16_t port() const { return port_; }
  // The next connection, or null when none arrives within `timeout_ms`.
  std::unique_ptr<RawPeer> Accept(int timeout_ms = 10000) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) != 1) return nullptr;
    int c = accept(fd_, nullptr, nullptr);
    if (c < 0) return nullptr;
    return std::make_unique<RawPeer>(c, timeout_ms);
  }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

}  // namespace wirebench::testing
