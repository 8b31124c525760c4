#include "transports/grpc/socket_counter.h"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <mutex>

#include <grpc/support/sync.h>
#include <grpcpp/support/channel_arguments.h>

// gRPC 1.51's socket mutator (src/core/lib/iomgr/socket_mutator.h): the
// layout of these structs and the C++-linkage init function must match it.
struct grpc_mutate_socket_info;
struct grpc_socket_mutator_vtable {
  bool (*mutate_fd)(int fd, grpc_socket_mutator* mutator);
  int (*compare)(grpc_socket_mutator* a, grpc_socket_mutator* b);
  void (*destroy)(grpc_socket_mutator* mutator);
  bool (*mutate_fd_2)(const grpc_mutate_socket_info* info, grpc_socket_mutator* mutator);
};
struct grpc_socket_mutator {
  const grpc_socket_mutator_vtable* vtable;
  gpr_refcount refcount;
};
void grpc_socket_mutator_init(grpc_socket_mutator* mutator,
                              const grpc_socket_mutator_vtable* vtable);

namespace wirebench::grpcrpc {

struct SocketCounter::State {
  std::mutex mu;
  int fd = -1;
  uint64_t done_out = 0, done_in = 0;  // Totals of sockets replaced since.
  uint64_t last_out = 0, last_in = 0;  // Last reading of the current socket.
  bool seen = false;
};

namespace {

struct CountingMutator {
  grpc_socket_mutator base;  // First: gRPC casts between the two.
  std::shared_ptr<SocketCounter::State> state;
};

bool ReadTcpInfo(int fd, uint64_t* out, uint64_t* in) {
  tcp_info info{};
  socklen_t len = sizeof(info);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return false;
  if (len < offsetof(tcp_info, tcpi_bytes_received) + sizeof(info.tcpi_bytes_received))
    return false;
  *out = info.tcpi_bytes_acked;
  *in = info.tcpi_bytes_received;
  return true;
}

bool MutateFd(int fd, grpc_socket_mutator* m) {
  auto* self = reinterpret_cast<CountingMutator*>(m);
  SocketCounter::State& s = *self->state;
  std::lock_guard<std::mutex> lock(s.mu);
  // A new socket for the channel (first connect or reconnect): bank the
  // previous socket's last reading.
  s.done_out += s.last_out;
  s.done_in += s.last_in;
  s.last_out = s.last_in = 0;
  s.fd = fd;
  s.seen = true;
  return true;
}

int Compare(grpc_socket_mutator* a, grpc_socket_mutator* b) { return a < b ? -1 : (a > b ? 1 : 0); }

void Destroy(grpc_socket_mutator* m) { delete reinterpret_cast<CountingMutator*>(m); }

const grpc_socket_mutator_vtable kVtable = {MutateFd, Compare, Destroy, nullptr};

}  // namespace

SocketCounter::SocketCounter() : state_(std::make_shared<State>()) {}
SocketCounter::~SocketCounter() = default;

void SocketCounter::InstallIn(grpc::ChannelArguments* args) {
  auto* m = new CountingMutator;
  m->state = state_;
  grpc_socket_mutator_init(&m->base, &kVtable);
  args->SetSocketMutator(&m->base);  // Takes our reference.
}

SocketBytes SocketCounter::Read() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  State& s = *state_;
  SocketBytes b;
  if (!s.seen) return b;
  uint64_t out = 0, in = 0;
  // The fd may have been closed (and even reused) since: a reading that
  // goes backwards is not this connection's, so keep the last one.
  if (s.fd >= 0 && ReadTcpInfo(s.fd, &out, &in) && out >= s.last_out && in >= s.last_in) {
    s.last_out = out;
    s.last_in = in;
  }
  b.available = true;
  b.bytes_out = s.done_out + s.last_out;
  b.bytes_in = s.done_in + s.last_in;
  return b;
}

}  // namespace wirebench::grpcrpc
