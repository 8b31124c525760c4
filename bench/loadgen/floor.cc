#include "bench/loadgen/floor.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "bench/loadgen/local_server.h"
#include "bench/loadgen/stop_request.h"

namespace wirebench {

namespace {

constexpr size_t kMaxFrameBytes = size_t{16} << 20;

double ThreadCpuUs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e6 + double(ts.tv_nsec) / 1e3;
}

// A closing file descriptor.
struct Fd {
  int fd = -1;
  explicit Fd(int f = -1) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

// One side's loop. Its buffers are sized before the loop starts: the loop
// itself allocates nothing.
class FloorSide {
 public:
  FloorSide(int fd, size_t out_payload, size_t in_payload, int depth)
      : fd_(fd),
        in_(std::max<size_t>(1 << 20, 2 * size_t(depth) * (4 + in_payload))),
        frame_(4 + out_payload, 'x') {
    const uint32_t len = uint32_t(out_payload);
    std::memcpy(frame_.data(), &len, 4);
    out_.resize(size_t(depth) * frame_.size());
  }

  // Writes `n` frames in one write when the kernel takes them. When it does
  // not (large frames both ways fill both socket buffers), what the peer sent
  // meanwhile is read in so that neither side waits on the other for ever.
  bool Send(int n) {
    const size_t bytes = size_t(n) * frame_.size();
    for (size_t at = 0; at < bytes; at += frame_.size())
      std::memcpy(out_.data() + at, frame_.data(), frame_.size());
    for (size_t done = 0; done < bytes;) {
      const ssize_t w = send(fd_, out_.data() + done, bytes - done, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (w > 0) {
        done += size_t(w);
      } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        pollfd p{fd_, short(POLLOUT | (have_ < in_.size() ? POLLIN : 0)), 0};
        if (poll(&p, 1, -1) < 0 && errno != EINTR) return false;
        if ((p.revents & POLLIN) != 0 && !ReadSome(MSG_DONTWAIT)) return false;
      } else if (!(w < 0 && errno == EINTR)) {
        return false;
      }
    }
    return true;
  }

  // The whole frames that arrived, consumed; one blocking read when none has
  // (-1 at the peer's end).
  int Receive() {
    for (;;) {
      if (const int frames = TakeFrames(); frames > 0) return frames;
      if (!ReadSome(0)) return -1;
    }
  }

 private:
  // One read into the buffer; false at the peer's end or an error.
  bool ReadSome(int flags) {
    for (;;) {
      const ssize_t n = recv(fd_, in_.data() + have_, in_.size() - have_, flags);
      if (n > 0) {
        have_ += size_t(n);
        return true;
      }
      if (n < 0 && errno == EINTR) continue;
      return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);  // Nothing there yet.
    }
  }

  // Consumes the whole frames in the buffer; how many.
  int TakeFrames() {
    size_t at = 0;
    int frames = 0;
    while (have_ - at >= 4) {
      uint32_t len;
      std::memcpy(&len, in_.data() + at, 4);
      if (have_ - at < 4 + size_t(len)) break;
      at += 4 + len;
      ++frames;
    }
    if (at > 0) {
      std::memmove(in_.data(), in_.data() + at, have_ - at);
      have_ -= at;
    }
    return frames;
  }

  int fd_;
  std::vector<char> in_;
  std::vector<char> frame_;
  std::vector<char> out_;
  size_t have_ = 0;
};

Status Pin(const std::string& cpus) {
  if (cpus.empty()) return Status::Ok();
  auto list = ParseCpuList(cpus);
  if (!list.ok()) return list.status();
  return PinThisThread(*list);
}

void NoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// The client's loop: o.warmup_seconds unmeasured (the connection's buffers
// grow to their working size, caches and the scheduler settle, as a cell's
// warm-up does), then o.seconds measured; `measuring` tells the server when
// its count starts.
void ClientLoop(FloorSide& side, const FloorOptions& o, std::atomic<bool>* measuring,
                FloorResult* r) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  const auto after = [](Clock::time_point t, double seconds) {
    return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  };
  Clock::time_point end = after(start, o.warmup_seconds);
  double cpu0 = 0;
  bool measured = false;
  if (!side.Send(o.depth)) return;
  for (int k; (k = side.Receive()) >= 0;) {
    if (k == 0) continue;
    if (measured) r->operations += uint64_t(k);
    if (Clock::now() >= end) {
      if (measured) break;
      measured = true;
      measuring->store(true, std::memory_order_relaxed);
      cpu0 = ThreadCpuUs();
      start = Clock::now();
      end = after(start, o.seconds);
    }
    if (!side.Send(k)) break;
  }
  if (!measured) return;
  r->seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r->client_us_per_op = r->operations > 0 ? (ThreadCpuUs() - cpu0) / double(r->operations) : 0;
}

// The server's loop: answers every frame; counts its CPU and the frames it
// answered from when it sees `measuring`.
void ServerLoop(FloorSide& side, const std::atomic<bool>& measuring, double* cpu_us,
                uint64_t* frames) {
  double start = ThreadCpuUs();
  bool measured = false;
  *frames = 0;
  for (int k; (k = side.Receive()) >= 0;) {
    if (k == 0) continue;
    if (!measured && measuring.load(std::memory_order_relaxed)) {
      measured = true;
      start = ThreadCpuUs();
      *frames = 0;
    }
    *frames += uint64_t(k);
    if (!side.Send(k)) break;
  }
  *cpu_us = measured ? ThreadCpuUs() - start : 0;
  if (!measured) *frames = 0;
}

}  // namespace

StatusOr<FloorResult> RunFloor(const FloorOptions& o) {
  if (o.depth < 1 || o.depth > 65536)
    return Status::InvalidArgument("floor: --depth must be 1 to 65536 requests outstanding");
  if (o.request_bytes > kMaxFrameBytes || o.reply_bytes > kMaxFrameBytes)
    return Status::InvalidArgument("floor: requests and replies are at most 16 MiB");
  if (!(o.seconds > 0)) return Status::InvalidArgument("floor: --seconds must be above 0");
  if (!(o.warmup_seconds >= 0))
    return Status::InvalidArgument("floor: --warmup must be 0 or more seconds");
  for (const std::string* cpus : {&o.client_cpus, &o.server_cpus})
    if (!cpus->empty())
      if (auto list = ParseCpuList(*cpus); !list.ok()) return list.status();

  Fd listener(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener.fd < 0 || bind(listener.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listener.fd, 1) != 0 ||
      getsockname(listener.fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    return Status::IoError(std::string("floor: cannot listen on loopback: ") + std::strerror(errno));

  std::atomic<bool> measuring{false};
  double server_cpu_us = 0;
  uint64_t server_frames = 0;
  std::thread server([&] {
    (void)Pin(o.server_cpus);
    Fd conn(accept(listener.fd, nullptr, nullptr));
    if (conn.fd < 0) return;
    NoDelay(conn.fd);
    FloorSide side(conn.fd, o.reply_bytes, o.request_bytes, o.depth);
    ServerLoop(side, measuring, &server_cpu_us, &server_frames);
  });

  FloorResult r;
  Status st = Status::Ok();
  std::thread client([&] {
    (void)Pin(o.client_cpus);
    Fd conn(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (conn.fd < 0 || connect(conn.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      st = Status::IoError(std::string("floor: cannot connect over loopback: ") +
                           std::strerror(errno));
      return;
    }
    NoDelay(conn.fd);
    FloorSide side(conn.fd, o.request_bytes, o.reply_bytes, o.depth);
    ClientLoop(side, o, &measuring, &r);
    shutdown(conn.fd, SHUT_RDWR);
  });
  client.join();
  if (!st.ok()) shutdown(listener.fd, SHUT_RDWR);  // The server's accept returns.
  server.join();
  if (!st.ok()) return st;
  if (r.operations == 0) return Status::Internal("floor: no reply came back over loopback");
  // The server answered the client's last requests too: its cost per frame it answered.
  r.server_us_per_op = server_frames > 0 ? server_cpu_us / double(server_frames) : 0;
  return r;
}

StatusOr<FloorFigure> MeasureFloor(const FloorOptions& o, int runs, int ops_per_request) {
  std::vector<FloorResult> results;
  for (int k = 0; k < runs; ++k) {
    if (StopRequested()) return Status::Aborted("floor: stopped before its runs were done");
    auto r = RunFloor(o);
    if (!r.ok()) return r.status();
    results.push_back(*r);
  }
  if (results.empty()) return Status::InvalidArgument("floor: no run asked for");
  std::sort(results.begin(), results.end(), [](const FloorResult& a, const FloorResult& b) {
    return a.total_us_per_op() < b.total_us_per_op();
  });
  const FloorResult& r = results[results.size() / 2];
  const double per = double(std::max(1, ops_per_request));
  return FloorFigure{r.total_us_per_op() / per, r.client_us_per_op / per, r.server_us_per_op / per,
                     o.request_bytes, o.reply_bytes, o.depth, std::max(1, ops_per_request)};
}

std::string DescribeFloor(const FloorOptions& o, const FloorResult& r) {
  char line[256];
  std::snprintf(line, sizeof line,
                "depth %d, %zu B requests, %zu B replies: %.0f ops/s, client %.3f us/op, "
                "server %.3f us/op, total %.3f us/op",
                o.depth, o.request_bytes, o.reply_bytes, r.ops_per_sec(), r.client_us_per_op,
                r.server_us_per_op, r.total_us_per_op());
  return line;
}

}  // namespace wirebench
