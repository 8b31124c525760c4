#include "bench/mpi/control_channel.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "bench/loadgen/stop_request.h"
#include "common/str_cat.h"

namespace wirebench::mpi {

namespace {

using Clock = std::chrono::steady_clock;

constexpr char kFailure = 'F';
constexpr char kResult = 'R';
constexpr char kStop = 'S';
// Every other rank says it is alive this often; rank 0 takes one silent for
// kSilentLimit as gone (stopped with SIGSTOP, frozen in a debugger, or a
// host that stopped answering): keep-alive cannot see a process that is
// stopped but whose kernel still answers.
constexpr char kAlive = 'A';
constexpr int kAliveEveryMs = 500;
constexpr auto kSilentLimit = std::chrono::seconds(5);
// A stop message's first byte: 'D' a rank died (no collective can complete
// any more), 'F' a rank's run failed (every rank is alive).
constexpr char kDied = 'D';

std::string Errno(const char* what) { return StrCat(what, ": ", std::strerror(errno)); }

// A lost host (no FIN ever comes) is noticed by keep-alive in about 5 s.
void TuneSocket(int fd) {
  int one = 1, idle = 2, interval = 1, count = 3;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
}

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  return true;
}

bool ReadAll(int fd, char* p, size_t n, Clock::time_point deadline) {
  while (n > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd pf{fd, POLLIN, 0};
    if (poll(&pf, 1, int(left.count())) <= 0) continue;
    const ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= size_t(r);
  }
  return true;
}

std::string Frame(char type, const std::string& payload) {
  std::string out(5, '\0');
  out[0] = type;
  const uint32_t n = uint32_t(payload.size());
  for (int i = 0; i < 4; ++i) out[size_t(1 + i)] = char((n >> (8 * i)) & 0xff);
  return out + payload;
}

// Takes the complete messages off the front of `buf`.
template <typename Fn>
void TakeMessages(std::string* buf, Fn&& on_message) {
  for (;;) {
    if (buf->size() < 5) return;
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n |= uint32_t(uint8_t((*buf)[size_t(1 + i)])) << (8 * i);
    if (buf->size() < 5 + size_t(n)) return;
    on_message((*buf)[0], buf->substr(5, n));
    buf->erase(0, 5 + size_t(n));
  }
}

void Wake(int fd) {
  if (fd >= 0) {
    const char c = 1;
    (void)!write(fd, &c, 1);
  }
}

}  // namespace

// ---- rank 0 ----

ControlHub::~ControlHub() { Close(); }

Status ControlHub::Listen() {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return Status::IoError(Errno("--mpi control channel: socket"));
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      listen(listen_fd_, 128) != 0)
    return Status::IoError(Errno("--mpi control channel: cannot listen"));
  socklen_t len = sizeof(a);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  if (pipe2(wake_, O_CLOEXEC) != 0) return Status::IoError(Errno("--mpi control channel: pipe"));
  return Status::Ok();
}

Status ControlHub::AcceptAll(int ranks, uint64_t token, double timeout_s,
                             std::vector<std::string> hosts) {
  hosts_ = std::move(hosts);
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(timeout_s));
  while (int(fds_.size()) < ranks - 1) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    pollfd pf{listen_fd_, POLLIN, 0};
    if (poll(&pf, 1, int(left.count())) <= 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    char hello[12];
    if (!ReadAll(fd, hello, sizeof(hello), Clock::now() + std::chrono::seconds(2))) {
      close(fd);
      continue;
    }
    uint32_t rank = 0;
    uint64_t t = 0;
    std::memcpy(&rank, hello, 4);
    std::memcpy(&t, hello + 4, 8);
    if (t != token || rank == 0 || int(rank) >= ranks || fds_.count(int(rank))) {
      close(fd);  // Not one of this run's ranks.
      continue;
    }
    TuneSocket(fd);
    fds_[int(rank)] = fd;
    ranks_[int(rank)].connected = true;
    last_heard_[int(rank)] = Clock::now();
  }
  close(listen_fd_);
  listen_fd_ = -1;
  if (int(fds_.size()) < ranks - 1) {
    std::string missing;
    for (int r = 1; r < ranks; ++r)
      if (!fds_.count(r))
        missing += StrCat(missing.empty() ? "" : ", ", "rank ", std::to_string(r), " (host ",
                          r < int(hosts_.size()) ? hosts_[size_t(r)] : "?", ")");
    return Status::Unavailable(StrCat(
        "--mpi: ", missing, " did not open its control connection to rank 0 (TCP port ",
        std::to_string(port_),
        " on rank 0's host) within ", std::to_string(int(timeout_s)),
        " s: a firewall between the hosts? Every rank must reach rank 0's host on any TCP port"));
  }
  watcher_ = std::thread([this] { Watch(); });
  return Status::Ok();
}

void ControlHub::StopOthersLocked(const std::string& why, int except) {
  if (first_failure_.empty()) first_failure_ = why;
  const std::string msg = Frame(kStop, std::string(1, any_died_ ? kDied : kFailure) + why);
  for (auto& [rank, fd] : fds_)
    if (rank != except && !ranks_[rank].dead) (void)WriteAll(fd, msg.data(), msg.size());
  RequestStop(StopReason::kRequested);
}

std::string ControlHub::HostOfLocked(int rank) const {
  return rank < int(hosts_.size()) ? hosts_[size_t(rank)] : "?";
}

// A rank silent for kSilentLimit before its result is taken as gone.
void ControlHub::GiveUpSilentRanksLocked() {
  const auto now = Clock::now();
  for (auto& [rank, fd] : fds_) {
    RankState& st = ranks_[rank];
    if (fd < 0 || st.dead || st.has_result || now - last_heard_[rank] < kSilentLimit) continue;
    st.dead = true;
    any_died_ = true;
    StopOthersLocked(
        StrCat(
            "rank ", std::to_string(rank), " (host ", HostOfLocked(rank),
            ") stopped answering: nothing on its control connection to rank 0 for ",
            std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kSilentLimit).count()),
            " s (a stopped or frozen process, or a host that stopped answering); "
            "it is taken as dead"),
        rank);
    close(fd);
    fd = -1;
    cv_.notify_all();
  }
}

// Reads what `rank` sent on `fd` (buffered in *buf until whole messages):
// a failure stops the others, a result is kept; a connection closed before
// the result means the rank died.
void ControlHub::ReadFromRank(int rank, int fd, std::string* buf) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ranks_[rank].dead) return;  // Taken as gone; its socket is closed.
  }
  char data[65536];
  const ssize_t n = read(fd, data, sizeof(data));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  std::lock_guard<std::mutex> lock(mu_);
  RankState& st = ranks_[rank];
  if (n <= 0) {
    // Closed (or reset) before its result: the rank is gone.
    st.dead = !st.has_result;
    if (st.dead) {
      any_died_ = true;
      StopOthersLocked(StrCat("rank ", std::to_string(rank), " (host ", HostOfLocked(rank),
                              ") died: its control connection to rank 0 ",
                              n < 0 ? StrCat("failed (", std::strerror(errno), ")")
                                    : std::string("closed"),
                              " before it sent its result"),
                       rank);
    }
    close(fds_[rank]);
    fds_[rank] = -1;
    cv_.notify_all();
    return;
  }
  last_heard_[rank] = Clock::now();
  buf->append(data, size_t(n));
  TakeMessages(buf, [&](char type, const std::string& payload) {
    if (type == kFailure) {
      st.failure = payload;
      StopOthersLocked(StrCat("rank ", std::to_string(rank), " (host ", HostOfLocked(rank),
                              ") failed: ", payload),
                       rank);
    } else if (type == kResult) {
      st.has_result = true;
      st.result = payload;
    }
  });
  cv_.notify_all();
}

void ControlHub::Watch() {
  std::map<int, std::string> bufs;
  for (;;) {
    std::vector<pollfd> pfs;
    std::vector<int> who;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [rank, fd] : fds_) {
        if (ranks_[rank].dead || fd < 0) continue;
        pfs.push_back({fd, POLLIN, 0});
        who.push_back(rank);
      }
    }
    pfs.push_back({wake_[0], POLLIN, 0});
    if (poll(pfs.data(), pfs.size(), kAliveEveryMs) < 0 && errno != EINTR) return;
    if (pfs.back().revents != 0) return;  // Close().
    {
      std::lock_guard<std::mutex> lock(mu_);
      GiveUpSilentRanksLocked();
    }
    for (size_t i = 0; i + 1 < pfs.size(); ++i)
      if (pfs[i].revents != 0) ReadFromRank(who[i], pfs[i].fd, &bufs[who[i]]);
  }
}

void ControlHub::NextRound() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [rank, st] : ranks_) {
    if (!st.dead && fds_.count(rank) && fds_[rank] < 0) {
      st.dead = true;
      any_died_ = true;
      const std::string host = rank < int(hosts_.size()) ? hosts_[size_t(rank)] : "?";
      StopOthersLocked(StrCat("rank ", std::to_string(rank), " (host ", host,
                              ") died: its control connection to rank 0 closed between runs"),
                       rank);
    }
    st.has_result = false;
    st.result.clear();
  }
}

void ControlHub::WaitForResults(double timeout_s) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] {
    for (auto& [rank, st] : ranks_)
      if (!st.has_result && !st.dead) return false;
    return true;
  });
}

std::string ControlHub::FirstFailure() {
  std::lock_guard<std::mutex> lock(mu_);
  return first_failure_;
}

bool ControlHub::AnyDied() {
  std::lock_guard<std::mutex> lock(mu_);
  return any_died_;
}

void ControlHub::StopOthers(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  StopOthersLocked(why, 0);
}

std::map<int, RankState> ControlHub::Ranks() {
  std::lock_guard<std::mutex> lock(mu_);
  return ranks_;
}

void ControlHub::Close() {
  Wake(wake_[1]);
  if (watcher_.joinable()) watcher_.join();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [rank, fd] : fds_)
    if (fd >= 0) close(fd);
  fds_.clear();
  for (int* fd : {&listen_fd_, &wake_[0], &wake_[1]})
    if (*fd >= 0) {
      close(*fd);
      *fd = -1;
    }
}

// ---- the other ranks ----

ControlLink::~ControlLink() { Close(); }

Status ControlLink::Connect(const std::vector<std::string>& addresses, uint16_t port, int rank,
                            uint64_t token) {
  std::string tried;
  for (const std::string& address : addresses) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    if (inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1) continue;
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return Status::IoError(Errno("--mpi control channel: socket"));
    int rc = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd pf{fd, POLLOUT, 0};
      int err = ETIMEDOUT;
      if (poll(&pf, 1, 2000) == 1) {
        socklen_t len = sizeof(err);
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      }
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    if (rc != 0) {
      tried += StrCat(tried.empty() ? "" : ", ", address, " (", std::strerror(errno), ")");
      close(fd);
      continue;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    TuneSocket(fd);
    char hello[12];
    const uint32_t r = uint32_t(rank);
    std::memcpy(hello, &r, 4);
    std::memcpy(hello + 4, &token, 8);
    if (!WriteAll(fd, hello, sizeof(hello))) {
      close(fd);
      continue;
    }
    fd_ = fd;
    if (pipe2(wake_, O_CLOEXEC) != 0) return Status::IoError(Errno("--mpi control channel: pipe"));
    watcher_ = std::thread([this] { Watch(); });
    return Status::Ok();
  }
  return Status::Unavailable(StrCat("cannot open the control connection to rank 0 on port ",
                                    std::to_string(port), ": tried ", tried));
}

void ControlLink::Watch() {
  std::string buf;
  for (;;) {
    pollfd pfs[2] = {{fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    const int ready = poll(pfs, 2, kAliveEveryMs);
    if (ready < 0 && errno != EINTR) return;
    if (pfs[1].revents != 0) return;
    if (ready == 0) {
      (void)Send(kAlive, "");  // Rank 0 takes a rank silent for long as gone.
      continue;
    }
    if (pfs[0].revents == 0) continue;
    char chunk[4096];
    const ssize_t n = read(fd_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    std::lock_guard<std::mutex> lock(mu_);
    if (n <= 0) {
      closed_ = true;
      if (stop_reason_.empty()) stop_reason_ = "rank 0 is gone (its control connection closed)";
      RequestStop(StopReason::kRequested);
      cv_.notify_all();
      return;
    }
    buf.append(chunk, size_t(n));
    TakeMessages(&buf, [&](char type, const std::string& payload) {
      if (type != kStop || payload.empty()) return;
      if (payload[0] == kDied) peer_died_ = true;
      if (stop_reason_.empty()) stop_reason_ = payload.substr(1);
      RequestStop(StopReason::kRequested);
    });
    cv_.notify_all();
  }
}

Status ControlLink::Send(char type, const std::string& payload) {
  std::lock_guard<std::mutex> lock(write_mu_);
  const std::string msg = Frame(type, payload);
  if (fd_ < 0 || !WriteAll(fd_, msg.data(), msg.size()))
    return Status::Unavailable(Errno("--mpi: cannot send to rank 0"));
  return Status::Ok();
}

void ControlLink::SendFailure(const std::string& why) { (void)Send(kFailure, why); }

Status ControlLink::SendResult(const std::string& doc) { return Send(kResult, doc); }

std::string ControlLink::StopReason() {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_reason_;
}

bool ControlLink::PeerDied() {
  std::lock_guard<std::mutex> lock(mu_);
  return peer_died_ || closed_;
}

bool ControlLink::RankDied() {
  std::lock_guard<std::mutex> lock(mu_);
  return peer_died_;
}

bool ControlLink::Rank0Gone() {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

void ControlLink::WaitForClose(double timeout_s) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return closed_; });
}

void ControlLink::Close() {
  Wake(wake_[1]);
  if (watcher_.joinable()) watcher_.join();
  for (int* fd : {&fd_, &wake_[0], &wake_[1]})
    if (*fd >= 0) {
      close(*fd);
      *fd = -1;
    }
}

}  // namespace wirebench::mpi
